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

async fn get_json(client: &reqwest::Client, url: &str) -> Result<Value, String> {
    let mut res = client
        .get(url)
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if res.status() != reqwest::StatusCode::OK {
        return Err(format!("{url}: status {}", res.status()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = res.chunk().await.map_err(|e| format!("{url}: {e}"))? {
        body.extend_from_slice(&chunk);
        if body.len() > BODY_LIMIT {
            return Err(format!("{url}: more than {BODY_LIMIT} bytes"));
        }
    }
    serde_json::from_slice(&body).map_err(|e| format!("{url}: not JSON: {e}"))
}

/// The issuer's signing keys: RSA and EC P-256 public keys for signatures (shared secrets are
/// never taken from a key set).
async fn fetch(issuer: &str) -> Result<Vec<SigningKey>, String> {
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .build()
        .map_err(|e| e.to_string())?;
    let discovery = format!("{issuer}/.well-known/openid-configuration");
    let doc = get_json(&client, &discovery).await?;
    let Some(jwks_uri) = doc["jwks_uri"].as_str().filter(|u| !u.is_empty()) else {
        return Err(format!(
            "OIDC configuration at URL {discovery:?} does not expose a jwks_uri property"
        ));
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
        return Err(format!(
            "JWKS at URL {jwks_uri:?} as discovered from {discovery:?} does not contain any JWK keys"
        ));
    }
    Ok(keys)
}
