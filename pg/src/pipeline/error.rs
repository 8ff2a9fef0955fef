//! What a pipelined connection can fail with.

use std::io;

/// An ErrorResponse from the server: what PostgREST's error bodies are made of.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerError {
    pub severity: String,
    pub code: String,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum PgError {
    #[error("{}: {} ({})", .0.severity, .0.message, .0.code)]
    Server(ServerError),
    #[error("connection: {0}")]
    Io(#[from] io::Error),
    #[error("protocol: {0}")]
    Protocol(String),
    #[error("TLS: {0}")]
    Tls(String),
}
