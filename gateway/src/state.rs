//! What every request handler shares: configuration, keys, the pool and the schema cache.

use crate::config::Config;
use auth::jwt::{ApiKeys, JwtKeys};
use deadpool_postgres::Pool;
use query_engine::{EngineConfig, SchemaCache};
use std::sync::{Arc, RwLock};

pub struct AppState {
    pub config: Config,
    pub keys: JwtKeys,
    pub api_keys: ApiKeys,
    pub pool: Pool,
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
        pool: Pool,
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
            pool,
            engine,
            schema: RwLock::new(Arc::new(schema)),
            public_url,
            index_html: RwLock::new(None),
            store,
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
