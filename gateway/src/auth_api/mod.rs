//! `/auth/v1`: GoTrue-compatible auth, split by endpoint family — tokens, sign-up, e-mailed
//! links and codes, the user, MFA factors, the admin API, and the providers supagate answers
//! for as GoTrue does when they are switched off. What they share lives here: the
//! transaction (as the auth admin role), rate limits, the caller's token, and mail delivery
//! once a flow commits.

mod admin;
mod email;
mod factors;
mod providers;
mod signup;
mod token;
mod user;

use crate::error::GatewayError;
use crate::http_util::{BodyError, bearer_token, client_ip, header, read_body};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use auth::{AuthConfig, AuthError, api};
use mail::MailJob;
use pg as db;
use serde_json::{Value, json};
use std::sync::Arc;
use uuid::Uuid;

type Data = web::Data<Arc<AppState>>;
type Reply = Result<HttpResponse, GatewayError>;

const ROLE: &str = "supabase_auth_admin";
/// Windows of the per-address limits: 5 minutes, and an hour for anonymous sign-ins.
const WINDOW_SECS: i32 = 300;
const HOUR_SECS: i32 = 3600;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/auth/v1")
            .route("/health", web::get().to(providers::health))
            .route("/settings", web::get().to(providers::settings))
            .route("/.well-known/jwks.json", web::get().to(providers::jwks))
            .route("/authorize", web::get().to(providers::authorize))
            .route("/callback", web::to(providers::authorize))
            .route("/sso", web::post().to(providers::sso))
            .route("/sso/saml/metadata", web::get().to(providers::sso))
            .route("/sso/saml/acs", web::post().to(providers::sso))
            .route("/signup", web::post().to(signup::signup))
            .route("/token", web::post().to(token::token))
            .route("/otp", web::post().to(email::otp))
            .route("/magiclink", web::post().to(email::magiclink))
            .route("/recover", web::post().to(email::recover))
            .route("/resend", web::post().to(email::resend))
            .route("/verify", web::get().to(email::verify_get))
            .route("/verify", web::post().to(email::verify_post))
            .route("/reauthenticate", web::get().to(email::reauthenticate))
            .route("/user", web::get().to(user::get))
            .route("/user", web::put().to(user::update))
            .route(
                "/user/identities/authorize",
                web::get().to(providers::link_identity),
            )
            .route(
                "/user/identities/{id}",
                web::delete().to(user::unlink_identity),
            )
            .route("/logout", web::post().to(user::logout))
            .route("/factors", web::post().to(factors::enroll))
            .route(
                "/factors/{id}/challenge",
                web::post().to(factors::challenge),
            )
            .route("/factors/{id}/verify", web::post().to(factors::verify))
            .route("/factors/{id}", web::delete().to(factors::unenroll))
            .route("/invite", web::post().to(admin::invite))
            .route("/admin/generate_link", web::post().to(admin::generate_link))
            .route("/admin/users", web::get().to(admin::list))
            .route("/admin/users", web::post().to(admin::create))
            .route("/admin/users/{id}", web::get().to(admin::get))
            .route("/admin/users/{id}", web::put().to(admin::update))
            .route("/admin/users/{id}", web::delete().to(admin::delete))
            .route(
                "/admin/users/{id}/factors",
                web::get().to(admin::list_factors),
            )
            .route(
                "/admin/users/{id}/factors/{factor}",
                web::delete().to(admin::delete_factor),
            )
            .default_service(web::to(not_found)),
    );
}

/// Whether the client wants GoTrue's legacy error body (it sent no API version).
fn legacy(req: &HttpRequest) -> bool {
    header(req, "x-supabase-api-version").is_none()
}

fn fail(req: &HttpRequest, e: AuthError) -> GatewayError {
    GatewayError::from_auth(e, legacy(req))
}

