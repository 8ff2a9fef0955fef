//! Studio on its own port (the CLI's 54323): the built UI from the binary and its API under
//! `/api`. Loopback only: it listens on 127.0.0.1 and signs the browser in with the service
//! role, as the CLI's local Studio does. Being on this machine is not enough, though: the
//! database (pg_net), an Edge Function or any other local program can send requests from
//! loopback with whatever headers it likes. So the API answers only the browser that opened
//! Studio's link: `start` and `status` print `STUDIO_URL/?token=…` with a secret made at each
//! start; opening it sets that secret as an HttpOnly, SameSite=Strict cookie (and redirects to
//! the address without it), and every `/api` call must carry the cookie. The UI's files are
//! served to anyone (they are in the binary and hold nothing secret). Against DNS rebinding
//! and other sites besides: the Host must be an address or a loopback name, an Origin must be
//! Studio's own, and writes carry `X-Studio` (which a page elsewhere cannot send without a
//! preflight Studio never answers).

mod as_user;
mod handlers;
mod logs;

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
    /// The secret of this start: the link's `token` and the cookie's value.
    pub token: String,
    /// The cookie's name: with the port in it, since browsers share cookies between the ports
    /// of one host (two projects' Studios side by side keep their own).
    pub cookie: String,
}

/// What `bind` started: the server, the port it got and the secret its link carries.
pub struct Bound {
    pub server: actix_web::dev::Server,
    pub port: u16,
    pub token: String,
}

/// The cookie that carries Studio's secret for the Studio on `port`.
pub fn cookie_name(port: u16) -> String {
    format!("supagate_studio_{port}")
}

/// A secret for one start: 244 random bits (two v4 UUIDs), as 64 hexadecimal digits.
fn new_token() -> String {
    let (a, b) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    format!("{}{}", a.simple(), b.simple())
}

/// Equal, in a time that does not depend on where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// Serves Studio on `listener` (bound to 127.0.0.1 by the caller, before the database starts, so
/// that its port is known to the functions started beside the database).
pub fn serve(
    state: Arc<AppState>,
    catcher: Option<Catcher>,
    listener: std::net::TcpListener,
) -> std::io::Result<Bound> {
    let api_url = state
        .config
        .studio_api_url
        .clone()
        .unwrap_or_else(|| state.api_url.clone());
    let port = listener.local_addr()?.port();
    let token = new_token();
    let shared = web::Data::new(Shared {
        studio: studio::Studio::new(
            state.admin.clone(),
            &state.config.project.supabase_dir,
            &state.auth.config().jwt_issuer,
        ),
        state,
        catcher,
        api_url,
        token: token.clone(),
        cookie: cookie_name(port),
    });
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(shared.clone())
            .app_data(web::JsonConfig::default().limit(studio::sql::MAX_QUERY_BYTES + 4096))
            .wrap(actix_web::middleware::from_fn(guard))
            .service(
                web::scope("/api")
                    .configure(logs::routes)
                    .configure(as_user::routes)
                    .configure(handlers::routes),
            )
            .default_service(web::get().to(asset))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)?;
    Ok(Bound {
        server: server.run(),
        port,
        token,
    })
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

/// The `token` of a query string, if it has one.
fn link_token(query: &str) -> Option<String> {
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
}

/// The query string without its `token`.
fn without_token(query: &str) -> String {
    let rest: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .filter(|(k, _)| k != "token")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(rest)
        .finish()
}

/// Whether the request carries this start's secret in its cookie.
fn signed_in(req: &ServiceRequest, shared: &Shared) -> bool {
    req.headers()
        .get_all(header::COOKIE)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .any(|(name, value)| {
            name == shared.cookie && same_secret(value.as_bytes(), shared.token.as_bytes())
        })
}

const NEEDS_LINK: &str = "Studio answers only the browser that opened its link: open the Studio \
     link `supagate start` printed (`supagate status` prints it again)";

/// Studio's link opened: the secret becomes the cookie and the browser goes on to the address
/// without it. A wrong or old secret (from an earlier start) is refused with what to do.
fn sign_in(req: &ServiceRequest, shared: &Shared, token: &str) -> HttpResponse {
    if !same_secret(token.as_bytes(), shared.token.as_bytes()) {
        return HttpResponse::Forbidden()
            .content_type("text/plain; charset=utf-8")
            .body(format!(
                "This Studio link is not the one of this start. {NEEDS_LINK}.\n"
            ));
    }
    let query = without_token(req.query_string());
    let to = match query.as_str() {
        "" => req.path().to_string(),
        q => format!("{}?{q}", req.path()),
    };
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, to))
        .insert_header((
            header::SET_COOKIE,
            format!(
                "{}={}; Path=/; HttpOnly; SameSite=Strict",
                shared.cookie, shared.token
            ),
        ))
        .finish()
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
    let shared = req
        .app_data::<web::Data<Shared>>()
        .expect("Studio's state")
        .clone();
    let api = req.path() == "/api" || req.path().starts_with("/api/");
    if !api && let Some(token) = link_token(req.query_string()) {
        let res = sign_in(&req, &shared, &token);
        return Ok(req.into_response(res).map_into_right_body());
    }
    if api && !signed_in(&req, &shared) {
        let refused = HttpResponse::Unauthorized()
            .content_type("application/json")
            .body(serde_json::json!({"message": NEEDS_LINK, "code": "unauthorized"}).to_string());
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
    fn the_link_s_secret_is_read_and_taken_out_of_the_address() {
        let cases: &[(&str, Option<&str>, &str)] = &[
            ("token=abc", Some("abc"), ""),
            ("a=1&token=abc&b=2", Some("abc"), "a=1&b=2"),
            ("a=x%20y", None, "a=x+y"),
            ("", None, ""),
        ];
        for (query, token, rest) in cases {
            assert_eq!(super::link_token(query).as_deref(), *token, "{query}");
            assert_eq!(super::without_token(query), *rest, "{query}");
        }
        assert!(super::same_secret(b"abc", b"abc"));
        assert!(!super::same_secret(b"abc", b"abd"));
        assert!(!super::same_secret(b"abc", b"abcd"));
        assert_ne!(super::new_token(), super::new_token());
        assert_eq!(super::new_token().len(), 64);
    }

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
