//! GoTrue's `models.Identity`: a row of `auth.identities` as the user object lists it.

use super::{FromRow, Timestamp};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

/// One way a user signs in (a provider and the user's id there).
#[derive(Debug, Clone, Serialize)]
pub struct Identity {
    pub identity_id: Uuid,
    /// The user's id at the provider (`provider_id`).
    pub id: String,
    pub user_id: Uuid,
    pub identity_data: Value,
    pub provider: String,
    pub last_sign_in_at: Option<Timestamp>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub email: Option<String>,
}

impl FromRow for Identity {
    const COLUMNS: &'static str = "i.id, i.provider_id, i.user_id, i.identity_data, i.provider, \
         i.last_sign_in_at, i.created_at, i.updated_at, i.email";

    fn from_row(row: &tokio_postgres::Row) -> Self {
        let at = |name: &str| {
            row.get::<_, Option<chrono::DateTime<chrono::Utc>>>(name)
                .map(Timestamp)
        };
        Identity {
            identity_id: row.get("id"),
            id: row.get("provider_id"),
            user_id: row.get("user_id"),
            identity_data: row.get("identity_data"),
            provider: row.get("provider"),
            last_sign_in_at: at("last_sign_in_at"),
            created_at: at("created_at"),
            updated_at: at("updated_at"),
            email: row.get("email"),
        }
    }
}
