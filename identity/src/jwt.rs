//! JSON Web Tokens: the project's API keys, access tokens, and their verification. HS256 with
//! the JWT secret, plus the keys of a signing-keys file (the Supabase CLI's `signing_keys_path`,
//! GoTrue's `GOTRUE_JWT_KEYS`): RS256, ES256 and `oct` (HS256 under its own `kid`). Access tokens
//! are signed as GoTrue signs them: with the key whose `key_ops` has `sign`, else the first key
//! with a private part that states no `key_ops`, else with the secret. Tokens signed by any
//! configured key verify. The asymmetric keys' public halves are the JWKS.

use crate::clock::now;
use crate::jwk::{SigningKey, signing_key};
use crate::third_party::ThirdParty;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, errors::ErrorKind};
use parking_lot::Mutex;
use serde_json::{Value, json};
use std::sync::Arc;

/// The Supabase CLI's well-known local development secret.
pub const DEMO_JWT_SECRET: &str = "super-secret-jwt-token-with-at-least-32-characters-long";

/// Roles a token may ask for; the database also checks that the API login may switch to them.
pub const API_ROLES: [&str; 3] = ["anon", "authenticated", "service_role"];

/// The Supabase CLI's default opaque keys, accepted beside the JWT keys with the demo secret.
pub const CLI_PUBLISHABLE_KEY: &str = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH";
pub const CLI_SECRET_KEY: &str = "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz";
/// Expiry the Supabase CLI puts in its demo API keys (2032-11-12).
const API_KEY_EXP: i64 = 1_983_812_996;
/// Clock skew allowed on exp / nbf / iat, as PostgREST allows.
const LEEWAY_SECS: i64 = 30;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum JwtError {
    #[error("Expected 3 parts in JWT; got {0}")]
    Parts(usize),
    #[error("JWT cryptographic operation failed")]
    Signature,
    #[error("JWT expired")]
    Expired,
    #[error("JWT not yet valid")]
    NotYetValid,
    #[error("JWT issued at future")]
    IssuedInFuture,
    #[error("JWT claims must be a JSON object")]
    NotAnObject,
    /// A third-party issuer's token asks for a role other than `authenticated` or `anon`.
    #[error("JWT role claim of a third-party token must be authenticated or anon")]
    ForeignRole,
}

/// Why a signing-keys file (or `GOTRUE_JWT_KEYS`) could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SigningKeysError {
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("expected an array of JWKs or {{\"keys\": [...]}}")]
    NoKeysArray,
    #[error("expected an array of JWKs")]
    NotArray,
    /// The key at this place in the list (from 1).
    #[error("key {0}: {1}")]
    Key(usize, crate::jwk::JwkError),
}

/// The project's signing secret (and signing keys) and the two API keys derived from it.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    keys: Vec<SigningKey>,
    /// Index in `keys` of the key access tokens are signed with (None: HS256 with the secret).
    signer: Option<usize>,
    /// Claims of tokens whose signature was verified lately (the same API key or access token
    /// comes with request after request): their time claims are still checked on every use.
    verified: Arc<Mutex<lru::LruCache<String, Arc<Claims>>>>,
    /// `[auth.third_party]`: the issuer whose asymmetric tokens are also accepted.
    third_party: Option<Arc<ThirdParty>>,
}

/// A verified token's claims, with their JSON text (what `request.jwt.claims` is set to) and
/// time claims, read once per token.
#[derive(Debug)]
pub struct Claims {
    pub value: Value,
    pub text: String,
    /// The `role` claim: None when absent, Some(None) when not a string.
    pub role: Option<Option<String>>,
    times: Times,
}

/// `exp`, `nbf` (None: absent; Some(None): not a number) and `iat`.
#[derive(Debug)]
struct Times {
    exp: Option<Option<i64>>,
    nbf: Option<Option<i64>>,
    iat: Option<i64>,
}

impl Claims {
    pub fn new(value: Value) -> Self {
        let time = |name: &str| value.get(name).map(|v| v.as_f64().map(|t| t as i64));
        Claims {
            text: value.to_string(),
            role: value.get("role").map(|r| r.as_str().map(str::to_string)),
            times: Times {
                exp: time("exp"),
                nbf: time("nbf"),
                iat: value.get("iat").and_then(Value::as_i64),
            },
            value,
        }
    }
}

/// Tokens whose verified claims are kept.
const VERIFIED_KEPT: usize = 1024;
/// Longest token kept (longer ones are verified every time).
const VERIFIED_TOKEN_BYTES: usize = 4096;

