//! Loads the schema cache and keeps it fresh: reload on `NOTIFY pgrst, 'reload schema'` or
//! `'reload config'` (sent by the DDL event trigger and after migrations), debounced; a failed
//! reload keeps the old cache.

use super::Rest;
use pg::listen::Event;
use pg::{Login, Pool};
use query_engine::SchemaCache;
use std::sync::Arc;
use std::time::Duration;

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
        match load(&self.meta, &self.engine.schemas, &self.db_settings).await {
            Ok(cache) => {
                tracing::info!("schema cache reloaded: {} relations", cache.table_count());
                self.set_schema(cache);
            }
            Err(e) => tracing::warn!("schema cache reload failed, keeping the old one: {e}"),
        }
    }

    /// Listens on the `pgrst` channel (as `api`) until the returned task is aborted.
    pub fn spawn_listener(self: &Arc<Self>, api: Login) -> tokio::task::JoinHandle<()> {
        let mut events = pg::listen::listen(api, "pgrst");
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
