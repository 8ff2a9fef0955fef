//! `POST /token?grant_type=id_token` (supabase-js `signInWithIdToken`): sign-in with an OpenID
//! Connect ID token an app got from a provider itself (Google or Apple on a phone, a Keycloak
//! realm, …), as GoTrue takes it. The provider must be on in `[auth.external.<provider>]`; the
//! token must be signed by a key of the provider's JWKS (found through its discovery document at
//! its issuer: the provider's own, or `url` for a Keycloak realm, a single-tenant Azure, …), be
//! issued by that issuer to `client_id`, unexpired, and carry the SHA-256 of the `nonce` given
//! (unless `skip_nonce_check`). The identity's user (or a new one) gets a session.

use crate::External;
use auth::Request;
use auth::error::{AuthError, ErrorCode, api, validation};
use auth::params::{IdTokenGrantParams, text};
use auth::service::never;
use identity::id_token::{self, ProviderKeys};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};

/// How long a provider's keys are used before they are fetched again.
const KEYS_TTL: Duration = Duration::from_secs(600);

/// The issuer GoTrue knows each provider by (None: the provider has no fixed one: its `url`).
fn known_issuer(provider: &str) -> Option<Option<&'static str>> {
    Some(match provider {
        "google" => Some("https://accounts.google.com"),
        "apple" => Some("https://appleid.apple.com"),
        "azure" => Some("https://login.microsoftonline.com/common/v2.0"),
        "facebook" => Some("https://www.facebook.com"),
        "kakao" => Some("https://kauth.kakao.com"),
        "linkedin_oidc" => Some("https://www.linkedin.com/oauth"),
        "keycloak" => None,
        _ => return None,
    })
}

fn bad_token(why: impl std::fmt::Display) -> AuthError {
    tracing::info!("id_token refused: {why}");
    api(400, ErrorCode::InvalidRequest, "Bad ID token")
}

/// The nonce check: the token's `nonce` is the hex SHA-256 of the one the app sent.
pub(crate) fn nonce_ok(sent: &str, in_token: Option<&str>, skip: bool) -> Result<(), AuthError> {
    match (sent.is_empty(), in_token) {
        (false, Some(t)) => {
            let hash = hex::encode(Sha256::digest(sent.as_bytes()));
            if hash == t {
                Ok(())
            } else {
                Err(api(400, ErrorCode::InvalidRequest, "Nonces mismatch"))
            }
        }
        (true, Some(_)) if !skip => Err(api(
            400,
            ErrorCode::InvalidRequest,
            "Passed nonce and nonce in id_token should either both exist or not.",
        )),
        _ => Ok(()),
    }
}

/// Why a provider's discovery document or key set was not read (logged with the refusal).
#[derive(Debug, thiserror::Error)]
enum FetchError {
    #[error("{url}: {source}")]
    Http { url: String, source: reqwest::Error },
    #[error("{url}: {status}")]
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
    #[error("{url}: {source}")]
    Json {
        url: String,
        source: serde_json::Error,
    },
}

/// Fetches JSON over HTTP (discovery documents and key sets).
async fn fetch(url: &str) -> Result<Value, FetchError> {
    let http = |source: reqwest::Error| FetchError::Http {
        url: url.to_string(),
        source,
    };
    let res = reqwest::Client::new()
        .get(url)
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .map_err(http)?;
    if !res.status().is_success() {
        return Err(FetchError::Status {
            url: url.to_string(),
            status: res.status(),
        });
    }
    let bytes = res.bytes().await.map_err(http)?;
    serde_json::from_slice(&bytes).map_err(|source| FetchError::Json {
        url: url.to_string(),
        source,
    })
}

