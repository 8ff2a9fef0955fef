//! `POST /token`: the grants it is asked for ([`Grant`]), and the password, refresh-token and
//! PKCE grants; web3 in `signin/web3.rs`, id_token in the `auth-external` crate.

use crate::error::{AuthError, ErrorCode, api, invalid_credentials, validation};
use crate::params::{
    IdTokenGrantParams, PasswordGrantParams, PkceGrantParams, RefreshTokenGrantParams, text,
};
use crate::service::{Auth, Request, WINDOW_SECS, never, verify_password};
use crate::sessions::{self, LogoutScope};
use serde_json::{Value, json};
use uuid::Uuid;

/// What `POST /token` is asked for.
pub enum Grant {
    Password(PasswordGrantParams),
    RefreshToken(RefreshTokenGrantParams),
    Pkce(PkceGrantParams),
    IdToken(IdTokenGrantParams),
    /// The body, read once the chain is known to be on (GoTrue answers a disabled provider
    /// before it reads the body).
    Web3(Vec<u8>),
}

impl Grant {
    /// The `grant_type` query parameter, and the body read as that grant's parameters.
    pub fn parse(grant_type: &str, body: &[u8]) -> Result<Grant, AuthError> {
        use crate::params::read;
        Ok(match grant_type {
            "password" => Grant::Password(read(body)?),
            "refresh_token" => Grant::RefreshToken(read(body)?),
            "pkce" => Grant::Pkce(read(body)?),
            "id_token" => Grant::IdToken(read(body)?),
            "web3" => Grant::Web3(body.to_vec()),
            _ => {
                return Err(api(
                    400,
                    ErrorCode::InvalidCredentials,
                    "unsupported_grant_type",
                ));
            }
        })
    }
}

impl Auth {
    /// `grant_type=password`.
    pub async fn password_grant(
        &self,
        r: &Request,
        p: PasswordGrantParams,
    ) -> Result<Value, AuthError> {
        self.limit_sign_in(r).await?;
        let cfg = &self.cfg;
        let email = text(&p.email).trim().to_lowercase();
        let phone = text(&p.phone);
        if !email.is_empty() && !phone.is_empty() {
            return Err(validation(
                "Only an email address or phone number should be provided on login.",
            ));
        }
        if email.is_empty() && phone.is_empty() {
            return Err(validation("missing email or phone"));
        }
        if phone.is_empty() && !cfg.email_enabled {
            return Err(api(
                422,
                ErrorCode::EmailProviderDisabled,
                "Email logins are disabled",
            ));
        }
        let pw = text(&p.password).to_string();
        // The user an address or a number names, and whether that address or number is confirmed.
        let (key, by, confirmed_at) = if phone.is_empty() {
            (
                email.clone(),
                "lower(email) = lower($1)",
                "email_confirmed_at",
            )
        } else {
            self.phone_enabled()?;
            (
                crate::phone::normalize(phone)?,
                "phone = $1",
                "phone_confirmed_at",
            )
        };
        let found = self
            .in_tx(never, async |c| {
                Ok(c.query_opt(
                    &format!(
                        "SELECT id, coalesce(encrypted_password, ''), coalesce(banned_until > now(), false),
                                {confirmed_at} IS NOT NULL
                         FROM auth.users WHERE {by} AND deleted_at IS NULL"
                    ),
                    &[&key],
                )
                .await?
                .map(|r| {
                    (
                        r.get::<_, Uuid>(0),
                        r.get::<_, String>(1),
                        r.get::<_, bool>(2),
                        r.get::<_, bool>(3),
                    )
                }))
            })
            .await?;
        let Some((id, stored, banned, confirmed)) = found.filter(|f| !f.1.is_empty()) else {
            // Unknown addresses verify against a dummy hash: same answer, similar time.
            verify_password(String::new(), crate::password::dummy_hash().to_string()).await;
            return Err(invalid_credentials());
        };
        if banned {
            return Err(api(400, ErrorCode::UserBanned, "User is banned"));
        }
        let valid = verify_password(pw.clone(), stored).await;
        let weak = valid
            .then(|| cfg.password.check(&pw).err())
            .flatten()
            .and_then(|e| match e {
                crate::password::PasswordError::Weak { message, reasons } => {
                    Some(json!({"message": message, "reasons": reasons}))
                }
                _ => None,
            });
        // The hook sees every attempt, in a transaction of its own (what it records stays).
        if let Some(hook) = &cfg.hooks.password_verification_attempt {
            let input =
                crate::models::hooks::PasswordVerificationAttemptInput { user_id: id, valid };
            let rejected = self
                .in_tx(
                    |_| true,
                    async |c| match crate::hooks::verification_attempt(c, hook, &input).await? {
                        Err((message, logout)) => {
                            if logout {
                                sessions::logout(c, id, None, LogoutScope::Global).await?;
                            }
                            Ok(Some(message))
                        }
                        Ok(()) => Ok(None),
                    },
                )
                .await?;
            if let Some(message) = rejected {
                return Err(api(400, ErrorCode::InvalidCredentials, message));
            }
        }
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        let mut session = self
            .in_tx(never, async |c| {
                if !valid {
                    return Err(invalid_credentials());
                }
                if !confirmed && !phone.is_empty() {
                    return Err(api(
                        400,
                        ErrorCode::PhoneNotConfirmed,
                        "Phone not confirmed",
                    ));
                }
                if !confirmed {
                    return Err(api(
                        400,
                        ErrorCode::EmailNotConfirmed,
                        "Email not confirmed",
                    ));
                }
                sessions::start(c, cfg, id, "password", ua, addr).await
            })
            .await?;
        if let Some(w) = weak {
            session["weak_password"] = w;
        }
        Ok(session)
    }

    /// `grant_type=refresh_token`.
    pub async fn refresh_grant(
        &self,
        r: &Request,
        p: RefreshTokenGrantParams,
    ) -> Result<Value, AuthError> {
        let n = self.cfg.rate_limits.token_refresh;
        self.limit(r, "refresh", n, WINDOW_SECS).await?;
        let cfg = &self.cfg;
        let token = text(&p.refresh_token).to_string();
        if token.is_empty() {
            return Err(crate::error::oauth(
                "invalid_request",
                "refresh_token required",
            ));
        }
        // A reused token revokes its family: that must stick although the grant fails.
        let keep = |e: &AuthError| {
            matches!(
                e,
                AuthError::Api {
                    code: ErrorCode::RefreshTokenAlreadyUsed,
                    ..
                }
            )
        };
        self.in_tx(keep, async |c| sessions::refresh(c, cfg, &token).await)
            .await
    }

    /// `grant_type=pkce`.
    pub async fn pkce_grant(&self, r: &Request, p: PkceGrantParams) -> Result<Value, AuthError> {
        let cfg = &self.cfg;
        let (code, verifier) = (text(&p.auth_code), text(&p.code_verifier));
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        self.in_tx(never, async |c| {
            let x = crate::pkce::exchange(c, code, verifier).await?;
            let mut session = sessions::start(c, cfg, x.user, &x.method, ua, addr).await?;
            // As GoTrue's token answer: the provider's tokens, when it gave them.
            let (access, refresh) = x.provider_tokens;
            for (key, token) in [
                ("provider_token", access),
                ("provider_refresh_token", refresh),
            ] {
                if let Some(t) = token {
                    session[key] = Value::String(t);
                }
            }
            Ok(session)
        })
        .await
    }
}
