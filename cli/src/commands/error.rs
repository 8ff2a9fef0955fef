//! Why a command failed: the error every command (and the configuration and port choice the
//! binary does before one runs) returns. A failure of a service crate keeps its typed cause;
//! the texts a command writes itself are [`CommandError::Message`] and
//! [`CommandError::Usage`]. `main` prints an error as `error: {its Display}`, so each variant's
//! text is exactly what the user reads.

use std::error::Error;

/// A command's failure.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// A text the command writes itself (what is wrong with the project, the database's answer
    /// as the command words it, a check that failed).
    #[error("{0}")]
    Message(String),
    /// A flag or argument that cannot be used, in the command's words.
    #[error("{0}")]
    Usage(String),
    /// A prompt answered no (the Supabase CLI's words for it).
    #[error("context canceled")]
    Canceled,
    /// `test db` ran, and a test failed (its report is printed already).
    #[error("some tests failed")]
    TestsFailed,
    /// `--db-url` (or the linked project's URL) is no connection string.
    #[error("--db-url: {0}")]
    DbUrl(#[source] pg::LoginError),
    /// A file, folder, socket or process operation, with what was being done.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// A statement the command ran itself, with what it was for.
    #[error("{context}: {source}")]
    Query {
        context: String,
        #[source]
        source: tokio_postgres::Error,
    },
    /// SQL the database refused, described as migrations describe it (with the position in the
    /// statement when the SQL is known), after what it was for when that is said.
    #[error("{}", described(.context.as_deref(), .sql.as_deref(), .source))]
    Sql {
        context: Option<String>,
        sql: Option<String>,
        #[source]
        source: tokio_postgres::Error,
    },
    /// Another typed failure, with what was being done.
    #[error("{context}: {source}")]
    Other {
        context: String,
        #[source]
        source: Box<dyn Error + Send + Sync>,
    },
    #[error(transparent)]
    Postgres(#[from] tokio_postgres::Error),
    #[error(transparent)]
    Connect(#[from] pg::ConnectError),
    #[error(transparent)]
    Open(#[from] pg::OpenError),
    #[error(transparent)]
    Migrate(#[from] pg::migrate::MigrateError),
    #[error(transparent)]
    Project(#[from] project::ProjectError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// An I/O failure that says itself what failed.
    #[error(transparent)]
    System(#[from] std::io::Error),
    #[error(transparent)]
    Read(#[from] schema_diff::ReadError),
    #[error(transparent)]
    Typegen(#[from] typegen::TypegenError),
    #[error(transparent)]
    Snapshot(#[from] workbench::snapshot::SnapshotError),
    #[error(transparent)]
    Tests(#[from] workbench::pgtap::TestDbError),
    #[error(transparent)]
    Seed(#[from] storage::seed::SeedError),
    #[error(transparent)]
    Email(#[from] auth::users::InvalidEmail),
    #[error(transparent)]
    Password(#[from] auth::password::PasswordError),
    #[error(transparent)]
    Keygen(#[from] identity::keygen::KeygenError),
    #[error(transparent)]
    Schema(#[from] rest::schema_cache::SchemaError),
    #[error(transparent)]
    Mail(#[from] mail::MailError),
}

impl CommandError {
    /// A failed file, folder, socket or process operation: `{context}: {source}`.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        CommandError::Io {
            context: context.into(),
            source,
        }
    }

    /// A failed statement of the command's own: `{context}: {source}`.
    pub fn query(context: impl Into<String>, source: tokio_postgres::Error) -> Self {
        CommandError::Query {
            context: context.into(),
            source,
        }
    }

    /// Another typed failure: `{context}: {source}`.
    pub fn other(
        context: impl Into<String>,
        source: impl Into<Box<dyn Error + Send + Sync>>,
    ) -> Self {
        CommandError::Other {
            context: context.into(),
            source: source.into(),
        }
    }

    /// SQL the database refused, described as migrations describe it.
    pub fn sql(sql: &str, source: tokio_postgres::Error) -> Self {
        CommandError::Sql {
            context: None,
            sql: Some(sql.to_string()),
            source,
        }
    }

    /// SQL the database refused, described as migrations describe it, after what it was for:
    /// `{context}: {description}`.
    pub fn sql_in(
        context: impl Into<String>,
        sql: Option<&str>,
        source: tokio_postgres::Error,
    ) -> Self {
        CommandError::Sql {
            context: Some(context.into()),
            sql: sql.map(str::to_string),
            source,
        }
    }
}

/// The text of [`CommandError::Sql`].
fn described(context: Option<&str>, sql: Option<&str>, source: &tokio_postgres::Error) -> String {
    let description = pg::migrate::describe_db_error(source, sql);
    match context {
        Some(c) => format!("{c}: {description}"),
        None => description,
    }
}

#[cfg(test)]
mod tests {
    use super::CommandError;

    #[test]
    fn errors_read_as_the_texts_they_replace() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        assert_eq!(
            CommandError::io("cannot write /x", io).to_string(),
            "cannot write /x: gone"
        );
        let other = CommandError::other("failed to parse payload", "bad JSON");
        assert_eq!(other.to_string(), "failed to parse payload: bad JSON");
        assert_eq!(CommandError::Canceled.to_string(), "context canceled");
        assert_eq!(CommandError::TestsFailed.to_string(), "some tests failed");
        let url = pg::Login::parse("postgres://[").unwrap_err();
        assert_eq!(
            CommandError::DbUrl(url).to_string(),
            format!(
                "--db-url: {}",
                pg::Login::parse("postgres://[").unwrap_err()
            )
        );
        assert_eq!(CommandError::Usage("--last".into()).to_string(), "--last");
    }
}
