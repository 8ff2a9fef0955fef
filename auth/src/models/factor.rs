//! GoTrue's `models.Factor`: a row of `auth.mfa_factors` as the user object lists it.

use super::{FromRow, Timestamp};
use serde::Serialize;
use uuid::Uuid;

/// A second factor (TOTP, phone or WebAuthn) of a user.
#[derive(Debug, Clone, Serialize)]
pub struct Factor {
    pub id: Uuid,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub friendly_name: Option<String>,
    /// `totp`, `phone` or `webauthn`.
    pub factor_type: String,
    /// `unverified` or `verified`.
    pub status: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// The number of a phone factor, empty for the others.
    pub phone: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_challenged_at: Option<Timestamp>,
}

impl FromRow for Factor {
    const COLUMNS: &'static str = "f.id, f.user_id, f.friendly_name, f.factor_type::text AS factor_type, \
         f.status::text AS status, f.created_at, f.updated_at, f.phone, f.last_challenged_at";

    fn from_row(row: &tokio_postgres::Row) -> Self {
        Factor {
            id: row.get("id"),
            friendly_name: row.get("friendly_name"),
            factor_type: row.get("factor_type"),
            status: row.get("status"),
            created_at: Timestamp(row.get("created_at")),
            updated_at: Timestamp(row.get("updated_at")),
            phone: row.get::<_, Option<String>>("phone").unwrap_or_default(),
            last_challenged_at: row
                .get::<_, Option<chrono::DateTime<chrono::Utc>>>("last_challenged_at")
                .map(Timestamp),
        }
    }
}
