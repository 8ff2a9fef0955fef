//! The signed-in user: `GET /user`, `PUT /user` (metadata, password — with a reauthentication
//! nonce when `secure_password_change` asks for it — and e-mail changes, confirmed by mail),
//! unlinking identities, and `POST /logout`.

use crate::config::AuthConfig;
use crate::email::{self as mails, Flow};
use crate::error::{AuthError, ErrorCode, api, validation};
use crate::params::{UserUpdateParams, object, text};
use crate::service::{Auth, Caller, Request, hash_password, never, verify_password};
use crate::sessions::{self, LogoutScope};
use crate::users;
use mail::{Kind, MailJob};
use serde_json::{Value, json};
use uuid::Uuid;

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

/// A password change of a session older than a day needs the nonce `/reauthenticate` mailed.
async fn check_nonce(
    c: &tokio_postgres::Client,
    cfg: &AuthConfig,
    row: &users::UserRow,
    nonce: &str,
) -> Result<(), AuthError> {
    if nonce.is_empty() {
        return Err(api(
            400,
            ErrorCode::ReauthenticationNeeded,
            "Password update requires reauthentication",
        ));
    }
    let expected = crate::otp::hash(&row.email, nonce);
    let fresh = row
        .reauthentication_sent_at
        .is_some_and(|t| chrono::Utc::now() < t + chrono::Duration::seconds(cfg.otp_expiry));
    if row.reauthentication_token != expected || !fresh {
        return Err(api(
            422,
            ErrorCode::ReauthenticationNotValid,
            "Nonce has expired or is invalid",
        ));
    }
    crate::otp::clear(c, row.id, crate::otp::Slot::Reauthentication).await
}

/// What `PUT /user` changes, checked.
struct Update {
    email: Option<String>,
    hash: Option<String>,
    nonce: String,
    data: Option<Value>,
    pkce: Option<(String, String)>,
    redirect: String,
}

impl Auth {
    /// `GET /user`.
    pub async fn user(&self, who: Caller) -> Result<Value, AuthError> {
        self.in_tx(never, async |c| {
            let user = sessions::check(c, who.id, who.session).await?;
            Ok(crate::users::to_json(&user))
        })
        .await
    }

    /// `PUT /user`.
    pub async fn update_user(
        &self,
        r: &Request,
        who: Caller,
        p: UserUpdateParams,
    ) -> Result<Value, AuthError> {
        let cfg = &self.cfg;
        if p.app_metadata.as_ref().is_some_and(|a| !a.is_null()) {
            return Err(api(
                403,
                ErrorCode::NotAdmin,
                "Updating app_metadata requires admin privileges",
            ));
        }
        let email = match p.email.as_deref().filter(|e| !e.is_empty()) {
            Some(e) => Some(users::normalize_email(e).map_err(|e| validation(e.to_string()))?),
            None => None,
        };
        let password = p.password.clone().filter(|p| !p.is_empty());
        if let Some(pw) = &password {
            crate::signup::check_password(pw, cfg)?;
        }
        let pkce = crate::service::challenge(&p.pkce)?;
        // The current hash, to refuse an unchanged password (bcrypt is slow: outside the
        // transaction).
        let current: Option<String> = self
            .in_tx(never, async |c| {
                sessions::check(c, who.id, who.session).await?;
                Ok(c.query_one(
                    "SELECT nullif(encrypted_password, '') FROM auth.users WHERE id = $1",
                    &[&who.id],
                )
                .await?
                .get(0))
            })
            .await?;
        if let (Some(pw), Some(stored)) = (password.clone(), current)
            && verify_password(pw, stored).await
        {
            return Err(api(
                422,
                ErrorCode::SamePassword,
                "New password should be different from the old password.",
            ));
        }
        let hash = match password {
            Some(pw) => Some(hash_password(pw).await),
            None => None,
        };
        let u = Update {
            email,
            hash,
            nonce: text(&p.nonce).to_string(),
            data: object(&p.data),
            pkce,
            redirect: self.redirect_to(cfg, r, p.redirect_to.as_deref()),
        };
        let updated = self
            .in_tx_mail(never, async |c| apply_update(c, cfg, who, &u).await)
            .await?;
        match text(&p.phone) {
            "" => Ok(updated),
            number => {
                self.request_phone_change(who.id, number, p.channel.as_deref())
                    .await
            }
        }
    }

