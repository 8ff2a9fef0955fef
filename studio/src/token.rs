//! An access token Studio signs for one of the project's users, so that an Edge Function (or
//! the API) can be called as that user: GoTrue's claims for them, short-lived, without a
//! session. Only Studio's server signs it, behind Studio's secret.

use serde_json::{Value, json};

/// How long such a token is valid, in seconds.
pub const LIFETIME_SECS: i64 = 300;

/// The claims of `user`'s token (an auth.users row as [`crate::sql::claims`] reads it): role
/// `authenticated`, `aal1`, issued by the project's Auth at `issuer`, no session, valid
/// [`LIFETIME_SECS`] from `now`.
pub fn user_claims(user: &Value, issuer: &str, now: i64) -> Value {
    let mut claims = crate::sql::claims("authenticated", Some(user), now);
    if let Some(map) = claims.as_object_mut() {
        map.remove("session_id");
        map.insert("iss".into(), json!(issuer));
        map.insert("exp".into(), json!(now + LIFETIME_SECS));
    }
    claims
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_s_token_is_short_lived_and_has_no_session() {
        let user = json!({
            "id": "0b6c0a3e-6c8f-4d53-9f37-2a1d1d0c2f11", "email": "ada@example.com",
            "phone": null, "app_metadata": {"provider": "email"},
            "user_metadata": {"name": "Ada"}, "is_anonymous": false,
        });
        let c = user_claims(&user, "http://127.0.0.1:54321/auth/v1", 1_000);
        assert_eq!(
            c,
            json!({
                "aud": "authenticated", "role": "authenticated",
                "sub": "0b6c0a3e-6c8f-4d53-9f37-2a1d1d0c2f11",
                "email": "ada@example.com", "phone": "",
                "app_metadata": {"provider": "email"}, "user_metadata": {"name": "Ada"},
                "is_anonymous": false, "aal": "aal1",
                "iss": "http://127.0.0.1:54321/auth/v1", "iat": 1_000, "exp": 1_300,
            })
        );
    }
}
