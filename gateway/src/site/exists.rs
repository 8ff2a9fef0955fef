//! The site's `_exists` file: pages that show one row answer a real 404 when the row is not there
//! for a visitor. One rule a line, `FROM QUERY`: FROM is a path with `:name` segments (as in
//! `_redirects`), QUERY a REST read (what follows `/rest/v1/`) that may use them, e.g.
//! `/product/:id  products?id=eq.:id&select=id`. A page path that matches, served as the SPA's
//! index with 200, is read first as `anon` (row level security applies, so a hidden row is as
//! missing as a deleted one): no row, or a value the column cannot hold, answers 404 with the
//! same index (the app still shows its not-found page). Values are bounded (1 to
//! [`MAX_VALUE`] letters, digits, `-`, `_`, `.`, `~`; anything else answers 404 unread) and only
//! ever reach SQL as bound parameters, through the REST engine. When the read fails otherwise (the
//! database away, a rule naming a table anon cannot read) the page is served as before and the
//! failure logged.

use std::collections::HashMap;

/// The longest path value a rule reads with.
pub const MAX_VALUE: usize = 100;
/// Rules a site may have.
const MAX_RULES: usize = 100;
/// The longest query a rule may have.
const MAX_QUERY: usize = 500;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Literal segments (Some) and `:name` segments (None, named in `names`).
    from: Vec<Option<String>>,
    names: Vec<String>,
    /// The REST path (a table or view, `schema` chosen by the API's default).
    path: String,
    /// The query's pairs, decoded, with `:name` still in their values.
    query: Vec<(String, String)>,
}

/// What a matching rule reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// Read `path` with these pairs (values put in, `limit=1` added when the rule has none).
    Read {
        path: String,
        query: Vec<(String, String)>,
    },
    /// A value outside the bounds: no row can be named by it.
    Missing,
}

/// The rules of an `_exists` text, and a note for each line that is not one.
pub fn parse(text: &str) -> (Vec<Rule>, Vec<String>) {
    let mut rules = Vec::new();
    let mut notes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if rules.len() == MAX_RULES {
            notes.push(format!(
                "line {}: more than {MAX_RULES} rules; the rest are skipped",
                n + 1
            ));
            break;
        }
        match rule(line) {
            Ok(r) => rules.push(r),
            Err(e) => notes.push(format!("line {}: {e}", n + 1)),
        }
    }
    (rules, notes)
}

/// Why a line of `_exists` is not a rule (the text of its note).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("a rule is a path and a REST query (`/product/:id  products?id=eq.:id`)")]
    Shape,
    #[error("{0}: the path starts with /")]
    Relative(String),
    #[error("{0}: a :name is letters, digits and _")]
    BadName(String),
    #[error("* splats are not read (name the segment)")]
    Splat,
    #[error("{0}: no :name segment to read with")]
    NoName(String),
    #[error("the query is longer than {max} characters", max = MAX_QUERY)]
    LongQuery,
    #[error("{0}: the query reads a table or view by name (letters, digits, _)")]
    NotTable(String),
    /// A `:name` in the query that the path has no segment for (the name, the path).
    #[error(":{0} is not a segment of {1}")]
    Unbound(String, String),
}

fn rule(line: &str) -> Result<Rule, RuleError> {
    let parts: Vec<&str> = line.split_whitespace().collect();
    let [from, query] = parts.as_slice() else {
        return Err(RuleError::Shape);
    };
    if !from.starts_with('/') {
        return Err(RuleError::Relative(from.to_string()));
    }
    let mut segments = Vec::new();
    let mut names = Vec::new();
    for s in from.split('/').filter(|s| !s.is_empty()) {
        match s.strip_prefix(':') {
            Some(name) if is_word(name) => {
                names.push(name.to_string());
                segments.push(None);
            }
            Some(_) => return Err(RuleError::BadName(s.to_string())),
            None if s.contains('*') => return Err(RuleError::Splat),
            None => segments.push(Some(s.to_string())),
        }
    }
    if names.is_empty() {
        return Err(RuleError::NoName(from.to_string()));
    }
    if query.len() > MAX_QUERY {
        return Err(RuleError::LongQuery);
    }
    let (path, q) = query.split_once('?').unwrap_or((query, ""));
    let path = path.trim_start_matches('/').trim_start_matches("rest/v1/");
    if path.is_empty()
        || path.starts_with("rpc/")
        || !path.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(RuleError::NotTable(path.to_string()));
    }
    let pairs = crate::http_util::query_pairs(q);
    for (_, v) in &pairs {
        for used in v.split(':').skip(1) {
            let used: String = used
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !used.is_empty() && !names.contains(&used) {
                return Err(RuleError::Unbound(used, from.to_string()));
            }
        }
    }
    Ok(Rule {
        from: segments,
        names,
        path: path.to_string(),
        query: pairs,
    })
}

