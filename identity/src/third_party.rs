//! `[auth.third_party]`: the public keys of another issuer (Firebase, Auth0, Cognito, Clerk,
//! WorkOS), fetched as the Supabase CLI resolves them (`{issuer}/.well-known/openid-configuration`,
//! then its `jwks_uri`), kept in memory and fetched again every 10 minutes, or when a token
//! names a key not seen yet (at most every 30 s). Every copy of the project's [`JwtKeys`]
//! shares one set per issuer, so REST, storage, realtime and functions accept the same tokens.
//!
//! [`JwtKeys`]: crate::jwt::JwtKeys

use crate::jwk::{SigningKey, signing_key};
use jsonwebtoken::Algorithm;
use parking_lot::{Mutex, RwLock};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

/// Each fetch's time limit (the CLI's).
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest discovery document or key set read.
const BODY_LIMIT: usize = 256 * 1024;
/// Most keys kept of one key set.
const KEYS_KEPT: usize = 32;
/// Keys are fetched again this often.
const REFRESH_EVERY: Duration = Duration::from_secs(600);
/// A failed fetch is tried again after this long.
const RETRY_AFTER: Duration = Duration::from_secs(30);
/// An unknown `kid` asks for a fetch at most this often.
const UNKNOWN_KID_EVERY: Duration = Duration::from_secs(30);

pub struct ThirdParty {
    issuer: String,
    keys: RwLock<Vec<SigningKey>>,
    /// When an unknown key last asked for a fetch.
    asked: Mutex<Option<Instant>>,
    wake: tokio::sync::Notify,
    /// Set once the first fetch is over (with keys or not).
    first: tokio::sync::watch::Sender<bool>,
}

static ISSUERS: LazyLock<Mutex<HashMap<String, Arc<ThirdParty>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

impl ThirdParty {
    /// The one key set of `issuer` in this process; its fetching starts with the first call
    /// made within a Tokio runtime.
    pub fn for_issuer(issuer: &str) -> Arc<ThirdParty> {
        let issuer = issuer.trim_end_matches('/').to_string();
        let mut all = ISSUERS.lock();
        if let Some(tp) = all.get(&issuer) {
            return tp.clone();
        }
        let tp = Arc::new(ThirdParty {
            issuer: issuer.clone(),
            keys: RwLock::new(Vec::new()),
            asked: Mutex::new(None),
            wake: tokio::sync::Notify::new(),
            first: tokio::sync::watch::Sender::new(false),
        });
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(tp.clone().keep_fresh());
            all.insert(issuer, tp.clone());
        }
        tp
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Waits (at most `limit`) for the first fetch to be over.
    pub async fn ready(&self, limit: Duration) {
        let mut rx = self.first.subscribe();
        let _ = tokio::time::timeout(limit, rx.wait_for(|done| *done)).await;
    }

    async fn keep_fresh(self: Arc<Self>) {
        loop {
            let wait = match fetch(&self.issuer).await {
                Ok(keys) => {
                    tracing::info!(
                        issuer = self.issuer,
                        "auth.third_party: {} signing keys",
                        keys.len()
                    );
                    *self.keys.write() = keys;
                    REFRESH_EVERY
                }
                Err(e) => {
                    tracing::warn!(
                        issuer = self.issuer,
                        "auth.third_party: cannot fetch the issuer's keys: {e}"
                    );
                    RETRY_AFTER
                }
            };
            self.first.send_replace(true);
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = self.wake.notified() => {}
            }
        }
    }

    /// Verifies a token's signature with the issuer's keys (those of its `alg`, and its `kid`
    /// when it names one). None: no key fits (a fetch is asked for).
    pub(crate) fn decode(
        &self,
        token: &str,
        alg: Algorithm,
        kid: Option<&str>,
        validation: &jsonwebtoken::Validation,
    ) -> Option<Result<Value, jsonwebtoken::errors::Error>> {
        let keys = self.keys.read();
        let mut last = None;
        for k in keys
            .iter()
            .filter(|k| k.alg == alg && (kid.is_none() || k.kid.as_deref() == kid))
        {
            match jsonwebtoken::decode::<Value>(token, &k.decoding, validation) {
                Ok(d) => return Some(Ok(d.claims)),
                Err(e) => last = Some(Err(e)),
            }
        }
        if last.is_none() {
            let mut asked = self.asked.lock();
            if asked.is_none_or(|t| t.elapsed() >= UNKNOWN_KID_EVERY) {
                *asked = Some(Instant::now());
                self.wake.notify_one();
            }
        }
        last
    }
}

