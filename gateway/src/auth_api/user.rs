//! The signed-in user: `GET /user`, `PUT /user` (metadata, password — with a reauthentication
//! nonce when `secure_password_change` asks for it — and e-mail changes, confirmed by mail),
//! unlinking identities, and `POST /logout`.

use super::*;
use auth::email::{self as mails, Flow};
use auth::sessions::{self, LogoutScope};
use auth::users;
use mail::Kind;

pub async fn get(req: HttpRequest, state: Data) -> Reply {
    let who = caller(&req, &state)?;
    let user = in_tx(&req, &state, never, async |c| {
        sessions::check(c, who.id, who.session).await
    })
    .await?;
    Ok(ok_json(&req, user))
}

/// Whether the session is younger than a day (then a password change needs no nonce).
async fn recent_session(
    c: &tokio_postgres::Client,
    session: Option<Uuid>,
) -> Result<bool, AuthError> {
    let Some(s) = session else { return Ok(false) };
    Ok(c.query_opt(
        "SELECT 1 FROM auth.sessions WHERE id = $1 AND created_at > now() - interval '24 hours'",
        &[&s],
    )
    .await?
    .is_some())
}

pub async fn update(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let who = caller(&req, &state)?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    if body.get("app_metadata").is_some_and(|a| !a.is_null()) {
        return Err(fail(
            &req,
            api(
                403,
                "not_admin",
                "Updating app_metadata requires admin privileges",
            ),
        ));
    }
    if body["phone"].as_str().is_some_and(|p| !p.is_empty()) {
        return Err(fail(
            &req,
            api(400, "phone_provider_disabled", "Unsupported phone provider"),
        ));
    }
    let email = match body["email"].as_str().filter(|e| !e.is_empty()) {
        Some(e) => Some(
            users::normalize_email(e)
                .map_err(|e| fail(&req, auth::error::validation(e.to_string())))?,
        ),
        None => None,
    };
    let password = body["password"].as_str().map(str::to_string);
    if let Some(pw) = password.as_deref().filter(|p| !p.is_empty()) {
        auth::signup::check_password(pw, &cfg).map_err(|e| fail(&req, e))?;
    }
    let nonce = body["nonce"].as_str().unwrap_or("").to_string();
    let data = body.get("data").filter(|d| d.is_object()).cloned();
    let pkce = {
        let m = body["code_challenge_method"].as_str();
        let ch = body["code_challenge"].as_str();
        auth::pkce::validate(m, ch).map_err(|e| fail(&req, e))?;
        m.zip(ch)
            .filter(|(_, c)| !c.is_empty())
            .map(|(m, c)| (m.to_string(), c.to_string()))
    };
    let redirect = redirect_to(&req, &cfg, Some(&body));
    // The current hash, to refuse an unchanged password (bcrypt is slow: outside the transaction).
    let current: Option<String> = in_tx(&req, &state, never, async |c| {
        sessions::check(c, who.id, who.session).await?;
        Ok(c.query_one(
            "SELECT nullif(encrypted_password, '') FROM auth.users WHERE id = $1",
            &[&who.id],
        )
        .await?
        .get(0))
    })
    .await?;
    if let (Some(pw), Some(stored)) = (password.clone().filter(|p| !p.is_empty()), current.clone())
        && web::block(move || auth::password::verify(&pw, &stored))
            .await
            .unwrap_or(false)
    {
        return Err(fail(
            &req,
            api(
                422,
                "same_password",
                "New password should be different from the old password.",
            ),
        ));
    }
    let hash = match password.clone().filter(|p| !p.is_empty()) {
        Some(pw) => Some(hash_password(pw).await),
        None => None,
    };
    let user = in_tx_mail(&req, &state, never, async |c| {
        let row = users::row(c, who.id).await?;
        let changing_email = email.as_deref().is_some_and(|e| *e != row.email);
        if (hash.is_some() || changing_email)
            && auth::mfa::has_verified(c, who.id).await?
            && !auth::mfa::session_aal2(c, who.session).await?
        {
            return Err(api(
                401,
                "insufficient_aal",
                "AAL2 session is required to update email or password when MFA is enabled.",
            ));
        }
        if row.is_anonymous && hash.is_some() && email.is_none() {
            return Err(api(
                422,
                "validation_failed",
                "Updating password of an anonymous user without an email or phone is not allowed",
            ));
        }
        let mut jobs = Vec::new();
        if let Some(h) = &hash {
            if cfg.secure_password_change && !recent_session(c, who.session).await? {
                if nonce.is_empty() {
                    return Err(api(
                        400,
                        "reauthentication_needed",
                        "Password update requires reauthentication",
                    ));
                }
                let expected = auth::otp::hash(&row.email, &nonce);
                let fresh = row.reauthentication_sent_at.is_some_and(|t| {
                    chrono::Utc::now() < t + chrono::Duration::seconds(cfg.otp_expiry)
                });
                if row.reauthentication_token != expected || !fresh {
                    return Err(api(
                        422,
                        "reauthentication_not_valid",
                        "Nonce has expired or is invalid",
                    ));
                }
                auth::otp::clear(c, who.id, auth::otp::Slot::Reauthentication).await?;
            }
            users::update(c, who.id, None, Some(h), None, None).await?;
            if !row.email.is_empty() {
                jobs.push(mails::notification(&cfg, Kind::PasswordChanged, &row, []));
            }
        }
        if let Some(d) = &data {
            users::update(c, who.id, None, None, Some(d), None).await?;
        }
        if let Some(new) = email.as_deref().filter(|_| changing_email) {
            if users::find_id_by_email(c, new)
                .await?
                .is_some_and(|id| id != who.id)
            {
                return Err(api(
                    422,
                    "email_exists",
                    "A user with this email address has already been registered",
                ));
            }
            if row.is_anonymous && cfg.autoconfirm {
                c.execute(
                    "UPDATE auth.users SET email_change = $2 WHERE id = $1",
                    &[&who.id, &new],
                )
                .await?;
                auth::verify::change_email(c, who.id).await?;
            } else {
                if let Some((m, ch)) = &pkce {
                    auth::pkce::create(c, "email_change", "email_change", m, ch, Some(who.id))
                        .await?;
                }
                let flow = Flow::of(pkce.as_ref().map(|p| p.1.as_str()));
                jobs.extend(mails::email_change(c, &cfg, &row, new, flow, &redirect).await?);
            }
        }
        Ok((users::require(c, who.id).await?, jobs))
    })
    .await?;
    Ok(ok_json(&req, user))
}

