//! GoTrue's `models.User`: a row of `auth.users` with its identities and factors, written as
//! the user object of GET /user, the admin API and token responses (empty `omitempty` fields
//! left out, `factors` only when the user has one).

use super::{Factor, FromRow, Identity, Timestamp};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

/// A user as GoTrue shows it.
#[derive(Debug, Clone, Serialize)]
pub struct User {
    pub id: Uuid,
    pub aud: String,
    pub role: String,
    pub email: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email_confirmed_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invited_at: Option<Timestamp>,
    pub phone: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone_confirmed_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmation_sent_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmed_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_sent_at: Option<Timestamp>,
    /// The address an e-mail change waits to confirm (`email_change`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email_change_sent_at: Option<Timestamp>,
    /// The number a phone change waits to confirm (`phone_change`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone_change_sent_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reauthentication_sent_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_sign_in_at: Option<Timestamp>,
    /// `raw_app_meta_data`.
    pub app_metadata: Value,
    /// `raw_user_meta_data`.
    pub user_metadata: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub factors: Vec<Factor>,
    pub identities: Vec<Identity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub banned_until: Option<Timestamp>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub is_anonymous: bool,
}

impl FromRow for User {
    const COLUMNS: &'static str = "u.id, u.aud, u.role, u.email, u.phone, u.raw_app_meta_data, \
         u.raw_user_meta_data, u.email_confirmed_at, u.invited_at, u.phone_confirmed_at, \
         u.confirmation_sent_at, u.confirmed_at, u.recovery_sent_at, u.email_change, \
         u.email_change_sent_at, u.phone_change, u.phone_change_sent_at, \
         u.reauthentication_sent_at, u.last_sign_in_at, u.banned_until, u.created_at, \
         u.updated_at, u.is_anonymous";

    /// The user without its identities and factors (read from their own tables).
    fn from_row(row: &tokio_postgres::Row) -> Self {
        let at = |name: &str| row.get::<_, Option<DateTime<Utc>>>(name).map(Timestamp);
        let text = |name: &str| row.get::<_, Option<String>>(name).unwrap_or_default();
        let change = |name: &str| Some(text(name)).filter(|s| !s.is_empty());
        let metadata = |name: &str| {
            row.get::<_, Option<Value>>(name)
                .unwrap_or_else(|| Value::Object(Default::default()))
        };
        User {
            id: row.get("id"),
            aud: text("aud"),
            role: text("role"),
            email: text("email"),
            email_confirmed_at: at("email_confirmed_at"),
            invited_at: at("invited_at"),
            phone: text("phone"),
            phone_confirmed_at: at("phone_confirmed_at"),
            confirmation_sent_at: at("confirmation_sent_at"),
            confirmed_at: at("confirmed_at"),
            recovery_sent_at: at("recovery_sent_at"),
            new_email: change("email_change"),
            email_change_sent_at: at("email_change_sent_at"),
            new_phone: change("phone_change"),
            phone_change_sent_at: at("phone_change_sent_at"),
            reauthentication_sent_at: at("reauthentication_sent_at"),
            last_sign_in_at: at("last_sign_in_at"),
            app_metadata: metadata("raw_app_meta_data"),
            user_metadata: metadata("raw_user_meta_data"),
            factors: Vec::new(),
            identities: Vec::new(),
            banned_until: at("banned_until"),
            created_at: at("created_at"),
            updated_at: at("updated_at"),
            is_anonymous: row.get("is_anonymous"),
        }
    }
}
