//! URLs as pgsql-http hands them to curl: `http` and `https` only (curl is told
//! `CURLOPT_PROTOCOLS_STR "http,https"`), no scheme meaning `http`, the path and query sent as
//! written, the fragment never sent, and a redirect's `Location` resolved against the URL it
//! answered (RFC 3986 section 5, with curl's encoding of spaces and bytes above 0x7f).

use crate::Error;
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// The host part of a URL.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Host {
    /// A name, lowercase (resolved when connecting).
    Name(String),
    V4(Ipv4Addr),
    V6(Ipv6Addr),
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Name(n) => f.write_str(n),
            Host::V4(a) => write!(f, "{a}"),
            Host::V6(a) => write!(f, "[{a}]"),
        }
    }
}

/// An `http` or `https` URL, ready to be requested.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    pub https: bool,
    /// `user:password` as written (percent-encoded).
    pub userinfo: Option<String>,
    pub host: Host,
    pub port: u16,
    /// The request target: the path (at least `/`) and the query, as written.
    pub target: String,
}

/// curl's text for a URL it cannot use.
const MALFORMED: &str = "URL using bad/illegal format or missing URL";

fn malformed() -> Error {
    Error::new(MALFORMED)
}

impl Url {
    /// Reads a URL as curl does for pgsql-http.
    pub fn parse(text: &str) -> Result<Url, Error> {
        if text.is_empty() || text.bytes().any(|b| b <= b' ' || b == 0x7f) {
            return Err(malformed());
        }
        let (https, rest) = match scheme_of(text) {
            Some((scheme, rest)) => match scheme.to_ascii_lowercase().as_str() {
                "http" => (false, rest),
                "https" => (true, rest),
                _ => {
                    return Err(Error::new(format!(
                        "Protocol \"{scheme}\" not supported or disabled in libcurl"
                    )));
                }
            },
            // curl guesses the scheme of a URL without one: http.
            None => (false, text),
        };
        let rest = rest.strip_prefix("//").unwrap_or(rest);
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        let (userinfo, hostport) = match authority.rfind('@') {
            Some(i) => (Some(authority[..i].to_string()), &authority[i + 1..]),
            None => (None, authority),
        };
        let (host, port) = split_host_port(hostport)?;
        let port = match port {
            None | Some("") => {
                if https {
                    443
                } else {
                    80
                }
            }
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0 && p.to_string().len() <= 5)
                .ok_or_else(|| {
                    Error::new("Port number was not a decimal number between 0 and 65535")
                })?,
        };
        let tail = tail.split('#').next().unwrap_or("");
        let target = if tail.starts_with('/') {
            tail.to_string()
        } else {
            format!("/{tail}")
        };
        Ok(Url {
            https,
            userinfo,
            host,
            port,
            target,
        })
    }

    /// The `Host` header: the host, and the port when it is not the scheme's.
    pub fn host_header(&self) -> String {
        if self.port == self.default_port() {
            self.host.to_string()
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    fn default_port(&self) -> u16 {
        if self.https { 443 } else { 80 }
    }

    /// The path alone (without the query).
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("/")
    }

    /// The URL a redirect's `Location` names, read relative to this one.
    pub fn join(&self, location: &str) -> Result<Url, Error> {
        let location = encode_for_redirect(location.trim());
        if location.is_empty() {
            return Err(malformed());
        }
        if scheme_of(&location).is_some() {
            return Url::parse(&location);
        }
        let scheme = if self.https { "https" } else { "http" };
        if let Some(rest) = location.strip_prefix("//") {
            return Url::parse(&format!("{scheme}://{rest}"));
        }
        let location = location.split('#').next().unwrap_or("");
        let target = if location.starts_with('/') {
            location.to_string()
        } else if location.starts_with('?') {
            format!("{}{location}", self.path())
        } else if location.is_empty() {
            self.target.clone()
        } else {
            let base = self.path();
            let dir = &base[..base.rfind('/').map_or(0, |i| i + 1)];
            format!("{dir}{location}")
        };
        let (path, query) = match target.find('?') {
            Some(i) => (&target[..i], &target[i..]),
            None => (target.as_str(), ""),
        };
        Ok(Url {
            target: format!("{}{query}", remove_dot_segments(path)),
            ..self.clone()
        })
    }
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.https { "https" } else { "http" };
        write!(f, "{scheme}://{}{}", self.host_header(), self.target)
    }
}

/// `scheme` and what follows `scheme:` when the text starts with one (RFC 3986: a letter, then
/// letters, digits, `+`, `-`, `.`); for a URL without `//` after the colon, only when the rest
/// could not be a port (`localhost:8080` is a host and port, as curl reads it).
fn scheme_of(text: &str) -> Option<(&str, &str)> {
    let colon = text.find(':')?;
    let scheme = &text[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic()
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    let rest = &text[colon + 1..];
    if rest.starts_with("//") {
        return Some((scheme, rest));
    }
    let port_like = rest
        .split(['/', '?', '#'])
        .next()
        .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()));
    (!port_like).then_some((scheme, rest))
}

