//! The connection pool and the per-request transaction: BEGIN, one set_config statement for
//! role, claims and request info, the main statement, COMMIT — pipelined on one connection.

use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime, Timeouts};
use postgres_types::{Format, IsNull, ToSql, Type, to_sql_checked};
use std::time::Duration;
use tokio_postgres::NoTls;

/// A value sent in text format with its type left to PostgreSQL, like PostgREST's
/// unknown-typed literals: `"col" = $1` parses the text as the column's type.
#[derive(Debug)]
pub struct TextParam<'a>(pub &'a str);

impl ToSql for TextParam<'_> {
    fn to_sql(
        &self,
        _ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0.as_bytes());
        Ok(IsNull::No)
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    fn encode_format(&self, _ty: &Type) -> Format {
        Format::Text
    }

    to_sql_checked!();
}

pub fn build_pool(cfg: tokio_postgres::Config, size: usize, wait: Duration) -> Pool {
    let mgr = Manager::from_config(
        cfg,
        NoTls,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(mgr)
        .max_size(size)
        .runtime(Runtime::Tokio1)
        .timeouts(Timeouts {
            wait: Some(wait),
            create: Some(Duration::from_secs(10)),
            recycle: None,
        })
        .build()
        .expect("pool configuration is valid")
}

/// Who the request runs as, and what it tells the database about itself.
pub struct RequestContext {
    pub role: String,
    pub claims: String,
    pub method: String,
    pub path: String,
    pub headers: String,
    pub search_path: String,
    pub statement_timeout_ms: u64,
}

const SETUP_SQL: &str = "SELECT set_config('search_path', $1, true), set_config('role', $2, true), \
    set_config('request.jwt.claims', $3, true), set_config('request.method', $4, true), \
    set_config('request.path', $5, true), set_config('request.headers', $6, true), \
    set_config('statement_timeout', $7, true)";

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("timed out waiting for a database connection")]
    PoolTimeout,
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error(transparent)]
    Postgres(#[from] tokio_postgres::Error),
}

impl From<deadpool_postgres::PoolError> for DbError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        match e {
            deadpool_postgres::PoolError::Timeout(_) => DbError::PoolTimeout,
            deadpool_postgres::PoolError::Backend(e) => DbError::Postgres(e),
            other => DbError::Unavailable(other.to_string()),
        }
    }
}

/// A transaction in progress. If it is dropped before `finish` (the client went away
/// mid-request), the connection is discarded rather than returned to the pool mid-transaction.
pub struct Tx {
    client: Option<Object>,
}

impl Drop for Tx {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            drop(Object::take(c));
        }
    }
}

impl Tx {
    pub fn client(&self) -> &Object {
        self.client.as_ref().expect("transaction is open")
    }

    /// The plain tokio-postgres client, for code written against `GenericClient`.
    pub fn pg(&self) -> &tokio_postgres::Client {
        self.client()
    }

    /// Commits or rolls back and hands the connection back to the pool.
    pub async fn finish(mut self, commit: bool) -> Result<(), DbError> {
        let client = self.client.take().expect("transaction is open");
        client
            .batch_execute(if commit { "COMMIT" } else { "ROLLBACK" })
            .await?;
        Ok(())
    }
}

/// Opens a transaction with the request's role and claims set and runs `sql`, all in one
/// pipeline. `end` finishes the transaction in that same pipeline (COMMIT, or ROLLBACK for
/// `Prefer: tx=rollback`) when the outcome cannot change the decision; otherwise the open
/// transaction is returned for the caller to finish. A failed statement rolls everything back.
pub async fn run_statement(
    pool: &Pool,
    ctx: &RequestContext,
    sql: &str,
    params: &[String],
    read_only: bool,
    end: Option<bool>,
) -> Result<(tokio_postgres::Row, Option<Tx>), DbError> {
    let client = pool.get().await?;
    let setup = client.prepare_cached(SETUP_SQL).await?;
    let main = client.prepare_cached(sql).await?;
    let timeout = ctx.statement_timeout_ms.to_string();
    let setup_params: [&(dyn ToSql + Sync); 7] = [
        &TextParam(&ctx.search_path),
        &TextParam(&ctx.role),
        &TextParam(&ctx.claims),
        &TextParam(&ctx.method),
        &TextParam(&ctx.path),
        &TextParam(&ctx.headers),
        &TextParam(&timeout),
    ];
    let text: Vec<TextParam> = params.iter().map(|p| TextParam(p)).collect();
    let main_params: Vec<&(dyn ToSql + Sync)> =
        text.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
    let begin = if read_only {
        "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"
    } else {
        "BEGIN"
    };
    let mut tx = Tx {
        client: Some(client),
    };
    let c = tx.client();
    match end {
        Some(commit) => {
            let finish = if commit { "COMMIT" } else { "ROLLBACK" };
            let (b, s, m, e) = tokio::join!(
                c.batch_execute(begin),
                c.query_one(&setup, &setup_params),
                c.query_one(&main, &main_params),
                c.batch_execute(finish),
            );
            // The transaction is over either way (COMMIT of a failed one rolls it back), so the
            // connection goes back to the pool clean.
            tx.client.take();
            let row = b.and(s).and(m)?;
            e?;
            Ok((row, None))
        }
        None => {
            let (b, s, m) = tokio::join!(
                c.batch_execute(begin),
                c.query_one(&setup, &setup_params),
                c.query_one(&main, &main_params),
            );
            match b.and(s).and(m) {
                Ok(row) => Ok((row, Some(tx))),
                Err(e) => {
                    let _ = tx.finish(false).await;
                    Err(e.into())
                }
            }
        }
    }
}

/// Opens a transaction as `role` with `claims` (the auth and storage paths use this).
pub async fn begin_as(pool: &Pool, role: &str, claims: &str) -> Result<Tx, DbError> {
    let client = pool.get().await?;
    let tx = Tx {
        client: Some(client),
    };
    let c = tx.client();
    let setup = c
        .prepare_cached(
            "SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true)",
        )
        .await?;
    let (role, claims) = (TextParam(role), TextParam(claims));
    let params: [&(dyn ToSql + Sync); 2] = [&role, &claims];
    let (b, s) = tokio::join!(c.batch_execute("BEGIN"), c.query_one(&setup, &params));
    b?;
    s?;
    Ok(tx)
}
