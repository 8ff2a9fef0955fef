//! An access token Studio signs for one of the project's users, so that an Edge Function (or
//! the API) can be called as that user: GoTrue's claims for them, short-lived, without a
//! session. Only Studio's server signs it, behind Studio's secret. The SQL editor and the
//! policies' "test as" preview run as a user with these same claims (`request.jwt.claims`).

use serde_json::{Value, json};

/// How long such a token is valid, in seconds.
pub const LIFETIME_SECS: i64 = 300;

/// The claims of `user`'s token, as GoTrue writes an access token's (`user`: an auth.users row
/// with id, email, phone, app_metadata, user_metadata, is_anonymous): role `authenticated`,
/// `aal1`, issued by the project's Auth at `issuer`, no session, valid [`LIFETIME_SECS`] from
/// `now`.
pub fn user_claims(user: &Value, issuer: &str, now: i64) -> Value {
    json!({
        "aud": "authenticated", "role": "authenticated", "sub": user["id"],
        "email": user["email"].as_str().unwrap_or_default(),
        "phone": user["phone"].as_str().unwrap_or_default(),
        "app_metadata": user["app_metadata"], "user_metadata": user["user_metadata"],
        "is_anonymous": user["is_anonymous"].as_bool().unwrap_or(false),
        "aal": "aal1", "iss": issuer, "iat": now, "exp": now + LIFETIME_SECS,
    })
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
