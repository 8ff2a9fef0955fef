//! Small helpers shared by the API handlers.

use actix_web::HttpRequest;
use actix_web::error::PayloadError;
use actix_web::http::header::{AsHeaderName, HeaderName};
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use percent_encoding::percent_decode_str;
use std::time::Duration;

/// Query string pairs, form-decoded as PostgREST reads them (`application/x-www-form-urlencoded`:
/// `+` is a space, `%XX` a byte, invalid UTF-8 replaced; empty pairs skipped; a pair without `=`
/// has an empty value).
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    // Most query strings have nothing to decode (one vectorised search says so): their pairs
    // are split as form_urlencoded splits them, without its per-byte decoding and UTF-8 check
    // (every REST request; the decoder cost twice the split).
    if memchr::memchr2(b'+', b'%', query.as_bytes()).is_none() {
        return query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                // Keys are short: the first `=` is a few bytes in.
                let (k, v) = match p.bytes().position(|b| b == b'=') {
                    Some(i) => (&p[..i], &p[i + 1..]),
                    None => (p, ""),
                };
                (k.to_string(), v.to_string())
            })
            .collect();
    }
    form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// One query-string component form-decoded: `+` is a space, `%XX` a byte (invalid UTF-8
/// replaced).
pub fn form_decode(s: &str) -> String {
    if !s.bytes().any(|b| b == b'+' || b == b'%') {
        return s.to_string();
    }
    percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// Whether a header value is printable ASCII with no `"` or `\\`: text as it is, and a JSON
/// string's contents as it is. Eight bytes at a time (the values are mostly tokens of a few
/// hundred bytes), with the exact tests of Bit Twiddling Hacks' `hasless`/`hasmore`/`haszero`.
fn plain(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let less = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let mut chunks = b.chunks_exact(8);
    let mut bad = 0u64;
    for c in &mut chunks {
        let x = u64::from_le_bytes(c.try_into().expect("eight bytes"));
        bad |= less(x, 0x20)
            | ((x.wrapping_add(ONES) | x) & HIGH)
            | less(x ^ (ONES * u64::from(b'"')), 1)
            | less(x ^ (ONES * u64::from(b'\\')), 1);
    }
    bad == 0 && chunks.remainder().iter().all(|&c| plain_byte(c))
}

fn plain_byte(c: u8) -> bool {
    (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\'
}

/// A header's value as text. Name it by a `HeaderName` constant on hot paths: a `&str` name is
/// parsed on every call.
pub fn header(req: &HttpRequest, name: impl AsHeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Headers read on every REST request, named once.
pub const ACCEPT_PROFILE: HeaderName = HeaderName::from_static("accept-profile");
pub const CONTENT_PROFILE: HeaderName = HeaderName::from_static("content-profile");
pub const PREFER: HeaderName = HeaderName::from_static("prefer");
pub const APIKEY: HeaderName = HeaderName::from_static("apikey");

/// All request headers as a JSON object with lower-case names (PostgREST's request.headers),
/// with `x-real-ip` set to the client address the gateway determined (as Supabase's API gateway
/// sets it), whatever the client sent under that name: SQL may count requests by it.
pub fn headers_json(req: &HttpRequest, client: &str) -> String {
    // Written straight into the text (no map built, no string per header): header names are
    // lower-case already, each name once with its last value, as a map keeps it (a name's
    // values come one after another).
    // Room for two tokens (apikey, authorization) and the usual headers without growing.
    let mut out = Vec::with_capacity(1024);
    out.push(b'{');
    let put = |out: &mut Vec<u8>, s: &str| {
        serde_json::to_writer(&mut *out, s).expect("a string serialises");
    };
    let mut headers = req.headers().iter().peekable();
    while let Some((name, value)) = headers.next() {
        if headers.peek().is_some_and(|(next, _)| *next == name) || name == "x-real-ip" {
            continue;
        }
        // Names are tokens: nothing to escape; most values need no escaping either.
        let key = |out: &mut Vec<u8>| {
            out.push(b'"');
            out.extend_from_slice(name.as_str().as_bytes());
            out.extend_from_slice(b"\":");
        };
        if plain(value.as_bytes()) {
            key(&mut out);
            out.push(b'"');
            out.extend_from_slice(value.as_bytes());
            out.extend_from_slice(b"\",");
        } else if let Ok(v) = value.to_str() {
            key(&mut out);
            put(&mut out, v);
            out.push(b',');
        }
    }
    out.extend_from_slice(b"\"x-real-ip\":");
    put(&mut out, client);
    out.push(b'}');
    String::from_utf8(out).expect("JSON text is UTF-8")
}

#[derive(Debug, PartialEq, Eq)]
pub enum BodyError {
    /// More than the limit: refused without buffering further.
    TooLarge,
    /// The client stopped sending (or sent too slowly) before the body was complete.
    TimedOut,
    /// The connection broke or the body was malformed.
    Broken,
}

/// Longest a client may pause while sending a body.
pub const BODY_IDLE: Duration = Duration::from_secs(30);
/// Longest a JSON body (REST, auth) may take to arrive in all.
pub const BODY_TOTAL: Duration = Duration::from_secs(60);

/// Reads the whole body within [`BODY_TOTAL`], refusing past `limit` bytes.
pub async fn read_body(payload: actix_web::web::Payload, limit: usize) -> Result<Bytes, BodyError> {
    let mut payload = idle_timeout(payload, BODY_IDLE);
    let read = async {
        let mut buf = bytes::BytesMut::new();
        while let Some(chunk) = payload.next().await {
            let chunk = chunk.map_err(|e| match e {
                PayloadError::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                    BodyError::TimedOut
                }
                PayloadError::Overflow => BodyError::TooLarge,
                _ => BodyError::Broken,
            })?;
            if buf.len() + chunk.len() > limit {
                return Err(BodyError::TooLarge);
            }
            buf.extend_from_slice(&chunk);
        }
        Ok(buf.freeze())
    };
    tokio::time::timeout(BODY_TOTAL, read)
        .await
        .map_err(|_| BodyError::TimedOut)?
}

/// The body as a stream that fails with a timed-out I/O error when the client sends nothing
/// for `idle`, so that an unfinished body never holds a request (and its upload) open forever.
pub fn idle_timeout(
    payload: impl Stream<Item = Result<Bytes, PayloadError>> + 'static,
    idle: Duration,
) -> impl Stream<Item = Result<Bytes, PayloadError>> + Unpin + 'static {
    // Fused: a multipart reader may poll again after the end.
    Box::pin(
        futures_util::stream::unfold(
            (Box::pin(payload), false),
            move |(mut s, done)| async move {
                if done {
                    return None;
                }
                match tokio::time::timeout(idle, s.next()).await {
                    Ok(Some(item)) => Some((item, (s, false))),
                    Ok(None) => None,
                    Err(_) => Some((
                        Err(PayloadError::Io(std::io::Error::new(
                            std::io::ErrorKind::TimedOut,
                            format!("no data for {} s", idle.as_secs()),
                        ))),
                        (s, true),
                    )),
                }
            },
        )
        .fuse(),
    )
}

/// The client's address, for rate limits: [`forwarded_ip`], else the TCP peer.
pub fn client_ip(req: &HttpRequest, trusted_header: Option<&str>, hops: usize) -> String {
    forwarded_ip(req, trusted_header, hops).unwrap_or_else(|| peer_ip(req))
}

/// The TCP peer's address.
pub fn peer_ip(req: &HttpRequest) -> String {
    req.peer_addr()
        .map_or_else(|| "unknown".into(), |a| ip_text(a.ip()))
}

/// The client's address as trusted proxies name it. Behind `hops` proxies that each append the
/// address they saw to `trusted_header` (X-Forwarded-For), it is the entry `hops` from the
/// right: everything left of it came from the client and proves nothing. None without a
/// header, or with fewer entries than hops.
pub fn forwarded_ip(
    req: &HttpRequest,
    trusted_header: Option<&str>,
    hops: usize,
) -> Option<String> {
    trusted_header.and_then(|h| header(req, h)).and_then(|h| {
        let entries: Vec<&str> = h.split(',').map(str::trim).collect();
        entries
            .len()
            .checked_sub(hops.max(1))
            .map(|i| entries[i].to_string())
            .filter(|s| !s.is_empty())
    })
}

/// An address as text; IPv4 (nearly every request's) without the formatting machinery.
fn ip_text(ip: std::net::IpAddr) -> String {
    match ip {
        std::net::IpAddr::V4(v4) => {
            let mut s = String::with_capacity(15);
            let mut buf = itoa::Buffer::new();
            for (i, octet) in v4.octets().into_iter().enumerate() {
                if i > 0 {
                    s.push('.');
                }
                s.push_str(buf.format(octet));
            }
            s
        }
        v6 => v6.to_string(),
    }
}

/// The token of an `Authorization: Bearer …` header.
pub fn bearer_token(req: &HttpRequest) -> Option<&str> {
    let v = req.headers().get(actix_web::http::header::AUTHORIZATION)?;
    // ASCII either way (visible characters, spaces and tabs): trimming ASCII whitespace is
    // trimming whitespace, and the scheme is a few bytes in.
    let h = if plain(v.as_bytes()) {
        std::str::from_utf8(v.as_bytes()).ok()?
    } else {
        v.to_str().ok()?
    }
    .trim_ascii();
    let space = h.bytes().position(|b| b == b' ')?;
    let (scheme, token) = (&h[..space], &h[space + 1..]);
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim_ascii())
        .filter(|t| !t.is_empty())
}

