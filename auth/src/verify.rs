//! `/verify`: a mailed link (`token` is the stored hash) or code (with the address) proves the
//! user; what it proves depends on the type — a sign-up or invite confirmed, a magic link or
//! recovery signed in, an e-mail change confirmed (one half of it, with double confirmation).

use crate::config::AuthConfig;
use crate::error::ErrorCode;
use crate::error::{Result, api, link_expired, otp_expired, validation};
use crate::otp::{self, Slot};
use crate::users::{self, UserRow};
use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Signup,
    Invite,
    MagicLink,
    Recovery,
    EmailChange,
    /// An e-mailed code of either a sign-up or a magic link.
    Email,
}

impl Type {
    pub fn parse(s: &str) -> Result<Type> {
        Ok(match s {
            "signup" => Type::Signup,
            "invite" => Type::Invite,
            "magiclink" => Type::MagicLink,
            "recovery" => Type::Recovery,
            "email_change" => Type::EmailChange,
            "email" => Type::Email,
            "sms" | "phone_change" => {
                return Err(api(
                    400,
                    ErrorCode::PhoneProviderDisabled,
                    "Unsupported phone provider",
                ));
            }
            _ => return Err(validation("Unsupported verification type")),
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Type::Signup => "signup",
            Type::Invite => "invite",
            Type::MagicLink => "magiclink",
            Type::Recovery => "recovery",
            Type::EmailChange => "email_change",
            Type::Email => "email",
        }
    }

    /// The `authentication_method` a PKCE flow of this type was recorded with.
    pub fn flow_method(self) -> &'static str {
        match self {
            Type::Signup | Type::Email => "email/signup",
            Type::Invite => "invite",
            Type::MagicLink => "magiclink",
            Type::Recovery => "recovery",
            Type::EmailChange => "email_change",
        }
    }
}

/// What a verification led to.
pub enum Verified {
    /// The user is signed in (by `Type`, PKCE when the stored token said so).
    Session {
        user_id: uuid::Uuid,
        kind: Type,
        pkce: bool,
    },
    /// The first of two e-mail change confirmations.
    OneOfTwo,
}

fn expired(sent: Option<DateTime<Utc>>, cfg: &AuthConfig) -> bool {
    sent.is_none_or(|t| Utc::now() > t + chrono::Duration::seconds(cfg.otp_expiry))
}

fn columns(kind: Type) -> &'static [&'static str] {
    match kind {
        Type::Signup | Type::Invite => &["confirmation_token"],
        Type::MagicLink | Type::Recovery => &["recovery_token"],
        Type::EmailChange => &["email_change_token_new", "email_change_token_current"],
        Type::Email => &["confirmation_token", "recovery_token"],
    }
}

fn sent_at(user: &UserRow, kind: Type, token: &str) -> Option<DateTime<Utc>> {
    match kind {
        Type::Signup | Type::Invite => user.confirmation_sent_at,
        Type::MagicLink | Type::Recovery => user.recovery_sent_at,
        Type::EmailChange => user.email_change_sent_at,
        Type::Email if user.recovery_token == token => user.recovery_sent_at,
        Type::Email => user.confirmation_sent_at,
    }
}

/// The type an e-mailed code of `Email` turns out to be.
fn resolve(user: &UserRow, kind: Type, token: &str) -> Type {
    match kind {
        Type::Email if user.recovery_token == token => Type::MagicLink,
        Type::Email => Type::Signup,
        other => other,
    }
}

/// By a link's token (the stored hash, `pkce_` prefixed or not).
pub async fn by_link(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    kind: Type,
    token: &str,
) -> Result<(UserRow, Type, String)> {
    let user = users::row_by_token(c, columns(kind), token)
        .await?
        .ok_or_else(link_expired)?;
    if user.banned {
        return Err(api(403, ErrorCode::UserBanned, "User is banned"));
    }
    if expired(sent_at(&user, kind, token), cfg) {
        return Err(link_expired());
    }
    let kind = resolve(&user, kind, token);
    Ok((user, kind, token.to_string()))
}

