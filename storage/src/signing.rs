//! Signed URLs: a JWT (the project secret) naming the object and an expiry, as storage-api signs.

use auth::jwt::JwtKeys;
use serde_json::json;

/// The longest a signed URL may live: 100 years, far from any overflow of `exp`.
pub const MAX_EXPIRES_IN: i64 = 100 * 365 * 24 * 3600;

pub fn sign(keys: &JwtKeys, bucket: &str, name: &str, expires_in: i64) -> String {
    let now = chrono::Utc::now().timestamp();
    let exp = now.saturating_add(expires_in.clamp(1, MAX_EXPIRES_IN));
    keys.sign(&json!({ "url": format!("{bucket}/{name}"), "iat": now, "exp": exp }))
}

/// True when the token is valid, unexpired and names exactly this object.
pub fn verify(keys: &JwtKeys, token: &str, bucket: &str, name: &str) -> bool {
    match keys.verify(token) {
        Ok(claims) => {
            claims["url"].as_str() == Some(&format!("{bucket}/{name}"))
                && claims.get("exp").is_some()
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_name_one_object_and_expire() {
        let k = JwtKeys::new(auth::jwt::DEMO_JWT_SECRET);
        let t = sign(&k, "b", "a/x.png", 60);
        assert!(verify(&k, &t, "b", "a/x.png"));
        assert!(!verify(&k, &t, "b", "a/y.png"));
        let now = chrono::Utc::now().timestamp();
        let old = k.sign(&json!({ "url": "b/a/x.png", "iat": now - 200, "exp": now - 120 }));
        assert!(!verify(&k, &old, "b", "a/x.png"));
        // No expiry can wrap around into the past.
        let far = sign(&k, "b", "a/x.png", i64::MAX);
        assert!(verify(&k, &far, "b", "a/x.png"));
    }
}