fn db_fail(req: &HttpRequest, e: db::DbError) -> GatewayError {
    tracing::error!("auth database error: {e}");
    if e.is_unavailable() {
        fail(
            req,
            api(
                503,
                "unexpected_failure",
                "The database is not available; try again shortly",
            ),
        )
    } else {
        fail(req, api(500, "unexpected_failure", "Internal Server Error"))
    }
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

/// The project's auth settings, with links in mails and tokens' `iss` on the URL clients use.
fn config(state: &AppState, req: &HttpRequest) -> AuthConfig {
    let mut cfg = state.auth.clone();
    if state.public_url.is_none() {
        let info = req.connection_info();
        cfg.issuer = format!("{}://{}/auth/v1", info.scheme(), info.host());
    }
    cfg
}

async fn json_body(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<Value, GatewayError> {
    let body = read_body(payload, state.config.max_body_bytes)
        .await
        .map_err(|e| match e {
            BodyError::TooLarge => {
                fail(req, api(413, "request_too_large", "Request body too large"))
            }
            BodyError::TimedOut => fail(
                req,
                api(
                    408,
                    "request_timeout",
                    "The request body did not arrive in time",
                ),
            ),
            BodyError::Broken => fail(
                req,
                api(400, "bad_json", "The request body could not be read"),
            ),
        })?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(&body).map_err(|e| {
        fail(
            req,
            api(
                400,
                "bad_json",
                format!("Could not parse request body as JSON: {e}"),
            ),
        )
    })
}

fn never(_: &AuthError) -> bool {
    false
}

/// Runs `f` in a transaction as the auth admin role; commits when `f` succeeds (or when `keep`
/// says the failure must be kept, like a revoked token family). The mails it returns go out
/// after the commit — or to the send-email hook, inside the transaction, when one is set.
async fn in_tx_mail<T, F>(
    req: &HttpRequest,
    state: &AppState,
    keep: fn(&AuthError) -> bool,
    f: F,
) -> Result<T, GatewayError>
where
    F: AsyncFnOnce(&tokio_postgres::Client) -> Result<(T, Vec<MailJob>), AuthError>,
{
    let tx = db::begin_as(&state.auth_pool(), ROLE, "{}", &state.role_settings(ROLE))
        .await
        .map_err(|e| db_fail(req, e))?;
    let mut result = f(tx.pg()).await;
    if let (Ok((_, jobs)), Some(hook)) = (&mut result, &state.auth.hooks.send_email) {
        for job in std::mem::take(jobs) {
            if let Err(e) = send_email_hook(tx.pg(), hook, &job).await {
                result = Err(e);
                break;
            }
        }
    }
    let commit = match &result {
        Ok(_) => true,
        Err(e) => keep(e),
    };
    tx.finish(commit).await.map_err(|e| db_fail(req, e))?;
    let (value, jobs) = result.map_err(|e| fail(req, e))?;
    if let Err(e) = state.mailer.deliver(&jobs).await {
        tracing::error!("mail delivery failed: {e}");
        let what = jobs.first().map(|j| j.kind.action_type()).unwrap_or("");
        return Err(fail(
            req,
            api(
                500,
                "unexpected_failure",
                format!("Error sending {what} email"),
            ),
        ));
    }
    Ok(value)
}

/// `in_tx_mail` for flows that send no mail.
async fn in_tx<T, F>(
    req: &HttpRequest,
    state: &AppState,
    keep: fn(&AuthError) -> bool,
    f: F,
) -> Result<T, GatewayError>
where
    F: AsyncFnOnce(&tokio_postgres::Client) -> Result<T, AuthError>,
{
    in_tx_mail(req, state, keep, async |c| Ok((f(c).await?, Vec::new()))).await
}

/// The send-email hook gets what GoTrue gives it instead of a mail.
async fn send_email_hook(
    c: &tokio_postgres::Client,
    hook: &auth::config::HookFn,
    job: &MailJob,
) -> Result<(), AuthError> {
    let user = auth::users::require(c, job.user_id).await?;
    let email_data = json!({
        "token": job.var("Token"),
        "token_hash": job.var("TokenHash"),
        "redirect_to": job.var("RedirectTo"),
        "email_action_type": job.kind.action_type(),
        "site_url": job.var("SiteURL"),
        "token_new": "",
        "token_hash_new": "",
    });
    auth::hooks::send_email(c, hook, &user, &email_data).await
}

/// The client address, as the rate limits count it.
fn ip(req: &HttpRequest, state: &AppState) -> String {
    client_ip(
        req,
        state.config.rate_limit_ip_header.as_deref(),
        state.config.trusted_proxy_hops,
    )
}

fn user_agent(req: &HttpRequest) -> Option<String> {
    header(req, "user-agent").map(str::to_string)
}

/// Counts the request in a shared, committed window; 429 past the limit. Like GoTrue under
/// the Supabase CLI (which limits per address only by a proxy's header), requests from this
/// machine are not limited unless `--rate-limit-ip-header` names the header to go by.
async fn limit(
    req: &HttpRequest,
    state: &AppState,
    bucket: &str,
    max: u32,
    window: i32,
) -> Result<(), GatewayError> {
    let addr = ip(req, state);
    if state.config.rate_limit_ip_header.is_none()
        && addr
            .parse::<std::net::IpAddr>()
            .is_ok_and(|a| a.is_loopback())
    {
        return Ok(());
    }
    let key = format!("{bucket}:{addr}");
    let allowed = in_tx(req, state, never, async |c| {
        auth::limits::allow(c, &key, max, window).await
    })
    .await?;
    if allowed {
        Ok(())
    } else {
        Err(fail(
            req,
            api(429, "over_request_rate_limit", "Request rate limit reached"),
        ))
    }
}

async fn hash_password(pw: String) -> String {
    web::block(move || auth::password::hash(&pw))
        .await
        .expect("hashing thread")
}

/// A query parameter.
fn query(req: &HttpRequest, name: &str) -> Option<String> {
    crate::http_util::query_pairs(req.query_string())
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// Where the flow may send the browser back to: `redirect_to` when allowed, else the site.
fn redirect_to(req: &HttpRequest, cfg: &AuthConfig, body: Option<&Value>) -> String {
    let asked = query(req, "redirect_to")
        .or_else(|| body.and_then(|b| b["redirect_to"].as_str().map(str::to_string)));
    auth::redirect::resolve(cfg, asked.as_deref())
}

/// The caller of an endpoint that needs a user: id and session of the access token.
struct Caller {
    id: Uuid,
    session: Option<Uuid>,
}

fn caller(req: &HttpRequest, state: &AppState) -> Result<Caller, GatewayError> {
    let token = bearer_token(req).ok_or_else(|| {
        fail(
            req,
            api(
                401,
                "no_authorization",
                "This endpoint requires a valid Bearer token",
            ),
        )
    })?;
    let claims = state.keys.verify(token).map_err(|e| {
        fail(
            req,
            api(
                403,
                "bad_jwt",
                format!("invalid JWT: unable to parse or verify signature, {e}"),
            ),
        )
    })?;
    let id = claims["sub"]
        .as_str()
        .and_then(|s| Uuid::parse_str(s).ok())
        .ok_or_else(|| fail(req, api(403, "bad_jwt", "invalid claim: missing sub claim")))?;
    let session = claims["session_id"]
        .as_str()
        .and_then(|s| Uuid::parse_str(s).ok());
    Ok(Caller { id, session })
}

/// A path segment as a UUID (404 `not_found` otherwise).
fn path_uuid(req: &HttpRequest, name: &str, what: AuthError) -> Result<Uuid, GatewayError> {
    Uuid::parse_str(req.match_info().query(name)).map_err(|_| fail(req, what))
}

async fn not_found(req: HttpRequest) -> Reply {
    Err(fail(
        &req,
        api(
            404,
            "not_found",
            format!("Unhandled request: {} {}", req.method(), req.path()),
        ),
    ))
}
