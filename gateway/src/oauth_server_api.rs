//! `/auth/v1` routes of GoTrue's OAuth 2.1 server (`[auth.oauth_server]`): the admin client API,
//! dynamic client registration and the server's metadata. While the server is off they answer
//! as routes GoTrue does not have (404).

use crate::auth_http::{
    body, caller, fail, query, raw_body, reply, request, require_admin, segment, unhandled,
};
use crate::error::GatewayError;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use auth::AuthError;
use base64::Engine;
use oauth_server::{AuthorizeQuery, OAuthServer, RegisterParams, TokenParams, UpdateParams};
use serde_json::json;

/// The OAuth 2.1 server over the auth service of the request's branch.
fn server(state: &AppState) -> OAuthServer<'_> {
    OAuthServer::new(&state.auth)
}

type Data = crate::branches::State;
type Reply = Result<HttpResponse, GatewayError>;

pub fn routes(cfg: &mut web::ServiceConfig) {
    const CLIENT: &str = "/admin/oauth/clients/{client_id}";
    cfg.route(
        "/.well-known/oauth-authorization-server",
        web::get().to(metadata),
    )
    .route("/oauth/clients/register", web::post().to(register_dynamic))
    .route("/admin/oauth/clients", web::get().to(list))
    .route("/admin/oauth/clients", web::post().to(register))
    .route(CLIENT, web::get().to(get))
    .route(CLIENT, web::put().to(update))
    .route(CLIENT, web::delete().to(delete))
    .route(
        "/admin/oauth/clients/{client_id}/regenerate_secret",
        web::post().to(regenerate_secret),
    )
    .route("/oauth/authorize", web::get().to(authorize))
    .route(
        "/oauth/authorizations/{authorization_id}",
        web::get().to(authorization),
    )
    .route(
        "/oauth/authorizations/{authorization_id}/consent",
        web::post().to(consent),
    )
    .route("/oauth/token", web::post().to(token))
    .route("/user/oauth/grants", web::get().to(grants))
    .route("/user/oauth/grants", web::delete().to(revoke_grant));
}

async fn grants(req: HttpRequest, state: Data) -> Reply {
    enabled(&req, &state)?;
    let (_, who) = caller(&req, &state)?;
    reply(&req, server(&state).oauth_grants(who).await)
}

async fn revoke_grant(req: HttpRequest, state: Data) -> Reply {
    enabled(&req, &state)?;
    let (_, who) = caller(&req, &state)?;
    let client = query(&req, "client_id").unwrap_or_default();
    server(&state)
        .revoke_oauth_grant(who, &client)
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(HttpResponse::NoContent().finish())
}

/// The server is on, else the answer for a route GoTrue does not have.
fn enabled(req: &HttpRequest, state: &AppState) -> Result<(), GatewayError> {
    match server(state).oauth_server_enabled() {
        true => Ok(()),
        false => Err(unhandled(req)),
    }
}

/// A 201 with the new client (and its secret, the only time it is shown).
fn created(req: &HttpRequest, r: Result<serde_json::Value, auth::AuthError>) -> Reply {
    r.map(|v| {
        HttpResponse::Created()
            .insert_header(("Cache-Control", "no-store"))
            .json(v)
    })
    .map_err(|e| fail(req, e))
}

async fn metadata(req: HttpRequest, state: Data) -> Reply {
    enabled(&req, &state)?;
    reply(&req, Ok(server(&state).oauth_server_metadata()))
}

async fn register_dynamic(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    enabled(&req, &state)?;
    let p: RegisterParams = body(&req, payload, &state).await?;
    created(&req, server(&state).register_oauth_client(p, true).await)
}

async fn register(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    enabled(&req, &state)?;
    require_admin(&req, &state)?;
    let p: RegisterParams = body(&req, payload, &state).await?;
    created(&req, server(&state).register_oauth_client(p, false).await)
}

async fn list(req: HttpRequest, state: Data) -> Reply {
    enabled(&req, &state)?;
    require_admin(&req, &state)?;
    let (page, per_page) = (query(&req, "page"), query(&req, "per_page"));
    let clients = server(&state)
        .list_oauth_clients(page.as_deref(), per_page.as_deref())
        .await;
    reply(&req, clients)
}

async fn get(req: HttpRequest, state: Data) -> Reply {
    enabled(&req, &state)?;
    require_admin(&req, &state)?;
    reply(
        &req,
        server(&state)
            .get_oauth_client(segment(&req, "client_id"))
            .await,
    )
}

