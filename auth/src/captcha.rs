//! `[auth.captcha]`: hCaptcha or Turnstile, checked as GoTrue checks them. The token comes in
//! the body as `gotrue_meta_security.captcha_token`; it is posted (form-encoded, with the secret
//! and the client's address) to the provider's verify endpoint, whose `success` decides.

use crate::error::{AuthError, ErrorCode, Result, api};
use serde::Deserialize;
use std::time::Duration;

/// GoTrue's default captcha timeout.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Longest verify answer read.
const ANSWER_LIMIT: usize = 64 * 1024;
/// Longest token sent on (provider tokens are a few KiB).
const TOKEN_LIMIT: usize = 16 * 1024;

#[derive(Clone, Debug)]
pub struct Captcha {
    secret: String,
    verify_url: String,
}

#[derive(Deserialize)]
struct Verdict {
    #[serde(default)]
    success: bool,
    #[serde(default, rename = "error-codes")]
    error_codes: Vec<String>,
}

#[derive(Deserialize, Default)]
struct Security {
    #[serde(default)]
    captcha_token: String,
}

#[derive(Deserialize, Default)]
struct Body {
    #[serde(default)]
    gotrue_meta_security: Option<Security>,
}

/// Why the provider gave no verdict (logged; the client is told the check failed).
#[derive(Debug, thiserror::Error)]
enum VerifyError {
    #[error(transparent)]
    Client(reqwest::Error),
    #[error("failed to verify captcha response: {0}")]
    Send(reqwest::Error),
    #[error(transparent)]
    Read(reqwest::Error),
    #[error("captcha answer too large")]
    TooLarge,
    #[error("failed to decode captcha response: not JSON")]
    NotJson,
}

fn failed(message: String) -> AuthError {
    api(400, ErrorCode::CaptchaFailed, message)
}

impl Captcha {
    /// `provider` is `hcaptcha` or `turnstile` (checked when config.toml was read);
    /// `verify_url` replaces the provider's endpoint.
    pub fn new(provider: &str, secret: &str, verify_url: Option<String>) -> Self {
        let default = match provider {
            "turnstile" => "https://challenges.cloudflare.com/turnstile/v0/siteverify",
            _ => "https://hcaptcha.com/siteverify",
        };
        Captcha {
            secret: secret.trim().to_string(),
            verify_url: verify_url.unwrap_or_else(|| default.to_string()),
        }
    }

    /// Checks the captcha token of a request body (JSON, or a body that is not JSON: no token).
    pub async fn check(&self, body: &[u8], client_ip: &str) -> Result<()> {
        let token = serde_json::from_slice::<Body>(body)
            .ok()
            .and_then(|b| b.gotrue_meta_security)
            .map(|s| s.captcha_token.trim().to_string())
            .unwrap_or_default();
        if token.is_empty() {
            return Err(failed(
                "captcha protection: request disallowed (no captcha_token found)".into(),
            ));
        }
        if token.len() > TOKEN_LIMIT {
            return Err(failed(
                "captcha protection: request disallowed (invalid-input-response)".into(),
            ));
        }
        let verdict = self.verify(&token, client_ip).await.map_err(|e| {
            tracing::warn!("captcha verification failed: {e}");
            api(
                500,
                ErrorCode::UnexpectedFailure,
                "captcha verification process failed",
            )
        })?;
        if !verdict.success {
            return Err(failed(format!(
                "captcha protection: request disallowed ({})",
                verdict.error_codes.join(", ")
            )));
        }
        Ok(())
    }

    async fn verify(
        &self,
        token: &str,
        client_ip: &str,
    ) -> std::result::Result<Verdict, VerifyError> {
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .build()
            .map_err(VerifyError::Client)?;
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("secret", &self.secret)
            .append_pair("response", token)
            .append_pair("remoteip", client_ip)
            .finish();
        let mut res = client
            .post(&self.verify_url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await
            .map_err(VerifyError::Send)?;
        let mut body = Vec::new();
        while let Some(chunk) = res.chunk().await.map_err(VerifyError::Read)? {
            body.extend_from_slice(&chunk);
            if body.len() > ANSWER_LIMIT {
                return Err(VerifyError::TooLarge);
            }
        }
        serde_json::from_slice(&body).map_err(|_| VerifyError::NotJson)
    }
}
