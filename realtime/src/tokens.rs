//! Tokens on the socket, checked as Supabase Realtime checks them: a valid signature, `role` and
//! `exp` present, not expired, with its error texts.

use base64::Engine;
use identity::jwt::{JwtError, JwtKeys};
use serde_json::Value;

#[derive(Debug, Clone)]
pub struct Identity {
    pub role: String,
    pub claims: Value,
    pub exp: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TokenError {
    /// Seconds since it expired.
    Expired(i64),
    Signature,
    Malformed,
    MissingClaims,
    Role(String),
}

impl TokenError {
    fn code(&self) -> &'static str {
        match self {
            TokenError::Expired(_) | TokenError::MissingClaims => "InvalidJWTToken",
            TokenError::Signature => "JwtSignatureError",
            TokenError::Malformed => "MalformedJWT",
            TokenError::Role(_) => "Unauthorized",
        }
    }

    pub fn message(&self) -> String {
        match self {
            TokenError::Expired(s) => format!("Token has expired {s} seconds ago"),
            TokenError::Signature => "Failed to validate JWT signature".into(),
            TokenError::Malformed => "The token provided is not a valid JWT".into(),
            TokenError::MissingClaims => "Fields `role` and `exp` are required in JWT".into(),
            TokenError::Role(r) => format!("the role \"{r}\" cannot use Realtime"),
        }
    }

    /// The `reason` of a refused join.
    pub fn reason(&self) -> String {
        format!("{}: {}", self.code(), self.message())
    }

    /// The refusal of a socket connection, as the HTTP handshake gets it.
    pub fn http_message(&self) -> String {
        match self {
            TokenError::Expired(_) => "Token has expired".into(),
            other => other.message(),
        }
    }
}

/// The Supabase CLI's opaque keys stand for the JWT API keys (its gateway swaps them).
pub fn resolve_key(token: &str, keys: &JwtKeys, local_keys: bool) -> Option<String> {
    match keys.standing_for(token, local_keys) {
        Some(jwt) => Some(jwt),
        None if token.starts_with("sb_") => None,
        None => Some(token.to_string()),
    }
}

fn unverified_exp(token: &str) -> Option<i64> {
    let body = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(body.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice::<Value>(&bytes)
        .ok()?
        .get("exp")?
        .as_i64()
}

pub fn verify(keys: &JwtKeys, local_keys: bool, token: &str) -> Result<Identity, TokenError> {
    let token = resolve_key(token, keys, local_keys).ok_or(TokenError::Malformed)?;
    let now = identity::clock::now();
    let claims = keys.verify(&token).map_err(|e| match e {
        JwtError::Parts(_) | JwtError::NotAnObject => TokenError::Malformed,
        JwtError::Expired => TokenError::Expired(unverified_exp(&token).map_or(0, |e| now - e)),
        _ => TokenError::Signature,
    })?;
    let (Some(role), Some(exp)) = (
        claims.get("role").and_then(Value::as_str),
        claims.get("exp").and_then(Value::as_i64),
    ) else {
        return Err(TokenError::MissingClaims);
    };
    if exp <= now {
        return Err(TokenError::Expired(now - exp));
    }
    if !identity::jwt::API_ROLES.contains(&role) {
        return Err(TokenError::Role(role.to_string()));
    }
    Ok(Identity {
        role: role.to_string(),
        exp,
        claims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_are_refused_with_realtime_reasons() {
        let keys = JwtKeys::new(identity::jwt::DEMO_JWT_SECRET);
        let now = identity::clock::now();
        let ok = keys.sign(&json!({"role": "authenticated", "sub": "u", "exp": now + 60}));
        assert_eq!(verify(&keys, true, &ok).unwrap().role, "authenticated");
        let old = keys.sign(&json!({"role": "anon", "exp": now - 100}));
        match verify(&keys, true, &old) {
            Err(TokenError::Expired(s)) => assert!((100..110).contains(&s), "{s}"),
            other => panic!("{other:?}"),
        }
        let no_exp = keys.sign(&json!({"role": "anon"}));
        assert_eq!(
            verify(&keys, true, &no_exp).unwrap_err().reason(),
            "InvalidJWTToken: Fields `role` and `exp` are required in JWT"
        );
        let forged = JwtKeys::new("another-secret-another-secret-another")
            .sign(&json!({"role": "anon", "exp": now + 60}));
        assert_eq!(
            verify(&keys, true, &forged).unwrap_err().reason(),
            "JwtSignatureError: Failed to validate JWT signature"
        );
        assert_eq!(
            verify(&keys, true, "nope").unwrap_err().reason(),
            "MalformedJWT: The token provided is not a valid JWT"
        );
        let anon = verify(&keys, true, identity::jwt::CLI_PUBLISHABLE_KEY).unwrap();
        assert_eq!(anon.role, "anon");
        assert!(verify(&keys, false, identity::jwt::CLI_PUBLISHABLE_KEY).is_err());
    }
}
