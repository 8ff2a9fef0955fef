//! REST's connections: each request's transaction (BEGIN, the settings statement, the main
//! statement and COMMIT) goes to PostgreSQL as one pipeline that ends in one Sync, so the server
//! answers it with one ReadyForQuery — one round trip, one flush, one wake-up, where a
//! statement-per-Sync client costs four (see docs/BENCHMARKS.md). Built directly on
//! `postgres-protocol`, the message layer tokio-postgres itself uses; auth and storage keep
//! tokio-postgres. TLS as the login's `sslmode` says. [`Shared`] connections carry many
//! requests' pipelines back to back, each its own implicit transaction (see `shared`).

mod conn;
mod error;
mod shared;
mod startup;
mod stream;

pub use conn::{Conn, Notice, Row, Said, Step};
pub use error::{PgError, ServerError};
pub use shared::{OwnedStep, Shared};
pub use stream::CancelTarget;

use crate::login::Login;
use deadpool::managed::{self, Metrics, RecycleError, RecycleResult};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Creates and checks pipelined connections.
pub struct Manager {
    login: Login,
    statements: usize,
    /// Bumped when the schema changes: connections then drop their prepared statements.
    epoch: Arc<AtomicU64>,
}

impl managed::Manager for Manager {
    type Type = Conn;
    type Error = PgError;

    async fn create(&self) -> Result<Conn, PgError> {
        Conn::connect(&self.login, self.statements, self.epoch.clone()).await
    }

    async fn recycle(&self, conn: &mut Conn, _: &Metrics) -> RecycleResult<PgError> {
        if conn.busy || conn.status != b'I' {
            return Err(RecycleError::message("left mid-transaction"));
        }
        if conn.is_closed() {
            return Err(RecycleError::message("closed by the server"));
        }
        Ok(())
    }
}

pub type Pool = managed::Pool<Manager>;
pub type PoolError = managed::PoolError<PgError>;

pub fn build_pool(
    login: Login,
    size: usize,
    wait: Duration,
    statements: usize,
    epoch: Arc<AtomicU64>,
) -> Pool {
    Pool::builder(Manager {
        login,
        statements,
        epoch,
    })
    .max_size(size)
    .runtime(deadpool::Runtime::Tokio1)
    .wait_timeout(Some(wait))
    .create_timeout(Some(Duration::from_secs(5)))
    .build()
    .expect("pool configuration is valid")
}

/// A pooled connection for one request. Dropped while a statement runs (the client went away
/// mid-request), the statement is cancelled on the server and the connection is discarded
/// rather than returned to the pool mid-transaction; dropped inside an open transaction, it is
/// discarded (closing it rolls the transaction back).
pub struct Session {
    conn: Option<managed::Object<Manager>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(c) = self.conn.take()
            && (c.busy || c.status != b'I')
        {
            if c.busy {
                tokio::spawn(c.cancel.clone().cancel());
            }
            drop(managed::Object::take(c));
        }
    }
}

impl Session {
    pub async fn get(pool: &Pool) -> Result<Session, PoolError> {
        Ok(Session {
            conn: Some(pool.get().await?),
        })
    }

    fn conn(&mut self) -> &mut managed::Object<Manager> {
        self.conn.as_mut().expect("session is open")
    }

    /// Runs `steps` as one pipeline; see [`Conn::pipeline`].
    pub async fn pipeline(&mut self, steps: &[Step<'_>]) -> Result<Vec<Option<Row>>, PgError> {
        self.conn().pipeline(steps).await
    }

    /// COMMIT or ROLLBACK of a transaction the pipeline left open; the connection goes back to
    /// the pool.
    pub async fn finish(mut self, commit: bool) -> Result<(), PgError> {
        self.conn()
            .simple(if commit { "COMMIT" } else { "ROLLBACK" })
            .await
    }
}

/// The schema generation every REST pool's connections prepare their statements under.
#[derive(Default)]
pub struct Epoch(pub Arc<AtomicU64>);

impl Epoch {
    /// The schema changed: statements prepared before are dropped on next use.
    pub fn bump(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}
