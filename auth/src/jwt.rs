//! HS256 JSON Web Tokens: the project's API keys, access tokens, and their verification.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, errors::ErrorKind};
use serde_json::{Value, json};

/// The Supabase CLI's well-known local development secret.
pub const DEMO_JWT_SECRET: &str = "super-secret-jwt-token-with-at-least-32-characters-long";
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
}

/// The project's signing secret and the two API keys derived from it.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

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
        validation.validate_nbf = true;
        validation.leeway = LEEWAY_SECS as u64;
        Self {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
            validation,
        }
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

    /// Signs a payload given as JSON text, keeping the CLI's header and key order.
    fn sign_ordered(&self, payload_json: &str) -> String {
        let head = URL_SAFE_NO_PAD.encode(r#"{"alg":"HS256","typ":"JWT"}"#);
        let body = URL_SAFE_NO_PAD.encode(payload_json);
        let message = format!("{head}.{body}");
        let sig = jsonwebtoken::crypto::sign(message.as_bytes(), &self.encoding, Algorithm::HS256)
            .expect("HMAC signing cannot fail");
        format!("{message}.{sig}")
    }

    /// Signs arbitrary claims (access tokens).
    pub fn sign(&self, claims: &Value) -> String {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .expect("HMAC signing cannot fail")
    }

    /// Verifies signature and time claims; returns the claims object.
    pub fn verify(&self, token: &str) -> Result<Value, JwtError> {
        let parts = token.split('.').count();
        if parts != 3 {
            return Err(JwtError::Parts(parts));
        }
        let data = jsonwebtoken::decode::<Value>(token, &self.decoding, &self.validation).map_err(
            |e| match e.kind() {
                ErrorKind::ExpiredSignature => JwtError::Expired,
                ErrorKind::ImmatureSignature => JwtError::NotYetValid,
                _ => JwtError::Signature,
            },
        )?;
        let claims = data.claims;
        if !claims.is_object() {
            return Err(JwtError::NotAnObject);
        }
        if let Some(iat) = claims.get("iat").and_then(Value::as_i64)
            && iat > chrono::Utc::now().timestamp() + LEEWAY_SECS
        {
            return Err(JwtError::IssuedInFuture);
        }
        Ok(claims)
    }
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
}
