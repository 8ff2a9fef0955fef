//! `POST /token`: the password, refresh-token and PKCE grants; id_token and web3 answer as
//! GoTrue does when their providers are off.

use super::*;
use auth::sessions;

pub async fn token(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let grant = query(&req, "grant_type").unwrap_or_default();
    match grant.as_str() {
        "password" => password(req, payload, state).await,
        "refresh_token" => refresh(req, payload, state).await,
        "pkce" => pkce(req, payload, state).await,
        "id_token" => id_token(req, payload, state).await,
        "web3" => Err(fail(
            &req,
            api(422, "web3_provider_disabled", "Web3 provider is disabled"),
        )),
        _ => Err(fail(
            &req,
            api(400, "invalid_credentials", "unsupported_grant_type"),
        )),
    }
}

async fn password(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let a = &state.config.auth;
    limit(
        &req,
        &state,
        "signin",
        a.rate_limit.sign_in_sign_ups,
        WINDOW_SECS,
    )
    .await?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    let email = body["email"].as_str().unwrap_or("").trim().to_lowercase();
    let phone = body["phone"].as_str().unwrap_or("");
    if !email.is_empty() && !phone.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation(
                "Only an email address or phone number should be provided on login.",
            ),
        ));
    }
    if !phone.is_empty() {
        return Err(fail(
            &req,
            api(422, "phone_provider_disabled", "Phone logins are disabled"),
        ));
    }
    if email.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation("missing email or phone"),
        ));
    }
    if !cfg.email_enabled {
        return Err(fail(
            &req,
            api(422, "email_provider_disabled", "Email logins are disabled"),
        ));
    }
    let pw = body["password"].as_str().unwrap_or("").to_string();
    let found = in_tx(&req, &state, never, async |c| {
        Ok(c.query_opt(
            "SELECT id, coalesce(encrypted_password, ''), coalesce(banned_until > now(), false),
                    email_confirmed_at IS NOT NULL
             FROM auth.users WHERE lower(email) = lower($1) AND deleted_at IS NULL",
            &[&email],
        )
        .await?
        .map(|r| {
            (
                r.get::<_, Uuid>(0),
                r.get::<_, String>(1),
                r.get::<_, bool>(2),
                r.get::<_, bool>(3),
            )
        }))
    })
    .await?;
    // Unknown addresses verify against a dummy hash: same answer, similar time.
    let (id, stored, banned, confirmed) = found.clone().unwrap_or((
        Uuid::nil(),
        auth::password::dummy_hash().to_string(),
        false,
        false,
    ));
    if found.is_none() || stored.is_empty() {
        let _ = web::block(move || auth::password::verify("", auth::password::dummy_hash())).await;
        return Err(fail(&req, auth::error::invalid_credentials()));
    }
    if banned {
        return Err(fail(&req, api(400, "user_banned", "User is banned")));
    }
    let candidate = pw.clone();
    let valid = web::block(move || auth::password::verify(&candidate, &stored))
        .await
        .unwrap_or(false);
    let ua = user_agent(&req);
    let addr = req.peer_addr().map(|a| a.ip().to_string());
    let weak = valid
        .then(|| cfg.password.check(&pw).err())
        .flatten()
        .and_then(|e| match e {
            auth::password::PasswordError::Weak { message, reasons } => {
                Some(json!({"message": message, "reasons": reasons}))
            }
            _ => None,
        });
    // The hook sees every attempt, in a transaction of its own (what it records stays).
    if let Some(hook) = &cfg.hooks.password_verification_attempt {
        let input = json!({"user_id": id, "valid": valid});
        let rejected = in_tx(
            &req,
            &state,
            |_| true,
            async |c| match auth::hooks::verification_attempt(c, hook, input).await? {
                Err((message, logout)) => {
                    if logout {
                        sessions::logout(c, id, None, sessions::LogoutScope::Global).await?;
                    }
                    Ok(Some(message))
                }
                Ok(()) => Ok(None),
            },
        )
        .await?;
        if let Some(message) = rejected {
            return Err(fail(&req, api(400, "invalid_credentials", message)));
        }
    }
    let mut session = in_tx(&req, &state, never, async |c| {
        if !valid {
            return Err(auth::error::invalid_credentials());
        }
        if !confirmed {
            return Err(api(400, "email_not_confirmed", "Email not confirmed"));
        }
        sessions::start(c, &cfg, id, "password", ua.as_deref(), addr.as_deref()).await
    })
    .await?;
    if let Some(w) = weak {
        session["weak_password"] = w;
    }
    Ok(ok_json(&req, session))
}

async fn refresh(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let a = &state.config.auth;
    limit(
        &req,
        &state,
        "refresh",
        a.rate_limit.token_refresh,
        WINDOW_SECS,
    )
    .await?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
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
        sessions::refresh(c, &cfg, &rt).await
    })
    .await?;
    Ok(ok_json(&req, session))
}

async fn pkce(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    let code = body["auth_code"].as_str().unwrap_or("").to_string();
    let verifier = body["code_verifier"].as_str().unwrap_or("").to_string();
    let ua = user_agent(&req);
    let addr = req.peer_addr().map(|a| a.ip().to_string());
    let session = in_tx(&req, &state, never, async |c| {
        let (user, method) = auth::pkce::exchange(c, &code, &verifier).await?;
        sessions::start(c, &cfg, user, &method, ua.as_deref(), addr.as_deref()).await
    })
    .await?;
    Ok(ok_json(&req, session))
}

/// Sign-in with another provider's ID token: no provider can be configured here, so GoTrue's
/// answer for a switched-off one.
async fn id_token(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let body = json_body(&req, payload, &state).await?;
    if body["id_token"].as_str().unwrap_or("").is_empty() {
        return Err(fail(&req, api(400, "invalid_request", "id_token required")));
    }
    let provider = body["provider"].as_str().unwrap_or("");
    let issuer = match provider {
        "google" => "https://accounts.google.com",
        "apple" => "https://appleid.apple.com",
        "azure" => "https://login.microsoftonline.com/common/v2.0",
        "facebook" => "https://www.facebook.com",
        "kakao" => "https://kauth.kakao.com",
        "" => {
            return Err(fail(
                &req,
                api(
                    400,
                    "invalid_request",
                    "provider or client_id and issuer required",
                ),
            ));
        }
        other => {
            return Err(fail(
                &req,
                auth::error::validation(format!("Custom OIDC provider \"{other}\" not allowed")),
            ));
        }
    };
    Err(fail(
        &req,
        api(
            400,
            "provider_disabled",
            format!("Provider (issuer \"{issuer}\") is not enabled"),
        ),
    ))
}
