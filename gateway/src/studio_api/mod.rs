//! Studio on its own port (the CLI's 54323): the built UI from the binary and its API under
//! `/api`. Loopback only: it listens on 127.0.0.1 and signs the browser in with the service
//! role, as the CLI's local Studio needs no sign-in. Against DNS rebinding and other sites:
//! the Host must be an address or a loopback name, an Origin must be Studio's own, and writes
//! carry `X-Studio` (which a page elsewhere cannot send without a preflight Studio never
//! answers).

mod handlers;

use crate::state::AppState;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::{HttpRequest, HttpResponse, web};
use mail::catcher::Catcher;
use std::sync::Arc;

/// What Studio's handlers share.
pub struct Shared {
    pub state: Arc<AppState>,
    pub studio: studio::Studio,
    pub catcher: Option<Catcher>,
    /// The API address the browser calls.
    pub api_url: String,
}

/// Serves Studio on 127.0.0.1:`port`; returns the server and the port it got.
pub fn bind(
    state: Arc<AppState>,
    catcher: Option<Catcher>,
    port: u16,
) -> std::io::Result<(actix_web::dev::Server, u16)> {
    let api_url = state
        .config
        .studio_api_url
        .clone()
        .unwrap_or_else(|| state.api_url.clone());
    let shared = web::Data::new(Shared {
        studio: studio::Studio::new(state.admin.clone(), &state.config.project.supabase_dir),
        state,
        catcher,
        api_url,
    });
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(shared.clone())
            .app_data(web::JsonConfig::default().limit(studio::sql::MAX_QUERY_BYTES + 4096))
            .wrap(actix_web::middleware::from_fn(guard))
            .service(web::scope("/api").configure(handlers::routes))
            .default_service(web::get().to(asset))
    })
    .workers(1)
    .disable_signals()
    .bind(("127.0.0.1", port))?;
    let port = server.addrs().first().map(|a| a.port()).unwrap_or(port);
    Ok((server.run(), port))
}

/// Why a request is refused, or None.
fn refusal(req: &ServiceRequest) -> Option<&'static str> {
    let h = |name: header::HeaderName| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let host = h(header::HOST);
    if !req.peer_addr().is_some_and(|a| a.ip().is_loopback()) {
        return Some("Studio answers this machine only");
    }
    if !crate::http_util::host_allowed(&host, "") {
        return Some("this Host is not Studio's: use http://127.0.0.1 or http://localhost");
    }
    let origin = h(header::ORIGIN);
    if !origin.is_empty()
        && origin
            .split_once("://")
            .is_none_or(|(_, authority)| !authority.eq_ignore_ascii_case(&host))
    {
        return Some("requests from another site are refused");
    }
    let write = !matches!(req.method().as_str(), "GET" | "HEAD");
    if write && req.headers().get("x-studio").is_none() {
        return Some("Studio's writes come from Studio's page");
    }
    None
}

async fn guard(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    if let Some(why) = refusal(&req) {
        let refused = HttpResponse::Forbidden()
            .content_type("application/json")
            .body(serde_json::json!({"message": why, "code": "forbidden"}).to_string());
        return Ok(req.into_response(refused).map_into_right_body());
    }
    let mut res = next.call(req).await?;
    let headers = res.headers_mut();
    for (name, value) in [
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
        ("cache-control", "no-store"),
    ] {
        if !headers.contains_key(name) {
            headers.insert(
                header::HeaderName::from_static(name),
                header::HeaderValue::from_static(value),
            );
        }
    }
    Ok(res.map_into_left_body())
}

/// The page's content security: its own scripts, the API for data, images and sockets.
fn csp(api_url: &str) -> String {
    let ws = api_url.replacen("http", "ws", 1);
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
         img-src 'self' data: blob: {api_url}; connect-src 'self' {api_url} {ws}; \
         frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; \
         object-src 'none'"
    )
}

/// A file of the UI, or its page for any other address (the app's routes).
async fn asset(req: HttpRequest, shared: web::Data<Shared>) -> HttpResponse {
    let path = req.path().trim_start_matches('/');
    let (file, page) = match studio::assets::find(path) {
        Some(f) if !path.is_empty() => (f, false),
        _ => (
            studio::assets::find("index.html").expect("the UI has its page"),
            true,
        ),
    };
    let gzip = req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("gzip"));
    let mut res = HttpResponse::Ok();
    res.content_type(file.content_type)
        .insert_header((header::VARY, "Accept-Encoding"));
    if file.immutable() {
        res.insert_header((header::CACHE_CONTROL, "public, max-age=31536000, immutable"));
    } else {
        res.insert_header((header::CACHE_CONTROL, "no-cache"));
    }
    if page {
        res.insert_header((header::CONTENT_SECURITY_POLICY, csp(&shared.api_url)));
    }
    if gzip {
        res.insert_header((header::CONTENT_ENCODING, "gzip"))
            .body(file.gzip)
    } else {
        res.body(file.unpacked())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_page_may_call_the_api_and_nothing_else() {
        let c = super::csp("http://127.0.0.1:54321");
        assert!(c.contains("connect-src 'self' http://127.0.0.1:54321 ws://127.0.0.1:54321;"));
        assert!(c.contains("script-src 'self';"));
        assert!(c.contains("frame-ancestors 'none'"));
        let s = super::csp("https://api.example.com");
        assert!(s.contains("wss://api.example.com"));
    }
}
