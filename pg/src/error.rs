//! What a database call can fail with, and which failures mean "come back shortly".

use crate::pipeline::{self, PgError, ServerError};

/// Formats a PostgreSQL error with its detail, hint and, given the SQL, the line it points at.
pub fn describe_db_error(e: &tokio_postgres::Error, sql: Option<&str>) -> String {
    let Some(db) = e.as_db_error() else {
        return e.to_string();
    };
    let mut s = format!("{} (SQLSTATE {})", db.message(), db.code().code());
    if let (Some(tokio_postgres::error::ErrorPosition::Original(pos)), Some(sql)) =
        (db.position(), sql)
    {
        // PostgreSQL counts characters, from 1.
        let offset = sql
            .char_indices()
            .nth((*pos as usize).saturating_sub(1))
            .map_or(sql.len(), |(i, _)| i);
        let line = sql[..offset].matches('\n').count() + 1;
        s.push_str(&format!("\n  at line {line}"));
        let statements = ::project::sql::split(sql);
        if let Some(st) = ::project::sql::statement_at(&statements, offset) {
            let first: String = st
                .text
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(120)
                .collect();
            s.push_str(&format!(
                ", in the statement starting on line {}: {first}",
                st.line
            ));
        }
    }
    if let Some(d) = db.detail() {
        s.push_str(&format!("\n  detail: {d}"));
    }
    if let Some(h) = db.hint() {
        s.push_str(&format!("\n  hint: {h}"));
    }
    if let Some(hint) =
        crate::migrate::extensions::missing_extension_hint(db.message(), db.detail())
    {
        s.push_str(&format!("\n  {hint}"));
    }
    s
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("timed out waiting for a database connection")]
    PoolTimeout,
    /// The server cannot be reached, is starting or shutting down: worth retrying soon.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error("{}", crate::login::describe(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// An error the server reported on a pipelined (REST) connection.
    #[error("{}: {}", .0.code, .0.message)]
    Server(ServerError),
}

impl From<PgError> for DbError {
    fn from(e: PgError) -> Self {
        match e {
            PgError::Server(s) if UNAVAILABLE_STATES.contains(&s.code.as_str()) => {
                DbError::Unavailable(s.message)
            }
            PgError::Server(s) => DbError::Server(s),
            PgError::Io(e) => DbError::Unavailable(e.to_string()),
            PgError::Protocol(m) => {
                tracing::error!("PostgreSQL protocol: {m}");
                DbError::Unavailable(m)
            }
            PgError::Tls(m) => DbError::Unavailable(format!("TLS: {m}")),
        }
    }
}

impl From<pipeline::PoolError> for DbError {
    fn from(e: pipeline::PoolError) -> Self {
        match e {
            pipeline::PoolError::Timeout(deadpool::managed::TimeoutType::Wait) => {
                DbError::PoolTimeout
            }
            pipeline::PoolError::Backend(e) => e.into(),
            other => DbError::Unavailable(other.to_string()),
        }
    }
}

/// SQLSTATEs that mean "the server is not available right now" rather than "the request failed".
const UNAVAILABLE_STATES: [&str; 5] = ["57P01", "57P02", "57P03", "08006", "08001"];

impl DbError {
    /// The server is down, restarting or unreachable (a 503 with Retry-After, not a 500).
    pub fn is_unavailable(&self) -> bool {
        match self {
            DbError::Unavailable(_) => true,
            DbError::PoolTimeout | DbError::Server(_) => false,
            DbError::Postgres(e) => match e.as_db_error() {
                Some(db) => UNAVAILABLE_STATES.contains(&db.code().code()),
                None => true,
            },
        }
    }
}

impl From<deadpool_postgres::PoolError> for DbError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        match e {
            deadpool_postgres::PoolError::Timeout(deadpool_postgres::TimeoutType::Wait) => {
                DbError::PoolTimeout
            }
            deadpool_postgres::PoolError::Backend(e) if e.as_db_error().is_some() => {
                let unavailable = DbError::Postgres(e);
                if unavailable.is_unavailable() {
                    DbError::Unavailable(unavailable.to_string())
                } else {
                    unavailable
                }
            }
            other => DbError::Unavailable(other.to_string()),
        }
    }
}
