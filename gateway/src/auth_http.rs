//! What every `/auth/v1` handler (auth_api and its sub-APIs: external_api, oauth_server_api,
//! passkey_api) shares: reading the request for the auth service (the caller, the client's
//! address, a bounded body) and writing GoTrue's answers and error bodies (old or new shape by
//! `X-Supabase-Api-Version`).

use crate::error::GatewayError;
use crate::http_util::{
    BodyError, bearer_token, forwarded_ip, header, peer_ip, query_pairs, read_body,
};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use auth::params;
use auth::{AuthError, Caller, ErrorCode, api};
use serde_json::Value;

type Reply = Result<HttpResponse, GatewayError>;

/// Whether the client wants GoTrue's legacy error body (it sent no API version).
fn legacy(req: &HttpRequest) -> bool {
    header(req, "x-supabase-api-version").is_none()
}

pub(crate) fn fail(req: &HttpRequest, e: AuthError) -> GatewayError {
    GatewayError::from_auth(e, legacy(req))
}

fn ok_json(req: &HttpRequest, v: Value) -> HttpResponse {
    let mut r = HttpResponse::Ok();
    // Sessions and users carry tokens and personal data: never stored by a cache.
    r.insert_header(("Cache-Control", "no-store"));
    if !legacy(req) {
        r.insert_header(("X-Supabase-Api-Version", "2024-01-01"));
    }
    r.json(v)
}

/// An answer, or the error in the body shape the client asked for.
pub(crate) fn reply(req: &HttpRequest, r: Result<Value, AuthError>) -> Reply {
    r.map(|v| ok_json(req, v)).map_err(|e| fail(req, e))
}

pub(crate) fn query(req: &HttpRequest, name: &str) -> Option<String> {
    query_pairs(req.query_string())
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// What the service knows of the request.
pub(crate) fn request(req: &HttpRequest, state: &AppState) -> auth::Request {
    let forwarded = forwarded_ip(
        req,
        state.config.rate_limit_ip_header.as_deref(),
        state.config.trusted_proxy_hops,
    );
    auth::Request {
        forwarded: forwarded.is_some(),
        client_ip: forwarded.unwrap_or_else(|| peer_ip(req)),
        peer_ip: req.peer_addr().map(|a| a.ip().to_string()),
        user_agent: header(req, "user-agent").map(str::to_string),
        bearer: bearer_token(req).map(str::to_string),
        redirect_to: query(req, "redirect_to"),
    }
}

pub(crate) async fn raw_body(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<bytes::Bytes, GatewayError> {
    read_body(payload, state.config.max_body_bytes)
        .await
        .map_err(|e| {
            fail(
                req,
                match e {
                    BodyError::TooLarge => {
                        api(413, ErrorCode::RequestTooLarge, "Request body too large")
                    }
                    BodyError::TimedOut => api(
                        408,
                        ErrorCode::RequestTimeout,
                        "The request body did not arrive in time",
                    ),
                    BodyError::Broken => api(
                        400,
                        ErrorCode::BadJson,
                        "The request body could not be read",
                    ),
                },
            )
        })
}

/// The body, bounded in size and time, read as `T`.
pub(crate) async fn body<T: serde::de::DeserializeOwned + Default>(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<T, GatewayError> {
    let bytes = raw_body(req, payload, state).await?;
    params::read(&bytes).map_err(|e| fail(req, e))
}

/// With `[auth.captcha]` on: the body's captcha token (`gotrue_meta_security.captcha_token`)
/// checked with the provider, as GoTrue's captcha check before the flows a bot could abuse.
/// Admin callers (a service role bearer token) skip it, as in GoTrue.
pub(crate) async fn check_captcha(
    req: &HttpRequest,
    state: &AppState,
    body: &[u8],
) -> Result<(), GatewayError> {
    let Some(captcha) = &state.auth.config().captcha else {
        return Ok(());
    };
    let admin = bearer_token(req).is_some()
        && crate::request_auth::resolved(req, &state.keys, state.local_keys())
            .is_ok_and(|i| ["service_role", "supabase_admin"].contains(&i.role()));
    if admin {
        return Ok(());
    }
    captcha
        .check(body, &request(req, state).client_ip)
        .await
        .map_err(|e| fail(req, e))
}

/// [`body`], its captcha checked first ([`check_captcha`]).
pub(crate) async fn captcha_body<T: serde::de::DeserializeOwned + Default>(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<T, GatewayError> {
    let bytes = raw_body(req, payload, state).await?;
    check_captcha(req, state, &bytes).await?;
    params::read(&bytes).map_err(|e| fail(req, e))
}

/// The signed-in caller.
pub(crate) fn caller(
    req: &HttpRequest,
    state: &AppState,
) -> Result<(auth::Request, Caller), GatewayError> {
    let r = request(req, state);
    let who = state.auth.caller(&r).map_err(|e| fail(req, e))?;
    Ok((r, who))
}

/// The admin API is for GoTrue's admin roles (`GOTRUE_JWT_ADMIN_ROLES`' default: the service
/// role and `supabase_admin`).
pub(crate) fn require_admin(
    req: &HttpRequest,
    state: &AppState,
) -> Result<auth::Request, GatewayError> {
    let identity = crate::request_auth::resolved(req, &state.keys, state.local_keys())
        .map_err(|e| fail(req, api(401, ErrorCode::BadJwt, e.to_string())))?;
    if !["service_role", "supabase_admin"].contains(&identity.role()) {
        return Err(fail(req, api(403, ErrorCode::NotAdmin, "User not allowed")));
    }
    Ok(request(req, state))
}

pub(crate) fn segment<'a>(req: &'a HttpRequest, name: &str) -> &'a str {
    req.match_info().query(name)
}

/// GoTrue's answer for a route it does not have.
pub(crate) fn unhandled(req: &HttpRequest) -> GatewayError {
    let message = format!("Unhandled request: {} {}", req.method(), req.path());
    fail(req, api(404, ErrorCode::NotFound, message))
}

/// A 303 to `to`, never cached.
pub(crate) fn see_other(to: String) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header(("Location", to))
        .insert_header(("Cache-Control", "no-store"))
        .finish()
}
