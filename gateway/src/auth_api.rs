//! `/auth/v1`: GoTrue-compatible sign-up, sign-in, sessions, users and the admin user API.

use crate::db;
use crate::error::GatewayError;
use crate::http_util::{BodyError, bearer_token, client_ip, header, read_body};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use auth::service::{self as svc, AuthConfig, AuthError, LogoutScope, api};
use serde_json::{Value, json};
use std::sync::Arc;
use uuid::Uuid;

type Data = web::Data<Arc<AppState>>;
type Reply = Result<HttpResponse, GatewayError>;

const ROLE: &str = "supabase_auth_admin";
const WINDOW_SECS: i32 = 300;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/auth/v1")
            .route("/health", web::get().to(health))
            .route("/settings", web::get().to(settings))
            .route("/signup", web::post().to(signup))
            .route("/token", web::post().to(token))
            .route("/user", web::get().to(get_user))
            .route("/user", web::put().to(put_user))
            .route("/logout", web::post().to(logout))
            .route("/admin/users", web::get().to(admin_list))
            .route("/admin/users", web::post().to(admin_create))
            .route("/admin/users/{id}", web::get().to(admin_get))
            .route("/admin/users/{id}", web::put().to(admin_update))
            .route("/admin/users/{id}", web::delete().to(admin_delete))
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

pub fn auth_config(state: &AppState, req: &HttpRequest) -> AuthConfig {
    let base = state.public_url.clone().unwrap_or_else(|| {
        format!(
            "{}://{}",
            req.connection_info().scheme(),
            req.connection_info().host()
        )
    });
    AuthConfig {
        keys: state.keys.clone(),
        jwt_expiry: state.config.jwt_expiry,
        issuer: format!("{base}/auth/v1"),
        password: auth::password::Policy::new(
            state.config.minimum_password_length,
            &state.config.password_requirements,
        ),
        disable_signup: state.config.disable_signup,
        email_enabled: state.config.email_signup,
        rotation: state.config.refresh_token_rotation,
        refresh_reuse_interval: state.config.refresh_token_reuse_interval,
    }
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

/// Runs `f` in a transaction as the auth role; commits when `f` succeeds (or when `keep` says
/// the failure must be kept, like a revoked token family).
async fn in_tx<T, F>(
    req: &HttpRequest,
    state: &AppState,
    keep: fn(&AuthError) -> bool,
    f: F,
) -> Result<T, GatewayError>
where
    F: AsyncFnOnce(&tokio_postgres::Client) -> Result<T, AuthError>,
{
    let tx = db::begin_as(&state.auth_pool(), ROLE, "{}", &state.role_settings(ROLE))
        .await
        .map_err(|e| db_fail(req, e))?;
    let result = f(tx.pg()).await;
    let commit = match &result {
        Ok(_) => true,
        Err(e) => keep(e),
    };
    tx.finish(commit).await.map_err(|e| db_fail(req, e))?;
    result.map_err(|e| fail(req, e))
}

fn never(_: &AuthError) -> bool {
    false
}

/// Counts the request in a shared, committed window; 429 past the limit.
async fn limit(
    req: &HttpRequest,
    state: &AppState,
    bucket: &str,
    max: u32,
) -> Result<(), GatewayError> {
    let key = format!(
        "{bucket}:{}",
        client_ip(
            req,
            state.config.rate_limit_ip_header.as_deref(),
            state.config.trusted_proxy_hops
        )
    );
    let allowed = in_tx(req, state, never, async |c| {
        svc::rate_limit(c, &key, i32::try_from(max).unwrap_or(i32::MAX), WINDOW_SECS).await
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

async fn health() -> HttpResponse {
    HttpResponse::Ok().json(json!({"version": env!("CARGO_PKG_VERSION"), "name": "GoTrue", "description": "supagate auth, GoTrue-compatible"}))
}

async fn settings(state: Data) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "external": {"email": true, "phone": false, "anonymous_users": false, "google": false, "github": false, "apple": false},
        "disable_signup": state.config.disable_signup,
        "mailer_autoconfirm": true,
        "phone_autoconfirm": false,
        "sms_provider": "",
        "saml_enabled": false,
    }))
}

