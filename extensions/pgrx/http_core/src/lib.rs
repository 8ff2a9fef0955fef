//! The HTTP client of supagate's http extension (`extensions/pgrx/http`, pgsql-http 1.6): what
//! pgsql-http asks of libcurl, written in plain Rust without PostgreSQL so it can be tested on
//! its own. [`url`] reads URLs as curl does, [`reach`] is the rule of where the database's
//! requests may go (pg_net's), [`client`] makes one request (HTTP/1.1 over TCP or rustls, with
//! redirects, timeouts, interruption and bounded answers), and [`urlencode`] is pgsql-http's
//! encoding of form values.

#![forbid(unsafe_code)]

pub mod client;
pub mod reach;
pub mod url;

/// A failed request, with the words curl would have used where it has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(String);

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

/// pgsql-http's `urlencode`: bytes up to the first NUL, a space as `+`, `A-Z a-z 0-9 - . _ ~`
/// as they are, every other byte as `%XX` (uppercase hex).
pub fn urlencode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for &b in bytes {
        match b {
            0 => break,
            b' ' => out.push('+'),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('%');
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 15)] as char);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urlencode_is_pgsql_http_s() {
        let cases: &[(&[u8], &str)] = &[
            (
                b"my special string's & things?",
                "my+special+string%27s+%26+things%3F",
            ),
            (b"", ""),
            (b"AZaz09-._~", "AZaz09-._~"),
            (b"/+=%", "%2F%2B%3D%25"),
            ("é".as_bytes(), "%C3%A9"),
            (b"\x7f", "%7F"),
            (b"cut\0here", "cut"),
        ];
        for (input, want) in cases {
            assert_eq!(urlencode(input), *want, "{input:?}");
        }
    }
}
