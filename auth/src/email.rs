//! The flows that mail a link and a code: confirmation, invite, magic link, recovery, e-mail
//! change (to both addresses when double confirmation is on) and reauthentication. Each stores
//! its token, checks GoTrue's frequency limit (one mail of a kind per user per
//! `max_frequency`) and the project's hourly mail limit, and returns the mail to send once the
//! transaction commits.

use crate::config::AuthConfig;
use crate::error::ErrorCode;
use crate::error::{Result, api, too_frequent};
use crate::otp::{self, Slot};
use crate::redirect::encode;
use crate::users::UserRow;
use chrono::{DateTime, Utc};
use mail::{Kind, MailJob};
use serde_json::{Map, Value, json};
use tokio_postgres::GenericClient;

/// Whether the link ends in a session in the browser (implicit) or in a code the app
/// exchanges with its verifier (PKCE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Implicit,
    Pkce,
}

impl Flow {
    pub fn of(code_challenge: Option<&str>) -> Flow {
        if code_challenge.is_some_and(|c| !c.is_empty()) {
            Flow::Pkce
        } else {
            Flow::Implicit
        }
    }

    fn token(self, hash: String) -> String {
        match self {
            Flow::Implicit => hash,
            Flow::Pkce => format!("pkce_{hash}"),
        }
    }
}

/// `{auth URL}/verify?token=…&type=…&redirect_to=…`.
pub fn action_link(cfg: &AuthConfig, token: &str, kind: &str, redirect_to: &str) -> String {
    format!(
        "{}/verify?token={}&type={}&redirect_to={}",
        cfg.issuer,
        encode(token),
        kind,
        encode(redirect_to)
    )
}

/// GoTrue's limit on mail per user and kind (the hourly cap is [`count_sent`]'s).
fn may_send(cfg: &AuthConfig, last: Option<DateTime<Utc>>) -> Result<()> {
    if let Some(t) = last {
        let next = t + chrono::Duration::seconds(cfg.max_frequency);
        let left = (next - Utc::now()).num_milliseconds();
        if left > 0 {
            return Err(too_frequent((left + 999) / 1000));
        }
    }
    Ok(())
}

/// GoTrue's hourly cap per project, counting every mail a flow sends, notifications too,
/// confirmations on or off. Past it a flow that asked for a mail is refused (429) and
/// notifications are dropped with a warning.
pub async fn count_sent(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    jobs: &mut Vec<MailJob>,
) -> Result<()> {
    if jobs.is_empty()
        || crate::limits::allow_n(c, "email_sent", cfg.email_sent_per_hour, 3600, jobs.len())
            .await?
    {
        return Ok(());
    }
    if jobs.iter().any(|j| !j.kind.is_notification()) {
        return Err(api(
            429,
            ErrorCode::OverEmailSendRateLimit,
            "email rate limit exceeded",
        ));
    }
    tracing::warn!(
        "the hourly e-mail limit is reached: {} notification(s) not sent",
        jobs.len()
    );
    jobs.clear();
    Ok(())
}

