//! Loads the schema cache and keeps it fresh: reload on `NOTIFY pgrst, 'reload schema'` (sent by
//! the DDL event trigger and after migrations), debounced; a failed reload keeps the old cache.

use crate::state::AppState;
use futures_util::StreamExt;
use query_engine::SchemaCache;
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::{AsyncMessage, Client};

pub async fn load(client: &Client, schemas: &[String]) -> Result<SchemaCache, String> {
    client
        .batch_execute(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL search_path TO pg_catalog",
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

/// Listens on the `pgrst` channel forever, reconnecting with back-off.
pub fn spawn_listener(state: Arc<AppState>, pg: tokio_postgres::Config) {
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(500);
        loop {
            match pg.connect(tokio_postgres::NoTls).await {
                Ok((client, mut conn)) => {
                    backoff = Duration::from_millis(500);
                    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
                    let pump = tokio::spawn(async move {
                        let mut stream =
                            futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
                        while let Some(Ok(msg)) = stream.next().await {
                            if let AsyncMessage::Notification(n) = msg {
                                let _ = tx.send(n.payload().to_string());
                            }
                        }
                    });
                    if client.batch_execute("LISTEN pgrst").await.is_ok() {
                        // Anything may have changed while we were not listening.
                        reload(&state).await;
                        while let Some(payload) = rx.recv().await {
                            if payload.is_empty() || payload == "reload schema" {
                                // Debounce bursts of DDL into one reload.
                                tokio::time::sleep(Duration::from_millis(100)).await;
                                while rx.try_recv().is_ok() {}
                                reload(&state).await;
                            }
                        }
                    }
                    pump.abort();
                    tracing::warn!("schema listener disconnected; reconnecting");
                }
                Err(e) => tracing::warn!("schema listener cannot connect: {e}"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(5));
        }
    });
}
