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
    /// Every tokio-postgres pool built so far, to clear their statement caches after a schema
    /// change.
    pools: Mutex<Vec<Pool>>,
    /// The schema generation REST connections prepare their statements under.
    rest_epoch: crate::pipeline::Epoch,
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
    /// The auth flows' settings (links and `iss` use the public URL when there is one).
    pub auth: auth::AuthConfig,
    /// Where the auth flows' mail goes.
    pub mailer: Arc<crate::mail::Mailer>,
}

/// The auth crate's view of `[auth]`.
fn auth_config(config: &Config, keys: &JwtKeys, public_url: Option<&str>) -> auth::AuthConfig {
    let a = &config.auth;
    let hook = |name: &str| {
        a.hooks.get(name).map(|h| auth::config::HookFn {
            schema: h.schema.clone(),
            function: h.function.clone(),
        })
    };
    auth::AuthConfig {
        keys: keys.clone(),
        jwt_expiry: a.jwt_expiry,
        issuer: format!(
            "{}/auth/v1",
            public_url.unwrap_or(&format!("http://{}:{}", config.host, config.port))
        ),
        site_url: a.site_url.clone(),
        additional_redirect_urls: a.additional_redirect_urls.clone(),
        password: auth::password::Policy::new(a.minimum_password_length, &a.password_requirements),
        disable_signup: !a.enable_signup,
        email_enabled: a.email.enable_signup,
        anonymous_enabled: a.enable_anonymous_sign_ins,
        autoconfirm: !a.email.enable_confirmations,
        double_confirm_changes: a.email.double_confirm_changes,
        secure_password_change: a.email.secure_password_change,
        max_frequency: a.email.max_frequency as i64,
        otp_length: a.email.otp_length,
        otp_expiry: a.email.otp_expiry as i64,
        email_sent_per_hour: a.rate_limit.email_sent,
        rotation: a.enable_refresh_token_rotation,
        refresh_reuse_interval: a.refresh_token_reuse_interval,
        mfa: a.mfa.clone(),
        hooks: auth::config::Hooks {
            custom_access_token: hook("custom_access_token"),
            before_user_created: hook("before_user_created"),
            send_email: hook("send_email"),
            password_verification_attempt: hook("password_verification_attempt"),
            mfa_verification_attempt: hook("mfa_verification_attempt"),
        },
    }
}

impl AppState {
    pub fn new(
        config: Config,
        pg: tokio_postgres::Config,
        schema: SchemaCache,
        store: Arc<dyn object_store::ObjectStore>,
        realtime: Option<Arc<crate::realtime::Realtime>>,
        mailer: Arc<crate::mail::Mailer>,
    ) -> Self {
        let keys = config.jwt_keys();
        let api_keys = keys.api_keys();
        let engine = EngineConfig {
            max_rows: (config.max_rows > 0).then_some(config.max_rows),
            schemas: config.schemas(),
        };
        let public_url = config.api_external_url.clone();
        let auth = auth_config(&config, &keys, public_url.as_deref());
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
            rest_epoch: crate::pipeline::Epoch::default(),
            engine,
            schema: RwLock::new(Arc::new(schema)),
            public_url,
            site,
            client_slots,
            store,
            realtime,
            auth,
            mailer,
        }
    }

    /// A worker thread's share of `total` connections.
    fn per_worker(&self, total: usize) -> usize {
        total.div_ceil(self.config.workers.max(1)).max(1)
    }

    fn thread_pool(
        &self,
        slot: &'static std::thread::LocalKey<RefCell<Option<Pool>>>,
        total: usize,
    ) -> Pool {
        slot.with(|p| {
            p.borrow_mut()
                .get_or_insert_with(|| {
                    let pool = crate::db::build_pool(
                        self.pg.clone(),
                        self.per_worker(total),
                        Duration::from_secs(self.config.db_pool_timeout),
                    );
                    self.pools.lock().expect("pools lock").push(pool.clone());
                    pool
                })
                .clone()
        })
    }

    /// This thread's REST pool: connections that run a request's transaction as one pipeline.
    /// Each HTTP worker has its own, so a request and the connection serving it live on the
    /// same thread: no cross-thread wake-ups on the hot path.
    pub fn rest_pool(&self) -> crate::pipeline::Pool {
        thread_local! {
            static REST_POOL: RefCell<Option<crate::pipeline::Pool>> = const { RefCell::new(None) };
        }
        REST_POOL.with(|p| {
            p.borrow_mut()
                .get_or_insert_with(|| {
                    crate::pipeline::build_pool(
                        self.pg.clone(),
                        self.per_worker(self.config.db_pool),
                        Duration::from_secs(self.config.db_pool_timeout),
                        self.config.statement_cache,
                        self.rest_epoch.0.clone(),
                    )
                })
                .clone()
        })
    }

    /// This thread's pool for storage, the schema cache and health checks: half as many
    /// connections as REST's (at least two).
    pub fn pool(&self) -> Pool {
        thread_local! {
            static POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
        }
        self.thread_pool(&POOL, self.config.db_pool.div_ceil(2).max(2))
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
        self.rest_epoch.bump();
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
