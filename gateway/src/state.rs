//! What every request handler shares: configuration, keys and the services.

use crate::config::Config;
use identity::jwt::JwtKeys;
use std::sync::Arc;

pub struct AppState {
    pub config: Config,
    pub keys: JwtKeys,
    /// `/rest/v1`: the schema cache, REST's pools and fair shares.
    pub rest: Arc<rest::Rest>,
    /// `/auth/v1`: GoTrue's flows.
    pub auth: Arc<auth::Auth>,
    /// The URL every link and `Location` supagate builds starts with: `API_EXTERNAL_URL`, else
    /// the bound address. Never taken from request headers (`Host`, `X-Forwarded-Host`, …).
    pub api_url: String,
    /// `api_url`'s host (and port): the host REST requests are told they were sent to.
    pub api_host: String,
    /// The site served at `/`, when there is one.
    pub site: Option<Arc<crate::site::Site>>,
    /// `/storage/v1`: buckets and objects.
    pub storage: Arc<storage::Storage>,
    /// Realtime, unless config.toml switches it off.
    pub realtime: Option<Arc<realtime::Realtime>>,
    /// Edge Functions, unless `[edge_runtime] enabled = false`.
    pub functions: Option<Arc<functions::Functions>>,
    /// The database owner on the database these services serve (the workbench's endpoints).
    pub admin: pg::Login,
    /// The project's branches (the project's own state only; a branch's state has none).
    pub branches: Option<Arc<crate::branches::Branches>>,
    /// The request inspector (the project's state's serves every branch).
    pub inspector: crate::inspector::Inspector,
}

/// The services a gateway wires up.
pub struct Services {
    pub rest: Arc<rest::Rest>,
    pub storage: Arc<storage::Storage>,
    pub realtime: Option<Arc<realtime::Realtime>>,
    pub auth: Arc<auth::Auth>,
    pub functions: Option<Arc<functions::Functions>>,
    /// The owner's login on the services' database.
    pub admin: pg::Login,
}

impl AppState {
    /// `api_url` is the resolved external URL (see [`AppState::api_url`]).
    pub fn new(config: Config, services: Services, api_url: String) -> Self {
        let keys = config.jwt_keys();
        let api_keys = keys.api_keys();
        let history = config.request_history;
        // Without API_EXTERNAL_URL the site calls the origin it was loaded from.
        let site = config.site_dir.as_deref().map(|d| {
            Arc::new(crate::site::Site::load(
                d,
                (config.api_external_url.as_deref(), &api_url),
                &api_keys.anon,
            ))
        });
        let api_host = api_url
            .split_once("://")
            .map_or(api_url.as_str(), |(_, rest)| rest)
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string();
        AppState {
            config,
            keys,
            rest: services.rest,
            api_url,
            api_host,
            site,
            storage: services.storage,
            realtime: services.realtime,
            functions: services.functions,
            auth: services.auth,
            admin: services.admin,
            branches: None,
            inspector: crate::inspector::Inspector::new(history),
        }
    }

    /// Whether the Supabase CLI's opaque local keys are accepted (local demo mode only).
    pub fn local_keys(&self) -> bool {
        self.config.jwt_secret() == identity::jwt::DEMO_JWT_SECRET
    }
}
