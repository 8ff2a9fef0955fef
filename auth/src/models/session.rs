//! A session as GoTrue writes it: `AccessTokenClaims`, what its access token says, and
//! `AccessTokenResponse`, what a new or refreshed session answers (the token pair and the user).

use super::User;
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

/// The claims of a session's access token (before the custom access token hook sees them).
#[derive(Debug, Clone, Serialize)]
pub struct AccessTokenClaims<'a> {
    pub iss: &'a str,
    pub sub: Uuid,
    pub aud: &'a str,
    pub exp: i64,
    pub iat: i64,
    pub email: &'a str,
    pub phone: &'a str,
    pub app_metadata: &'a Value,
    pub user_metadata: &'a Value,
    pub role: &'a str,
    /// `aal1` or `aal2`.
    pub aal: String,
    /// The session's methods, newest first: `[{"method", "timestamp"}]`.
    pub amr: Value,
    pub session_id: Uuid,
    pub is_anonymous: bool,
    /// The OAuth client the session was issued to (the OAuth 2.1 server's tokens).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<Uuid>,
}

/// The body of a token response.
#[derive(Debug, Clone, Serialize)]
pub struct AccessTokenResponse {
    pub access_token: String,
    /// Always `bearer`.
    pub token_type: &'static str,
    /// Seconds until the access token expires.
    pub expires_in: i64,
    /// When it expires (seconds since the epoch).
    pub expires_at: i64,
    pub refresh_token: String,
    pub user: User,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The claims as the `json!` builder they replaced wrote them: equal, and in the same order
    /// (the token's payload is their text).
    #[test]
    fn claims_are_written_as_the_builder_wrote_them() {
        let (sub, session) = (Uuid::from_u128(1), Uuid::from_u128(2));
        let (app, user) = (json!({"provider": "email"}), json!({"name": "A"}));
        let amr = json!([{"method": "password", "timestamp": 1_700_000_000}]);
        for client in [None, Some(Uuid::from_u128(3))] {
            for (email, phone, anonymous) in [("a@example.com", "", false), ("", "", true)] {
                let typed = AccessTokenClaims {
                    iss: "http://127.0.0.1:54321/auth/v1",
                    sub,
                    aud: "authenticated",
                    exp: 1_700_003_600,
                    iat: 1_700_000_000,
                    email,
                    phone,
                    app_metadata: &app,
                    user_metadata: &user,
                    role: "authenticated",
                    aal: "aal1".into(),
                    amr: amr.clone(),
                    session_id: session,
                    is_anonymous: anonymous,
                    client_id: client,
                };
                let mut built = json!({
                    "iss": "http://127.0.0.1:54321/auth/v1",
                    "sub": sub,
                    "aud": "authenticated",
                    "exp": 1_700_003_600,
                    "iat": 1_700_000_000,
                    "email": email,
                    "phone": phone,
                    "app_metadata": app,
                    "user_metadata": user,
                    "role": "authenticated",
                    "aal": "aal1",
                    "amr": amr,
                    "session_id": session,
                    "is_anonymous": anonymous,
                });
                if let Some(client) = client {
                    built["client_id"] = json!(client);
                }
                let typed = serde_json::to_value(typed).unwrap();
                assert_eq!(typed, built, "{client:?} {email:?}");
                assert_eq!(typed.to_string(), built.to_string(), "{client:?} {email:?}");
            }
        }
    }
}
