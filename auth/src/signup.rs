//! Sign-ups as GoTrue does them: with an address and password (confirmed at once, or after the
//! mailed link when confirmations are on), anonymously, and on behalf of others (admin create,
//! invite). An address already confirmed is not revealed when confirmations are on.

use crate::config::AuthConfig;
use crate::email::{self, Flow};
use crate::error::ErrorCode;
use crate::error::{Result, api};
use crate::{hooks, pkce, sessions, users};
use mail::MailJob;
use serde_json::{Value, json};
use tokio_postgres::GenericClient;
use uuid::Uuid;

/// The project's password rules, with GoTrue's messages (422 `weak_password` with reasons).
pub fn check_password(pw: &str, cfg: &AuthConfig) -> Result<()> {
    cfg.password.check(pw).map_err(|e| match e {
        crate::password::PasswordError::Weak { message, reasons } => {
            crate::error::AuthError::WeakPassword { message, reasons }
        }
        crate::password::PasswordError::TooLong => {
            api(422, ErrorCode::ValidationFailed, e.to_string())
        }
    })
}

fn signup_disabled() -> crate::error::AuthError {
    api(
        422,
        ErrorCode::SignupDisabled,
        "Signups not allowed for this instance",
    )
}

/// What a sign-up answers: a session, or the user (who must confirm first).
pub enum Signed {
    Session(Value),
    User(Value),
}

/// The before-user-created hook sees the user about to be made: signed up with `provider`
/// (`email`, an OAuth provider, `web3`), or anonymous (None).
pub(crate) async fn before_created(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    email: Option<&str>,
    data: &Value,
    provider: Option<&str>,
) -> Result<()> {
    if let Some(hook) = &cfg.hooks.before_user_created {
        let now = chrono::Utc::now().to_rfc3339();
        let app_metadata = match provider {
            Some(p) => json!({"provider": p, "providers": [p]}),
            None => json!({}),
        };
        let user = crate::models::hooks::NewUser {
            id: Uuid::new_v4(),
            aud: "authenticated",
            role: "",
            email: email.unwrap_or(""),
            phone: "",
            app_metadata,
            user_metadata: data,
            identities: [],
            created_at: &now,
            updated_at: &now,
            is_anonymous: provider.is_none(),
        };
        hooks::before_user_created(c, hook, &user).await?;
    }
    Ok(())
}

/// Creates a user with an address; `confirmed` skips the confirmation.
pub async fn create(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    email: &str,
    password_hash: &str,
    data: &Value,
    confirmed: bool,
) -> Result<Uuid> {
    before_created(c, cfg, Some(email), data, Some("email")).await?;
    match users::insert_user(c, Some(email), password_hash, data, confirmed).await {
        Ok(id) => Ok(id),
        // Two sign-ups of one address at the same moment: the unique index decides.
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => Err(api(
            422,
            ErrorCode::EmailExists,
            "A user with this email address has already been registered",
        )),
        Err(e) => Err(e.into()),
    }
}

/// What GoTrue shows for a repeated sign-up of a confirmed address when confirmations are on:
/// a plausible user that is not the real one.
fn obfuscated(email: &str, data: &Value) -> Value {
    let now = chrono::Utc::now().to_rfc3339();
    json!({
        "id": Uuid::new_v4(), "aud": "authenticated", "role": "", "email": email, "phone": "",
        "confirmation_sent_at": now, "app_metadata": {"provider": "email", "providers": ["email"]},
        "user_metadata": data, "identities": [], "created_at": now, "updated_at": now,
        "is_anonymous": false,
    })
}

/// The account a sign-up asks for.
pub struct NewUser<'a> {
    pub email: &'a str,
    pub password_hash: &'a str,
    pub data: &'a Value,
}

pub async fn with_email(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    new: NewUser<'_>,
    challenge: Option<(&str, &str)>,
    redirect_to: &str,
    user_agent: Option<&str>,
    ip: Option<&str>,
) -> Result<(Signed, Vec<MailJob>)> {
    let NewUser {
        email,
        password_hash,
        data,
    } = new;
    if cfg.disable_signup {
        return Err(signup_disabled());
    }
    let flow = Flow::of(challenge.map(|c| c.1));
    let existing = users::row_by_email(c, email).await?;
    let user = match existing {
        Some(u) if u.confirmed => {
            if cfg.autoconfirm {
                return Err(api(
                    422,
                    ErrorCode::UserAlreadyExists,
                    "User already registered",
                ));
            }
            return Ok((Signed::User(obfuscated(email, data)), Vec::new()));
        }
        Some(u) => u,
        None => {
            let id = create(c, cfg, email, password_hash, data, cfg.autoconfirm).await?;
            if cfg.autoconfirm {
                let session = sessions::start(c, cfg, id, "password", user_agent, ip).await?;
                return Ok((Signed::Session(session), Vec::new()));
            }
            users::row(c, id).await?
        }
    };
    if let Some((method, code_challenge)) = challenge {
        pkce::create(
            c,
            "email",
            "email/signup",
            method,
            code_challenge,
            Some(user.id),
        )
        .await?;
    }
    let mail = email::confirmation(c, cfg, &user, flow, redirect_to).await?;
    Ok((Signed::User(users::require(c, user.id).await?), vec![mail]))
}

pub async fn anonymous(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    data: &Value,
    user_agent: Option<&str>,
    ip: Option<&str>,
) -> Result<Value> {
    if cfg.disable_signup {
        return Err(signup_disabled());
    }
    before_created(c, cfg, None, data, None).await?;
    let id = users::insert_user(c, None, "", data, false).await?;
    sessions::start(c, cfg, id, "anonymous", user_agent, ip).await
}