    /// `DELETE /user/identities/{id}`: not the last one.
    pub async fn unlink_identity(&self, who: Caller, id: &str) -> Result<Value, AuthError> {
        if !self.cfg.manual_linking {
            return Err(api(
                404,
                ErrorCode::ManualLinkingDisabled,
                "Manual linking is disabled",
            ));
        }
        let id = Uuid::parse_str(id)
            .map_err(|_| api(404, ErrorCode::IdentityNotFound, "Identity doesn't exist"))?;
        let cfg = &self.cfg;
        self.in_tx_mail(never, async |c| {
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
                return Err(api(
                    404,
                    ErrorCode::IdentityNotFound,
                    "Identity doesn't exist",
                ));
            };
            if count <= 1 {
                return Err(api(
                    422,
                    ErrorCode::SingleIdentityNotDeletable,
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
            let note = mails::notification(
                cfg,
                Kind::IdentityUnlinked,
                &row,
                [("Provider", json!(provider))],
            );
            Ok((json!({}), vec![note]))
        })
        .await
    }

    /// `POST /logout?scope=global|local|others`.
    pub async fn logout(&self, who: Caller, scope: Option<&str>) -> Result<(), AuthError> {
        let scope = match scope {
            None | Some("global") => LogoutScope::Global,
            Some("local") => LogoutScope::Local,
            Some("others") => LogoutScope::Others,
            Some(other) => {
                return Err(validation(format!("Unsupported logout scope \"{other}\"")));
            }
        };
        self.in_tx(never, async |c| {
            sessions::check(c, who.id, who.session).await?;
            sessions::logout(c, who.id, who.session, scope).await
        })
        .await
    }
}

/// The changes of `PUT /user`, in its transaction; returns the user and the mails to send.
async fn apply_update(
    c: &tokio_postgres::Client,
    cfg: &AuthConfig,
    who: Caller,
    u: &Update,
) -> Result<(Value, Vec<MailJob>), AuthError> {
    let row = users::row(c, who.id).await?;
    let changing_email = u.email.as_deref().is_some_and(|e| *e != row.email);
    if (u.hash.is_some() || changing_email)
        && crate::sessions::has_verified(c, who.id).await?
        && !crate::sessions::session_aal2(c, who.session).await?
    {
        return Err(api(
            401,
            ErrorCode::InsufficientAal,
            "AAL2 session is required to update email or password when MFA is enabled.",
        ));
    }
    if row.is_anonymous && u.hash.is_some() && u.email.is_none() {
        return Err(api(
            422,
            ErrorCode::ValidationFailed,
            "Updating password of an anonymous user without an email or phone is not allowed",
        ));
    }
    let mut jobs = Vec::new();
    if let Some(h) = &u.hash {
        if cfg.secure_password_change && !recent_session(c, who.session).await? {
            check_nonce(c, cfg, &row, &u.nonce).await?;
        }
        users::update(c, who.id, None, Some(h), None, None).await?;
        if !row.email.is_empty() {
            jobs.push(mails::notification(cfg, Kind::PasswordChanged, &row, []));
        }
    }
    if let Some(d) = &u.data {
        users::update(c, who.id, None, None, Some(d), None).await?;
    }
    if let Some(new) = u.email.as_deref().filter(|_| changing_email) {
        if users::find_id_by_email(c, new)
            .await?
            .is_some_and(|id| id != who.id)
        {
            return Err(api(
                422,
                ErrorCode::EmailExists,
                "A user with this email address has already been registered",
            ));
        }
        if row.is_anonymous && cfg.autoconfirm {
            c.execute(
                "UPDATE auth.users SET email_change = $2 WHERE id = $1",
                &[&who.id, &new],
            )
            .await?;
            crate::verify::change_email(c, who.id).await?;
        } else {
            if let Some((m, ch)) = &u.pkce {
                crate::pkce::create(c, "email_change", "email_change", m, ch, Some(who.id)).await?;
            }
            let flow = Flow::of(u.pkce.as_ref().map(|p| p.1.as_str()));
            jobs.extend(mails::email_change(c, cfg, &row, new, flow, &u.redirect).await?);
        }
    }
    Ok((users::require(c, who.id).await?, jobs))
}