async fn update(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    enabled(&req, &state)?;
    require_admin(&req, &state)?;
    let p: UpdateParams = body(&req, payload, &state).await?;
    let id = segment(&req, "client_id");
    reply(&req, server(&state).update_oauth_client(id, p).await)
}

async fn delete(req: HttpRequest, state: Data) -> Reply {
    enabled(&req, &state)?;
    require_admin(&req, &state)?;
    let id = segment(&req, "client_id");
    server(&state)
        .delete_oauth_client(id)
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(HttpResponse::NoContent().finish())
}

async fn regenerate_secret(req: HttpRequest, state: Data) -> Reply {
    enabled(&req, &state)?;
    require_admin(&req, &state)?;
    let id = segment(&req, "client_id");
    reply(
        &req,
        server(&state).regenerate_oauth_client_secret(id).await,
    )
}

/// `GET /oauth/authorize`: to the app's consent page (302).
async fn authorize(req: HttpRequest, state: Data) -> Reply {
    enabled(&req, &state)?;
    let q = web::Query::<AuthorizeQuery>::from_query(req.query_string())
        .map(|q| q.into_inner())
        .unwrap_or_default();
    let to = server(&state)
        .oauth_authorize(q)
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(HttpResponse::Found()
        .insert_header(("Location", to))
        .insert_header(("Cache-Control", "no-store"))
        .finish())
}

async fn authorization(req: HttpRequest, state: Data) -> Reply {
    enabled(&req, &state)?;
    let (_, who) = caller(&req, &state)?;
    let id = segment(&req, "authorization_id");
    reply(&req, server(&state).oauth_authorization(who, id).await)
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct ConsentBody {
    action: Option<String>,
}

async fn consent(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    enabled(&req, &state)?;
    let (_, who) = caller(&req, &state)?;
    let p: ConsentBody = body(&req, payload, &state).await?;
    let id = segment(&req, "authorization_id");
    let action = p.action.unwrap_or_default();
    reply(&req, server(&state).oauth_consent(who, id, &action).await)
}

/// The client's `Authorization: Basic base64(client_id:client_secret)`, when sent.
fn basic_credentials(req: &HttpRequest) -> Result<Option<(String, String)>, AuthError> {
    let Some(value) = crate::http_util::header(req, "authorization") else {
        return Ok(None);
    };
    let Some(encoded) = value.strip_prefix("Basic ") else {
        return Ok(None);
    };
    let bad = || auth::oauth("invalid_client", "invalid basic auth encoding");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| bad())?;
    let text = String::from_utf8(decoded).map_err(|_| bad())?;
    let (id, secret) = text
        .split_once(':')
        .ok_or_else(|| auth::oauth("invalid_client", "invalid basic auth format"))?;
    Ok(Some((id.to_string(), secret.to_string())))
}

/// `POST /oauth/token` (form or JSON): RFC 6749's error body on failure.
async fn token(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    enabled(&req, &state)?;
    let bytes = raw_body(&req, payload, &state).await?;
    let json = crate::http_util::header(&req, "content-type")
        .is_some_and(|t| t.contains("application/json"));
    let parsed: Result<TokenParams, AuthError> = if json {
        serde_json::from_slice(&bytes)
            .map_err(|_| auth::oauth("invalid_request", "Invalid JSON body"))
    } else {
        serde_urlencoded::from_bytes(&bytes)
            .map_err(|_| auth::oauth("invalid_request", "Failed to parse form data"))
    };
    let done = match (parsed, basic_credentials(&req)) {
        (Ok(p), Ok(basic)) => {
            let r = request(&req, &state);
            server(&state).oauth_token(&r, p, basic).await
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    match done {
        Ok(v) => Ok(HttpResponse::Ok()
            .insert_header(("Cache-Control", "no-store"))
            .json(v)),
        Err(AuthError::OAuth {
            status,
            error,
            description,
        }) => Ok(HttpResponse::build(
            actix_web::http::StatusCode::from_u16(status)
                .unwrap_or(actix_web::http::StatusCode::BAD_REQUEST),
        )
        .insert_header(("Cache-Control", "no-store"))
        .json(json!({"error": error, "error_description": description}))),
        Err(e) => Err(fail(&req, e)),
    }
}
