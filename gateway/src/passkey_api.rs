//! `/auth/v1` routes of passkeys (`[auth.passkey]`): registration and sign-in ceremonies, the
//! caller's passkeys, and the admin API's view of a user's.

use crate::auth_http::{body, caller, fail, reply, request, require_admin, segment};
use crate::error::GatewayError;
use actix_web::{HttpRequest, HttpResponse, web};
use passkeys::{Passkeys, VerifyParams as PasskeyVerifyParams};

type Data = crate::branches::State;
type Reply = Result<HttpResponse, GatewayError>;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route(
        "/passkeys/registration/options",
        web::post().to(registration_options),
    )
    .route("/passkeys/registration/verify", web::post().to(register))
    .route(
        "/passkeys/authentication/options",
        web::post().to(authentication_options),
    )
    .route("/passkeys/authentication/verify", web::post().to(sign_in))
    .route("/passkeys", web::get().to(list))
    .route("/passkeys/{id}", web::patch().to(rename))
    .route("/passkeys/{id}", web::delete().to(delete))
    .route("/admin/users/{user}/passkeys", web::get().to(admin_list))
    .route(
        "/admin/users/{user}/passkeys/{id}",
        web::delete().to(admin_delete),
    );
}

async fn registration_options(req: HttpRequest, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    reply(
        &req,
        Passkeys::new(&state.auth)
            .passkey_registration_options(who)
            .await,
    )
}

async fn register(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    let p: PasskeyVerifyParams = body(&req, payload, &state).await?;
    reply(
        &req,
        Passkeys::new(&state.auth).passkey_register(who, p).await,
    )
}

async fn authentication_options(req: HttpRequest, state: Data) -> Reply {
    reply(
        &req,
        Passkeys::new(&state.auth)
            .passkey_authentication_options()
            .await,
    )
}

async fn sign_in(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let p: PasskeyVerifyParams = body(&req, payload, &state).await?;
    let r = request(&req, &state);
    reply(
        &req,
        Passkeys::new(&state.auth).passkey_sign_in(&r, p).await,
    )
}

async fn list(req: HttpRequest, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    reply(&req, Passkeys::new(&state.auth).my_passkeys(who).await)
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct Rename {
    friendly_name: Option<String>,
}

async fn rename(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    let p: Rename = body(&req, payload, &state).await?;
    let (id, name) = (segment(&req, "id"), p.friendly_name.unwrap_or_default());
    reply(
        &req,
        Passkeys::new(&state.auth)
            .rename_passkey(who, id, &name)
            .await,
    )
}

async fn delete(req: HttpRequest, state: Data) -> Reply {
    let (_, who) = caller(&req, &state)?;
    Passkeys::new(&state.auth)
        .delete_passkey(who.id, segment(&req, "id"))
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(HttpResponse::NoContent().finish())
}

async fn admin_list(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let user = auth_admin::Admin::new(&state.auth)
        .user_id(segment(&req, "user"))
        .await;
    let user = user.map_err(|e| fail(&req, e))?;
    reply(&req, Passkeys::new(&state.auth).list_passkeys(user).await)
}

async fn admin_delete(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let user = auth_admin::Admin::new(&state.auth)
        .user_id(segment(&req, "user"))
        .await;
    let user = user.map_err(|e| fail(&req, e))?;
    Passkeys::new(&state.auth)
        .delete_passkey(user, segment(&req, "id"))
        .await
        .map_err(|e| fail(&req, e))?;
    Ok(HttpResponse::NoContent().finish())
}