fn is_word(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A value a rule may read with.
fn bounded(v: &str) -> bool {
    (1..=MAX_VALUE).contains(&v.len())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
}

/// What the first rule matching `path` reads (None: no rule matches).
pub fn check(rules: &[Rule], path: &str) -> Option<Check> {
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let (rule, values) = rules.iter().find_map(|r| {
        if parts.len() != r.from.len() {
            return None;
        }
        let mut values = HashMap::new();
        let mut names = r.names.iter();
        for (seg, part) in r.from.iter().zip(&parts) {
            match seg {
                Some(l) if l != part => return None,
                Some(_) => {}
                None => {
                    values.insert(names.next()?.as_str(), *part);
                }
            }
        }
        Some((r, values))
    })?;
    if !values.values().all(|v| bounded(v)) {
        return Some(Check::Missing);
    }
    // Longer names first, so `:idx` is not cut short by an `:id` segment.
    let mut names: Vec<&&str> = values.keys().collect();
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let mut query: Vec<(String, String)> = rule
        .query
        .iter()
        .map(|(k, v)| {
            let mut v = v.clone();
            for n in &names {
                v = v.replace(&format!(":{n}"), values[**n]);
            }
            (k.clone(), v)
        })
        .collect();
    if !query.iter().any(|(k, _)| k == "limit") {
        query.push(("limit".into(), "1".into()));
    }
    Some(Check::Read {
        path: rule.path.clone(),
        query,
    })
}

/// What a REST read's error says of the row: a value the column's type cannot hold (an id that
/// is no uuid, a number out of range) names no row; anything else is not an answer.
pub fn names_no_row(code: &str) -> bool {
    // invalid_text_representation, numeric_value_out_of_range, invalid_datetime_format,
    // datetime_field_overflow, character_not_in_repertoire, invalid_parameter_value.
    matches!(
        code,
        "22P02" | "22003" | "22007" | "22008" | "22021" | "22023"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_what_they_read() {
        let (rules, notes) = parse(
            "# pages of one row\n\
             /product/:id          products?id=eq.:id&select=id\n\
             /shop/:shop/item/:idx /rest/v1/items?shop=eq.:shop&id=eq.:idx&select=id&limit=1\n\
             /a/:x                 things?x=eq.:y\n\
             /b/*                  things\n\
             /c/:x                 rpc/thing?x=:x\n\
             /d/:x                 \"things\";?x=eq.:x\n\
             /e                    things?x=eq.1\n\
             lonely\n",
        );
        assert_eq!(rules.len(), 2, "{notes:?}");
        assert_eq!(
            notes,
            [
                "line 4: :y is not a segment of /a/:x",
                "line 5: * splats are not read (name the segment)",
                "line 6: rpc/thing: the query reads a table or view by name (letters, digits, _)",
                "line 7: \"things\";: the query reads a table or view by name (letters, digits, _)",
                "line 8: /e: no :name segment to read with",
                "line 9: a rule is a path and a REST query (`/product/:id  products?id=eq.:id`)",
            ]
        );
        let read = |path: &str, query: &[(&str, &str)]| {
            Some(Check::Read {
                path: path.into(),
                query: query
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            })
        };
        let uuid = "2f1c3a9e-0b7d-4c55-9e43-0d5b8f6a7c21";
        let long = "a".repeat(MAX_VALUE + 1);
        let cases = [
            (
                format!("/product/{uuid}"),
                read(
                    "products",
                    &[
                        ("id", &format!("eq.{uuid}")),
                        ("select", "id"),
                        ("limit", "1"),
                    ],
                ),
            ),
            (
                "/shop/north/item/7".to_string(),
                read(
                    "items",
                    &[
                        ("shop", "eq.north"),
                        ("id", "eq.7"),
                        ("select", "id"),
                        ("limit", "1"),
                    ],
                ),
            ),
            // What could change the query never reaches it.
            ("/product/1,2".to_string(), Some(Check::Missing)),
            ("/product/a%26id%3Dneq.0".to_string(), Some(Check::Missing)),
            ("/product/(x)".to_string(), Some(Check::Missing)),
            (format!("/product/{long}"), Some(Check::Missing)),
            ("/product".to_string(), None),
            ("/product/1/more".to_string(), None),
            ("/flowers".to_string(), None),
        ];
        for (path, outcome) in cases {
            assert_eq!(check(&rules, &path), outcome, "{path}");
        }
    }

    #[test]
    fn only_type_errors_name_no_row() {
        assert!(names_no_row("22P02"));
        assert!(!names_no_row("42501"));
        assert!(!names_no_row("PGRST205"));
    }
}
