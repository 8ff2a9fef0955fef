//! The connection pool and the per-request transaction: BEGIN, one set_config statement for
//! role, claims, request info and the role's settings, the main statement, COMMIT — pipelined
//! on one connection.
//!
//! Bounded: each connection keeps at most `statement_cache` prepared statements (least recently
//! used ones are closed), and a transaction abandoned mid-statement (the client went away) is
//! cancelled on the server before its connection is dropped.

use bytes::BytesMut;
use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime, StatementCache, Timeouts,
};
use lru::LruCache;
use postgres_types::{Format, IsNull, ToSql, Type, to_sql_checked};
use std::cell::RefCell;
use std::num::NonZeroUsize;
use std::sync::{Arc, Weak};
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
            // A connection the server closed (restart, db reset) is noticed by its connection
            // task and never handed out again.
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(mgr)
        .max_size(size)
        .runtime(Runtime::Tokio1)
        .timeouts(Timeouts {
            wait: Some(wait),
            create: Some(Duration::from_secs(5)),
            recycle: None,
        })
        .build()
        .expect("pool configuration is valid")
}

/// One connection's prepared statements, least recently used first.
type ConnectionLru = (Weak<StatementCache>, LruCache<String, ()>);

thread_local! {
    /// Per connection of this worker thread.
    static STATEMENT_LRU: RefCell<Vec<ConnectionLru>> = const { RefCell::new(Vec::new()) };
}

/// `prepare_cached`, keeping at most `cap` statements on this connection: the least recently
/// used one is closed on the server when a new one would exceed it. Each worker thread has its
/// own pool, so its connections are only ever used here.
async fn prepare_bounded(
    client: &Object,
    sql: &str,
    cap: usize,
) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
    let statement = client.prepare_cached(sql).await?;
    let cache = &client.statement_cache;
    let evicted = STATEMENT_LRU.with(|all| {
        let mut all = all.borrow_mut();
        all.retain(|(c, _)| c.strong_count() > 0);
        let idx = match all
            .iter()
            .position(|(c, _)| c.as_ptr() == Arc::as_ptr(cache))
        {
            Some(i) => i,
            None => {
                let cap = NonZeroUsize::new(cap.max(1)).expect("at least one");
                all.push((Arc::downgrade(cache), LruCache::new(cap)));
                all.len() - 1
            }
        };
        let lru = &mut all[idx].1;
        if lru.get(sql).is_some() {
            return None;
        }
        lru.push(sql.to_string(), ()).map(|(k, _)| k)
    });
    if let Some(old) = evicted {
        // Dropping the last handle closes the statement on the server.
        cache.remove(&old, &[]);
    }
    Ok(statement)
}

/// Who the request runs as, and what it tells the database about itself.
pub struct RequestContext {
    pub role: String,
    pub claims: String,
    pub method: String,
    pub path: String,
    pub headers: String,
    pub search_path: String,
    /// Settings for this transaction: the role's own (statement_timeout…) and defaults.
    pub settings: Vec<(String, String)>,
}

/// The setup statement for `n` role settings: search_path, role, claims, request info, then
/// one `set_config` per setting (a handful of variants, each prepared once per connection).
fn setup_sql(n: usize) -> String {
    let mut sql = String::from(
        "SELECT set_config('search_path', $1, true), set_config('role', $2, true), \
         set_config('request.jwt.claims', $3, true), set_config('request.method', $4, true), \
         set_config('request.path', $5, true), set_config('request.headers', $6, true)",
    );
    for i in 0..n {
        sql.push_str(&format!(
            ", set_config(${}, ${}, true)",
            7 + 2 * i,
            8 + 2 * i
        ));
    }
    sql
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("timed out waiting for a database connection")]
    PoolTimeout,
    /// The server cannot be reached, is starting or shutting down: worth retrying soon.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    #[error(transparent)]
    Postgres(#[from] tokio_postgres::Error),
}

/// SQLSTATEs that mean "the server is not available right now" rather than "the request failed".
const UNAVAILABLE_STATES: [&str; 5] = ["57P01", "57P02", "57P03", "08006", "08001"];

impl DbError {
    /// The server is down, restarting or unreachable (a 503 with Retry-After, not a 500).
    pub fn is_unavailable(&self) -> bool {
        match self {
            DbError::Unavailable(_) => true,
            DbError::PoolTimeout => false,
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

/// A transaction in progress. Dropped before `finish` (the client went away mid-request), its
/// statement is cancelled on the server and the connection is discarded rather than returned to
/// the pool mid-transaction.
pub struct Tx {
    client: Option<Object>,
}

impl Drop for Tx {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            let token = c.cancel_token();
            tokio::spawn(async move {
                let _ = token.cancel_query(NoTls).await;
            });
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

fn settings_arrays(settings: &[(String, String)]) -> (Vec<&str>, Vec<&str>) {
    settings
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .unzip()
}

/// Opens a transaction with the request's role and claims set and runs `sql`, all in one
/// pipeline. `end` finishes the transaction in that same pipeline (COMMIT, or ROLLBACK for
/// `Prefer: tx=rollback`) when the outcome cannot change the decision; otherwise the open
/// transaction is returned for the caller to finish. A failed statement rolls everything back.
pub async fn run_statement(
    pool: &Pool,
    cache_size: usize,
    ctx: &RequestContext,
    sql: &str,
    params: &[String],
    read_only: bool,
    end: Option<bool>,
) -> Result<(tokio_postgres::Row, Option<Tx>), DbError> {
    let client = pool.get().await?;
    let setup = prepare_bounded(&client, &setup_sql(ctx.settings.len()), cache_size).await?;
    let main = prepare_bounded(&client, sql, cache_size).await?;
    let mut setup_text = vec![
        TextParam(&ctx.search_path),
        TextParam(&ctx.role),
        TextParam(&ctx.claims),
        TextParam(&ctx.method),
        TextParam(&ctx.path),
        TextParam(&ctx.headers),
    ];
    for (k, v) in &ctx.settings {
        setup_text.push(TextParam(k));
        setup_text.push(TextParam(v));
    }
    let setup_params: Vec<&(dyn ToSql + Sync)> = setup_text
        .iter()
        .map(|p| p as &(dyn ToSql + Sync))
        .collect();
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

/// Opens a transaction as `role` with `claims` and `settings` (the auth and storage paths).
pub async fn begin_as(
    pool: &Pool,
    role: &str,
    claims: &str,
    settings: &[(String, String)],
) -> Result<Tx, DbError> {
    let client = pool.get().await?;
    let tx = Tx {
        client: Some(client),
    };
    let c = tx.client();
    let setup = c
        .prepare_cached(
            "SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true), \
             (SELECT count(set_config(k, v, true)) FROM unnest($3::text[], $4::text[]) AS s(k, v))",
        )
        .await?;
    let (keys, values) = settings_arrays(settings);
    let (role, claims) = (TextParam(role), TextParam(claims));
    let params: [&(dyn ToSql + Sync); 4] = [&role, &claims, &keys, &values];
    let (b, s) = tokio::join!(c.batch_execute("BEGIN"), c.query_one(&setup, &params));
    b?;
    s?;
    Ok(tx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_states_that_mean_come_back_later() {
        assert!(DbError::Unavailable("x".into()).is_unavailable());
        assert!(!DbError::PoolTimeout.is_unavailable());
    }
}
