//! A site's `_headers` file, in the format Netlify and Cloudflare Pages read: a path pattern on
//! a line of its own, then indented `Name: value` lines that responses to matching paths carry.
//! `*` matches any run of characters. A site sets its Content-Security-Policy and framing rules
//! here, next to the code that needs them.
//!
//! ```text
//! /*
//!   Content-Security-Policy: default-src 'self'
//! /admin*
//!   X-Frame-Options: DENY
//! ```

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub pattern: String,
    pub headers: Vec<(String, String)>,
}

/// Parses the file; returns the rules and a note for each line it could not read.
pub fn parse(text: &str) -> (Vec<Rule>, Vec<String>) {
    let mut rules: Vec<Rule> = Vec::new();
    let mut notes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if !line.starts_with([' ', '\t']) {
            if trimmed.starts_with('/') {
                rules.push(Rule {
                    pattern: trimmed.to_string(),
                    headers: Vec::new(),
                });
            } else {
                notes.push(format!("line {}: a path pattern starts with /", n + 1));
            }
            continue;
        }
        match (rules.last_mut(), trimmed.split_once(':')) {
            (Some(rule), Some((name, value)))
                if actix_web::http::header::HeaderName::from_bytes(name.trim().as_bytes())
                    .is_ok()
                    && actix_web::http::header::HeaderValue::from_str(value.trim()).is_ok() =>
            {
                rule.headers
                    .push((name.trim().to_string(), value.trim().to_string()));
            }
            _ => notes.push(format!(
                "line {}: expected `Name: value` under a path",
                n + 1
            )),
        }
    }
    (rules, notes)
}

/// Whether `path` matches `pattern` (`*` is any run of characters, everything else literal).
pub fn matches(pattern: &str, path: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == path;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !path.starts_with(first) || !path[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &path[first.len()..path.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    path.len() >= first.len() + last.len()
}

/// The headers for `path`: every matching rule's, a later rule's value replacing an earlier one.
pub fn for_path<'r>(rules: &'r [Rule], path: &str) -> Vec<(&'r str, &'r str)> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for rule in rules.iter().filter(|r| matches(&r.pattern, path)) {
        for (k, v) in &rule.headers {
            out.retain(|(name, _)| !name.eq_ignore_ascii_case(k));
            out.push((k, v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_match_and_override() {
        let (rules, notes) = parse(
            "# comment\n/*\n  Content-Security-Policy: default-src 'self'\n  X-Frame-Options: SAMEORIGIN\n/admin*\n  X-Frame-Options: DENY\nnonsense\n  Bad Header: x\n",
        );
        assert_eq!(rules.len(), 2);
        assert_eq!(notes.len(), 2, "{notes:?}");
        let h = for_path(&rules, "/admin/products");
        assert_eq!(
            h,
            [
                ("Content-Security-Policy", "default-src 'self'"),
                ("X-Frame-Options", "DENY")
            ]
        );
        assert_eq!(for_path(&rules, "/")[1], ("X-Frame-Options", "SAMEORIGIN"));
        assert!(matches("/assets/*.js", "/assets/index-abc.js"));
        assert!(!matches("/assets/*.js", "/assets/index.css"));
        assert!(matches("/auth", "/auth"));
        assert!(!matches("/auth", "/authx"));
        assert!(matches("/a*b*c", "/aXbYc"));
        assert!(!matches("/ab*ba", "/aba"));
    }
}
