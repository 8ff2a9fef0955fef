//! What GoTrue says about itself and about providers supagate cannot offer (OAuth needs the
//! providers' servers, SAML an identity provider): health, settings, the JWKS, and GoTrue's
//! own answers for switched-off providers.

use super::*;

pub async fn health() -> HttpResponse {
    HttpResponse::Ok().json(
        json!({"version": env!("CARGO_PKG_VERSION"), "name": "GoTrue",
                                   "description": "supagate auth, GoTrue-compatible"}),
    )
}

/// The OAuth providers GoTrue knows; all off here.
const PROVIDERS: [&str; 24] = [
    "apple",
    "azure",
    "bitbucket",
    "discord",
    "facebook",
    "figma",
    "fly",
    "github",
    "gitlab",
    "google",
    "keycloak",
    "kakao",
    "linkedin",
    "linkedin_oidc",
    "notion",
    "slack",
    "slack_oidc",
    "snapchat",
    "spotify",
    "twitch",
    "twitter",
    "x",
    "workos",
    "zoom",
];

pub async fn settings(state: Data) -> HttpResponse {
    let a = &state.auth;
    let mut external = serde_json::Map::new();
    for p in PROVIDERS {
        external.insert(p.into(), json!(false));
    }
    external.insert("email".into(), json!(a.email_enabled));
    external.insert("phone".into(), json!(false));
    external.insert(
        "anonymous_users".into(),
        json!(state.config.auth.enable_anonymous_sign_ins),
    );
    HttpResponse::Ok().json(json!({
        "external": external,
        "disable_signup": a.disable_signup,
        "mailer_autoconfirm": a.autoconfirm,
        "phone_autoconfirm": false,
        "sms_provider": "",
        "saml_enabled": false,
    }))
}

pub async fn jwks(state: Data) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "public, max-age=600"))
        .json(state.keys.jwks())
}

/// `GET /authorize?provider=…`: no OAuth provider can be on.
pub async fn authorize(req: HttpRequest) -> Reply {
    let provider = query(&req, "provider").unwrap_or_default();
    let why = if PROVIDERS.contains(&provider.as_str()) {
        "provider is not enabled".to_string()
    } else {
        format!("Provider {provider} could not be found")
    };
    Err(fail(
        &req,
        auth::error::validation(format!("Unsupported provider: {why}")),
    ))
}

/// `GET /user/identities/authorize`: linking an OAuth identity, likewise.
pub async fn link_identity(req: HttpRequest, state: Data) -> Reply {
    caller(&req, &state)?;
    if !state.config.auth.enable_manual_linking {
        return Err(fail(
            &req,
            api(404, "manual_linking_disabled", "Manual linking is disabled"),
        ));
    }
    authorize(req).await
}

/// `/sso…`: SAML is off.
pub async fn sso(req: HttpRequest) -> Reply {
    Err(fail(
        &req,
        api(404, "saml_provider_disabled", "SAML 2.0 is disabled"),
    ))
}
