//! Loads the schema cache and keeps it fresh: reload on `NOTIFY pgrst, 'reload schema'` or `'reload config'` (sent by
//! the DDL event trigger and after migrations), debounced; a failed reload keeps the old cache.

use crate::listen::Event;
use crate::state::AppState;
use query_engine::SchemaCache;
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::Client;

pub async fn load(client: &Client, schemas: &[String]) -> Result<SchemaCache, String> {
    client
        .batch_execute(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL search_path TO pg_catalog; \
             SET LOCAL jit = off",
        )
        .await
        .map_err(|e| e.to_string())?;
    let row = client
        .query_one(query_engine::schema::INTROSPECTION_SQL, &[&schemas])
        .await;
    let _ = client.batch_execute("COMMIT").await;
    let json: String = row.map_err(|e| e.to_string())?.get(0);
    SchemaCache::from_json(&json).map_err(|e| e.to_string())
}

pub async fn reload(state: &AppState) {
    let client = match state.pool().get().await {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!("schema cache reload skipped: {e}");
            return;
        }
    };
    match load(&client, &state.engine.schemas).await {
        Ok(cache) => {
            tracing::info!("schema cache reloaded: {} relations", cache.table_count());
            state.set_schema(cache);
            // Plans of cached statements may refer to dropped objects.
            state.clear_statement_caches();
        }
        Err(e) => tracing::warn!("schema cache reload failed, keeping the old one: {e}"),
    }
}

/// Listens on the `pgrst` channel forever.
pub fn spawn_listener(state: Arc<AppState>, pg: tokio_postgres::Config) {
    let mut events = crate::listen::listen(pg, "pgrst");
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            match event {
                // Anything may have changed while we were not listening.
                Event::Connected => reload(&state).await,
                // The cache holds the in-database configuration too.
                Event::Notification(p)
                    if p.is_empty() || p == "reload schema" || p == "reload config" =>
                {
                    // Debounce bursts of DDL into one reload.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    while events.try_recv().is_ok() {}
                    reload(&state).await;
                }
                Event::Notification(_) => {}
            }
        }
    });
}
