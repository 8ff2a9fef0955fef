//! Studio's API errors: `{"message", "code", …}` with the HTTP status each variant has.

use serde_json::{Value, json};

#[derive(Debug, thiserror::Error)]
pub enum StudioError {
    /// The request is not one Studio can act on (a bad filter, a name, a body).
    #[error("{0}")]
    Invalid(String),
    #[error("{0} was not found")]
    NotFound(String),
    /// PostgreSQL refused: its message, SQLSTATE, detail and hint.
    #[error("{message}")]
    Database {
        message: String,
        code: String,
        detail: Option<String>,
        hint: Option<String>,
        /// Where in the SQL editor's text: line and column, from 1.
        at: Option<(usize, usize)>,
    },
    /// The database cannot be reached, or a file cannot be written.
    #[error("{0}")]
    Unavailable(String),
}

impl StudioError {
    pub fn status(&self) -> u16 {
        match self {
            StudioError::Invalid(_) => 400,
            StudioError::NotFound(_) => 404,
            StudioError::Database { .. } => 400,
            StudioError::Unavailable(_) => 503,
        }
    }

    pub fn body(&self) -> Value {
        match self {
            StudioError::Database {
                message,
                code,
                detail,
                hint,
                at,
            } => json!({
                "message": message, "code": code, "detail": detail, "hint": hint,
                "line": at.map(|a| a.0), "column": at.map(|a| a.1),
            }),
            StudioError::Invalid(m) => json!({"message": m, "code": "invalid"}),
            StudioError::NotFound(_) => json!({"message": self.to_string(), "code": "not_found"}),
            StudioError::Unavailable(m) => json!({"message": m, "code": "unavailable"}),
        }
    }
}

impl From<tokio_postgres::Error> for StudioError {
    fn from(e: tokio_postgres::Error) -> Self {
        match e.as_db_error() {
            Some(d) => StudioError::Database {
                message: d.message().to_string(),
                code: d.code().code().to_string(),
                detail: d.detail().map(str::to_string),
                hint: d.hint().map(str::to_string),
                at: None,
            },
            None => StudioError::Unavailable(format!("the database: {e}")),
        }
    }
}
