//! `/auth/v1` routes of sign-in with OAuth providers: `/authorize` (and linking an identity,
//! `/user/identities/authorize`), the local stand-in's sign-in page (`/local-oauth/{provider}`)
//! and `/callback`, which sends the browser back to the app; each calls `auth_external::External`.

use crate::auth_http::{caller, fail, query, raw_body, request, see_other, segment};
use crate::error::GatewayError;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use auth::params::CallbackParams;
use auth::{ErrorCode, api};
use auth_external::{Chosen, External, Start};
use serde_json::json;
use uuid::Uuid;

type Data = crate::branches::State;
type Reply = Result<HttpResponse, GatewayError>;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/authorize", web::get().to(authorize))
        .route("/user/identities/authorize", web::get().to(link_identity))
        .route("/local-oauth/{provider}", web::get().to(page))
        .route("/local-oauth/{provider}", web::post().to(choose))
        .route("/callback", web::get().to(callback))
        .route("/callback", web::post().to(callback));
}

fn found(to: String) -> HttpResponse {
    HttpResponse::Found()
        .insert_header(("Location", to))
        .insert_header(("Cache-Control", "no-store"))
        .finish()
}

/// `/authorize` and its linking twin: a redirect, or `{"url"}` with `skip_http_redirect`.
async fn start(req: &HttpRequest, state: &AppState, link_user: Option<Uuid>) -> Reply {
    let provider = query(req, "provider").unwrap_or_default();
    let redirect_to = query(req, "redirect_to");
    let pkce = match (
        query(req, "code_challenge_method"),
        query(req, "code_challenge"),
    ) {
        (Some(m), Some(c)) if !c.is_empty() => Some((m, c)),
        _ => None,
    };
    let url = External::new(&state.auth)
        .external_start(Start {
            provider: &provider,
            redirect_to: redirect_to.as_deref(),
            pkce,
            link_user,
            query: req.query_string(),
        })
        .await
        .map_err(|e| fail(req, e))?;
    if query(req, "skip_http_redirect").as_deref() == Some("true") {
        return Ok(HttpResponse::Ok().json(json!({ "url": url })));
    }
    Ok(found(url))
}

async fn authorize(req: HttpRequest, state: Data) -> Reply {
    start(&req, &state, None).await
}

/// `GET /user/identities/authorize`: an identity for the signed-in user.
async fn link_identity(req: HttpRequest, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    state
        .auth
        .check_caller(who)
        .await
        .map_err(|e| fail(&req, e))?;
    if !state.auth.config().manual_linking {
        return Err(fail(
            &req,
            api(
                404,
                ErrorCode::ManualLinkingDisabled,
                "Manual linking is disabled",
            ),
        ));
    }
    start(&req, &state, Some(who.id)).await
}

async fn page(req: HttpRequest, state: Data) -> Reply {
    let s = query(&req, "state").unwrap_or_default();
    let html = External::new(&state.auth)
        .local_oauth_page(segment(&req, "provider"), &s)
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'",
        ))
        .body(html))
}

async fn choose(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let form: Chosen = {
        let bytes = raw_body(&req, payload, &state).await?;
        serde_urlencoded::from_bytes(&bytes).map_err(|_| {
            fail(
                &req,
                api(400, ErrorCode::ValidationFailed, "Could not read the form"),
            )
        })?
    };
    let to = External::new(&state.auth)
        .local_oauth_choose(segment(&req, "provider"), form)
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(see_other(to))
}

/// `/callback`: the provider's answer in the query, or in a form POST (Apple's `form_post`).
async fn callback(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let read = |b: &[u8]| serde_urlencoded::from_bytes::<CallbackParams>(b).unwrap_or_default();
    let p = if req.method() == actix_web::http::Method::POST {
        read(&raw_body(&req, payload, &state).await?)
    } else {
        read(req.query_string().as_bytes())
    };
    let r = request(&req, &state);
    Ok(found(
        External::new(&state.auth).external_callback(&r, p).await,
    ))
}