/// Splits `host[:port]` (an IPv6 address in brackets).
fn split_host_port(hostport: &str) -> Result<(Host, Option<&str>), Error> {
    if let Some(rest) = hostport.strip_prefix('[') {
        let close = rest.find(']').ok_or_else(malformed)?;
        let inner = &rest[..close];
        // A zone id (fe80::1%25eth0) is not used: link-local addresses are refused anyway.
        let addr: Ipv6Addr = inner.parse().map_err(|_| malformed())?;
        let after = &rest[close + 1..];
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(malformed()),
        };
        return Ok((Host::V6(addr), port));
    }
    let (host, port) = match hostport.rfind(':') {
        Some(i) => (&hostport[..i], Some(&hostport[i + 1..])),
        None => (hostport, None),
    };
    if host.is_empty() {
        return Err(Error::new("No host part in the URL"));
    }
    if let Ok(v4) = host.parse::<Ipv4Addr>() {
        return Ok((Host::V4(v4), port));
    }
    if !host.is_ascii() {
        return Err(Error::new(format!(
            "Could not resolve host: {host} (supagate's http reads international domain names \
             in their ASCII form only, xn--...)"
        )));
    }
    if !host
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~%!$&'()*+,;=".contains(&b))
    {
        return Err(malformed());
    }
    Ok((Host::Name(host.to_ascii_lowercase()), port))
}

/// curl's treatment of a `Location`: spaces become `%20`, bytes above 0x7f `%XX`.
fn encode_for_redirect(location: &str) -> String {
    let mut out = String::with_capacity(location.len());
    for b in location.bytes() {
        if b == b' ' || b == 0x7f || !(0x20..0x80).contains(&b) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

/// RFC 3986 section 5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_read_as_curl_reads_them() {
        // (url, https, host, port, target)
        let cases: &[(&str, bool, &str, u16, &str)] = &[
            ("http://example.com", false, "example.com", 80, "/"),
            (
                "https://Example.COM/a/b?x=1#frag",
                true,
                "example.com",
                443,
                "/a/b?x=1",
            ),
            ("example.com/path", false, "example.com", 80, "/path"),
            ("localhost:8080/x", false, "localhost", 8080, "/x"),
            ("http://127.0.0.1:54321?q", false, "127.0.0.1", 54321, "/?q"),
            ("http://[::1]:8080/", false, "[::1]", 8080, "/"),
            ("HTTPS://[2001:db8::1]/", true, "[2001:db8::1]", 443, "/"),
            (
                "http://user:pw@host.test:81/p",
                false,
                "host.test",
                81,
                "/p",
            ),
            ("http://127.1/", false, "127.1", 80, "/"),
        ];
        for (text, https, host, port, target) in cases {
            let u = Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(
                (u.https, u.host.to_string(), u.port, u.target.as_str()),
                (*https, host.to_string(), *port, *target),
                "{text}"
            );
        }
        assert_eq!(
            Url::parse("http://user:pw@h/").unwrap().userinfo.as_deref(),
            Some("user:pw")
        );
        assert_eq!(Url::parse("http://h:80/x").unwrap().host_header(), "h");
        assert_eq!(Url::parse("https://h:80/x").unwrap().host_header(), "h:80");
    }

    #[test]
    fn urls_curl_refuses_are_refused_with_its_words() {
        let cases: &[(&str, &str)] = &[
            ("ftp://example.com/", "Protocol \"ftp\" not supported"),
            ("file:///etc/passwd", "Protocol \"file\" not supported"),
            ("gopher://x/", "Protocol \"gopher\" not supported"),
            ("http://exa mple.com/", MALFORMED),
            ("", MALFORMED),
            ("http://x:99999/", "Port number"),
            ("http://x:0/", "Port number"),
            ("http://x:8a/", "Port number"),
            ("http:///path", "No host part"),
            ("http://[::1/", MALFORMED),
            ("http://bücher.example/", "ASCII form"),
            ("http://a\"b/", MALFORMED),
        ];
        for (text, words) in cases {
            let e = Url::parse(text).unwrap_err().to_string();
            assert!(e.contains(words), "{text}: {e}");
        }
    }

    #[test]
    fn redirects_are_resolved_against_the_url_they_answer() {
        let base = Url::parse("https://httpbin.org/redirect-to?url=get").unwrap();
        let cases: &[(&str, &str)] = &[
            ("get", "https://httpbin.org/get"),
            ("/abs/x?y=1", "https://httpbin.org/abs/x?y=1"),
            ("?z", "https://httpbin.org/redirect-to?z"),
            ("//other.test/p", "https://other.test/p"),
            ("http://third.test:8080/q#f", "http://third.test:8080/q"),
            ("../../up", "https://httpbin.org/up"),
            ("a/./b/../c", "https://httpbin.org/a/c"),
            ("with space", "https://httpbin.org/with%20space"),
        ];
        for (location, want) in cases {
            assert_eq!(
                base.join(location).unwrap().to_string(),
                *want,
                "{location}"
            );
        }
        let deep = Url::parse("http://h/a/b/c").unwrap();
        assert_eq!(deep.join("d").unwrap().target, "/a/b/d");
        assert_eq!(deep.join("./").unwrap().target, "/a/b/");
        assert_eq!(deep.join("..").unwrap().target, "/a/");
        assert!(base.join("ftp://x/").is_err());
    }
}