/// The anon and service_role keys a project hands to its clients.
#[derive(Clone, Debug)]
pub struct ApiKeys {
    pub anon: String,
    pub service_role: String,
}

impl JwtKeys {
    pub fn new(secret: &str) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        // PostgREST requires no claim; exp/nbf are checked when present.
        validation.required_spec_claims.clear();
        validation.validate_aud = false;
        // exp and nbf are checked against [`now`] below.
        validation.validate_exp = false;
        validation.validate_nbf = false;
        Self {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
            validation,
            keys: Vec::new(),
            signer: None,
            verified: Arc::new(Mutex::new(lru::LruCache::new(
                std::num::NonZeroUsize::new(VERIFIED_KEPT).expect("not zero"),
            ))),
            third_party: None,
        }
    }

    /// These keys, also accepting the asymmetric tokens `issuer` signs (`[auth.third_party]`):
    /// their `iss` must be the issuer, their role `authenticated` or `anon` (or none).
    pub fn with_third_party(mut self, issuer: Option<Arc<ThirdParty>>) -> Self {
        self.third_party = issuer;
        self
    }

    pub fn third_party(&self) -> Option<&Arc<ThirdParty>> {
        self.third_party.as_ref()
    }

    /// The secret plus the keys of a signing-keys file: a JSON array of JWKs (or `{"keys":
    /// [...]}`) with their private parts, as `supabase gen signing-key` writes them and
    /// `GOTRUE_JWT_KEYS` holds them. See the module's notes for which key signs.
    pub fn with_signing_keys(secret: &str, json: &str) -> Result<Self, SigningKeysError> {
        let mut keys = Self::new(secret);
        let doc: Value = serde_json::from_str(json).map_err(SigningKeysError::NotJson)?;
        let list = match doc {
            Value::Array(a) => a,
            Value::Object(mut o) => match o.remove("keys") {
                Some(Value::Array(a)) => a,
                _ => return Err(SigningKeysError::NoKeysArray),
            },
            _ => return Err(SigningKeysError::NotArray),
        };
        for (i, jwk) in list.iter().enumerate() {
            let key = signing_key(jwk).map_err(|e| SigningKeysError::Key(i + 1, e))?;
            keys.keys.push(key);
        }
        let can_sign = |k: &&SigningKey, op: Option<bool>| k.encoding.is_some() && k.sign_op == op;
        keys.signer = (keys.keys.iter().position(|k| can_sign(&k, Some(true))))
            .or_else(|| keys.keys.iter().position(|k| can_sign(&k, None)));
        Ok(keys)
    }

    /// The public keys (`/.well-known/jwks.json`).
    pub fn jwks(&self) -> Value {
        json!({ "keys": self.keys.iter().filter_map(|k| k.public.clone()).collect::<Vec<_>>() })
    }

    /// Mints the anon and service_role keys exactly as the Supabase CLI does, so that with the demo
    /// secret they are byte for byte the keys existing `.env` files carry.
    pub fn api_keys(&self) -> ApiKeys {
        ApiKeys {
            anon: self.sign_ordered(&format!(
                r#"{{"iss":"supabase-demo","role":"anon","exp":{API_KEY_EXP}}}"#
            )),
            service_role: self.sign_ordered(&format!(
                r#"{{"iss":"supabase-demo","role":"service_role","exp":{API_KEY_EXP}}}"#
            )),
        }
    }

    /// The JWT API key one of the Supabase CLI's opaque keys stands for (its gateway swaps
    /// them), when `local_keys` (the demo secret); None for any other key.
    pub fn standing_for(&self, key: &str, local_keys: bool) -> Option<String> {
        match key {
            CLI_PUBLISHABLE_KEY if local_keys => Some(self.api_keys().anon),
            CLI_SECRET_KEY if local_keys => Some(self.api_keys().service_role),
            _ => None,
        }
    }

    /// Signs a payload given as JSON text, keeping the CLI's header and key order.
    fn sign_ordered(&self, payload_json: &str) -> String {
        let head = URL_SAFE_NO_PAD.encode(r#"{"alg":"HS256","typ":"JWT"}"#);
        let body = URL_SAFE_NO_PAD.encode(payload_json);
        let message = format!("{head}.{body}");
        let sig = jsonwebtoken::crypto::sign(message.as_bytes(), &self.encoding, Algorithm::HS256)
            .expect("HMAC signing cannot fail");
        format!("{message}.{sig}")
    }

    /// Signs arbitrary claims (access tokens) with the signing key.
    pub fn sign(&self, claims: &Value) -> String {
        match self.signer.map(|i| &self.keys[i]) {
            Some(k) => {
                let mut header = Header::new(k.alg);
                header.kid = k.kid.clone();
                jsonwebtoken::encode(&header, claims, k.encoding.as_ref().expect("a signer"))
                    .expect("signing with a loaded key cannot fail")
            }
            None => jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
                .expect("HMAC signing cannot fail"),
        }
    }

    /// Verifies signature (by the secret, or the signing key the header names) and time claims;
    /// returns the claims object.
    pub fn verify(&self, token: &str) -> Result<Value, JwtError> {
        self.verify_shared(token).map(|c| c.value.clone())
    }

    /// [`JwtKeys::verify`], the claims shared with the cache of verified tokens.
    pub fn verify_shared(&self, token: &str) -> Result<Arc<Claims>, JwtError> {
        let kept = self.verified.lock().get(token).cloned();
        let claims = match kept {
            Some(c) => c,
            None => {
                let c = Arc::new(Claims::new(self.verify_signature(token)?));
                if token.len() <= VERIFIED_TOKEN_BYTES {
                    self.verified.lock().put(token.to_string(), c.clone());
                }
                c
            }
        };
        check_times(&claims.times)?;
        Ok(claims)
    }

    /// The claims object of a token whose signature holds (times not checked).
    fn verify_signature(&self, token: &str) -> Result<Value, JwtError> {
        let parts = token.split('.').count();
        if parts != 3 {
            return Err(JwtError::Parts(parts));
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| JwtError::Signature)?;
        let map = |e: jsonwebtoken::errors::Error| match e.kind() {
            ErrorKind::ExpiredSignature => JwtError::Expired,
            ErrorKind::ImmatureSignature => JwtError::NotYetValid,
            _ => JwtError::Signature,
        };
        // An HS256 token names its `oct` key by kid; without one (or with another) it is the
        // secret's.
        let oct = (header.alg == Algorithm::HS256)
            .then(|| {
                self.keys.iter().find(|k| {
                    k.alg == Algorithm::HS256 && header.kid.is_some() && k.kid == header.kid
                })
            })
            .flatten();
        let data = if let Some(k) = oct {
            jsonwebtoken::decode::<Value>(token, &k.decoding, &self.validation)
                .map_err(map)?
                .claims
        } else if header.alg == Algorithm::HS256 {
            jsonwebtoken::decode::<Value>(token, &self.decoding, &self.validation)
                .map_err(map)?
                .claims
        } else {
            let mut validation = self.validation.clone();
            validation.algorithms = vec![header.alg];
            let mut last = JwtError::Signature;
            let candidates = self
                .keys
                .iter()
                .filter(|k| k.alg == header.alg && (header.kid.is_none() || k.kid == header.kid));
            let mut found = None;
            for k in candidates {
                match jsonwebtoken::decode::<Value>(token, &k.decoding, &validation) {
                    Ok(d) => {
                        found = Some(d.claims);
                        break;
                    }
                    Err(e) => last = map(e),
                }
            }
            match (found, &self.third_party) {
                (Some(claims), _) => claims,
                (None, Some(tp)) => {
                    let claims = tp
                        .decode(token, header.alg, header.kid.as_deref(), &validation)
                        .ok_or(last)?
                        .map_err(map)?;
                    third_party_rules(&claims, tp.issuer())?;
                    claims
                }
                (None, None) => return Err(last),
            }
        };
        let claims = data;
        if !claims.is_object() {
            return Err(JwtError::NotAnObject);
        }
        Ok(claims)
    }
}