fn job(
    cfg: &AuthConfig,
    kind: Kind,
    to: &str,
    user: &UserRow,
    vars: impl IntoIterator<Item = (&'static str, Value)>,
) -> MailJob {
    let mut m = Map::new();
    m.insert("SiteURL".into(), json!(cfg.site_url));
    m.insert("Email".into(), json!(user.email));
    m.insert("Data".into(), user.user_metadata.clone());
    for (k, v) in vars {
        m.insert(k.into(), v);
    }
    MailJob {
        kind,
        to: to.to_string(),
        user_id: user.id,
        vars: m,
    }
}

/// What a link-and-code mail is: its template, the slot of the user row its token lives in,
/// and the `type` of its link.
struct Link {
    kind: Kind,
    slot: Slot,
    link_type: &'static str,
}

/// A link-and-code mail.
async fn linked(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user: &UserRow,
    link: Link,
    flow: Flow,
    redirect_to: &str,
) -> Result<MailJob> {
    let Link {
        kind,
        slot,
        link_type,
    } = link;
    let code = otp::generate(cfg.otp_length);
    let token = flow.token(otp::hash(&user.email, &code));
    otp::store(c, user.id, slot, &token, &user.email).await?;
    Ok(job(
        cfg,
        kind,
        &user.email,
        user,
        [
            (
                "ConfirmationURL",
                json!(action_link(cfg, &token, link_type, redirect_to)),
            ),
            ("Token", json!(code)),
            ("TokenHash", json!(token)),
            ("RedirectTo", json!(redirect_to)),
        ],
    ))
}

pub async fn confirmation(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user: &UserRow,
    flow: Flow,
    redirect_to: &str,
) -> Result<MailJob> {
    may_send(cfg, user.confirmation_sent_at)?;
    linked(
        c,
        cfg,
        user,
        Link {
            kind: Kind::Confirmation,
            slot: Slot::Confirmation,
            link_type: "signup",
        },
        flow,
        redirect_to,
    )
    .await
}

pub async fn invite(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user: &UserRow,
    redirect_to: &str,
) -> Result<MailJob> {
    c.execute(
        "UPDATE auth.users SET invited_at = now() WHERE id = $1",
        &[&user.id],
    )
    .await?;
    linked(
        c,
        cfg,
        user,
        Link {
            kind: Kind::Invite,
            slot: Slot::Confirmation,
            link_type: "invite",
        },
        Flow::Implicit,
        redirect_to,
    )
    .await
}

pub async fn magic_link(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user: &UserRow,
    flow: Flow,
    redirect_to: &str,
) -> Result<MailJob> {
    may_send(cfg, user.recovery_sent_at)?;
    linked(
        c,
        cfg,
        user,
        Link {
            kind: Kind::MagicLink,
            slot: Slot::Recovery,
            link_type: "magiclink",
        },
        flow,
        redirect_to,
    )
    .await
}

pub async fn recovery(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user: &UserRow,
    flow: Flow,
    redirect_to: &str,
) -> Result<MailJob> {
    may_send(cfg, user.recovery_sent_at)?;
    linked(
        c,
        cfg,
        user,
        Link {
            kind: Kind::Recovery,
            slot: Slot::Recovery,
            link_type: "recovery",
        },
        flow,
        redirect_to,
    )
    .await
}

/// Mails the new address (and the current one, with double confirmation) a confirmation of
/// the change; the change happens when they are confirmed.
pub async fn email_change(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user: &UserRow,
    new_email: &str,
    flow: Flow,
    redirect_to: &str,
) -> Result<Vec<MailJob>> {
    may_send(cfg, user.email_change_sent_at)?;
    let code_new = otp::generate(cfg.otp_length);
    let token_new = flow.token(otp::hash(new_email, &code_new));
    c.execute(
        "UPDATE auth.users SET email_change = $2, email_change_confirm_status = 0,
                email_change_token_current = '' WHERE id = $1",
        &[&user.id, &new_email],
    )
    .await?;
    otp::store(c, user.id, Slot::EmailChangeNew, &token_new, new_email).await?;
    let mut targets = vec![(new_email.to_string(), code_new, token_new)];
    if cfg.double_confirm_changes && !user.email.is_empty() {
        let code = otp::generate(cfg.otp_length);
        let token = flow.token(otp::hash(&user.email, &code));
        otp::store(c, user.id, Slot::EmailChangeCurrent, &token, &user.email).await?;
        targets.push((user.email.clone(), code, token));
    }
    Ok(targets
        .into_iter()
        .map(|(to, code, token)| {
            job(
                cfg,
                Kind::EmailChange,
                &to,
                user,
                [
                    (
                        "ConfirmationURL",
                        json!(action_link(cfg, &token, "email_change", redirect_to)),
                    ),
                    ("Token", json!(code)),
                    ("TokenHash", json!(token)),
                    ("NewEmail", json!(new_email)),
                    ("SendingTo", json!(to)),
                    ("RedirectTo", json!(redirect_to)),
                ],
            )
        })
        .collect())
}

/// A code that proves the user (for a password change with `secure_password_change`).
pub async fn reauthentication(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user: &UserRow,
) -> Result<MailJob> {
    may_send(cfg, user.reauthentication_sent_at)?;
    let code = otp::generate(cfg.otp_length);
    let token = otp::hash(&user.email, &code);
    otp::store(c, user.id, Slot::Reauthentication, &token, &user.email).await?;
    Ok(job(
        cfg,
        Kind::Reauthentication,
        &user.email,
        user,
        [("Token", json!(code))],
    ))
}

/// An account-change notification (sent only when the project switches it on).
pub fn notification(
    cfg: &AuthConfig,
    kind: Kind,
    user: &UserRow,
    vars: impl IntoIterator<Item = (&'static str, Value)>,
) -> MailJob {
    job(cfg, kind, &user.email, user, vars)
}
