//! The admin API (service_role): users (list, create, read, update, delete), their factors,
//! invitations and generated links.

use super::*;
use auth::email::{self as mails, Flow};
use auth::users;

fn require_admin(req: &HttpRequest, state: &AppState) -> Result<(), GatewayError> {
    let identity = crate::request_auth::identify(req, &state.keys, state.local_keys())
        .map_err(|e| fail(req, api(401, "bad_jwt", e.message)))?;
    if identity.role == "service_role" {
        Ok(())
    } else {
        Err(fail(req, api(403, "not_admin", "User not allowed")))
    }
}

fn user_id(req: &HttpRequest) -> Result<Uuid, GatewayError> {
    path_uuid(req, "id", auth::error::user_not_found())
}

fn object(v: &Value, key: &str) -> Option<Value> {
    v.get(key).filter(|m| m.is_object()).cloned()
}

pub async fn list(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let num = |k: &str, default: u32| match query(&req, k).filter(|v| !v.is_empty()) {
        None => Ok(default),
        Some(v) => v.parse::<u32>().map_err(|e| {
            fail(
                &req,
                auth::error::validation(format!("Bad Pagination Parameters: {e}")),
            )
        }),
    };
    let page = i64::from(num("page", 1)?.max(1));
    let per_page = i64::from(num("per_page", 50)?.clamp(1, 1000));
    let (users, total) = in_tx(&req, &state, never, async |c| {
        users::list(c, page, per_page).await
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

pub async fn create(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    if body["phone"].as_str().is_some_and(|p| !p.is_empty()) && body["email"].as_str().is_none() {
        return Err(fail(
            &req,
            api(400, "phone_provider_disabled", "Phone signups are disabled"),
        ));
    }
    let email = users::normalize_email(body["email"].as_str().unwrap_or(""))
        .map_err(|e| fail(&req, auth::error::validation(e.to_string())))?;
    let hash = match body["password"].as_str() {
        Some(pw) => {
            auth::signup::check_password(pw, &cfg).map_err(|e| fail(&req, e))?;
            hash_password(pw.to_string()).await
        }
        None => String::new(),
    };
    let confirm = body["email_confirm"].as_bool().unwrap_or(false);
    let meta = object(&body, "user_metadata").unwrap_or(json!({}));
    let app_meta = object(&body, "app_metadata");
    let ban = body["ban_duration"].as_str().map(str::to_string);
    let user = in_tx(&req, &state, never, async |c| {
        if users::find_id_by_email(c, &email).await?.is_some() {
            return Err(api(
                422,
                "email_exists",
                "A user with this email address has already been registered",
            ));
        }
        let id = auth::signup::create(c, &cfg, &email, &hash, &meta, confirm).await?;
        set_ban(c, id, ban.as_deref()).await?;
        users::update(c, id, None, None, None, app_meta.as_ref()).await
    })
    .await?;
    Ok(ok_json(&req, user))
}

async fn set_ban(c: &tokio_postgres::Client, id: Uuid, ban: Option<&str>) -> Result<(), AuthError> {
    if let Some(b) = ban {
        let until = if b == "none" { None } else { Some(b) };
        c.execute(
            "UPDATE auth.users SET banned_until = now() + $2::text::interval WHERE id = $1",
            &[&id, &until],
        )
        .await
        .map_err(|_| auth::error::validation("invalid format for ban duration"))?;
    }
    Ok(())
}

pub async fn get(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let id = user_id(&req)?;
    let user = in_tx(&req, &state, never, async |c| users::require(c, id).await).await?;
    Ok(ok_json(&req, user))
}

pub async fn update(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let id = user_id(&req)?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    let email = match body["email"].as_str() {
        Some(e) => Some(
            users::normalize_email(e)
                .map_err(|e| fail(&req, auth::error::validation(e.to_string())))?,
        ),
        None => None,
    };
    let hash = match body["password"].as_str() {
        Some(pw) => {
            auth::signup::check_password(pw, &cfg).map_err(|e| fail(&req, e))?;
            Some(hash_password(pw.to_string()).await)
        }
        None => None,
    };
    let meta = object(&body, "user_metadata");
    let app_meta = object(&body, "app_metadata");
    let ban = body["ban_duration"].as_str().map(str::to_string);
    let confirm = body["email_confirm"].as_bool() == Some(true);
    let user = in_tx(&req, &state, never, async |c| {
        users::require(c, id).await?;
        if confirm {
            users::confirm(c, id).await?;
        }
        set_ban(c, id, ban.as_deref()).await?;
        users::update(
            c,
            id,
            email.as_deref(),
            hash.as_deref(),
            meta.as_ref(),
            app_meta.as_ref(),
        )
        .await
    })
    .await?;
    Ok(ok_json(&req, user))
}

pub async fn delete(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let id = user_id(&req)?;
    let deleted = in_tx(&req, &state, never, async |c| users::delete(c, id).await).await?;
    if deleted {
        Ok(ok_json(&req, json!({})))
    } else {
        Err(fail(&req, auth::error::user_not_found()))
    }
}

pub async fn list_factors(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let id = user_id(&req)?;
    let user = in_tx(&req, &state, never, async |c| users::require(c, id).await).await?;
    Ok(ok_json(
        &req,
        user.get("factors").cloned().unwrap_or(json!([])),
    ))
}

pub async fn delete_factor(req: HttpRequest, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let id = user_id(&req)?;
    let factor = path_uuid(
        &req,
        "factor",
        api(404, "mfa_factor_not_found", "Factor not found"),
    )?;
    in_tx(&req, &state, never, async |c| {
        auth::mfa::unenroll(c, id, factor, true).await
    })
    .await?;
    Ok(ok_json(&req, json!({ "id": factor })))
}

/// `POST /invite`: a user is made (if new) and mailed an invitation.
pub async fn invite(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    let email = users::normalize_email(body["email"].as_str().unwrap_or(""))
        .map_err(|e| fail(&req, auth::error::validation(e.to_string())))?;
    let data = object(&body, "data").unwrap_or(json!({}));
    let redirect = redirect_to(&req, &cfg, Some(&body));
    let user = in_tx_mail(&req, &state, never, async |c| {
        let row = match users::row_by_email(c, &email).await? {
            Some(u) if u.confirmed => {
                return Err(api(
                    422,
                    "email_exists",
                    "A user with this email address has already been registered",
                ));
            }
            Some(u) => u,
            None => {
                let id = auth::signup::create(c, &cfg, &email, "", &data, false).await?;
                users::row(c, id).await?
            }
        };
        let mail = mails::invite(c, &cfg, &row, &redirect).await?;
        Ok((users::require(c, row.id).await?, vec![mail]))
    })
    .await?;
    Ok(ok_json(&req, user))
}

/// `POST /admin/generate_link`: the link (and code) a mail would carry, without the mail.
pub async fn generate_link(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    require_admin(&req, &state)?;
    let body = json_body(&req, payload, &state).await?;
    let cfg = config(&state, &req);
    let kind = body["type"].as_str().unwrap_or("").to_string();
    let email = users::normalize_email(body["email"].as_str().unwrap_or(""))
        .map_err(|e| fail(&req, auth::error::validation(e.to_string())))?;
    let new_email = match body["new_email"].as_str() {
        Some(e) => Some(
            users::normalize_email(e)
                .map_err(|e| fail(&req, auth::error::validation(e.to_string())))?,
        ),
        None => None,
    };
    let data = object(&body, "data").unwrap_or(json!({}));
    let password = match body["password"].as_str() {
        Some(pw) => hash_password(pw.to_string()).await,
        None => hash_password(auth::otp::generate(33)).await,
    };
    let redirect = redirect_to(&req, &cfg, Some(&body));
    let out = in_tx(&req, &state, never, async |c| {
        let existing = users::row_by_email(c, &email).await?;
        let (kind, row) = match (kind.as_str(), existing) {
            ("magiclink", None) | ("signup", None) => {
                let id = auth::signup::create(c, &cfg, &email, &password, &data, false).await?;
                ("signup", users::row(c, id).await?)
            }
            ("invite", None) => {
                let id = auth::signup::create(c, &cfg, &email, "", &data, false).await?;
                ("invite", users::row(c, id).await?)
            }
            ("invite", Some(u)) if u.confirmed => {
                return Err(api(
                    422,
                    "email_exists",
                    "A user with this email address has already been registered",
                ));
            }
            ("signup", Some(u)) if u.confirmed => {
                return Err(api(
                    422,
                    "email_exists",
                    "A user with this email address has already been registered",
                ));
            }
            (k @ ("magiclink" | "signup" | "invite" | "recovery"), Some(u)) => (
                match k {
                    "magiclink" => "magiclink",
                    "signup" => "signup",
                    "invite" => "invite",
                    _ => "recovery",
                },
                u,
            ),
            ("recovery" | "email_change_current" | "email_change_new", None) => {
                return Err(api(404, "user_not_found", "User with this email not found"));
            }
            ("email_change_current" | "email_change_new", Some(u)) => ("email_change", u),
            _ => {
                return Err(auth::error::validation(
                    "Invalid email action link type requested",
                ));
            }
        };
        // The same token the mail would carry, without sending it (no frequency check).
        let job = match kind {
            "invite" => mails::invite(c, &cfg, &row, &redirect).await?,
            "signup" => {
                c.execute(
                    "UPDATE auth.users SET confirmation_sent_at = NULL WHERE id = $1",
                    &[&row.id],
                )
                .await?;
                let row = users::row(c, row.id).await?;
                mails::confirmation(c, &cfg, &row, Flow::Implicit, &redirect).await?
            }
            "magiclink" => {
                c.execute(
                    "UPDATE auth.users SET recovery_sent_at = NULL WHERE id = $1",
                    &[&row.id],
                )
                .await?;
                let row = users::row(c, row.id).await?;
                mails::magic_link(c, &cfg, &row, Flow::Implicit, &redirect).await?
            }
            "recovery" => {
                c.execute(
                    "UPDATE auth.users SET recovery_sent_at = NULL WHERE id = $1",
                    &[&row.id],
                )
                .await?;
                let row = users::row(c, row.id).await?;
                mails::recovery(c, &cfg, &row, Flow::Implicit, &redirect).await?
            }
            _ => {
                let new = new_email.clone().ok_or_else(|| {
                    auth::error::validation(
                        "The new_email address is required for email change links",
                    )
                })?;
                c.execute(
                    "UPDATE auth.users SET email_change_sent_at = NULL WHERE id = $1",
                    &[&row.id],
                )
                .await?;
                let row = users::row(c, row.id).await?;
                let jobs =
                    mails::email_change(c, &cfg, &row, &new, Flow::Implicit, &redirect).await?;
                let want_current = body["type"] == "email_change_current";
                jobs.into_iter()
                    .find(|j| (j.to == row.email) == want_current)
                    .ok_or_else(|| auth::error::validation("No current address to confirm"))?
            }
        };
        let mut user = users::require(c, row.id).await?;
        let extra = json!({
            "action_link": job.var("ConfirmationURL"),
            "email_otp": job.var("Token"),
            "hashed_token": job.var("TokenHash"),
            "verification_type": kind,
            "redirect_to": redirect,
        });
        for (k, v) in extra.as_object().expect("object") {
            user[k] = v.clone();
        }
        Ok(user)
    })
    .await?;
    Ok(ok_json(&req, out))
}