/// A third-party token must name its issuer (`iss`, a trailing slash aside: Auth0 writes one)
/// and may act as `authenticated` or `anon` only: an outside issuer never gets the service
/// role.
fn third_party_rules(claims: &Value, issuer: &str) -> Result<(), JwtError> {
    let iss = claims
        .get("iss")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if iss.trim_end_matches('/') != issuer {
        return Err(JwtError::Signature);
    }
    match claims.get("role") {
        None => Ok(()),
        Some(Value::String(r)) if r == "authenticated" || r == "anon" => Ok(()),
        Some(_) => Err(JwtError::ForeignRole),
    }
}

/// `exp`, `nbf` and `iat` against [`now`] (with the leeway).
fn check_times(t: &Times) -> Result<(), JwtError> {
    let now = now();
    match t.exp {
        Some(Some(exp)) if exp < now - LEEWAY_SECS => return Err(JwtError::Expired),
        Some(None) => return Err(JwtError::Signature),
        _ => {}
    }
    match t.nbf {
        Some(Some(nbf)) if nbf > now + LEEWAY_SECS => return Err(JwtError::NotYetValid),
        Some(None) => return Err(JwtError::Signature),
        _ => {}
    }
    if let Some(iat) = t.iat
        && iat > now + LEEWAY_SECS
    {
        return Err(JwtError::IssuedInFuture);
    }
    Ok(())
}

