//! `/factors`: enroll, challenge, verify (the session becomes aal2 and a new token pair is
//! issued) and unenroll MFA factors.

use super::*;
use auth::{mfa, sessions, users};
use mail::Kind;

fn factor_id(req: &HttpRequest) -> Result<Uuid, GatewayError> {
    path_uuid(
        req,
        "id",
        api(404, "mfa_factor_not_found", "Factor not found"),
    )
}

pub async fn enroll(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = caller(&req, &state)?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    let factor_type = body["factor_type"].as_str().unwrap_or("").to_string();
    let name = body["friendly_name"].as_str().unwrap_or("").to_string();
    let issuer = body["issuer"].as_str().map(str::to_string);
    let factor = in_tx(&req, &state, never, async |c| {
        let user = sessions::check(c, who.id, who.session).await?;
        let aal2 = mfa::session_aal2(c, who.session).await?;
        let email = user["email"].as_str().unwrap_or("").to_string();
        mfa::enroll(
            c,
            &cfg,
            who.id,
            &email,
            aal2,
            mfa::Enrollment {
                factor_type: &factor_type,
                friendly_name: &name,
                issuer: issuer.as_deref(),
            },
        )
        .await
    })
    .await?;
    Ok(ok_json(&req, factor))
}

pub async fn challenge(req: HttpRequest, state: Data) -> Reply {
    let who = caller(&req, &state)?;
    let id = factor_id(&req)?;
    let cfg = config(&state, &req);
    let addr = ip(&req, &state);
    let out = in_tx(&req, &state, never, async |c| {
        sessions::check(c, who.id, who.session).await?;
        mfa::challenge(c, &cfg, who.id, id, &addr).await
    })
    .await?;
    Ok(ok_json(&req, out))
}

pub async fn verify(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = caller(&req, &state)?;
    let id = factor_id(&req)?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    let code = body["code"].as_str().unwrap_or("").to_string();
    if code.is_empty() {
        return Err(fail(
            &req,
            auth::error::validation("Code needs to be non-empty"),
        ));
    }
    let challenge = body["challenge_id"]
        .as_str()
        .and_then(|s| Uuid::parse_str(s).ok())
        .ok_or_else(|| {
            fail(
                &req,
                api(
                    422,
                    "mfa_factor_not_found",
                    "MFA factor with the provided challenge ID not found",
                ),
            )
        })?;
    let Some(session) = who.session else {
        return Err(fail(
            &req,
            api(
                401,
                "no_authorization",
                "A valid session is required to verify a factor",
            ),
        ));
    };
    let session = in_tx_mail(&req, &state, never, async |c| {
        sessions::check(c, who.id, Some(session)).await?;
        let was_verified = c
            .query_opt(
                "SELECT 1 FROM auth.mfa_factors WHERE id = $1 AND status = 'verified'",
                &[&id],
            )
            .await?
            .is_some();
        mfa::verify(c, &cfg, who.id, id, challenge, &code).await?;
        let out = sessions::upgrade(c, &cfg, who.id, session, id, "totp").await?;
        let mut jobs = Vec::new();
        if !was_verified {
            let row = users::row(c, who.id).await?;
            jobs.push(auth::email::notification(
                &cfg,
                Kind::FactorEnrolled,
                &row,
                [("FactorType", json!("totp"))],
            ));
        }
        Ok((out, jobs))
    })
    .await?;
    Ok(ok_json(&req, session))
}

pub async fn unenroll(req: HttpRequest, state: Data) -> Reply {
    let who = caller(&req, &state)?;
    let id = factor_id(&req)?;
    let cfg = config(&state, &req);
    in_tx_mail(&req, &state, never, async |c| {
        sessions::check(c, who.id, who.session).await?;
        let aal2 = mfa::session_aal2(c, who.session).await?;
        let (factor_type, verified) = mfa::unenroll(c, who.id, id, aal2).await?;
        let mut jobs = Vec::new();
        if verified {
            let row = users::row(c, who.id).await?;
            jobs.push(auth::email::notification(
                &cfg,
                Kind::FactorUnenrolled,
                &row,
                [("FactorType", json!(factor_type))],
            ));
        }
        Ok(((), jobs))
    })
    .await?;
    Ok(ok_json(&req, json!({ "id": id })))
}