/// By an e-mailed code and the address it went to.
pub async fn by_code(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    kind: Type,
    email: &str,
    code: &str,
) -> Result<(UserRow, Type, String)> {
    let user = match kind {
        Type::EmailChange => users::row_by_token(c, columns(kind), &otp::hash(email, code)).await?,
        _ => users::row_by_email(c, email).await?,
    }
    .ok_or_else(otp_expired)?;
    if user.banned {
        return Err(api(403, ErrorCode::UserBanned, "User is banned"));
    }
    let hash = otp::hash(email, code);
    let stored: Vec<&str> = match kind {
        Type::Signup | Type::Invite => vec![&user.confirmation_token],
        Type::MagicLink | Type::Recovery => vec![&user.recovery_token],
        Type::EmailChange => vec![
            &user.email_change_token_new,
            &user.email_change_token_current,
        ],
        Type::Email => vec![&user.confirmation_token, &user.recovery_token],
    };
    let pkce = format!("pkce_{hash}");
    let token = stored
        .into_iter()
        .find(|t| !t.is_empty() && (**t == hash || **t == pkce))
        .map(str::to_string)
        .ok_or_else(otp_expired)?;
    if expired(sent_at(&user, kind, &token), cfg) {
        return Err(otp_expired());
    }
    let kind = resolve(&user, kind, &token);
    Ok((user, kind, token))
}

/// Carries out what the verified token proves.
pub async fn complete(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user: &UserRow,
    kind: Type,
    token: &str,
) -> Result<Verified> {
    let pkce = token.starts_with("pkce_");
    match kind {
        Type::Signup | Type::Invite | Type::Email => {
            otp::clear(c, user.id, Slot::Confirmation).await?;
            users::confirm(c, user.id).await?;
        }
        Type::MagicLink | Type::Recovery => {
            otp::clear(c, user.id, Slot::Recovery).await?;
            if !user.confirmed {
                users::confirm(c, user.id).await?;
            }
        }
        Type::EmailChange => {
            // As GoTrue: with double_confirm_changes both addresses confirm, confirmations on or off.
            let both = cfg.double_confirm_changes && !user.email.is_empty();
            if both && user.email_change_confirm_status == 0 {
                let used = if token == user.email_change_token_current {
                    Slot::EmailChangeCurrent
                } else {
                    Slot::EmailChangeNew
                };
                otp::clear(c, user.id, used).await?;
                c.execute(
                    "UPDATE auth.users SET email_change_confirm_status = 1 WHERE id = $1",
                    &[&user.id],
                )
                .await?;
                return Ok(Verified::OneOfTwo);
            }
            change_email(c, user.id).await?;
        }
    }
    Ok(Verified::Session {
        user_id: user.id,
        kind,
        pkce,
    })
}

/// The pending address becomes the address (confirmed), and an anonymous user a permanent one.
pub async fn change_email(c: &impl GenericClient, id: uuid::Uuid) -> Result<()> {
    let email: String = c
        .query_one(
            "UPDATE auth.users SET email = email_change, email_change = '', email_change_token_new = '',
                    email_change_token_current = '', email_change_confirm_status = 0,
                    email_confirmed_at = now(), is_anonymous = false, updated_at = now()
             WHERE id = $1 RETURNING email",
            &[&id],
        )
        .await
        .map_err(|e| match e.code() {
            Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => api(422, ErrorCode::EmailExists,
                "A user with this email address has already been registered",
            ),
            _ => e.into(),
        })?
        .get(0);
    c.execute(
        "DELETE FROM auth.one_time_tokens WHERE user_id = $1
           AND token_type IN ('email_change_token_new', 'email_change_token_current')",
        &[&id],
    )
    .await?;
    users::set_identity_email(c, id, &email).await
}
