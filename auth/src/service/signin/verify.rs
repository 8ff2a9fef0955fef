//! `/verify`: GET for the links in mails (the browser is sent back to the app with the session
//! in the fragment, a PKCE code, or the error), POST for codes and token hashes.

use crate::config::AuthConfig;
use crate::error::{AuthError, ErrorCode, api, otp_expired, validation};
use crate::params::{VerifyLinkQuery, VerifyParams, text};
use crate::redirect::encode;
use crate::service::{Auth, Request, WINDOW_SECS, never};
use crate::users::{self, UserRow};
use crate::verify::{self, Type, Verified as Done};
use serde_json::{Value, json};

const ONE_OF_TWO: &str =
    "Confirmation link accepted. Please proceed to confirm link sent to the other email";

/// What a verification ended in: a session (or a PKCE auth code), or the first half of an
/// e-mail change.
enum Outcome {
    Session(Value, Type),
    Code(String),
    OneOfTwo,
}

/// What `POST /verify` answers.
pub enum Verified {
    Session(Value),
    /// The first of two confirmations of an e-mail change.
    OneOfTwo(Value),
}

async fn finish(
    c: &tokio_postgres::Client,
    cfg: &AuthConfig,
    found: (UserRow, Type, String),
    r: &Request,
    link: bool,
) -> Result<Outcome, AuthError> {
    let (user, kind, token) = found;
    match verify::complete(c, cfg, &user, kind, &token).await? {
        Done::OneOfTwo => Ok(Outcome::OneOfTwo),
        Done::Session {
            user_id,
            kind,
            pkce,
        } if pkce && link => Ok(Outcome::Code(
            crate::pkce::issue_code(c, user_id, kind.flow_method()).await?,
        )),
        Done::Session { user_id, kind, .. } => Ok(Outcome::Session(
            crate::sessions::start(
                c,
                cfg,
                user_id,
                "otp",
                r.user_agent.as_deref(),
                r.peer_ip.as_deref(),
            )
            .await?,
            kind,
        )),
    }
}

/// The `error` of a redirect for a failed verification, from its status.
fn oauth_error(status: u16) -> &'static str {
    match status {
        400 => "invalid_request",
        401 => "unauthorized_client",
        403 => "access_denied",
        500 => "server_error",
        503 => "temporarily_unavailable",
        _ => "",
    }
}

impl Auth {
    /// `GET /verify?token=…&type=…&redirect_to=…`: where to send the browser (303).
    pub async fn verify_link(&self, r: &Request, q: VerifyLinkQuery) -> Result<String, AuthError> {
        let n = self.cfg.rate_limits.token_verifications;
        self.limit(r, "verify", n, WINDOW_SECS).await?;
        let cfg = &self.cfg;
        let redirect = self.redirect_to(cfg, r, None);
        let (token, kind) = (text(&q.token), text(&q.kind));
        if kind.is_empty() {
            return Err(validation("Verify requires a verification type"));
        }
        if token.is_empty() {
            return Err(validation("Verify requires a token or a token hash"));
        }
        let pkce = token.starts_with("pkce_");
        let kind = Type::parse(kind)?;
        let done = self
            .in_tx(never, async |c| {
                let found = verify::by_link(c, cfg, kind, token).await?;
                finish(c, cfg, found, r, true).await
            })
            .await;
        let base = redirect
            .split_once('#')
            .map_or(redirect.as_str(), |(b, _)| b);
        let join = |q: &str| {
            if base.contains('?') {
                format!("{base}&{q}")
            } else {
                format!("{base}?{q}")
            }
        };
        Ok(match done {
            Ok(Outcome::Session(s, kind)) => format!(
                "{base}#access_token={}&expires_at={}&expires_in={}&refresh_token={}&sb=&token_type=bearer&type={}",
                encode(s["access_token"].as_str().unwrap_or("")),
                s["expires_at"],
                s["expires_in"],
                encode(s["refresh_token"].as_str().unwrap_or("")),
                kind.as_str()
            ),
            Ok(Outcome::Code(code)) => join(&format!("code={}", encode(&code))),
            Ok(Outcome::OneOfTwo) => {
                let to = if pkce {
                    join(&format!("message={}", encode(ONE_OF_TWO)))
                } else {
                    base.to_string()
                };
                format!("{to}#message={}&sb=", encode(ONE_OF_TWO))
            }
            // Errors go back to the app too, in the fragment (and the query for PKCE).
            Err(e) => {
                let (status, code, message) = e.parts();
                let mut q = String::new();
                let error = oauth_error(status);
                if !error.is_empty() {
                    q.push_str(&format!("error={error}&"));
                }
                q.push_str(&format!(
                    "error_code={code}&error_description={}",
                    encode(&message)
                ));
                let to = if pkce { join(&q) } else { base.to_string() };
                format!("{to}#{q}&sb=")
            }
        })
    }

    /// `POST /verify`: `{type, token, email}` (an e-mailed code) or `{type, token_hash}`.
    pub async fn verify_code(&self, r: &Request, p: VerifyParams) -> Result<Verified, AuthError> {
        let n = self.cfg.rate_limits.token_verifications;
        self.limit(r, "verify", n, WINDOW_SECS).await?;
        let cfg = &self.cfg;
        let (kind, token, hash, email, phone) = (
            text(&p.kind),
            text(&p.token),
            text(&p.token_hash),
            text(&p.email),
            text(&p.phone),
        );
        if kind.is_empty() {
            return Err(validation("Verify requires a verification type"));
        }
        if token.is_empty() == hash.is_empty() {
            return Err(validation("Verify requires either a token or a token hash"));
        }
        if matches!(kind, "sms" | "phone_change") || (!phone.is_empty() && email.is_empty()) {
            if !matches!(kind, "sms" | "phone_change") {
                crate::phone::normalize(phone)?;
                return Err(otp_expired());
            }
            let session = self.verify_phone(r, kind, phone, token).await?;
            return Ok(Verified::Session(session));
        }
        let kind = Type::parse(kind)?;
        if !hash.is_empty()
            && (!email.is_empty() || !phone.is_empty() || !text(&p.redirect_to).is_empty())
        {
            return Err(validation(
                "Only the token_hash and type should be provided",
            ));
        }
        let email = if token.is_empty() {
            None
        } else if email.is_empty() || !phone.is_empty() {
            return Err(validation(
                "Only an email address or phone number should be provided on verify",
            ));
        } else {
            Some(
                users::normalize_email(email)
                    .map_err(|_| api(422, ErrorCode::ValidationFailed, "Invalid email format"))?,
            )
        };
        if let Some(e) = &email {
            // Codes are guessed per address: the limit holds whoever asks, from anywhere.
            self.limit_key(&format!("verify-email:{e}"), n, WINDOW_SECS)
                .await?;
        }
        let done = self
            .in_tx(never, async |c| {
                let found = match &email {
                    Some(e) => verify::by_code(c, cfg, kind, e, token).await?,
                    None => verify::by_link(c, cfg, kind, hash).await?,
                };
                finish(c, cfg, found, r, false).await
            })
            .await?;
        Ok(match done {
            Outcome::Session(s, _) => Verified::Session(s),
            Outcome::OneOfTwo => Verified::OneOfTwo(json!({"msg": ONE_OF_TWO, "code": "200"})),
            Outcome::Code(_) => unreachable!("codes are issued for links only"),
        })
    }
}
