//! What every request passes through: a request id (kept from `X-Request-Id` or made here) on
//! its log lines and its response, a bound on the URI's length, the headers every response
//! carries, and the log of server errors (and, with `--log-requests`, of every request).

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpResponse};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use tracing::Instrument;

/// Longest path and query string accepted (414 beyond): generous for `in.(…)` lists of ids,
/// far below what could hurt.
pub const MAX_URI_BYTES: usize = 16 * 1024;

fn request_id(req: &ServiceRequest) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
    req.headers()
        .get(X_REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty()
                && v.len() <= 64
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        })
        .map(str::to_string)
        .unwrap_or_else(|| {
            // `<pid>-<n>` in hex, written without the formatting machinery (every request).
            static PID: std::sync::LazyLock<String> =
                std::sync::LazyLock::new(|| format!("{:x}-", std::process::id()));
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let mut id = String::with_capacity(PID.len() + 16);
            id.push_str(&PID);
            let digits = (64 - n.leading_zeros()).div_ceil(4).max(1);
            for i in (0..digits).rev() {
                id.push(char::from_digit(((n >> (4 * i)) & 0xf) as u32, 16).expect("a hex digit"));
            }
            id
        })
}

/// Headers every response gets unless it has them, made once (const) rather than per response.
const DEFAULTS: [(HeaderName, HeaderValue); 2] = [
    (
        HeaderName::from_static("x-content-type-options"),
        HeaderValue::from_static("nosniff"),
    ),
    (
        HeaderName::from_static("referrer-policy"),
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    ),
];
const HSTS: (HeaderName, HeaderValue) = (
    HeaderName::from_static("strict-transport-security"),
    HeaderValue::from_static("max-age=31536000"),
);

fn set_default(
    res: &mut actix_web::http::header::HeaderMap,
    (name, value): (HeaderName, HeaderValue),
) {
    if !res.contains_key(&name) {
        res.insert(name, value);
    }
}

pub async fn guard(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    log_requests: bool,
    hsts: bool,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let id = request_id(&req);
    let t0 = Instant::now();
    let method = req.method().clone();
    let path = req.path().to_string();
    let uri_len = req.uri().path().len() + req.uri().query().map_or(0, |q| q.len() + 1);
    let mut res = if uri_len > MAX_URI_BYTES {
        let body = serde_json::json!({
            "code": "PGRST414",
            "message": format!("The URI is longer than {MAX_URI_BYTES} bytes"),
            "details": null,
            "hint": "Send fewer or shorter values, or call a function with a JSON body.",
        });
        req.into_response(HttpResponse::UriTooLong().json(body))
            .map_into_right_body()
    } else if let Some(refused) = crate::workbench_api::cross_origin(&req) {
        req.into_response(refused).map_into_right_body()
    } else {
        let span = tracing::info_span!("request", id = %id);
        next.call(req).instrument(span).await?.map_into_left_body()
    };
    let headers = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&id) {
        headers.insert(HeaderName::from_static("x-request-id"), v);
    }
    if hsts {
        // Clients reach the API over https (API_EXTERNAL_URL), through a TLS proxy: browsers
        // are told to never try plain http, whatever the proxy forwards.
        set_default(headers, HSTS);
    }
    for d in DEFAULTS {
        set_default(headers, d);
    }
    let status = res.status();
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    if status.is_server_error() {
        tracing::error!(id = %id, "{method} {path} → {} in {ms:.1} ms", status.as_u16());
    } else if log_requests {
        tracing::info!(id = %id, "{method} {path} → {} in {ms:.1} ms", status.as_u16());
    }
    if let Some(state) = crate::state::recording(res.request()) {
        // Kept as it is: the inspector blanks secrets and writes JSON only when shown.
        let req = res.request();
        let who = crate::request_auth::recorded(req, &state.keys, state.local_keys());
        let (rest, headers) = match req.extensions_mut().remove::<crate::inspector::RestPart>() {
            Some(part) => (Some(Box::new(part.inspected)), part.headers),
            None => (None, crate::inspector::Headers::of(req.headers())),
        };
        state.inspector.publish(crate::inspector::Event {
            id: id.into(),
            at: chrono::Utc::now(),
            method,
            path: path.into(),
            query: req.query_string().into(),
            status: status.as_u16(),
            ms,
            branch: crate::branches::requested(req).map(String::into_boxed_str),
            who,
            headers,
            rest,
        });
    }
    Ok(res)
}
