//! `/factors`: enroll, challenge, verify (the session becomes aal2 and a new token pair is
//! issued) and unenroll MFA factors.

use super::{Auth, Caller, Request, never};
use crate::error::{AuthError, ErrorCode, api, validation};
use crate::params::{ChallengeFactorParams, EnrollFactorParams, VerifyFactorParams, text};
use crate::{mfa, sessions, users};
use mail::Kind;
use serde_json::{Value, json};
use uuid::Uuid;

/// A factor id from the path (404 `mfa_factor_not_found` otherwise).
pub fn factor_id(raw: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(raw).map_err(|_| api(404, ErrorCode::MfaFactorNotFound, "Factor not found"))
}

impl Auth {
    pub async fn enroll_factor(
        &self,
        who: Caller,
        p: EnrollFactorParams,
    ) -> Result<Value, AuthError> {
        let cfg = &self.cfg;
        let (factor_type, name) = (text(&p.factor_type), text(&p.friendly_name));
        self.in_tx(never, async |c| {
            let user = sessions::check(c, who.id, who.session).await?;
            let aal2 = mfa::session_aal2(c, who.session).await?;
            let email = user.email;
            mfa::enroll(
                c,
                cfg,
                who.id,
                &email,
                aal2,
                mfa::Enrollment {
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
        let cfg = &self.cfg;
        let webauthn = p.webauthn.unwrap_or_default();
        self.in_tx(never, async |c| {
            sessions::check(c, who.id, who.session).await?;
            let asked = (&webauthn, p.channel.as_deref());
            mfa::challenge(c, cfg, (who.id, id), &r.client_ip, asked).await
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
        let cfg = &self.cfg;
        let code = text(&p.code);
        if code.is_empty() && p.webauthn.is_none() {
            return Err(validation("Code needs to be non-empty"));
        }
        let challenge = p
            .challenge_id
            .as_deref()
            .and_then(|s| Uuid::parse_str(s).ok())
            .ok_or_else(|| {
                api(
                    422,
                    ErrorCode::MfaFactorNotFound,
                    "MFA factor with the provided challenge ID not found",
                )
            })?;
        let Some(session) = who.session else {
            return Err(api(
                401,
                ErrorCode::NoAuthorization,
                "A valid session is required to verify a factor",
            ));
        };
        // Codes are guessed per factor: the limit holds whoever asks, from anywhere.
        let n = self.cfg.rate_limits.token_verifications;
        self.limit_key(&format!("verify-factor:{id}"), n, super::WINDOW_SECS)
            .await?;
        self.in_tx_mail(never, async |c| {
            sessions::check(c, who.id, Some(session)).await?;
            let was_verified = c
                .query_opt(
                    "SELECT 1 FROM auth.mfa_factors WHERE id = $1 AND status = 'verified'",
                    &[&id],
                )
                .await?
                .is_some();
            let ids = (who.id, id, challenge);
            let factor_type = mfa::verify(c, cfg, ids, code, p.webauthn.as_ref()).await?;
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
                jobs.push(crate::email::notification(
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
        let cfg = &self.cfg;
        self.in_tx_mail(never, async |c| {
            sessions::check(c, who.id, who.session).await?;
            let aal2 = mfa::session_aal2(c, who.session).await?;
            let (factor_type, verified) = mfa::unenroll(c, who.id, id, aal2).await?;
            let mut jobs = Vec::new();
            if verified {
                let row = users::row(c, who.id).await?;
                jobs.push(crate::email::notification(
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
