//! PKCE (`flow_type: 'pkce'`): a flow started with a code challenge ends in an auth code the
//! app exchanges, with the verifier, for the session (`grant_type=pkce`). Flow states live in
//! `auth.flow_state` for five minutes.

use crate::error::ErrorCode;
use crate::error::{Result, api, validation};
use crate::models::{FlowState, FromRow};
use base64::Engine;
use sha2::{Digest, Sha256};
use tokio_postgres::GenericClient;
use uuid::Uuid;

const EXPIRY_SECS: f64 = 300.0;

/// GoTrue's checks on `code_challenge` / `code_challenge_method`.
pub fn validate(method: Option<&str>, challenge: Option<&str>) -> Result<()> {
    let (method, challenge) = (method.unwrap_or(""), challenge.unwrap_or(""));
    if method.is_empty() != challenge.is_empty() {
        return Err(validation(
            "PKCE flow requires code_challenge_method and code_challenge",
        ));
    }
    if challenge.is_empty() {
        return Ok(());
    }
    if !(43..=128).contains(&challenge.len()) {
        return Err(validation(
            "code challenge has to be between 43 and 128 characters",
        ));
    }
    if !challenge
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._~-".contains(&b))
    {
        return Err(validation(
            "code challenge can only contain alphanumeric characters, hyphens, periods, underscores and tildes",
        ));
    }
    if !matches!(method.to_lowercase().as_str(), "s256" | "plain") {
        return Err(validation(format!(
            "unsupported code_challenge method \"{method}\""
        )));
    }
    Ok(())
}

/// Records a flow; `method` is how it authenticates (magiclink, recovery, email/signup, …):
/// its id.
pub async fn create(
    c: &impl GenericClient,
    provider_type: &str,
    method: &str,
    challenge_method: &str,
    challenge: &str,
    user_id: Option<Uuid>,
) -> Result<Uuid> {
    Ok(c.query_one(
        "INSERT INTO auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge,
                                      provider_type, authentication_method, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, gen_random_uuid()::text, lower($2)::auth.code_challenge_method,
                 $3, $4, $5, now(), now())
         RETURNING id",
        &[&user_id, &challenge_method, &challenge, &provider_type, &method],
    )
    .await?
    .get(0))
}

/// Keeps an OAuth provider's access and refresh tokens with the flow, for the exchange to hand
/// to the app (`provider_token`, `provider_refresh_token`).
pub async fn keep_provider_tokens(
    c: &impl GenericClient,
    flow: Uuid,
    (access, refresh): (&str, &str),
) -> Result<()> {
    c.execute(
        "UPDATE auth.flow_state SET provider_access_token = nullif($2, ''),
           provider_refresh_token = nullif($3, '') WHERE id = $1",
        &[&flow, &access, &refresh],
    )
    .await?;
    Ok(())
}

/// The auth code of the user's latest flow of `method`, when a link completes it.
pub async fn issue_code(c: &impl GenericClient, user_id: Uuid, method: &str) -> Result<String> {
    c.query_opt(
        "UPDATE auth.flow_state SET auth_code_issued_at = now(), updated_at = now()
         WHERE id = (SELECT id FROM auth.flow_state WHERE user_id = $1 AND authentication_method = $2
                     ORDER BY created_at DESC LIMIT 1)
         RETURNING auth_code",
        &[&user_id, &method],
    )
    .await?
    .map(|r| r.get(0))
    .ok_or_else(|| {
        api(404, ErrorCode::FlowStateNotFound,
            "No associated flow state found. No valid flow state found for user.",
        )
    })
}

/// Whether `verifier` answers `challenge` (`method`: `s256` or `plain`).
pub fn matches(challenge: &str, method: &str, verifier: &str) -> bool {
    match method {
        "s256" => {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier))
                == challenge
        }
        _ => challenge == verifier,
    }
}

/// What an exchanged code gives: the user, how they authenticated, and an OAuth provider's
/// access and refresh tokens when it gave them.
pub struct Exchanged {
    pub user: Uuid,
    pub method: String,
    pub provider_tokens: (Option<String>, Option<String>),
}

/// Exchanges an auth code and its verifier.
pub async fn exchange(
    c: &impl GenericClient,
    auth_code: &str,
    verifier: &str,
) -> Result<Exchanged> {
    if auth_code.is_empty() || verifier.is_empty() {
        return Err(validation(
            "invalid request: both auth code and code verifier should be non-empty",
        ));
    }
    let flow = c
        .query_opt(
            &format!(
                "DELETE FROM auth.flow_state WHERE auth_code = $1 RETURNING {}",
                FlowState::COLUMNS
            ),
            &[&auth_code],
        )
        .await?
        .map(|row| FlowState::from_row(&row))
        .ok_or_else(|| {
            api(
                404,
                ErrorCode::FlowStateNotFound,
                "invalid flow state, no valid flow state found",
            )
        })?;
    if flow.age_secs > EXPIRY_SECS {
        return Err(api(
            422,
            ErrorCode::FlowStateExpired,
            "invalid flow state, flow state has expired",
        ));
    }
    if !matches(&flow.code_challenge, &flow.code_challenge_method, verifier) {
        return Err(api(
            400,
            ErrorCode::BadCodeVerifier,
            "code challenge does not match previously saved code verifier",
        ));
    }
    let user_id = flow.user_id.ok_or_else(|| {
        api(
            404,
            ErrorCode::FlowStateNotFound,
            "invalid flow state, no valid flow state found",
        )
    })?;
    Ok(Exchanged {
        user: user_id,
        method: flow.authentication_method,
        provider_tokens: (flow.provider_access_token, flow.provider_refresh_token),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_checked_as_gotrue_checks_them() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(matches(challenge, "s256", verifier));
        assert!(!matches(challenge, "s256", "other"));
        assert!(matches("same", "plain", "same"));
        assert!(validate(Some("s256"), Some(challenge)).is_ok());
        assert!(validate(None, None).is_ok());
        assert!(validate(Some("s256"), None).is_err());
        assert!(validate(Some("s256"), Some("short")).is_err());
        assert!(validate(Some("md5"), Some(challenge)).is_err());
    }
}
