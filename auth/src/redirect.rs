//! Where a flow may send the browser back to, as GoTrue decides it: the site (same scheme and
//! host; any port on loopback), a loopback address, or a pattern of `additional_redirect_urls`
//! (`*` within a host label or path segment, `**` across them, `?` one character).

use crate::config::AuthConfig;
use url::Url;

fn glob(pattern: &[u8], s: &[u8]) -> bool {
    let sep = |c: u8| c == b'.' || c == b'/';
    match pattern.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) if rest.first() == Some(&b'*') => {
            let rest = &rest[1..];
            (0..=s.len()).any(|i| glob(rest, &s[i..]))
        }
        Some((b'*', rest)) => {
            let run = s.iter().position(|&c| sep(c)).unwrap_or(s.len());
            (0..=run).any(|i| glob(rest, &s[i..]))
        }
        Some((b'?', rest)) => s.first().is_some_and(|&c| !sep(c)) && glob(rest, &s[1..]),
        Some((c, rest)) => s.first() == Some(c) && glob(rest, &s[1..]),
    }
}

fn regular_hostname(h: &str) -> bool {
    let b = h.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'.' || *c == b'-')
}

fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .trim_matches(|c| c == '[' || c == ']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

pub fn is_allowed(cfg: &AuthConfig, redirect: &str) -> bool {
    if redirect.is_empty() {
        return false;
    }
    let (Ok(base), Ok(to)) = (Url::parse(&cfg.site_url), Url::parse(redirect)) else {
        return false;
    };
    let host = to.host_str().unwrap_or("");
    // Decimal addresses ("http://2130706433/") are refused as written, before a URL parser
    // turns them into dotted ones.
    let written = redirect
        .split_once("://")
        .map(|(_, rest)| rest.split(['/', ':', '?', '#']).next().unwrap_or(""))
        .unwrap_or("");
    if !written.is_empty() && written.bytes().all(|c| c.is_ascii_digit()) {
        return false;
    }
    if base.host_str() == to.host_str()
        && base.scheme() == to.scheme()
        && (base.port_or_known_default() == to.port_or_known_default() || is_loopback(host))
    {
        return true;
    }
    let http = matches!(to.scheme(), "http" | "https");
    if let Ok(ip) = host
        .trim_matches(|c| c == '[' || c == ']')
        .parse::<std::net::IpAddr>()
    {
        return ip.is_loopback();
    }
    if http && !regular_hostname(host) {
        return false;
    }
    let without_fragment = redirect.split('#').next().unwrap_or(redirect);
    cfg.additional_redirect_urls
        .iter()
        .any(|p| glob(p.as_bytes(), without_fragment.as_bytes()))
}

/// The redirect a request asked for when it is allowed, else the site URL.
/// A value for a URL's query or fragment (`application/x-www-form-urlencoded`).
pub fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

pub fn resolve(cfg: &AuthConfig, asked: Option<&str>) -> String {
    match asked {
        Some(r) if is_allowed(cfg, r) => r.to_string(),
        _ => cfg.site_url.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_host_and_path_separators() {
        let g = |p: &str, s: &str| glob(p.as_bytes(), s.as_bytes());
        assert!(g("https://*.example.com/**", "https://app.example.com/a/b"));
        assert!(!g("https://*.example.com", "https://a.b.example.com"));
        assert!(g("https://**.example.com", "https://a.b.example.com"));
        assert!(g("http://localhost:300?", "http://localhost:3001"));
        assert!(!g("https://example.com/*", "https://example.com/a/b"));
    }

    #[test]
    fn redirects_back_to_the_site_loopback_and_listed_urls() {
        let cfg = crate::test_config(&["https://app.example.com/**", "myapp://callback"]);
        for ok in [
            "http://127.0.0.1:3000/welcome",
            "http://127.0.0.1:5173/x",
            "https://app.example.com/done",
            "myapp://callback",
        ] {
            assert!(is_allowed(&cfg, ok), "{ok}");
        }
        for no in [
            "http://localhost:8080",
            "https://evil.example.org",
            "http://2130706433/",
            "",
            "not a url",
        ] {
            assert!(!is_allowed(&cfg, no), "{no}");
        }
        assert_eq!(
            resolve(&cfg, Some("https://evil.example.org")),
            cfg.site_url
        );
    }
}
