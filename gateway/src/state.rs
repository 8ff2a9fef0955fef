//! What every request handler shares: configuration, keys, the pool and the schema cache.

use crate::config::Config;
use auth::jwt::JwtKeys;
use deadpool_postgres::Pool;
use query_engine::{EngineConfig, SchemaCache};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

pub struct AppState {
    pub config: Config,
    pub keys: JwtKeys,
    /// Connection settings of the API login; each worker thread builds its own pool from them.
    pg: tokio_postgres::Config,
    /// Every pool built so far, to clear their statement caches after a schema change.
    pools: Mutex<Vec<Pool>>,
    pub engine: EngineConfig,
    schema: RwLock<Arc<SchemaCache>>,
    /// The public URL clients use; None means "the origin the site was loaded from".
    pub public_url: Option<String>,
    /// Fair shares of the pool per client address.
    pub client_slots: Arc<crate::fairness::ClientSlots>,
    /// The site served at `/`, when there is one.
    pub site: Option<crate::site::Site>,
    /// Where stored objects' bytes live.
    pub store: Arc<dyn object_store::ObjectStore>,
    /// Realtime, unless config.toml switches it off.
    pub realtime: Option<Arc<crate::realtime::Realtime>>,
}

impl AppState {
    pub fn new(
        config: Config,
        pg: tokio_postgres::Config,
        schema: SchemaCache,
        store: Arc<dyn object_store::ObjectStore>,
        realtime: Option<Arc<crate::realtime::Realtime>>,
    ) -> Self {
        let keys = JwtKeys::new(config.jwt_secret());
        let api_keys = keys.api_keys();
        let engine = EngineConfig {
            max_rows: (config.max_rows > 0).then_some(config.max_rows),
            schemas: config.schemas(),
        };
        let public_url = config.api_external_url.clone();
        let client_slots = crate::fairness::ClientSlots::new(config.max_client_queries);
        let site = config
            .site_dir
            .as_deref()
            .map(|d| crate::site::Site::load(d, public_url.as_deref(), &api_keys.anon));
        AppState {
            config,
            keys,
            pg,
            pools: Mutex::new(Vec::new()),
            engine,
            schema: RwLock::new(Arc::new(schema)),
            public_url,
            site,
            client_slots,
            store,
            realtime,
        }
    }

    fn thread_pool(
        &self,
        slot: &'static std::thread::LocalKey<RefCell<Option<Pool>>>,
        total: usize,
    ) -> Pool {
        slot.with(|p| {
            p.borrow_mut()
                .get_or_insert_with(|| {
                    let per_worker = total.div_ceil(self.config.workers.max(1)).max(1);
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

    /// This thread's pool. Each HTTP worker has its own, so a request and the connection serving
    /// it live on the same thread: no cross-thread wake-ups on the hot path.
    pub fn pool(&self) -> Pool {
        thread_local! {
            static POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
        }
        self.thread_pool(&POOL, self.config.db_pool)
    }

    /// This thread's share of the auth API's own connections: sign-in and token refresh keep
    /// working while REST requests hold every connection of [`AppState::pool`].
    pub fn auth_pool(&self) -> Pool {
        thread_local! {
            static AUTH_POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
        }
        self.thread_pool(&AUTH_POOL, self.config.db_auth_pool)
    }

    /// The settings of a transaction run as `role`: its own (`ALTER ROLE … SET`, read with the
    /// schema cache, as PostgREST applies them) and the default statement timeout when it has
    /// none of its own.
    pub fn role_settings(&self, role: &str) -> Vec<(String, String)> {
        let schema = self.schema();
        let mut settings = schema.role_settings(role).to_vec();
        if !settings.iter().any(|(k, _)| k == "statement_timeout") {
            settings.push((
                "statement_timeout".into(),
                format!("{}ms", self.config.statement_timeout_ms),
            ));
        }
        settings
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
