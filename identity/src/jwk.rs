//! JSON Web Keys: the RS256, ES256 and HS256 (`oct`) keys of a signing-keys file or of a
//! third-party issuer's key set, read into the keys that sign and verify tokens.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey};
use serde_json::{Value, json};

/// Why a JWK is not a key supagate can use.
#[derive(Debug, thiserror::Error)]
pub enum JwkError {
    #[error("missing \"{0}\"")]
    Missing(String),
    #[error("\"{0}\" is not base64url: {1}")]
    NotBase64Url(String, base64::DecodeError),
    #[error("\"k\" is empty")]
    EmptySecret,
    #[error("bad RSA key: {0}")]
    Rsa(jsonwebtoken::errors::Error),
    #[error("bad RSA private key: {0}")]
    RsaPrivate(rsa::Error),
    #[error(transparent)]
    RsaDer(rsa::pkcs1::Error),
    #[error("bad EC key: {0}")]
    Ec(jsonwebtoken::errors::Error),
    #[error("bad EC private key: {0}")]
    EcPrivate(p256::elliptic_curve::Error),
    #[error(transparent)]
    EcDer(p256::pkcs8::Error),
    #[error("unsupported key type {0:?} (use RSA, EC P-256 or oct)")]
    UnsupportedType(String),
}

/// One key of the signing-keys file (or of a third-party issuer's key set).
#[derive(Clone)]
pub(crate) struct SigningKey {
    pub(crate) kid: Option<String>,
    pub(crate) alg: Algorithm,
    pub(crate) decoding: DecodingKey,
    pub(crate) encoding: Option<EncodingKey>,
    /// Its `key_ops` names `sign` (Some(true)), names other operations only (Some(false)), or
    /// is absent (None).
    pub(crate) sign_op: Option<bool>,
    /// The key without its private parts, as the JWKS shows it (None for `oct` keys: a shared
    /// secret is never published).
    pub(crate) public: Option<Value>,
}

fn b64(jwk: &Value, field: &str) -> Result<Vec<u8>, JwkError> {
    let v = jwk
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| JwkError::Missing(field.to_string()))?;
    URL_SAFE_NO_PAD
        .decode(v.trim_end_matches('='))
        .map_err(|e| JwkError::NotBase64Url(field.to_string(), e))
}

/// The RS256, ES256 or HS256 (`oct`) key of a JWK.
pub(crate) fn signing_key(jwk: &Value) -> Result<SigningKey, JwkError> {
    use p256::pkcs8::EncodePrivateKey;
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let kid = jwk.get("kid").and_then(Value::as_str).map(str::to_string);
    let s = |f: &str| jwk.get(f).and_then(Value::as_str).unwrap_or("").to_string();
    let sign_op = jwk
        .get("key_ops")
        .and_then(Value::as_array)
        .map(|ops| ops.iter().any(|o| o.as_str() == Some("sign")));
    let (alg, decoding, encoding) = match s("kty").as_str() {
        "oct" => {
            let secret = b64(jwk, "k")?;
            if secret.is_empty() {
                return Err(JwkError::EmptySecret);
            }
            return Ok(SigningKey {
                kid,
                alg: Algorithm::HS256,
                decoding: DecodingKey::from_secret(&secret),
                encoding: Some(EncodingKey::from_secret(&secret)),
                sign_op,
                public: None,
            });
        }
        "RSA" => {
            let decoding =
                DecodingKey::from_rsa_components(&s("n"), &s("e")).map_err(JwkError::Rsa)?;
            let encoding = if jwk.get("d").is_some() {
                let n = rsa::BigUint::from_bytes_be(&b64(jwk, "n")?);
                let e = rsa::BigUint::from_bytes_be(&b64(jwk, "e")?);
                let d = rsa::BigUint::from_bytes_be(&b64(jwk, "d")?);
                let primes = vec![
                    rsa::BigUint::from_bytes_be(&b64(jwk, "p")?),
                    rsa::BigUint::from_bytes_be(&b64(jwk, "q")?),
                ];
                let key = rsa::RsaPrivateKey::from_components(n, e, d, primes)
                    .map_err(JwkError::RsaPrivate)?;
                let der = key.to_pkcs1_der().map_err(JwkError::RsaDer)?;
                Some(EncodingKey::from_rsa_der(der.as_bytes()))
            } else {
                None
            };
            (Algorithm::RS256, decoding, encoding)
        }
        "EC" if s("crv") == "P-256" => {
            let decoding =
                DecodingKey::from_ec_components(&s("x"), &s("y")).map_err(JwkError::Ec)?;
            let encoding = if jwk.get("d").is_some() {
                let key =
                    p256::SecretKey::from_slice(&b64(jwk, "d")?).map_err(JwkError::EcPrivate)?;
                let der = key.to_pkcs8_der().map_err(JwkError::EcDer)?;
                Some(EncodingKey::from_ec_der(der.as_bytes()))
            } else {
                None
            };
            (Algorithm::ES256, decoding, encoding)
        }
        other => {
            return Err(JwkError::UnsupportedType(other.to_string()));
        }
    };
    let mut public = jwk.as_object().cloned().unwrap_or_default();
    for private in ["d", "p", "q", "dp", "dq", "qi", "oth"] {
        public.remove(private);
    }
    public.insert("key_ops".into(), json!(["verify"]));
    public.entry("alg").or_insert_with(|| {
        json!(if alg == Algorithm::RS256 {
            "RS256"
        } else {
            "ES256"
        })
    });
    Ok(SigningKey {
        kid,
        alg,
        decoding,
        encoding,
        sign_op,
        public: Some(Value::Object(public)),
    })
}
