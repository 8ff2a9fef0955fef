//! `POST /signup`: with an e-mail address and password, or — with neither — anonymously.

use super::*;
use auth::signup::{self as flows, Signed};

pub async fn signup(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    let email = body["email"].as_str().unwrap_or("");
    let phone = body["phone"].as_str().unwrap_or("");
    let data = match body.get("data") {
        Some(d) if d.is_object() => d.clone(),
        _ => json!({}),
    };
    let ua = user_agent(&req);
    let addr = req.peer_addr().map(|a| a.ip().to_string());
    if email.is_empty() && phone.is_empty() {
        if !state.config.auth.enable_anonymous_sign_ins {
            return Err(fail(
                &req,
                api(
                    422,
                    "anonymous_provider_disabled",
                    "Anonymous sign-ins are disabled",
                ),
            ));
        }
        let n = state.config.auth.rate_limit.anonymous_users;
        limit(&req, &state, "anonymous", n, HOUR_SECS).await?;
        let session = in_tx(&req, &state, never, async |c| {
            flows::anonymous(c, &cfg, &data, ua.as_deref(), addr.as_deref()).await
        })
        .await?;
        return Ok(ok_json(&req, session));
    }
    let n = state.config.auth.rate_limit.sign_in_sign_ups;
    limit(&req, &state, "signin", n, WINDOW_SECS).await?;
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
    let pw = body["password"].as_str().unwrap_or("");
    if pw.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation("Signup requires a valid password"),
        ));
    }
    auth::signup::check_password(pw, &cfg).map_err(|e| fail(&req, e))?;
    if !email.is_empty() && !phone.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation(
                "Only an email address or phone number should be provided on signup.",
            ),
        ));
    }
    if !phone.is_empty() {
        return Err(fail(
            &req,
            api(400, "phone_provider_disabled", "Phone signups are disabled"),
        ));
    }
    let method = body["code_challenge_method"].as_str();
    let challenge = body["code_challenge"].as_str();
    auth::pkce::validate(method, challenge).map_err(|e| fail(&req, e))?;
    if !cfg.email_enabled {
        return Err(fail(
            &req,
            api(400, "email_provider_disabled", "Email signups are disabled"),
        ));
    }
    let email = auth::users::normalize_email(email)
        .map_err(|e| fail(&req, auth::error::validation(e.to_string())))?;
    let hash = hash_password(pw.to_string()).await;
    let redirect = redirect_to(&req, &cfg, Some(&body));
    let challenge = method.zip(challenge).filter(|(_, c)| !c.is_empty());
    let signed = in_tx_mail(&req, &state, never, async |c| {
        flows::with_email(
            c,
            &cfg,
            &email,
            &hash,
            &data,
            challenge,
            &redirect,
            ua.as_deref(),
            addr.as_deref(),
        )
        .await
    })
    .await?;
    Ok(ok_json(
        &req,
        match signed {
            Signed::Session(s) => s,
            Signed::User(u) => u,
        },
    ))
}