/// `DELETE /user/identities/{id}`: not the last one.
pub async fn unlink_identity(req: HttpRequest, state: Data) -> Reply {
    let who = caller(&req, &state)?;
    if !state.config.auth.enable_manual_linking {
        return Err(fail(
            &req,
            api(404, "manual_linking_disabled", "Manual linking is disabled"),
        ));
    }
    let id = path_uuid(
        &req,
        "id",
        api(404, "identity_not_found", "Identity doesn't exist"),
    )?;
    let cfg = config(&state, &req);
    in_tx_mail(&req, &state, never, async |c| {
        sessions::check(c, who.id, who.session).await?;
        let count: i64 = c
            .query_one(
                "SELECT count(*) FROM auth.identities WHERE user_id = $1",
                &[&who.id],
            )
            .await?
            .get(0);
        let provider: Option<String> = c
            .query_opt(
                "SELECT provider FROM auth.identities WHERE id = $1 AND user_id = $2",
                &[&id, &who.id],
            )
            .await?
            .map(|r| r.get(0));
        let Some(provider) = provider else {
            return Err(api(404, "identity_not_found", "Identity doesn't exist"));
        };
        if count <= 1 {
            return Err(api(
                422,
                "single_identity_not_deletable",
                "User must have at least 1 identity after unlinking",
            ));
        }
        let row = users::row(c, who.id).await?;
        c.execute("DELETE FROM auth.identities WHERE id = $1", &[&id])
            .await?;
        c.execute(
            "UPDATE auth.users SET raw_app_meta_data = raw_app_meta_data || jsonb_build_object(
                'providers', (SELECT jsonb_agg(DISTINCT provider) FROM auth.identities WHERE user_id = $1))
             WHERE id = $1",
            &[&who.id],
        )
        .await?;
        let note = mails::notification(&cfg, Kind::IdentityUnlinked, &row, [("Provider", json!(provider))]);
        Ok((json!({}), vec![note]))
    })
    .await?;
    Ok(ok_json(&req, json!({})))
}

pub async fn logout(req: HttpRequest, state: Data) -> Reply {
    let who = caller(&req, &state)?;
    let scope = match query(&req, "scope").as_deref() {
        None | Some("global") => LogoutScope::Global,
        Some("local") => LogoutScope::Local,
        Some("others") => LogoutScope::Others,
        Some(other) => {
            return Err(fail(
                &req,
                auth::error::validation(format!("Unsupported logout scope \"{other}\"")),
            ));
        }
    };
    in_tx(&req, &state, never, async |c| {
        sessions::logout(c, who.id, who.session, scope).await
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
