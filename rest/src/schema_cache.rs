//! Loads the schema cache and keeps it fresh: reload on `NOTIFY pgrst, 'reload schema'` or
//! `'reload config'` (sent by the DDL event trigger and after migrations), debounced; a failed
//! reload keeps the old cache.

use super::Rest;
use pg::listen::Event;
use pg::{Login, Pool};
use query_engine::SchemaCache;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("the API login cannot connect: {0}")]
    Connect(#[from] pg::DbError),
    #[error("cannot load the schema cache: {}", pg::login::describe(.0))]
    Query(#[from] tokio_postgres::Error),
    #[error("cannot load the schema cache: {0}")]
    Shape(#[from] serde_json::Error),
}

pub async fn load(
    pool: &Pool,
    schemas: &[String],
    db_settings: &[(String, String)],
) -> Result<SchemaCache, SchemaError> {
    let client = pool.get().await?;
    read(&client, schemas, db_settings).await
}

/// The first read of a gateway's cache, made after its listener on `pgrst` listens: a change
/// committed after the read's snapshot is then notified to it, so its first `Connected` needs no
/// second read (a start reads the catalog once). A listener not listening within `wait` is not
/// waited for: its `Connected`, still queued, reads the cache again.
pub async fn first_load(
    pool: &Pool,
    api: &Login,
    schemas: &[String],
    db_settings: &[(String, String)],
    wait: Duration,
) -> Result<(SchemaCache, mpsc::Receiver<Event>), SchemaError> {
    // The login's connection first: a database the API cannot reach fails here, before a
    // listener starts retrying it in the background.
    let client = pool.get().await?;
    let mut events = pg::listen::listen(api.clone(), "pgrst");
    // `Connected` comes first; not come within `wait`, it is still queued and reads again.
    let _ = tokio::time::timeout(wait, events.recv()).await;
    let cache = read(&client, schemas, db_settings).await?;
    Ok((cache, events))
}

async fn read(
    client: &pg::Client,
    schemas: &[String],
    db_settings: &[(String, String)],
) -> Result<SchemaCache, SchemaError> {
    client
        .batch_execute(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL search_path TO pg_catalog; \
             SET LOCAL jit = off",
        )
        .await?;
    let row = client
        .query_one(query_engine::schema::INTROSPECTION_SQL, &[&schemas])
        .await;
    let _ = client.batch_execute("COMMIT").await;
    let json: String = row?.get(0);
    Ok(SchemaCache::from_json(&json)?.with_db_defaults(db_settings))
}

impl Rest {
    pub async fn reload(&self) {
        match self.refresh().await {
            Ok(n) => tracing::info!("schema cache reloaded: {n} relations"),
            Err(e) => tracing::warn!("schema cache reload failed, keeping the old one: {e}"),
        }
    }

    /// Reads the cache again now; how many relations it has.
    pub async fn refresh(&self) -> Result<usize, SchemaError> {
        let cache = load(&self.meta, &self.engine.schemas, &self.db_settings).await?;
        let n = cache.table_count();
        self.set_schema(cache);
        Ok(n)
    }

    /// Acts on the `pgrst` channel's events (listened to since the first read, see
    /// [`first_load`]) until the returned task is aborted; `api` listens again when called twice.
    pub fn spawn_listener(self: &Arc<Self>, api: Login) -> tokio::task::JoinHandle<()> {
        let mut events =
            (self.events.lock().take()).unwrap_or_else(|| pg::listen::listen(api, "pgrst"));
        let rest = self.clone();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                match event {
                    // Anything may have changed while we were not listening.
                    Event::Connected => rest.reload().await,
                    // The cache holds the in-database configuration too.
                    Event::Notification(p)
                        if p.is_empty() || p == "reload schema" || p == "reload config" =>
                    {
                        // Debounce bursts of DDL into one reload.
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        while events.try_recv().is_ok() {}
                        rest.reload().await;
                    }
                    Event::Notification(_) => {}
                }
            }
        })
    }
}