/// Why the issuer's keys were not fetched (logged; the keys are asked for again later).
#[derive(Debug, thiserror::Error)]
enum FetchError {
    #[error(transparent)]
    Client(reqwest::Error),
    #[error("{url}: {source}")]
    Http { url: String, source: reqwest::Error },
    #[error("{url}: status {status}")]
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
    #[error("{url}: more than {max} bytes", max = BODY_LIMIT)]
    TooLarge { url: String },
    #[error("{url}: not JSON: {source}")]
    NotJson {
        url: String,
        source: serde_json::Error,
    },
    #[error("OIDC configuration at URL {discovery:?} does not expose a jwks_uri property")]
    NoJwksUri { discovery: String },
    #[error(
        "JWKS at URL {jwks_uri:?} as discovered from {discovery:?} does not contain any JWK keys"
    )]
    NoKeys { jwks_uri: String, discovery: String },
}

async fn get_json(client: &reqwest::Client, url: &str) -> Result<Value, FetchError> {
    let http = |source: reqwest::Error| FetchError::Http {
        url: url.to_string(),
        source,
    };
    let mut res = client.get(url).send().await.map_err(http)?;
    if res.status() != reqwest::StatusCode::OK {
        return Err(FetchError::Status {
            url: url.to_string(),
            status: res.status(),
        });
    }
    let mut body = Vec::new();
    while let Some(chunk) = res.chunk().await.map_err(http)? {
        body.extend_from_slice(&chunk);
        if body.len() > BODY_LIMIT {
            return Err(FetchError::TooLarge {
                url: url.to_string(),
            });
        }
    }
    serde_json::from_slice(&body).map_err(|source| FetchError::NotJson {
        url: url.to_string(),
        source,
    })
}

/// The issuer's signing keys: RSA and EC P-256 public keys for signatures (shared secrets are
/// never taken from a key set).
async fn fetch(issuer: &str) -> Result<Vec<SigningKey>, FetchError> {
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .build()
        .map_err(FetchError::Client)?;
    let discovery = format!("{issuer}/.well-known/openid-configuration");
    let doc = get_json(&client, &discovery).await?;
    let Some(jwks_uri) = doc["jwks_uri"].as_str().filter(|u| !u.is_empty()) else {
        return Err(FetchError::NoJwksUri { discovery });
    };
    let set = get_json(&client, jwks_uri).await?;
    let keys: Vec<SigningKey> = set["keys"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|k| k["kty"] != "oct" && k.get("d").is_none())
        .filter(|k| k.get("use").is_none_or(|u| u == "sig"))
        .filter_map(|k| signing_key(k).ok())
        .take(KEYS_KEPT)
        .collect();
    if keys.is_empty() {
        return Err(FetchError::NoKeys {
            jwks_uri: jwks_uri.to_string(),
            discovery,
        });
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetch_errors_read_as_the_log_had_them() {
        let discovery = "https://i.example/.well-known/openid-configuration".to_string();
        let cases = [
            (
                FetchError::Status {
                    url: "https://i.example/keys".into(),
                    status: reqwest::StatusCode::NOT_FOUND,
                },
                "https://i.example/keys: status 404 Not Found",
            ),
            (
                FetchError::TooLarge {
                    url: "https://i.example/keys".into(),
                },
                "https://i.example/keys: more than 262144 bytes",
            ),
            (
                FetchError::NoJwksUri {
                    discovery: discovery.clone(),
                },
                "OIDC configuration at URL \"https://i.example/.well-known/openid-configuration\" \
                 does not expose a jwks_uri property",
            ),
            (
                FetchError::NoKeys {
                    jwks_uri: "https://i.example/keys".into(),
                    discovery,
                },
                "JWKS at URL \"https://i.example/keys\" as discovered from \
                 \"https://i.example/.well-known/openid-configuration\" does not contain any JWK \
                 keys",
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
    }
}
