//! New JWT signing keys, made as the Supabase CLI's `gen signing-key` makes them: a private JWK
//! (ES256 on P-256, or RS256 with 2048 bits) with a random `kid`, `use: sig`, `key_ops: [sign,
//! verify]` and `ext: true`, its fields in the CLI's order.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// The algorithms `gen signing-key --algorithm` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Es256,
    Rs256,
}

/// A JWK's fields in the order the CLI writes them (then any others, by name).
pub const FIELD_ORDER: [&str; 17] = [
    "kty", "kid", "use", "key_ops", "alg", "ext", "n", "e", "d", "p", "q", "dp", "dq", "qi", "crv",
    "x", "y",
];

/// rand's thread generator (a CSPRNG) as the `rsa` crate's random source.
struct ThreadRng;

impl rsa::rand_core::RngCore for ThreadRng {
    fn next_u32(&mut self) -> u32 {
        rand::random()
    }
    fn next_u64(&mut self) -> u64 {
        rand::random()
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        rand::RngCore::fill_bytes(&mut rand::rng(), dest)
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rsa::rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl rsa::rand_core::CryptoRng for ThreadRng {}

fn b64(bytes: &[u8]) -> Value {
    Value::String(URL_SAFE_NO_PAD.encode(bytes))
}

/// Why a new key could not be made.
#[derive(Debug, thiserror::Error)]
pub enum KeygenError {
    #[error("no {0}")]
    NoCoordinate(&'static str),
    #[error("failed to generate RSA key: {0}")]
    Rsa(rsa::Error),
    #[error("failed to generate RSA key: no CRT values")]
    NoCrtValues,
}

/// A new private key as a JWK: (field, value) pairs in the CLI's order.
pub fn generate(alg: Algorithm) -> Result<Vec<(&'static str, Value)>, KeygenError> {
    let kid = uuid::Uuid::new_v4().to_string();
    let mut jwk: Vec<(&'static str, Value)> = vec![
        (
            "kty",
            match alg {
                Algorithm::Es256 => "EC",
                Algorithm::Rs256 => "RSA",
            }
            .into(),
        ),
        ("kid", kid.into()),
        ("use", "sig".into()),
        ("key_ops", serde_json::json!(["sign", "verify"])),
        (
            "alg",
            match alg {
                Algorithm::Es256 => "ES256",
                Algorithm::Rs256 => "RS256",
            }
            .into(),
        ),
        ("ext", true.into()),
    ];
    match alg {
        Algorithm::Es256 => {
            use p256::elliptic_curve::sec1::ToEncodedPoint;
            // A random scalar; the rare value that is not a valid key is drawn again.
            let secret = loop {
                if let Ok(k) = p256::SecretKey::from_slice(&rand::random::<[u8; 32]>()) {
                    break k;
                }
            };
            let point = secret.public_key().to_encoded_point(false);
            let (x, y) = (
                point.x().ok_or(KeygenError::NoCoordinate("x"))?,
                point.y().ok_or(KeygenError::NoCoordinate("y"))?,
            );
            jwk.push(("d", b64(&secret.to_bytes())));
            jwk.push(("crv", "P-256".into()));
            jwk.push(("x", b64(x)));
            jwk.push(("y", b64(y)));
        }
        Algorithm::Rs256 => {
            use rsa::traits::{PrivateKeyParts, PublicKeyParts};
            let key = rsa::RsaPrivateKey::new(&mut ThreadRng, 2048).map_err(KeygenError::Rsa)?;
            let primes = key.primes();
            let (dp, dq, qi) = match (key.dp(), key.dq(), key.crt_coefficient()) {
                (Some(dp), Some(dq), Some(qi)) => {
                    (dp.to_bytes_be(), dq.to_bytes_be(), qi.to_bytes_be())
                }
                _ => return Err(KeygenError::NoCrtValues),
            };
            jwk.push(("n", b64(&key.n().to_bytes_be())));
            jwk.push(("e", b64(&key.e().to_bytes_be())));
            jwk.push(("d", b64(&key.d().to_bytes_be())));
            jwk.push(("p", b64(&primes[0].to_bytes_be())));
            jwk.push(("q", b64(&primes[1].to_bytes_be())));
            jwk.push(("dp", b64(&dp)));
            jwk.push(("dq", b64(&dq)));
            jwk.push(("qi", b64(&qi)));
        }
    }
    Ok(jwk)
}

/// A JWK object's fields in the CLI's order.
pub fn ordered(jwk: &serde_json::Map<String, Value>) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = FIELD_ORDER
        .iter()
        .filter_map(|k| jwk.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    for (k, v) in jwk {
        if !FIELD_ORDER.contains(&k.as_str()) {
            out.push((k.clone(), v.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jwt::JwtKeys;

    /// The errors' texts, as they were written before they were variants.
    #[test]
    fn errors_read_as_before() {
        let cases = [
            (KeygenError::NoCoordinate("x"), "no x"),
            (
                KeygenError::NoCrtValues,
                "failed to generate RSA key: no CRT values",
            ),
            (
                KeygenError::Rsa(rsa::Error::InvalidModulus),
                "failed to generate RSA key: invalid modulus",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
        }
    }

    fn object(fields: &[(&'static str, Value)]) -> Value {
        Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn an_es256_key_signs_tokens_its_public_half_verifies() {
        let jwk = generate(Algorithm::Es256).unwrap();
        let names: Vec<&str> = jwk.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            names,
            [
                "kty", "kid", "use", "key_ops", "alg", "ext", "d", "crv", "x", "y"
            ]
        );
        let keys = JwtKeys::with_signing_keys("secret", &format!("[{}]", object(&jwk))).unwrap();
        let token =
            keys.sign(&serde_json::json!({"role": "anon", "exp": crate::clock::now() + 60}));
        assert!(token.starts_with("eyJ"));
        let public = keys.jwks();
        let verifier = JwtKeys::with_signing_keys("other", &public.to_string()).unwrap();
        assert_eq!(verifier.verify(&token).unwrap()["role"], "anon");
        assert_ne!(
            generate(Algorithm::Es256).unwrap()[1],
            jwk[1],
            "a new kid each time"
        );
    }
}