/// Claims of the anon role when a request carries no token.
pub fn anon_claims() -> Value {
    json!({ "role": "anon" })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The keys `supabase start` prints; existing .env files hold exactly these.
    const CLI_ANON: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0";
    const CLI_SERVICE: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU";

    #[test]
    fn demo_keys_match_the_supabase_cli() {
        let keys = JwtKeys::new(DEMO_JWT_SECRET).api_keys();
        assert_eq!(keys.anon, CLI_ANON);
        assert_eq!(keys.service_role, CLI_SERVICE);
    }

    #[test]
    fn verifies_cli_keys_and_rejects_tampering() {
        let k = JwtKeys::new(DEMO_JWT_SECRET);
        assert_eq!(k.verify(CLI_ANON).unwrap()["role"], "anon");
        let other = JwtKeys::new("another-secret-that-is-at-least-32-chars!!");
        assert_eq!(other.verify(CLI_ANON), Err(JwtError::Signature));
        assert_eq!(k.verify("abc"), Err(JwtError::Parts(1)));
        let mut bad = CLI_ANON.to_string();
        bad.pop();
        bad.push('A');
        assert_eq!(k.verify(&bad), Err(JwtError::Signature));
    }

    #[test]
    fn time_claims_are_checked_with_skew() {
        let k = JwtKeys::new(DEMO_JWT_SECRET);
        let now = chrono::Utc::now().timestamp();
        let expired = k.sign(&json!({"role":"authenticated","exp": now - 31}));
        assert_eq!(k.verify(&expired), Err(JwtError::Expired));
        let within_skew = k.sign(&json!({"role":"authenticated","exp": now - 5}));
        assert!(k.verify(&within_skew).is_ok());
        let future = k.sign(&json!({"role":"authenticated","nbf": now + 120}));
        assert_eq!(k.verify(&future), Err(JwtError::NotYetValid));
        let iat = k.sign(&json!({"role":"authenticated","iat": now + 120}));
        assert_eq!(k.verify(&iat), Err(JwtError::IssuedInFuture));
    }

    #[test]
    fn kept_tokens_are_still_checked_for_time_and_exactness() {
        let k = JwtKeys::new(DEMO_JWT_SECRET);
        let now = chrono::Utc::now().timestamp();
        // Valid for about one more second (the leeway is 30 s).
        let token = k.sign(&json!({"role":"authenticated","exp": now - LEEWAY_SECS}));
        assert!(k.verify(&token).is_ok());
        assert!(
            k.clone().verify(&token).is_ok(),
            "kept, and shared by clones"
        );
        let mut bad = token.clone();
        bad.pop();
        bad.push(if token.ends_with('A') { 'B' } else { 'A' });
        assert_eq!(k.verify(&bad), Err(JwtError::Signature));
        std::thread::sleep(std::time::Duration::from_millis(1100));
        assert_eq!(k.verify(&token), Err(JwtError::Expired));
    }

    /// A throwaway RSA key (generated for this test only).
    const TEST_RSA_JWK: &str = include_str!("test-rsa-key.json");

    #[test]
    fn signing_keys_sign_access_tokens_and_both_kinds_verify() {
        let k = JwtKeys::with_signing_keys(DEMO_JWT_SECRET, &format!("[{TEST_RSA_JWK}]")).unwrap();
        let token = k.sign(&json!({"role": "authenticated", "sub": "u"}));
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.alg, Algorithm::RS256);
        assert_eq!(header.kid.as_deref(), Some("test-rsa"));
        assert_eq!(k.verify(&token).unwrap()["sub"], "u");
        // HS256 keys (the API keys) still verify; a key it does not have does not.
        assert_eq!(k.verify(CLI_ANON).unwrap()["role"], "anon");
        assert_eq!(
            JwtKeys::new(DEMO_JWT_SECRET).verify(&token),
            Err(JwtError::Signature)
        );
        let jwks = k.jwks();
        let public = &jwks["keys"][0];
        assert_eq!(public["kid"], "test-rsa");
        assert!(public.get("d").is_none() && public.get("p").is_none());
        assert_eq!(public["key_ops"], json!(["verify"]));
        // Only the public half: tokens verify, nothing is signed with it.
        let verify_only = JwtKeys::with_signing_keys(DEMO_JWT_SECRET, &jwks.to_string()).unwrap();
        assert!(verify_only.verify(&token).is_ok());
        assert_eq!(
            jsonwebtoken::decode_header(verify_only.sign(&json!({})))
                .unwrap()
                .alg,
            Algorithm::HS256
        );
        // The errors' texts, as they were written before they were variants.
        let cases = [
            (
                "[{\"kty\": \"OKP\"}]",
                "key 1: unsupported key type \"OKP\" (use RSA, EC P-256 or oct)",
            ),
            ("nope", "not JSON: expected ident at line 1 column 2"),
            (
                "{\"k\": 1}",
                "expected an array of JWKs or {\"keys\": [...]}",
            ),
            ("7", "expected an array of JWKs"),
            ("[{\"kty\": \"oct\"}]", "key 1: missing \"k\""),
            ("[{\"kty\": \"oct\", \"k\": \"\"}]", "key 1: \"k\" is empty"),
            (
                "[{\"kty\": \"oct\", \"k\": \"a2V5\"}, {\"kty\": \"oct\", \"k\": \"!\"}]",
                "key 2: \"k\" is not base64url: Invalid symbol 33, offset 0.",
            ),
        ];
        for (json, want) in cases {
            let e = JwtKeys::with_signing_keys(DEMO_JWT_SECRET, json)
                .err()
                .unwrap();
            assert_eq!(e.to_string(), want, "{json}");
        }
    }

    /// As GOTRUE_JWT_KEYS: the key whose key_ops has "sign" signs, whatever its place or kind.
    #[test]
    fn the_key_with_the_sign_op_signs() {
        let rsa = |ops: &str| {
            let mut k: Value = serde_json::from_str(TEST_RSA_JWK).unwrap();
            k["key_ops"] = serde_json::from_str(ops).unwrap();
            k
        };
        // "k" is base64url: the HMAC key is its decoded bytes, not the text.
        let oct = |ops: &str| {
            json!({"kty": "oct", "k": URL_SAFE_NO_PAD.encode("an oct key of thirty-two bytes!!"),
                   "kid": "oct-1", "alg": "HS256", "key_ops": serde_json::from_str::<Value>(ops).unwrap()})
        };
        let header =
            |k: &JwtKeys| jsonwebtoken::decode_header(k.sign(&json!({"sub": "u"}))).unwrap();

        let hs = JwtKeys::with_signing_keys(
            DEMO_JWT_SECRET,
            &json!([oct(r#"["sign", "verify"]"#), rsa(r#"["verify"]"#)]).to_string(),
        )
        .unwrap();
        let h = header(&hs);
        assert_eq!((h.alg, h.kid.as_deref()), (Algorithm::HS256, Some("oct-1")));
        let token = hs.sign(&json!({"sub": "u"}));
        assert_eq!(hs.verify(&token).unwrap()["sub"], "u");
        // Signed with the oct key's bytes, not with the secret.
        assert_eq!(
            JwtKeys::new(DEMO_JWT_SECRET).verify(&token),
            Err(JwtError::Signature)
        );
        assert_eq!(hs.verify(CLI_ANON).unwrap()["role"], "anon");
        // The shared secret is never published.
        assert_eq!(hs.jwks()["keys"].as_array().unwrap().len(), 1);

        let rs = JwtKeys::with_signing_keys(
            DEMO_JWT_SECRET,
            &json!([oct(r#"["verify"]"#), rsa(r#"["sign", "verify"]"#)]).to_string(),
        )
        .unwrap();
        assert_eq!(header(&rs).alg, Algorithm::RS256);
        assert_eq!(rs.verify(&hs.sign(&json!({}))).unwrap(), json!({}));

        // Keys that only verify never sign: the secret does.
        let none = JwtKeys::with_signing_keys(
            DEMO_JWT_SECRET,
            &json!([oct(r#"["verify"]"#), rsa(r#"["verify"]"#)]).to_string(),
        )
        .unwrap();
        let h = header(&none);
        assert_eq!((h.alg, h.kid), (Algorithm::HS256, None));
        assert!(
            JwtKeys::new(DEMO_JWT_SECRET)
                .verify(&none.sign(&json!({})))
                .is_ok()
        );
    }
}