impl External<'_> {
    /// The provider's key set, from its discovery document (kept for [`KEYS_TTL`]).
    async fn provider_keys(&self, issuer: &str) -> Result<ProviderKeys, AuthError> {
        if let Some((at, keys)) = self.auth.oidc_keys().lock().get(issuer)
            && at.elapsed() < KEYS_TTL
        {
            return Ok(keys.clone());
        }
        let discovery = fetch(&format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        ))
        .await
        .map_err(bad_token)?;
        let jwks_uri = discovery["jwks_uri"]
            .as_str()
            .ok_or_else(|| bad_token("no jwks_uri in the discovery document"))?;
        let keys = ProviderKeys::from_json(fetch(jwks_uri).await.map_err(bad_token)?)
            .map_err(bad_token)?;
        self.auth
            .oidc_keys()
            .lock()
            .insert(issuer.to_string(), (Instant::now(), keys.clone()));
        Ok(keys)
    }

    /// The claims of an ID token signed by one of `issuer`'s keys for one of `client_ids` (a
    /// comma list), unexpired, and issued by `issuer` when `check_issuer`.
    pub(crate) async fn id_token_claims(
        &self,
        token: &str,
        issuer: &str,
        check_issuer: bool,
        client_ids: &str,
    ) -> Result<Value, AuthError> {
        let header = id_token::header(token).map_err(bad_token)?;
        let keys = self.provider_keys(issuer).await?;
        let audiences: Vec<&str> = client_ids.split(',').map(str::trim).collect();
        id_token::verify(
            token,
            &header,
            &keys,
            &audiences,
            check_issuer.then_some(issuer),
        )
        .map_err(bad_token)
    }

    /// `POST /token?grant_type=id_token`.
    pub async fn id_token_grant(
        &self,
        r: &Request,
        p: IdTokenGrantParams,
    ) -> Result<Value, AuthError> {
        let token = text(&p.id_token);
        if token.is_empty() {
            return Err(api(400, ErrorCode::InvalidRequest, "id_token required"));
        }
        let provider = text(&p.provider);
        if provider.is_empty() {
            return Err(api(
                400,
                ErrorCode::InvalidRequest,
                "provider or client_id and issuer required",
            ));
        }
        let Some(fixed) = known_issuer(provider) else {
            return Err(validation(format!(
                "Custom OIDC provider \"{provider}\" not allowed"
            )));
        };
        let ext = self.cfg().external_providers.get(provider);
        let issuer = match (ext, fixed) {
            (Some(e), _) if !e.url.is_empty() => e.url.trim_end_matches('/').to_string(),
            (_, Some(f)) => f.to_string(),
            (_, None) => String::new(),
        };
        let Some(ext) = ext else {
            return Err(api(
                400,
                ErrorCode::ProviderDisabled,
                format!("Provider (issuer \"{issuer}\") is not enabled"),
            ));
        };
        // Azure's common endpoint issues tokens under each tenant's own issuer.
        let check_issuer = provider != "azure" || !ext.url.is_empty();
        let claims = self
            .id_token_claims(token, &issuer, check_issuer, &ext.client_id)
            .await?;
        nonce_ok(
            text(&p.nonce),
            claims["nonce"].as_str(),
            ext.skip_nonce_check,
        )?;
        let profile = oauth_providers::id_token_profile(provider, &issuer, &claims)
            .ok_or_else(|| bad_token("no sub"))?;
        let cfg = self.cfg();
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        let provider = provider.to_string();
        self.auth
            .in_tx(never, async |c| {
                let user = auth::identities::user_of(c, cfg, &provider, &profile, None).await?;
                auth::sessions::start(c, cfg, user, "oauth", ua, addr).await
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_as_gotrue_checks_them() {
        let hash = hex::encode(Sha256::digest(b"n-1"));
        // (sent, in the token, skip_nonce_check, accepted)
        let cases = [
            ("n-1", Some(hash.as_str()), false, true),
            ("n-2", Some(hash.as_str()), false, false),
            ("", Some(hash.as_str()), false, false),
            ("", Some(hash.as_str()), true, true),
            ("", None, false, true),
            ("n-1", None, false, true),
        ];
        for (sent, token, skip, ok) in cases {
            assert_eq!(
                nonce_ok(sent, token, skip).is_ok(),
                ok,
                "{sent:?} {token:?} {skip}"
            );
        }
        assert_eq!(known_issuer("keycloak"), Some(None));
        assert_eq!(known_issuer("github"), None);
    }
}
