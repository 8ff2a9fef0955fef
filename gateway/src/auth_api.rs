//! `/auth/v1`: GoTrue's routes. Each handler reads its request — the caller's token, the
//! client's address, a typed body — calls one function of the auth service (or of its sub-services
//! `auth_admin::Admin`, `auth_mfa::Mfa`, `auth_external::External`), and writes the
//! answer (or GoTrue's error body, old or new shape by `X-Supabase-Api-Version`).

use crate::auth_http::{
    body, caller, captcha_body, check_captcha, fail, query, raw_body, reply, request,
    require_admin, see_other, segment, unhandled,
};
use crate::error::GatewayError;
use actix_web::{HttpRequest, HttpResponse, web};
use auth::params::{UserListQuery, VerifyLinkQuery};
use auth::service::{Grant, Verified};
use auth::{ErrorCode, api};
use auth_admin::Admin;
use auth_external::External;
use auth_mfa::Mfa;
use serde_json::json;

type Data = crate::branches::State;
type Reply = Result<HttpResponse, GatewayError>;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/auth/v1")
            .route("/health", web::get().to(health))
            .route("/settings", web::get().to(settings))
            .route("/.well-known/jwks.json", web::get().to(jwks))
            .route("/sso", web::post().to(sso))
            .route("/sso/saml/metadata", web::get().to(sso))
            .route("/sso/saml/acs", web::post().to(sso))
            .route("/signup", web::post().to(signup))
            .route("/token", web::post().to(token))
            .route("/otp", web::post().to(otp))
            .route("/magiclink", web::post().to(magiclink))
            .route("/recover", web::post().to(recover))
            .route("/resend", web::post().to(resend))
            .route("/verify", web::get().to(verify_link))
            .route("/verify", web::post().to(verify_code))
            .route("/reauthenticate", web::get().to(reauthenticate))
            .route("/user", web::get().to(user))
            .route("/user", web::put().to(update_user))
            .route("/user/identities/{id}", web::delete().to(unlink_identity))
            .route("/logout", web::post().to(logout))
            .route("/factors", web::post().to(enroll))
            .route("/factors/{id}/challenge", web::post().to(challenge))
            .route("/factors/{id}/verify", web::post().to(verify_factor))
            .route("/factors/{id}", web::delete().to(unenroll))
            .route("/invite", web::post().to(invite))
            .route("/admin/generate_link", web::post().to(generate_link))
            .route("/admin/users", web::get().to(list_users))
            .route("/admin/users", web::post().to(create_user))
            .route("/admin/users/{id}", web::get().to(get_user))
            .route("/admin/users/{id}", web::put().to(update_user_admin))
            .route("/admin/users/{id}", web::delete().to(delete_user))
            .route("/admin/users/{id}/factors", web::get().to(list_factors))
            .route(
                "/admin/users/{id}/factors/{factor}",
                web::delete().to(delete_factor),
            )
            .configure(crate::oauth_server_api::routes)
            .configure(crate::passkey_api::routes)
            .configure(crate::external_api::routes)
            .default_service(web::to(not_found)),
    );
}

async fn health() -> HttpResponse {
    HttpResponse::Ok().json(
        json!({"version": env!("CARGO_PKG_VERSION"), "name": "GoTrue",
                                   "description": "supagate auth, GoTrue-compatible"}),
    )
}

async fn settings(state: Data) -> HttpResponse {
    HttpResponse::Ok().json(state.auth.settings())
}

async fn jwks(state: Data) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "public, max-age=600"))
        .json(state.keys.jwks())
}

/// `/sso…`: SAML is off.
async fn sso(req: HttpRequest) -> Reply {
    Err(fail(
        &req,
        api(404, ErrorCode::SamlProviderDisabled, "SAML 2.0 is disabled"),
    ))
}

async fn not_found(req: HttpRequest) -> Reply {
    Err(unhandled(&req))
}

async fn signup(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let p = captcha_body(&req, payload, &state).await?;
    reply(&req, state.auth.signup(&request(&req, &state), p).await)
}

async fn token(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let grant_type = query(&req, "grant_type").unwrap_or_default();
    // An unknown grant type is refused before its body is read.
    Grant::parse(&grant_type, b"").map_err(|e| fail(&req, e))?;
    let bytes = raw_body(&req, payload, &state).await?;
    // GoTrue asks no captcha of grants that follow an earlier checked step.
    if !["pkce", "refresh_token", "id_token"].contains(&grant_type.as_str()) {
        check_captcha(&req, &state, &bytes).await?;
    }
    let grant = Grant::parse(&grant_type, &bytes).map_err(|e| fail(&req, e))?;
    let (r, auth) = (request(&req, &state), &state.auth);
    let answer = match grant {
        Grant::Password(p) => auth.password_grant(&r, p).await,
        Grant::RefreshToken(p) => auth.refresh_grant(&r, p).await,
        Grant::Pkce(p) => auth.pkce_grant(&r, p).await,
        Grant::IdToken(p) => External::new(auth).id_token_grant(&r, p).await,
        Grant::Web3(body) => auth.web3_grant(&r, &body).await,
    };
    reply(&req, answer)
}

