//! OpenID Connect ID tokens an app got from a provider itself (`signInWithIdToken`): the
//! provider's key set as its `jwks_uri` serves it, and a token checked against it (signature by
//! the key its header names, audience, issuer, expiry). Fetching the key set is the caller's.

use jsonwebtoken::{DecodingKey, Validation, jwk::JwkSet};
use serde_json::Value;

/// Why an ID token is refused (logged, never shown: the client gets "Bad ID token").
#[derive(Debug, thiserror::Error)]
pub enum IdTokenError {
    #[error("no key of the provider signed it")]
    NoKey,
    #[error("{0}")]
    Invalid(String),
}

/// A provider's public keys (a JWKS document).
#[derive(Clone)]
pub struct ProviderKeys(JwkSet);

impl ProviderKeys {
    pub fn from_json(doc: Value) -> Result<Self, IdTokenError> {
        serde_json::from_value(doc)
            .map(ProviderKeys)
            .map_err(|e| IdTokenError::Invalid(e.to_string()))
    }
}

/// An ID token's header: the algorithm and the key it names.
pub struct Header(jsonwebtoken::Header);

/// The header of `token` (read before the provider's keys are fetched).
pub fn header(token: &str) -> Result<Header, IdTokenError> {
    jsonwebtoken::decode_header(token)
        .map(Header)
        .map_err(|e| IdTokenError::Invalid(e.to_string()))
}

/// The claims of `token` when the key its header names (or the set's first) signed it for one
/// of `audiences`, it is unexpired, and its `iss` is `issuer` when one is given.
pub fn verify(
    token: &str,
    header: &Header,
    keys: &ProviderKeys,
    audiences: &[&str],
    issuer: Option<&str>,
) -> Result<Value, IdTokenError> {
    let jwk = match &header.0.kid {
        Some(kid) => keys.0.find(kid),
        None => keys.0.keys.first(),
    }
    .ok_or(IdTokenError::NoKey)?;
    let invalid = |e: jsonwebtoken::errors::Error| IdTokenError::Invalid(e.to_string());
    let key = DecodingKey::from_jwk(jwk).map_err(invalid)?;
    let mut v = Validation::new(header.0.alg);
    v.set_audience(audiences);
    if let Some(issuer) = issuer {
        v.set_issuer(&[issuer]);
    }
    Ok(jsonwebtoken::decode::<Value>(token, &key, &v)
        .map_err(invalid)?
        .claims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jwt::{DEMO_JWT_SECRET, JwtKeys};
    use serde_json::json;

    #[test]
    fn an_id_token_verifies_for_its_audience_and_issuer() {
        let jwk = include_str!("test-rsa-key.json");
        let provider = JwtKeys::with_signing_keys(DEMO_JWT_SECRET, &format!("[{jwk}]")).unwrap();
        let keys = ProviderKeys::from_json(provider.jwks()).unwrap();
        let exp = crate::clock::now() + 60;
        let token =
            provider.sign(&json!({"iss": "https://idp", "aud": "app", "sub": "u", "exp": exp}));
        let h = header(&token).unwrap();
        let claims = verify(&token, &h, &keys, &["other", "app"], Some("https://idp")).unwrap();
        assert_eq!(claims["sub"], "u");
        assert!(verify(&token, &h, &keys, &["other"], None).is_err());
        assert!(verify(&token, &h, &keys, &["app"], Some("https://else")).is_err());
        let empty = ProviderKeys::from_json(json!({"keys": []})).unwrap();
        assert!(matches!(
            verify(&token, &h, &empty, &["app"], None),
            Err(IdTokenError::NoKey)
        ));
        assert!(header("nope").is_err());
        assert!(ProviderKeys::from_json(json!({"keys": 1})).is_err());
    }
}
