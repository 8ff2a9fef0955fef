//! GoTrue's models (`models.User`, `Identity`, `Factor`, `FlowState`, the session's claims and token response, the hooks' inputs) as structs: each is read from a row of
//! its `auth` table by [`FromRow`] (the columns it names in [`FromRow::COLUMNS`]) and written as
//! GoTrue's JSON by serde, with the fields, nulls and omissions the user object always had.

pub mod factor;
pub mod flow_state;
pub mod hooks;
pub mod identity;
pub mod session;
pub mod time;
pub mod user;

pub use factor::Factor;
pub use flow_state::FlowState;
pub use identity::Identity;
pub use session::{AccessTokenClaims, AccessTokenResponse};
pub use time::Timestamp;
pub use user::User;

/// A model read from one row of a query that selects [`FromRow::COLUMNS`].
pub trait FromRow: Sized {
    /// The select list (each column named as [`FromRow::from_row`] reads it).
    const COLUMNS: &'static str;

    /// The model of one row.
    fn from_row(row: &tokio_postgres::Row) -> Self;
}