async fn otp(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let p = captcha_body(&req, payload, &state).await?;
    reply(&req, state.auth.otp(&request(&req, &state), p).await)
}

async fn magiclink(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let p = captcha_body(&req, payload, &state).await?;
    reply(&req, state.auth.magiclink(&request(&req, &state), p).await)
}

async fn recover(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let p = captcha_body(&req, payload, &state).await?;
    reply(&req, state.auth.recover(&request(&req, &state), p).await)
}

async fn resend(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let p = captcha_body(&req, payload, &state).await?;
    reply(&req, state.auth.resend(&request(&req, &state), p).await)
}

/// `GET /verify`: the link in a mail; the browser goes back to the app (303).
async fn verify_link(req: HttpRequest, state: Data) -> Reply {
    let q = web::Query::<VerifyLinkQuery>::from_query(req.query_string())
        .map(|q| q.into_inner())
        .unwrap_or_default();
    let to = state
        .auth
        .verify_link(&request(&req, &state), q)
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(see_other(to))
}

async fn verify_code(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let p = body(&req, payload, &state).await?;
    let done = state.auth.verify_code(&request(&req, &state), p).await;
    reply(
        &req,
        done.map(|v| match v {
            Verified::Session(s) | Verified::OneOfTwo(s) => s,
        }),
    )
}

async fn reauthenticate(req: HttpRequest, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    reply(&req, state.auth.reauthenticate(who).await)
}

async fn user(req: HttpRequest, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    reply(&req, state.auth.user(who).await)
}

async fn update_user(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (r, who) = caller(&req, &state)?;
    let p = body(&req, payload, &state).await?;
    reply(&req, state.auth.update_user(&r, who, p).await)
}

async fn unlink_identity(req: HttpRequest, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    let id = segment(&req, "id");
    reply(&req, state.auth.unlink_identity(who, id).await)
}

async fn logout(req: HttpRequest, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    let scope = query(&req, "scope");
    state
        .auth
        .logout(who, scope.as_deref())
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(HttpResponse::NoContent().finish())
}

async fn enroll(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    let p = body(&req, payload, &state).await?;
    reply(&req, Mfa::new(&state.auth).enroll_factor(who, p).await)
}

async fn challenge(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (r, who) = caller(&req, &state)?;
    let p = body(&req, payload, &state).await?;
    let id = segment(&req, "id");
    reply(
        &req,
        Mfa::new(&state.auth).challenge_factor(&r, who, id, p).await,
    )
}

async fn verify_factor(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    let p = body(&req, payload, &state).await?;
    let id = segment(&req, "id");
    reply(&req, Mfa::new(&state.auth).verify_factor(who, id, p).await)
}

async fn unenroll(req: HttpRequest, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    let id = segment(&req, "id");
    reply(&req, Mfa::new(&state.auth).unenroll_factor(who, id).await)
}

async fn invite(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let r = require_admin(&req, &state)?;
    let p = body(&req, payload, &state).await?;
    reply(&req, Admin::new(&state.auth).invite(&r, p).await)
}

async fn generate_link(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let r = require_admin(&req, &state)?;
    let p = body(&req, payload, &state).await?;
    reply(&req, Admin::new(&state.auth).generate_link(&r, p).await)
}

async fn list_users(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let q = web::Query::<UserListQuery>::from_query(req.query_string())
        .map(|q| q.into_inner())
        .unwrap_or_default();
    let page = Admin::new(&state.auth)
        .list_users(q, req.path())
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(HttpResponse::Ok()
        .insert_header(("X-Total-Count", page.total.to_string()))
        .insert_header(("Link", page.links))
        .json(page.body))
}

async fn create_user(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let p = body(&req, payload, &state).await?;
    reply(&req, Admin::new(&state.auth).create_user(p).await)
}

async fn get_user(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    reply(
        &req,
        Admin::new(&state.auth).get_user(segment(&req, "id")).await,
    )
}

async fn update_user_admin(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let p = body(&req, payload, &state).await?;
    let id = segment(&req, "id");
    reply(&req, Admin::new(&state.auth).update_user_admin(id, p).await)
}

async fn delete_user(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let done = Admin::new(&state.auth)
        .delete_user(segment(&req, "id"))
        .await;
    reply(&req, done.map(|()| json!({})))
}

async fn list_factors(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    reply(
        &req,
        Admin::new(&state.auth)
            .list_factors(segment(&req, "id"))
            .await,
    )
}

async fn delete_factor(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let (id, factor) = (segment(&req, "id"), segment(&req, "factor"));
    reply(
        &req,
        Admin::new(&state.auth).delete_factor(id, factor).await,
    )
}
