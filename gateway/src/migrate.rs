//! Applies the numbered migrations embedded from `sql/`, each in its own transaction, recorded in
//! `supagate.migrations`. Replicas starting together serialise on an advisory lock.

use sha2::Digest;
use tokio_postgres::Client;

include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// Arbitrary constant key for pg_advisory_lock.
const LOCK_KEY: i64 = 7_354_321;

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("migration {file} failed: {message}")]
    Failed { file: String, message: String },
    #[error("database error: {0}")]
    Db(#[from] tokio_postgres::Error),
}

pub struct Outcome {
    pub applied: Vec<String>,
    /// True when this database had never been migrated (a new database).
    pub fresh: bool,
}

/// Formats a Postgres error with its detail, hint and the line it points at.
pub fn describe_db_error(e: &tokio_postgres::Error, sql: Option<&str>) -> String {
    let Some(db) = e.as_db_error() else {
        return e.to_string();
    };
    let mut s = format!("{} (SQLSTATE {})", db.message(), db.code().code());
    if let (Some(tokio_postgres::error::ErrorPosition::Original(pos)), Some(sql)) =
        (db.position(), sql)
    {
        let pos = (*pos as usize).min(sql.len());
        let line = sql[..pos].matches('\n').count() + 1;
        s.push_str(&format!(" at line {line}"));
    }
    if let Some(d) = db.detail() {
        s.push_str(&format!("\n  detail: {d}"));
    }
    if let Some(h) = db.hint() {
        s.push_str(&format!("\n  hint: {h}"));
    }
    s
}

pub async fn run(client: &mut Client) -> Result<Outcome, MigrateError> {
    client
        .execute("SELECT pg_advisory_lock($1)", &[&LOCK_KEY])
        .await?;
    let result = apply_pending(client).await;
    client
        .execute("SELECT pg_advisory_unlock($1)", &[&LOCK_KEY])
        .await?;
    result
}

async fn apply_pending(client: &mut Client) -> Result<Outcome, MigrateError> {
    let fresh = client
        .query_one("SELECT to_regclass('supagate.migrations') IS NULL", &[])
        .await?
        .get::<_, bool>(0);
    client
        .batch_execute(
            "CREATE SCHEMA IF NOT EXISTS supagate;
             CREATE TABLE IF NOT EXISTS supagate.migrations (
               name text PRIMARY KEY,
               checksum text NOT NULL,
               applied_at timestamptz NOT NULL DEFAULT now())",
        )
        .await?;
    let done: Vec<(String, String)> = client
        .query("SELECT name, checksum FROM supagate.migrations", &[])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let mut applied = Vec::new();
    for (name, sql) in MIGRATIONS {
        let checksum = hex(&sha2::Sha256::digest(sql.as_bytes()));
        if let Some((_, old)) = done.iter().find(|(n, _)| n == name) {
            if *old != checksum {
                tracing::warn!(
                    "migration {name} changed after it was applied; it is not run again"
                );
            }
            continue;
        }
        let tx = client.transaction().await?;
        if let Err(e) = tx.batch_execute(sql).await {
            let message = describe_db_error(&e, Some(sql));
            let _ = tx.rollback().await;
            return Err(MigrateError::Failed {
                file: format!("sql/{name}"),
                message,
            });
        }
        tx.execute(
            "INSERT INTO supagate.migrations (name, checksum) VALUES ($1, $2)",
            &[name, &checksum],
        )
        .await?;
        tx.commit().await?;
        applied.push(name.to_string());
    }
    if !applied.is_empty() {
        // Let running gateways (replicas) refresh their schema caches.
        client
            .batch_execute("NOTIFY pgrst, 'reload schema'")
            .await?;
    }
    Ok(Outcome { applied, fresh })
}

/// Loads the demo catalogue in one transaction.
pub async fn load_demo_catalogue(client: &mut Client) -> Result<(), MigrateError> {
    let tx = client.transaction().await?;
    if let Err(e) = tx.batch_execute(DEMO_CATALOGUE).await {
        return Err(MigrateError::Failed {
            file: "sql/demo/catalogue.sql".into(),
            message: describe_db_error(&e, Some(DEMO_CATALOGUE)),
        });
    }
    tx.commit().await?;
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
