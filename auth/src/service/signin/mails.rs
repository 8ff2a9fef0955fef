//! E-mailed links and codes: `/otp` and `/magiclink` (sign in, or sign up, by mail),
//! `/recover`, `/resend` and `/reauthenticate`.

use crate::email::{self as mails, Flow};
use crate::error::{AuthError, ErrorCode, api, validation};
use crate::params::{EmailParams, OtpParams, Pkce, ResendParams, object, text};
use crate::service::{Auth, Caller, Request, hash_password, never};
use crate::users::{self, UserRow};
use serde_json::{Value, json};

/// The e-mail of a request, normalised, with the provider switched on.
fn email_of(auth: &Auth, raw: &str, missing: &str) -> Result<String, AuthError> {
    if !auth.cfg.email_enabled {
        return Err(api(
            422,
            ErrorCode::EmailProviderDisabled,
            "Email logins are disabled",
        ));
    }
    if raw.trim().is_empty() {
        return Err(api(422, ErrorCode::ValidationFailed, missing));
    }
    users::normalize_email(raw).map_err(|e| validation(e.to_string()))
}

/// What a sign-in by mail brings.
struct MailSignIn<'a> {
    email: &'a str,
    data: &'a Option<Value>,
    redirect_to: Option<&'a str>,
    pkce: &'a Pkce,
    create_user: bool,
}

impl Auth {
    /// Sign-in (or sign-up) by mail, as GoTrue's magic link does it: a confirmed user gets a
    /// sign-in link; a new or unconfirmed one is signed up and gets the confirmation (or,
    /// without confirmations, the sign-in link).
    async fn mail_sign_in(&self, r: &Request, m: MailSignIn<'_>) -> Result<Value, AuthError> {
        let cfg = &self.cfg;
        let email = email_of(self, m.email, "Password recovery requires an email")?;
        let pkce = crate::service::challenge(m.pkce)?;
        let redirect = self.redirect_to(cfg, r, m.redirect_to);
        let data = object(m.data).unwrap_or(json!({}));
        let password = hash_password(crate::otp::generate(33)).await;
        let flow = Flow::of(pkce.as_ref().map(|p| p.1.as_str()));
        self.in_tx_mail(never, async |c| {
            let existing = users::row_by_email(c, &email).await?;
            if existing.is_none() && (!m.create_user || cfg.disable_signup) {
                return Err(api(
                    422,
                    ErrorCode::OtpDisabled,
                    "Signups not allowed for otp",
                ));
            }
            let user: UserRow = match existing {
                Some(u) if u.confirmed => u,
                Some(u) if !cfg.autoconfirm => {
                    if let Some((m, ch)) = &pkce {
                        crate::pkce::create(c, "email", "email/signup", m, ch, Some(u.id)).await?;
                    }
                    let mail = mails::confirmation(c, cfg, &u, flow, &redirect).await?;
                    return Ok((json!({}), vec![mail]));
                }
                Some(u) => {
                    users::confirm(c, u.id).await?;
                    users::row(c, u.id).await?
                }
                None => {
                    let id =
                        crate::signup::create(c, cfg, &email, &password, &data, cfg.autoconfirm)
                            .await?;
                    let u = users::row(c, id).await?;
                    if !cfg.autoconfirm {
                        if let Some((m, ch)) = &pkce {
                            crate::pkce::create(c, "email", "email/signup", m, ch, Some(id))
                                .await?;
                        }
                        let mail = mails::confirmation(c, cfg, &u, flow, &redirect).await?;
                        return Ok((json!({}), vec![mail]));
                    }
                    u
                }
            };
            if let Some((m, ch)) = &pkce {
                crate::pkce::create(c, "magiclink", "magiclink", m, ch, Some(user.id)).await?;
            }
            let mail = mails::magic_link(c, cfg, &user, flow, &redirect).await?;
            Ok((json!({}), vec![mail]))
        })
        .await
    }

    /// `POST /otp`.
    pub async fn otp(&self, r: &Request, p: OtpParams) -> Result<Value, AuthError> {
        let (email, phone) = (text(&p.email), text(&p.phone));
        if !email.is_empty() && !phone.is_empty() {
            return Err(validation(
                "Only an email address or phone number should be provided",
            ));
        }
        if !email.is_empty() && p.channel.is_some() {
            return Err(validation(
                "Channel should only be specified with Phone OTP",
            ));
        }
        if email.is_empty() && phone.is_empty() {
            return Err(validation("One of email or phone must be set"));
        }
        self.limit_sign_in(r).await?;
        if !phone.is_empty() {
            let data = crate::params::object(&p.data).unwrap_or(json!({}));
            return self
                .otp_phone(
                    phone,
                    p.create_user.unwrap_or(true),
                    (data, p.channel.as_deref()),
                )
                .await;
        }
        let m = MailSignIn {
            email,
            data: &p.data,
            redirect_to: p.redirect_to.as_deref(),
            pkce: &p.pkce,
            create_user: p.create_user.unwrap_or(true),
        };
        self.mail_sign_in(r, m).await
    }

