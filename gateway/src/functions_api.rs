//! `/functions/v1/<slug>/…`: the request handed to the function's Deno as the CLI's gateway
//! hands it to edge-runtime (path without `/functions/v1`, the `Authorization` its Kong sets),
//! `verify_jwt` checked as the CLI's router checks it, the response streamed back.

use crate::http_util::{BODY_IDLE, header, idle_timeout};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use bytes::Bytes;
use functions::FunctionsError;
use futures_util::StreamExt;
use http_body_util::BodyExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Longest a response may pause between two chunks (the CLI's Kong `read_timeout`).
const RESPONSE_IDLE: Duration = Duration::from_secs(150);

/// Hop-by-hop headers, never forwarded.
const HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "proxy-authorization",
    "proxy-authenticate",
];

pub fn routes(c: &mut web::ServiceConfig) {
    c.service(web::resource("/functions/v1/{tail:.*}").to(handle));
}

fn answer(e: &FunctionsError) -> HttpResponse {
    let (content_type, body) = e.body();
    HttpResponse::build(actix_web::http::StatusCode::from_u16(e.status()).expect("valid status"))
        .content_type(content_type)
        .body(body)
}

/// The `Authorization` the CLI's Kong forwards: the caller's own unless it is an `sb_` key;
/// else the JWT an `sb_` API key stands for; else the `apikey` header as it is.
fn forwarded_authorization(req: &HttpRequest, state: &AppState) -> Option<String> {
    if let Some(a) = header(req, "authorization")
        && !a.starts_with("Bearer sb_")
    {
        return Some(a.to_string());
    }
    let apikey = header(req, "apikey")?;
    Some(match state.keys.standing_for(apikey, state.local_keys()) {
        Some(jwt) => format!("Bearer {jwt}"),
        None => apikey.to_string(),
    })
}

async fn handle(
    req: HttpRequest,
    payload: web::Payload,
    state: crate::branches::State,
) -> HttpResponse {
    let tail = req.match_info().query("tail").to_string();
    invoke(&req, payload, &state, &tail).await
}

/// Hands the request to the function `tail` names (`slug/rest/of/path`): also for the site's
/// rewrites to `/functions/v1/…` (`_redirects`).
pub(crate) async fn invoke(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    tail: &str,
) -> HttpResponse {
    let Some(service) = state.functions.clone() else {
        return answer(&FunctionsError::NotFound);
    };
    let slug = tail.split('/').next().unwrap_or_default();
    let Some(function) = service.function(slug) else {
        return answer(&FunctionsError::NotFound);
    };
    let authorization = forwarded_authorization(req, state);
    if function.verify_jwt && req.method() != actix_web::http::Method::OPTIONS {
        let checked = functions::answer::bearer(authorization.as_deref()).and_then(|token| {
            state
                .keys
                .verify(token)
                .map_err(|_| FunctionsError::Unauthorized("Invalid JWT".into()))
        });
        if let Err(e) = checked {
            return answer(&e);
        }
    }
    let limit = state.config.max_body_bytes;
    if header(req, "content-length")
        .and_then(|l| l.parse::<usize>().ok())
        .is_some_and(|l| l > limit)
    {
        return too_large(limit);
    }
    let mut uri = format!("/{tail}");
    if !req.query_string().is_empty() {
        uri = format!("{uri}?{}", req.query_string());
    }
    let mut builder = http::Request::builder()
        .method(req.method().as_str())
        .uri(uri);
    for (name, value) in req.headers() {
        let n = name.as_str();
        if HOP.contains(&n) || n == "authorization" {
            continue;
        }
        builder = builder.header(n, value.as_bytes());
    }
    if let Some(a) = &authorization {
        builder = builder.header("authorization", a.as_str());
    }
    // A body sent without a length (chunked) is counted as it goes: past the limit it ends,
    // and whatever the function made of the broken body, the client gets 413.
    let overflowed = Arc::new(AtomicBool::new(false));
    let request = match builder.body(body_of(payload, limit, overflowed.clone())) {
        Ok(r) => r,
        Err(e) => {
            return HttpResponse::BadRequest().json(serde_json::json!({"message": e.to_string()}));
        }
    };
    let forwarded = service.forward(&function, request).await;
    if overflowed.load(Ordering::Acquire) {
        return too_large(limit);
    }
    let functions::Answer { response, keep } = match forwarded {
        Ok(a) => a,
        Err(e) => return answer(&e),
    };
    let (parts, body) = response.into_parts();
    let mut out = HttpResponse::build(
        actix_web::http::StatusCode::from_u16(parts.status.as_u16())
            .unwrap_or(actix_web::http::StatusCode::BAD_GATEWAY),
    );
    for (name, value) in &parts.headers {
        if !HOP.contains(&name.as_str()) {
            out.append_header((name.as_str(), value.as_bytes()));
        }
    }
    let stream = futures_util::stream::unfold((body, keep), |(mut body, keep)| async move {
        loop {
            return match tokio::time::timeout(RESPONSE_IDLE, body.frame()).await {
                Ok(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => Some((Ok::<Bytes, std::io::Error>(data), (body, keep))),
                    Err(_) => continue,
                },
                Ok(Some(Err(e))) => Some((Err(std::io::Error::other(e)), (body, keep))),
                Ok(None) => None,
                Err(_) => Some((
                    Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "function response idle",
                    )),
                    (body, keep),
                )),
            };
        }
    });
    out.streaming(stream)
}

/// 413, as a body past the limit is answered, whether its length was announced or not.
fn too_large(limit: usize) -> HttpResponse {
    HttpResponse::PayloadTooLarge()
        .json(serde_json::json!({"message": format!("Request body is larger than {limit} bytes")}))
}

/// The request body as the function reads it: streamed through a channel (the function's
/// connection runs on any thread), ended with an error past `limit` bytes (`overflowed` set
/// first) or a stalled client.
fn body_of(
    payload: web::Payload,
    limit: usize,
    overflowed: Arc<AtomicBool>,
) -> http_body_util::StreamBody<
    impl futures_util::Stream<Item = Result<hyper::body::Frame<Bytes>, std::io::Error>> + Send + 'static,
> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(8);
    actix_web::rt::spawn(async move {
        let mut payload = idle_timeout(payload, BODY_IDLE);
        let mut seen = 0usize;
        while let Some(chunk) = payload.next().await {
            let item = chunk.map_err(std::io::Error::other).and_then(|c| {
                seen += c.len();
                if seen > limit {
                    overflowed.store(true, Ordering::Release);
                    Err(std::io::Error::other("request body too large"))
                } else {
                    Ok(c)
                }
            });
            let failed = item.is_err();
            if tx.send(item).await.is_err() || failed {
                break;
            }
        }
    });
    http_body_util::StreamBody::new(futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx)
            .map(|o| o.map(|r| r.map(hyper::body::Frame::data)))
    }))
}