async fn signup(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    limit(&req, &state, "signin", state.config.rate_limit_sign_in).await?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = auth_config(&state, &req);
    if cfg.disable_signup {
        return Err(fail(
            &req,
            api(
                422,
                "signup_disabled",
                "Signups not allowed for this instance",
            ),
        ));
    }
    if !cfg.email_enabled {
        return Err(fail(
            &req,
            api(400, "email_provider_disabled", "Email signups are disabled"),
        ));
    }
    let (email, pw) = svc::validate_credentials(
        body["email"].as_str(),
        body["password"].as_str(),
        &cfg.password,
    )
    .map_err(|e| fail(&req, e))?;
    let hash = hash_password(pw).await;
    let ua = header(&req, "user-agent").map(str::to_string);
    let ip = req.peer_addr().map(|a| a.ip().to_string());
    let session = in_tx(&req, &state, never, async |c| {
        svc::signup(
            c,
            &cfg,
            &email,
            &hash,
            &body["data"],
            ua.as_deref(),
            ip.as_deref(),
        )
        .await
    })
    .await?;
    Ok(ok_json(&req, session))
}

async fn token(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let grant =
        web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.get("grant_type").cloned())
            .unwrap_or_default();
    let cfg = auth_config(&state, &req);
    match grant.as_str() {
        "password" => {
            limit(&req, &state, "signin", state.config.rate_limit_sign_in).await?;
            if !cfg.email_enabled {
                return Err(fail(
                    &req,
                    api(422, "email_provider_disabled", "Email logins are disabled"),
                ));
            }
            let body = json_body(&req, payload, &state).await?;
            let email = body["email"].as_str().unwrap_or("").trim().to_lowercase();
            let pw = body["password"].as_str().unwrap_or("").to_string();
            if email.is_empty() || pw.is_empty() {
                return Err(fail(&req, svc::invalid_credentials()));
            }
            let found = in_tx(&req, &state, never, async |c| {
                svc::login_lookup(c, &email).await
            })
            .await?;
            // Unknown addresses verify against a dummy hash: same answer, similar time.
            let (id, stored, banned) = found.clone().unwrap_or((
                Uuid::nil(),
                auth::password::dummy_hash().to_string(),
                false,
            ));
            let ok = web::block(move || auth::password::verify(&pw, &stored))
                .await
                .unwrap_or(false);
            if !ok || found.is_none() {
                return Err(fail(&req, svc::invalid_credentials()));
            }
            if banned {
                return Err(fail(&req, api(400, "user_banned", "User is banned")));
            }
            let ua = header(&req, "user-agent").map(str::to_string);
            let ip = req.peer_addr().map(|a| a.ip().to_string());
            let session = in_tx(&req, &state, never, async |c| {
                svc::start_session(c, &cfg, id, "password", ua.as_deref(), ip.as_deref()).await
            })
            .await?;
            Ok(ok_json(&req, session))
        }
        "refresh_token" => {
            limit(
                &req,
                &state,
                "refresh",
                state.config.rate_limit_token_refresh,
            )
            .await?;
            let body = json_body(&req, payload, &state).await?;
            let rt = body["refresh_token"].as_str().unwrap_or("").to_string();
            let keep = |e: &AuthError| {
                matches!(
                    e,
                    AuthError::Api {
                        code: "refresh_token_already_used",
                        ..
                    }
                )
            };
            let session = in_tx(&req, &state, keep, async |c| {
                svc::refresh(c, &cfg, &rt).await
            })
            .await?;
            Ok(ok_json(&req, session))
        }
        _ => Err(fail(
            &req,
            api(400, "validation_failed", "unsupported_grant_type"),
        )),
    }
}

