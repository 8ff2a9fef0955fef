//! SQL identifiers and literals as PostgreSQL's `quote_ident` and `quote_literal` write them.

/// `"name"` with inner quotes doubled (always quoted: mixed case and keywords stay as they are).
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `"schema"."name"`.
pub fn qualified(schema: &str, name: &str) -> String {
    format!("{}.{}", quote(schema), quote(name))
}

/// A name PostgreSQL can hold: not empty, at most 63 bytes, no NUL.
pub fn valid(name: &str) -> bool {
    !name.is_empty() && name.len() <= 63 && !name.contains('\0')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_as_quote_ident() {
        assert_eq!(quote("orders"), "\"orders\"");
        assert_eq!(quote("Odd \"name\""), "\"Odd \"\"name\"\"\"");
        assert_eq!(qualified("public", "My Table"), "\"public\".\"My Table\"");
        assert!(valid("a") && !valid("") && !valid(&"x".repeat(64)) && !valid("a\0b"));
    }
}