    /// `POST /magiclink`.
    pub async fn magiclink(&self, r: &Request, p: EmailParams) -> Result<Value, AuthError> {
        self.limit_sign_in(r).await?;
        let m = MailSignIn {
            email: text(&p.email),
            data: &p.data,
            redirect_to: p.redirect_to.as_deref(),
            pkce: &p.pkce,
            create_user: true,
        };
        self.mail_sign_in(r, m).await
    }

    /// `POST /recover`.
    pub async fn recover(&self, r: &Request, p: EmailParams) -> Result<Value, AuthError> {
        self.limit_sign_in(r).await?;
        let cfg = &self.cfg;
        let email = email_of(self, text(&p.email), "Password recovery requires an email")?;
        let pkce = crate::service::challenge(&p.pkce)?;
        let redirect = self.redirect_to(cfg, r, p.redirect_to.as_deref());
        let flow = Flow::of(pkce.as_ref().map(|p| p.1.as_str()));
        self.in_tx_mail(never, async |c| {
            // An unknown address is not revealed.
            let Some(user) = users::row_by_email(c, &email).await? else {
                return Ok((json!({}), Vec::new()));
            };
            if let Some((m, ch)) = &pkce {
                crate::pkce::create(c, "recovery", "recovery", m, ch, Some(user.id)).await?;
            }
            let mail = mails::recovery(c, cfg, &user, flow, &redirect).await?;
            Ok((json!({}), vec![mail]))
        })
        .await
    }

    /// `POST /resend`.
    pub async fn resend(&self, r: &Request, p: ResendParams) -> Result<Value, AuthError> {
        self.limit_sign_in(r).await?;
        let cfg = &self.cfg;
        let kind = text(&p.kind);
        match kind {
            "signup" | "email_change" => {}
            "sms" | "phone_change" if !text(&p.phone).is_empty() => {
                return self.resend_phone(kind, text(&p.phone)).await;
            }
            "sms" | "phone_change" if !self.cfg.sms.enable_signup => {
                return Err(api(
                    400,
                    ErrorCode::PhoneProviderDisabled,
                    "Phone logins are disabled",
                ));
            }
            "sms" | "phone_change" => {
                return Err(validation("Type provided requires a phone number"));
            }
            _ => {
                return Err(validation(
                    "Missing one of these types: signup, email_change, sms, phone_change",
                ));
            }
        }
        if text(&p.email).is_empty() {
            return Err(validation(if kind == "signup" {
                "Type provided requires an email address"
            } else {
                "Missing email address or phone number"
            }));
        }
        let email = email_of(
            self,
            text(&p.email),
            "Missing email address or phone number",
        )?;
        let pkce = crate::service::challenge(&p.pkce)?;
        let redirect = self.redirect_to(cfg, r, p.redirect_to.as_deref());
        let flow = Flow::of(pkce.as_ref().map(|p| p.1.as_str()));
        self.in_tx_mail(never, async |c| {
            let Some(user) = users::row_by_email(c, &email).await? else {
                return Ok((json!({}), Vec::new()));
            };
            let mails = if kind == "signup" {
                if user.confirmed {
                    return Ok((json!({}), Vec::new()));
                }
                if let Some((m, ch)) = &pkce {
                    crate::pkce::create(c, "email", "email/signup", m, ch, Some(user.id)).await?;
                }
                vec![mails::confirmation(c, cfg, &user, flow, &redirect).await?]
            } else {
                if user.email_change.is_empty() {
                    return Ok((json!({}), Vec::new()));
                }
                if let Some((m, ch)) = &pkce {
                    crate::pkce::create(c, "email_change", "email_change", m, ch, Some(user.id))
                        .await?;
                }
                let new = user.email_change.clone();
                mails::email_change(c, cfg, &user, &new, flow, &redirect).await?
            };
            Ok((json!({}), mails))
        })
        .await
    }

    /// `GET /reauthenticate`: a code to the user's address for a password change.
    pub async fn reauthenticate(&self, who: Caller) -> Result<Value, AuthError> {
        let cfg = &self.cfg;
        self.in_tx_mail(never, async |c| {
            crate::sessions::check(c, who.id, who.session).await?;
            let user = users::row(c, who.id).await?;
            if user.email.is_empty() {
                return Err(validation(
                    "Reauthentication requires the user to have an email or a phone number",
                ));
            }
            if !user.confirmed {
                return Err(api(
                    422,
                    ErrorCode::EmailNotConfirmed,
                    "Please verify your email first.",
                ));
            }
            let mail = mails::reauthentication(c, cfg, &user).await?;
            Ok((json!({}), vec![mail]))
        })
        .await
    }
}