/// The user id and session of the request's access token.
fn user_claims(
    req: &HttpRequest,
    state: &AppState,
) -> Result<(Uuid, Option<Uuid>, Value), GatewayError> {
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
    let sub = claims["sub"].as_str().and_then(|s| Uuid::parse_str(s).ok());
    let Some(sub) = sub else {
        return Err(fail(
            req,
            api(403, "bad_jwt", "invalid claim: missing sub claim"),
        ));
    };
    let session = claims["session_id"]
        .as_str()
        .and_then(|s| Uuid::parse_str(s).ok());
    Ok((sub, session, claims))
}

/// The e-mail and password an update asks for: the address normalised, the password checked
/// against the rules and hashed.
async fn new_credentials(
    req: &HttpRequest,
    state: &AppState,
    body: &Value,
) -> Result<(Option<String>, Option<String>), GatewayError> {
    let email = match body["email"].as_str() {
        Some(e) => Some(
            auth::users::normalize_email(e)
                .map_err(|e| fail(req, api(400, "validation_failed", e.to_string())))?,
        ),
        None => None,
    };
    let hash = match body["password"].as_str() {
        Some(pw) => {
            svc::check_password(pw, &auth_config(state, req).password).map_err(|e| fail(req, e))?;
            Some(hash_password(pw.to_string()).await)
        }
        None => None,
    };
    Ok((email, hash))
}

async fn get_user(req: HttpRequest, state: Data) -> Reply {
    let (id, session, _) = user_claims(&req, &state)?;
    let user = in_tx(&req, &state, never, async |c| {
        svc::check_session(c, id, session).await
    })
    .await?;
    Ok(ok_json(&req, user))
}

async fn put_user(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (id, session, _) = user_claims(&req, &state)?;
    let body = json_body(&req, payload, &state).await?;
    let (email, hash) = new_credentials(&req, &state, &body).await?;
    let data = body.get("data").filter(|d| d.is_object()).cloned();
    let user = in_tx(&req, &state, never, async |c| {
        svc::check_session(c, id, session).await?;
        svc::update_user(
            c,
            id,
            email.as_deref(),
            hash.as_deref(),
            data.as_ref(),
            None,
        )
        .await
    })
    .await?;
    Ok(ok_json(&req, user))
}