/// Whether `host` (a Host header, port included) is an address, a loopback name or the
/// configured name: DNS rebinding needs a name that is none of these.
pub(crate) fn host_allowed(host: &str, configured: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(n, _)| n),
    };
    let name = name.to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name.parse::<std::net::IpAddr>().is_ok()
        || (!configured.is_empty() && name == configured.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    #[test]
    fn headers_json_holds_each_header_s_last_value_and_the_client_address() {
        let req = actix_web::test::TestRequest::default()
            .insert_header(("X-Test", "a\"b"))
            .append_header(("accept", "x"))
            .append_header(("accept", "y"))
            .insert_header(("x-real-ip", "6.6.6.6"))
            .to_http_request();
        let v: serde_json::Value =
            serde_json::from_str(&super::headers_json(&req, "1.2.3.4")).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"x-test": "a\"b", "accept": "y", "x-real-ip": "1.2.3.4"})
        );
        let bare = actix_web::test::TestRequest::default().to_http_request();
        assert_eq!(super::headers_json(&bare, "::1"), r#"{"x-real-ip":"::1"}"#);
        // Each kind of value: as it is, escaped, or left out (not text).
        let values: &[(&[u8], Option<&str>)] = &[
            (b"plain token.123~", Some("plain token.123~")),
            (b"tab\there", Some("tab\there")),
            (b"back\\slash", Some("back\\slash")),
            (b"quote\"", Some("quote\"")),
            ("caf\u{e9}".as_bytes(), None),
        ];
        for (value, want) in values {
            let req = actix_web::test::TestRequest::default()
                .insert_header((
                    "x-v",
                    actix_web::http::header::HeaderValue::from_bytes(value).unwrap(),
                ))
                .to_http_request();
            let v: serde_json::Value =
                serde_json::from_str(&super::headers_json(&req, "1.2.3.4")).unwrap();
            assert_eq!(v["x-v"].as_str(), *want, "{value:?}");
        }
    }

    #[test]
    fn the_bearer_token_is_read_as_a_scheme_and_a_token() {
        let cases: [(&[u8], Option<&str>); 10] = [
            (b"Bearer abc", Some("abc")),
            (b"bearer  abc ", Some("abc")),
            (b"  BEARER abc", Some("abc")),
            (b"Bearer a\"b", Some("a\"b")),
            (b"Bearer\tabc", None),
            (b"Bearer ", None),
            (b"Bearer", None),
            (b"Basic abc", None),
            (b"", None),
            ("Bearer \u{e9}".as_bytes(), None),
        ];
        for (value, want) in cases {
            let header = actix_web::http::header::HeaderValue::from_bytes(value).unwrap();
            let req = actix_web::test::TestRequest::default()
                .insert_header((actix_web::http::header::AUTHORIZATION, header))
                .to_http_request();
            assert_eq!(
                super::bearer_token(&req),
                want,
                "{}",
                String::from_utf8_lossy(value)
            );
        }
    }

    #[test]
    fn plain_values_are_told_eight_bytes_at_a_time_as_one_at_a_time() {
        // Every byte in every position of a word and of the tail, among plain ones.
        for len in [1usize, 7, 8, 9, 16, 23] {
            for pos in 0..len {
                for c in 0..=255u8 {
                    let mut v = vec![b'a'; len];
                    v[pos] = c;
                    assert_eq!(super::plain(&v), super::plain_byte(c), "{len} {pos} {c}");
                }
            }
        }
        assert!(super::plain(b""));
        // And mixtures (odd bytes next to each other), from a fixed pseudo-random sequence.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let len = (next() % 40) as usize;
            let v: Vec<u8> = (0..len)
                .map(|_| match next() % 4 {
                    0 => (next() % 256) as u8,
                    _ => b'a',
                })
                .collect();
            assert_eq!(
                super::plain(&v),
                v.iter().all(|&c| super::plain_byte(c)),
                "{v:?}"
            );
        }
    }

    #[test]
    fn addresses_are_written_as_rust_writes_them() {
        for ip in [
            "0.0.0.0",
            "127.0.0.1",
            "203.0.113.255",
            "::1",
            "2001:db8::7",
        ] {
            let parsed: std::net::IpAddr = ip.parse().unwrap();
            assert_eq!(super::ip_text(parsed), parsed.to_string());
        }
    }

    use actix_web::test::TestRequest;

    #[test]
    fn the_client_address_comes_from_the_trusted_proxy_not_the_client() {
        let req = TestRequest::default()
            .insert_header(("x-forwarded-for", "6.6.6.6, 203.0.113.7"))
            .peer_addr("10.0.0.2:4000".parse().unwrap())
            .to_http_request();
        let ip = |h: Option<&str>, hops| super::client_ip(&req, h, hops);
        assert_eq!(ip(Some("X-Forwarded-For"), 1), "203.0.113.7");
        assert_eq!(ip(Some("X-Forwarded-For"), 2), "6.6.6.6");
        assert_eq!(ip(Some("X-Forwarded-For"), 3), "10.0.0.2");
        assert_eq!(ip(None, 1), "10.0.0.2");
    }

    #[test]
    fn plus_is_space_and_percent_decodes() {
        let p = super::query_pairs("name=ilike.%25foo+bar%25&id=in.%28x%2C%22y%2Cz%22%29&select=");
        assert_eq!(p[0], ("name".into(), "ilike.%foo bar%".into()));
        assert_eq!(p[1], ("id".into(), "in.(x,\"y,z\")".into()));
        assert_eq!(p[2], ("select".into(), "".into()));
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        let cases = [
            ("a=b=c&flag", vec![pair("a", "b=c"), pair("flag", "")]),
            ("&&x=1&", vec![pair("x", "1")]),
            ("=v&k=", vec![pair("", "v"), pair("k", "")]),
            ("a=1&b=%41+", vec![pair("a", "1"), pair("b", "A ")]),
            ("", vec![]),
            // Escaped separators, a literal `+`, bad escapes left as written, bad UTF-8.
            (
                "%26=%3D&a%2Bb=c%2bd",
                vec![pair("&", "="), pair("a+b", "c+d")],
            ),
            ("x=%zz%4&y=%", vec![pair("x", "%zz%4"), pair("y", "%")]),
            ("v=%ff%C3%A9", vec![pair("v", "\u{fffd}é")]),
            // Nothing to decode (the split without the decoder): non-ASCII and `=` in values.
            (
                "select=*&id=eq.7&n=é=ü&&",
                vec![pair("select", "*"), pair("id", "eq.7"), pair("n", "é=ü")],
            ),
        ];
        for (query, want) in cases {
            assert_eq!(super::query_pairs(query), want, "{query}");
            // The same pairs as form_urlencoded's, whichever way they were split.
            let decoded: Vec<_> = form_urlencoded::parse(query.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            assert_eq!(super::query_pairs(query), decoded, "{query}");
        }
    }
}
