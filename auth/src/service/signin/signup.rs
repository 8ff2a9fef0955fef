//! `POST /signup`: with an e-mail address and password, or — with neither — anonymously.

use crate::error::{AuthError, ErrorCode, api, validation};
use crate::params::{SignupParams, object, text};
use crate::service::{Auth, HOUR_SECS, Request, hash_password, never};
use crate::signup::{self as flows, Signed};
use serde_json::{Value, json};

impl Auth {
    pub async fn signup(&self, r: &Request, p: SignupParams) -> Result<Value, AuthError> {
        let cfg = &self.cfg;
        let (email, phone) = (text(&p.email), text(&p.phone));
        let data = object(&p.data).unwrap_or(json!({}));
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        if email.is_empty() && phone.is_empty() {
            if !cfg.anonymous_enabled {
                return Err(api(
                    422,
                    ErrorCode::AnonymousProviderDisabled,
                    "Anonymous sign-ins are disabled",
                ));
            }
            let n = cfg.rate_limits.anonymous_users;
            self.limit(r, "anonymous", n, HOUR_SECS).await?;
            return self
                .in_tx(never, async |c| {
                    flows::anonymous(c, cfg, &data, ua, addr).await
                })
                .await;
        }
        self.limit_sign_in(r).await?;
        if cfg.disable_signup {
            return Err(api(
                422,
                ErrorCode::SignupDisabled,
                "Signups not allowed for this instance",
            ));
        }
        let pw = text(&p.password);
        if pw.is_empty() {
            return Err(validation("Signup requires a valid password"));
        }
        flows::check_password(pw, cfg)?;
        if !email.is_empty() && !phone.is_empty() {
            return Err(validation(
                "Only an email address or phone number should be provided on signup.",
            ));
        }
        if !phone.is_empty() {
            return self
                .signup_phone(r, phone, pw, (data, p.channel.as_deref()))
                .await;
        }
        let challenge = crate::service::challenge(&p.pkce)?;
        if !cfg.email_enabled {
            return Err(api(
                400,
                ErrorCode::EmailProviderDisabled,
                "Email signups are disabled",
            ));
        }
        let email = crate::users::normalize_email(email).map_err(|e| validation(e.to_string()))?;
        let hash = hash_password(pw.to_string()).await;
        let redirect = self.redirect_to(cfg, r, p.redirect_to.as_deref());
        let challenge = challenge.as_ref().map(|(m, c)| (m.as_str(), c.as_str()));
        let signed = self
            .in_tx_mail(never, async |c| {
                flows::with_email(
                    c,
                    cfg,
                    flows::NewUser {
                        email: &email,
                        password_hash: &hash,
                        data: &data,
                    },
                    challenge,
                    &redirect,
                    ua,
                    addr,
                )
                .await
            })
            .await?;
        Ok(match signed {
            Signed::Session(s) => s,
            Signed::User(u) => u,
        })
    }
}