async fn logout(req: HttpRequest, state: Data) -> Reply {
    let (id, session, _) = user_claims(&req, &state)?;
    let scope = match web::Query::<std::collections::HashMap<String, String>>::from_query(
        req.query_string(),
    )
    .ok()
    .and_then(|q| q.get("scope").cloned())
    .as_deref()
    {
        None | Some("global") => LogoutScope::Global,
        Some("local") => LogoutScope::Local,
        Some("others") => LogoutScope::Others,
        Some(other) => {
            return Err(fail(
                &req,
                api(
                    400,
                    "validation_failed",
                    format!("Unsupported logout scope \"{other}\""),
                ),
            ));
        }
    };
    in_tx(&req, &state, never, async |c| {
        svc::logout(c, id, session, scope).await
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

// ----------------------------------------------------------------- admin API (service_role)

fn require_admin(req: &HttpRequest, state: &AppState) -> Result<(), GatewayError> {
    let identity = crate::request_auth::identify(req, &state.keys, state.local_keys())
        .map_err(|e| fail(req, api(401, "bad_jwt", e.message)))?;
    if identity.role == "service_role" {
        Ok(())
    } else {
        Err(fail(req, api(403, "not_admin", "User not allowed")))
    }
}

fn path_id(req: &HttpRequest) -> Result<Uuid, GatewayError> {
    Uuid::parse_str(req.match_info().query("id"))
        .map_err(|_| fail(req, api(404, "user_not_found", "User not found")))
}

async fn admin_list(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let q = web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
        .map(|q| q.into_inner())
        .unwrap_or_default();
    let page = q
        .get("page")
        .and_then(|p| p.parse::<i64>().ok())
        .unwrap_or(1)
        .max(1);
    let per_page = q
        .get("per_page")
        .and_then(|p| p.parse::<i64>().ok())
        .unwrap_or(50)
        .clamp(1, 1000);
    let (users, total) = in_tx(&req, &state, never, async |c| {
        svc::list_users(c, page, per_page).await
    })
    .await?;
    let last = ((total + per_page - 1) / per_page).max(1);
    let path = req.path().to_string();
    let mut links = vec![format!(
        "<{path}?page={last}&per_page={per_page}>; rel=\"last\""
    )];
    if page < last {
        links.insert(
            0,
            format!(
                "<{path}?page={}&per_page={per_page}>; rel=\"next\"",
                page + 1
            ),
        );
    }
    Ok(HttpResponse::Ok()
        .insert_header(("X-Total-Count", total.to_string()))
        .insert_header(("Link", links.join(", ")))
        .json(json!({"users": users, "aud": "authenticated"})))
}

async fn admin_create(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let body = json_body(&req, payload, &state).await?;
    let email = auth::users::normalize_email(body["email"].as_str().unwrap_or(""))
        .map_err(|e| fail(&req, api(400, "validation_failed", e.to_string())))?;
    let hash = match body["password"].as_str() {
        Some(pw) => {
            svc::check_password(pw, &auth_config(&state, &req).password)
                .map_err(|e| fail(&req, e))?;
            hash_password(pw.to_string()).await
        }
        None => String::new(),
    };
    let confirm = body["email_confirm"].as_bool().unwrap_or(false);
    let meta = body
        .get("user_metadata")
        .filter(|m| m.is_object())
        .cloned()
        .unwrap_or(json!({}));
    let app_meta = body.get("app_metadata").filter(|m| m.is_object()).cloned();
    let user = in_tx(&req, &state, never, async |c| {
        if auth::users::find_id_by_email(c, &email).await?.is_some() {
            return Err(api(
                422,
                "email_exists",
                "A user with this email address has already been registered",
            ));
        }
        let id = auth::users::insert_user(c, &email, &hash, &meta, confirm).await?;
        svc::update_user(c, id, None, None, None, app_meta.as_ref()).await
    })
    .await?;
    Ok(ok_json(&req, user))
}

async fn admin_get(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let id = path_id(&req)?;
    let user = in_tx(&req, &state, never, async |c| svc::user_json(c, id).await).await?;
    user.map(|u| ok_json(&req, u))
        .ok_or_else(|| fail(&req, api(404, "user_not_found", "User not found")))
}

async fn admin_update(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let id = path_id(&req)?;
    let body = json_body(&req, payload, &state).await?;
    let (email, hash) = new_credentials(&req, &state, &body).await?;
    let meta = body.get("user_metadata").filter(|m| m.is_object()).cloned();
    let app_meta = body.get("app_metadata").filter(|m| m.is_object()).cloned();
    let ban = body["ban_duration"].as_str().map(str::to_string);
    let confirm = body["email_confirm"].as_bool() == Some(true);
    let user = in_tx(&req, &state, never, async |c| {
        if svc::user_json(c, id).await?.is_none() {
            return Err(api(404, "user_not_found", "User not found"));
        }
        if confirm {
            c.execute("UPDATE auth.users SET email_confirmed_at = coalesce(email_confirmed_at, now()) WHERE id = $1", &[&id]).await?;
        }
        if let Some(b) = &ban {
            let until = if b == "none" { None } else { Some(b.as_str()) };
            c.execute("UPDATE auth.users SET banned_until = now() + $2::text::interval WHERE id = $1", &[&id, &until])
                .await
                .map_err(|_| api(400, "validation_failed", "invalid format for ban duration"))?;
        }
        svc::update_user(c, id, email.as_deref(), hash.as_deref(), meta.as_ref(), app_meta.as_ref()).await
    })
    .await?;
    Ok(ok_json(&req, user))
}

async fn admin_delete(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let id = path_id(&req)?;
    let deleted = in_tx(&req, &state, never, async |c| svc::delete_user(c, id).await).await?;
    if deleted {
        Ok(ok_json(&req, json!({})))
    } else {
        Err(fail(&req, api(404, "user_not_found", "User not found")))
    }
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
