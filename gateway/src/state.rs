//! What every request handler shares: configuration, keys, the pool and the schema cache.

use crate::config::Config;
use auth::jwt::{ApiKeys, JwtKeys};
use deadpool_postgres::Pool;
use query_engine::{EngineConfig, SchemaCache};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

pub struct AppState {
    pub config: Config,
    pub keys: JwtKeys,
    pub api_keys: ApiKeys,
    /// Connection settings of the API login; each worker thread builds its own pool from them.
    pg: tokio_postgres::Config,
    /// Every pool built so far, to clear their statement caches after a schema change.
    pools: Mutex<Vec<Pool>>,
    pub engine: EngineConfig,
    schema: RwLock<Arc<SchemaCache>>,
    /// The public URL clients use; None means "the origin the site was loaded from".
    pub public_url: Option<String>,
    pub index_html: RwLock<Option<String>>,
    /// Where stored objects' bytes live.
    pub store: Arc<dyn object_store::ObjectStore>,
}

impl AppState {
    pub fn new(
        config: Config,
        pg: tokio_postgres::Config,
        schema: SchemaCache,
        store: Arc<dyn object_store::ObjectStore>,
    ) -> Self {
        let keys = JwtKeys::new(config.jwt_secret());
        let api_keys = keys.api_keys();
        let engine = EngineConfig {
            max_rows: (config.max_rows > 0).then_some(config.max_rows),
            schemas: config.schemas(),
        };
        let public_url = config.api_external_url.clone();
        AppState {
            config,
            keys,
            api_keys,
            pg,
            pools: Mutex::new(Vec::new()),
            engine,
            schema: RwLock::new(Arc::new(schema)),
            public_url,
            index_html: RwLock::new(None),
            store,
        }
    }

    /// This thread's pool. Each HTTP worker has its own, so a request and the connection serving
    /// it live on the same thread: no cross-thread wake-ups on the hot path.
    pub fn pool(&self) -> Pool {
        thread_local! {
            static POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
        }
        POOL.with(|p| {
            p.borrow_mut()
                .get_or_insert_with(|| {
                    let per_worker = self
                        .config
                        .db_pool
                        .div_ceil(self.config.workers.max(1))
                        .max(1);
                    let pool = crate::db::build_pool(
                        self.pg.clone(),
                        per_worker,
                        Duration::from_secs(self.config.db_pool_timeout),
                    );
                    self.pools.lock().expect("pools lock").push(pool.clone());
                    pool
                })
                .clone()
        })
    }

    /// Forgets prepared statements on every pool (their plans may name dropped objects).
    pub fn clear_statement_caches(&self) {
        for p in self.pools.lock().expect("pools lock").iter() {
            p.manager().statement_caches.clear();
        }
    }

    pub fn schema(&self) -> Arc<SchemaCache> {
        self.schema.read().expect("schema lock").clone()
    }

    pub fn set_schema(&self, s: SchemaCache) {
        *self.schema.write().expect("schema lock") = Arc::new(s);
    }

    /// Whether the Supabase CLI's opaque local keys are accepted (local demo mode only).
    pub fn local_keys(&self) -> bool {
        self.config.jwt_secret() == auth::jwt::DEMO_JWT_SECRET
    }
}
