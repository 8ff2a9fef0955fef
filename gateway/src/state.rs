//! What every request handler shares: configuration, keys and the services.

use crate::config::Config;
use auth::jwt::JwtKeys;
use pg::{Login, PerThread, Pool, RoleSettings};
use std::sync::Arc;
use std::time::Duration;

pub struct AppState {
    pub config: Config,
    pub keys: JwtKeys,
    /// `/rest/v1`: the schema cache, REST's pools and fair shares.
    pub rest: Arc<rest::Rest>,
    /// The settings each role's transactions run with (read with the schema cache).
    pub role_settings: RoleSettings,
    /// Each worker's connections for storage.
    storage_pool: PerThread<Pool>,
    /// `/auth/v1`: GoTrue's flows.
    pub auth: Arc<auth::Auth>,
    /// The public URL clients use; None means "the origin the site was loaded from".
    pub public_url: Option<String>,
    /// The site served at `/`, when there is one.
    pub site: Option<crate::site::Site>,
    /// Where stored objects' bytes live.
    pub store: Arc<dyn object_store::ObjectStore>,
    /// Realtime, unless config.toml switches it off.
    pub realtime: Option<Arc<realtime::Realtime>>,
}

/// The services a gateway wires up.
pub struct Services {
    pub rest: Arc<rest::Rest>,
    pub role_settings: RoleSettings,
    pub store: Arc<dyn object_store::ObjectStore>,
    pub realtime: Option<Arc<realtime::Realtime>>,
    pub auth: Arc<auth::Auth>,
}

impl AppState {
    /// `api` is the authenticator login the API pools use.
    pub fn new(config: Config, api: &Login, services: Services) -> Self {
        let keys = config.jwt_keys();
        let api_keys = keys.api_keys();
        let public_url = config.api_external_url.clone();
        let site = config
            .site_dir
            .as_deref()
            .map(|d| crate::site::Site::load(d, public_url.as_deref(), &api_keys.anon));
        let wait = Duration::from_secs(config.db_pool_timeout);
        let per_thread = |total: usize| {
            let (login, size) = (api.clone(), pg::pool::share(total, config.workers));
            PerThread::new(move || Pool::new(&login, size, wait))
        };
        AppState {
            storage_pool: per_thread(config.db_pool.div_ceil(2).max(2)),
            config,
            keys,
            rest: services.rest,
            role_settings: services.role_settings,
            public_url,
            site,
            store: services.store,
            realtime: services.realtime,
            auth: services.auth,
        }
    }

    /// This thread's pool for storage: half as many connections as REST's (at least two).
    pub fn pool(&self) -> Pool {
        self.storage_pool.get()
    }

    /// The settings of a transaction run as `role`: its own (`ALTER ROLE … SET`), and the
    /// default statement timeout when it has none of its own.
    pub fn role_settings(&self, role: &str) -> Vec<(String, String)> {
        self.role_settings.of(role)
    }

    /// Whether the Supabase CLI's opaque local keys are accepted (local demo mode only).
    pub fn local_keys(&self) -> bool {
        self.config.jwt_secret() == auth::jwt::DEMO_JWT_SECRET
    }
}
