//! Small helpers shared by the API handlers.

use actix_web::HttpRequest;
use futures_util::StreamExt;
use percent_encoding::percent_decode_str;

/// Query string pairs, form-decoded: `+` is a space, as PostgREST reads them.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let dec = |s: &str| {
                percent_decode_str(&s.replace('+', " "))
                    .decode_utf8_lossy()
                    .into_owned()
            };
            (dec(k), dec(v))
        })
        .collect()
}

pub fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// All request headers as a JSON object with lower-case names (PostgREST's request.headers).
pub fn headers_json(req: &HttpRequest) -> String {
    let mut map = serde_json::Map::new();
    for (k, v) in req.headers() {
        if let Ok(v) = v.to_str() {
            map.insert(
                k.as_str().to_ascii_lowercase(),
                serde_json::Value::String(v.to_string()),
            );
        }
    }
    serde_json::Value::Object(map).to_string()
}

#[derive(Debug)]
pub struct TooLarge;

/// Reads the whole body, refusing (without buffering further) past `limit` bytes.
pub async fn read_body(
    mut payload: actix_web::web::Payload,
    limit: usize,
) -> Result<bytes::Bytes, TooLarge> {
    let mut buf = bytes::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| TooLarge)?;
        if buf.len() + chunk.len() > limit {
            return Err(TooLarge);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}

/// The client's address, for rate limits: the first hop of `trusted_header` when the gateway
/// runs behind a proxy that sets it, otherwise the TCP peer.
pub fn client_ip(req: &HttpRequest, trusted_header: Option<&str>) -> String {
    trusted_header
        .and_then(|h| header(req, h))
        .and_then(|h| h.split(',').next())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| req.peer_addr().map(|a| a.ip().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

/// The token of an `Authorization: Bearer …` header.
pub fn bearer_token(req: &HttpRequest) -> Option<&str> {
    let h = header(req, "authorization")?.trim();
    let (scheme, token) = h.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    #[test]
    fn plus_is_space_and_percent_decodes() {
        let p = super::query_pairs("name=ilike.%25foo+bar%25&id=in.%28x%2C%22y%2Cz%22%29&select=");
        assert_eq!(p[0], ("name".into(), "ilike.%foo bar%".into()));
        assert_eq!(p[1], ("id".into(), "in.(x,\"y,z\")".into()));
        assert_eq!(p[2], ("select".into(), "".into()));
    }
}
