//! Sizes as the Supabase CLI reads them from config.toml ("50MiB", "5MB", "500KB", "1024"): the
//! number times a binary unit, whatever the case and with or without the `i`, so "20mb" is
//! 20 × 1024 × 1024 bytes.

/// Parses a CLI size; None when it is not one.
pub fn parse_size(text: &str) -> Option<u64> {
    let s = text.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    if number.is_empty() || number.starts_with('.') || number.ends_with('.') {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    let unit = unit.strip_prefix(' ').unwrap_or(unit).to_ascii_lowercase();
    let mut chars = unit.chars();
    let power = match chars.next() {
        None => 0,
        Some('b') if unit.len() == 1 => 0,
        Some(c) => {
            let p = "kmgtp".find(c)? as i32 + 1;
            let rest = chars.as_str();
            if !matches!(rest, "" | "b" | "i" | "ib") {
                return None;
            }
            p
        }
    };
    let bytes = value * 1024f64.powi(power);
    (bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn binary_units_whatever_the_spelling() {
        assert_eq!(parse_size("50MiB"), Some(50 * 1024 * 1024));
        assert_eq!(parse_size("20mb"), Some(20_971_520));
        assert_eq!(parse_size("5MB"), Some(5 * 1024 * 1024));
        assert_eq!(parse_size("500KB"), Some(500 * 1024));
        assert_eq!(parse_size("1k"), Some(1024));
        assert_eq!(parse_size("1.5GB"), Some(1_610_612_736));
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("10 MB"), Some(10 * 1024 * 1024));
        assert_eq!(parse_size("7b"), Some(7));
    }

    #[test]
    fn nonsense_is_refused() {
        for bad in [
            "", "MB", "ten", "5XB", "5MBs", "-5MB", ".5MB", "5.MB", "5MiBB",
        ] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
