//! MFA as GoTrue runs it, a sub-service of auth in a crate of its own: `/factors` enrolls,
//! challenges, verifies (the session becomes aal2 and a new token pair is issued) and unenrolls
//! TOTP, phone and WebAuthn factors. The rules and their SQL are in `factors` (phone factors'
//! texts in `factors/phone`, WebAuthn's ceremonies in `webauthn`), the bodies in [`params`].
//!
//! [`Mfa`] borrows the auth service's core ([`auth::Auth`]: its settings, transactions, mail,
//! rate limits and sessions): the gateway's `auth_api` makes one per request; the admin API
//! (`auth-admin`) deletes a user's factor with [`unenroll`].

mod factors;
pub mod params;
mod webauthn;

pub use factors::unenroll;

use auth::error::{AuthError, ErrorCode, api, validation};
use auth::params::text;
use auth::service::{WINDOW_SECS, never};
use auth::{Auth, Caller, Request, sessions, users};
use mail::Kind;
use params::{ChallengeFactorParams, EnrollFactorParams, VerifyFactorParams};
use serde_json::{Value, json};
use uuid::Uuid;

/// A factor id from the path (404 `mfa_factor_not_found` otherwise).
pub fn factor_id(raw: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(raw).map_err(|_| api(404, ErrorCode::MfaFactorNotFound, "Factor not found"))
}

/// MFA over the auth service it belongs to.
pub struct Mfa<'a> {
    auth: &'a Auth,
}

impl<'a> Mfa<'a> {
    pub fn new(auth: &'a Auth) -> Mfa<'a> {
        Mfa { auth }
    }

    pub async fn enroll_factor(
        &self,
        who: Caller,
        p: EnrollFactorParams,
    ) -> Result<Value, AuthError> {
        let cfg = self.auth.config();
        let (factor_type, name) = (text(&p.factor_type), text(&p.friendly_name));
        self.auth
            .in_tx(never, async |c| {
                let user = sessions::check(c, who.id, who.session).await?;
                let aal2 = sessions::session_aal2(c, who.session).await?;
                let email = user.email;
                factors::enroll(
                    c,
                    cfg,
                    who.id,
                    &email,
                    aal2,
                    factors::Enrollment {
                        factor_type,
                        friendly_name: name,
                        issuer: p.issuer.as_deref(),
                        phone: p.phone.as_deref(),
                    },
                )
                .await
            })
            .await
    }

    pub async fn challenge_factor(
        &self,
        r: &Request,
        who: Caller,
        factor: &str,
        p: ChallengeFactorParams,
    ) -> Result<Value, AuthError> {
        let id = factor_id(factor)?;
        let cfg = self.auth.config();
        let webauthn = p.webauthn.unwrap_or_default();
        self.auth
            .in_tx(never, async |c| {
                sessions::check(c, who.id, who.session).await?;
                let asked = (&webauthn, p.channel.as_deref());
                factors::challenge(c, cfg, (who.id, id), &r.client_ip, asked).await
            })
            .await
    }

    pub async fn verify_factor(
        &self,
        who: Caller,
        factor: &str,
        p: VerifyFactorParams,
    ) -> Result<Value, AuthError> {
        let id = factor_id(factor)?;
        let cfg = self.auth.config();
        let code = text(&p.code);
        if code.is_empty() && p.webauthn.is_none() {
            return Err(validation("Code needs to be non-empty"));
        }
        let challenge = p
            .challenge_id
            .as_deref()
            .and_then(|s| Uuid::parse_str(s).ok())
            .ok_or_else(factors::challenge_not_found)?;
        let Some(session) = who.session else {
            return Err(api(
                401,
                ErrorCode::NoAuthorization,
                "A valid session is required to verify a factor",
            ));
        };
        // Codes are guessed per factor: the limit holds whoever asks, from anywhere.
        let n = self.auth.config().rate_limits.token_verifications;
        self.auth
            .limit_key(&format!("verify-factor:{id}"), n, WINDOW_SECS)
            .await?;
        self.auth
            .in_tx_mail(never, async |c| {
                sessions::check(c, who.id, Some(session)).await?;
                let was_verified = c
                    .query_opt(
                        "SELECT 1 FROM auth.mfa_factors WHERE id = $1 AND status = 'verified'",
                        &[&id],
                    )
                    .await?
                    .is_some();
                let ids = (who.id, id, challenge);
                let factor_type = factors::verify(c, cfg, ids, code, p.webauthn.as_ref()).await?;
                // The session's amr, as GoTrue names the methods.
                let method = match factor_type.as_str() {
                    "phone" => "mfa/phone",
                    "webauthn" => "mfa/webauthn",
                    _ => "totp",
                };
                let out = sessions::upgrade(c, cfg, who.id, session, id, method).await?;
                let mut jobs = Vec::new();
                if !was_verified {
                    let row = users::row(c, who.id).await?;
                    jobs.push(auth::email::notification(
                        cfg,
                        Kind::FactorEnrolled,
                        &row,
                        [("FactorType", json!(factor_type))],
                    ));
                }
                Ok((out, jobs))
            })
            .await
    }

    pub async fn unenroll_factor(&self, who: Caller, factor: &str) -> Result<Value, AuthError> {
        let id = factor_id(factor)?;
        let cfg = self.auth.config();
        self.auth
            .in_tx_mail(never, async |c| {
                sessions::check(c, who.id, who.session).await?;
                let aal2 = sessions::session_aal2(c, who.session).await?;
                let (factor_type, verified) = factors::unenroll(c, who.id, id, aal2).await?;
                let mut jobs = Vec::new();
                if verified {
                    let row = users::row(c, who.id).await?;
                    jobs.push(auth::email::notification(
                        cfg,
                        Kind::FactorUnenrolled,
                        &row,
                        [("FactorType", json!(factor_type))],
                    ));
                }
                Ok(((), jobs))
            })
            .await?;
        Ok(json!({ "id": id }))
    }
}
