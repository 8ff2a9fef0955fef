//! GoTrue's `models.FlowState`: a row of `auth.flow_state`, a PKCE flow waiting for its code
//! to be exchanged (read when the code is).

use super::FromRow;
use uuid::Uuid;

/// A PKCE flow as its exchange reads it.
#[derive(Debug, Clone)]
pub struct FlowState {
    /// The user the flow signs in (none while an OAuth provider's flow has not come back).
    pub user_id: Option<Uuid>,
    pub code_challenge: String,
    /// `s256` or `plain`.
    pub code_challenge_method: String,
    /// How the user authenticated (`magiclink`, `oauth`, `email/signup`...).
    pub authentication_method: String,
    /// Seconds since the code was issued (a magic link's) or the flow began (the others').
    pub age_secs: f64,
    pub provider_access_token: Option<String>,
    pub provider_refresh_token: Option<String>,
}

impl FromRow for FlowState {
    const COLUMNS: &'static str = "user_id, code_challenge, \
         code_challenge_method::text AS code_challenge_method, authentication_method, \
         extract(epoch FROM now() - CASE WHEN authentication_method = 'magiclink' \
           THEN coalesce(auth_code_issued_at, created_at) ELSE created_at END)::float8 AS age_secs, \
         provider_access_token, provider_refresh_token";

    fn from_row(row: &tokio_postgres::Row) -> Self {
        FlowState {
            user_id: row.get("user_id"),
            code_challenge: row.get("code_challenge"),
            code_challenge_method: row.get("code_challenge_method"),
            authentication_method: row.get("authentication_method"),
            age_secs: row.get("age_secs"),
            provider_access_token: row.get("provider_access_token"),
            provider_refresh_token: row.get("provider_refresh_token"),
        }
    }
}
