//! What realtime's own work can fail with (capturing changes, delivering them, presences,
//! authorisation probes, notes between gateways).

use crate::pgoutput::DecodeError;

#[derive(Debug, thiserror::Error)]
pub enum RealtimeError {
    #[error(transparent)]
    Pool(#[from] pg::DbError),
    #[error("database: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("replication slot: {0}")]
    Slot(#[from] pg::replication::SlotError),
    #[error("decoding the change stream: {0}")]
    Decode(#[from] DecodeError),
    #[error("a note from another gateway: {0}")]
    Note(String),
    #[error("a note from another gateway: {0}")]
    NoteJson(#[from] serde_json::Error),
    #[error("a note from another gateway: {0}")]
    NoteBytes(#[from] base64::DecodeError),
    /// Row level security on `realtime.messages` refuses to store the broadcast.
    #[error("You do not have permissions to persist messages on this topic")]
    PersistDenied,
}

pub type Result<T> = std::result::Result<T, RealtimeError>;
