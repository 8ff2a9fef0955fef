//! GoTrue's `AccessTokenResponse`: what a new or refreshed session answers (the token pair
//! and the user).

use super::User;
use serde::Serialize;

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
