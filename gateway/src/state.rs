//! What every request handler shares: configuration, keys and the services. The site and the
//! branches are the server's own (`server::serve` registers them beside the state), so that the
//! state names neither.

use crate::config::Config;
use actix_web::{HttpRequest, web};
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
    /// `/storage/v1`: buckets and objects.
    pub storage: Arc<storage::Storage>,
    /// Realtime, unless config.toml switches it off.
    pub realtime: Option<Arc<realtime::Realtime>>,
    /// Edge Functions, unless `[edge_runtime] enabled = false`.
    pub functions: Option<Arc<functions::Functions>>,
    /// The database owner on the database these services serve (the workbench's endpoints).
    pub admin: pg::Login,
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
        let history = config.request_history;
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
            storage: services.storage,
            realtime: services.realtime,
            functions: services.functions,
            auth: services.auth,
            admin: services.admin,
            inspector: crate::inspector::Inspector::new(history),
        }
    }

    /// Whether the Supabase CLI's opaque local keys are accepted (local demo mode only).
    pub fn local_keys(&self) -> bool {
        self.config.jwt_secret() == identity::jwt::DEMO_JWT_SECRET
    }
}

/// The gateway's state (the project's, whichever branch serves the request), when its
/// inspector records requests.
pub fn recording(req: &HttpRequest) -> Option<Arc<AppState>> {
    req.app_data::<web::Data<Arc<AppState>>>()
        .map(|d| d.get_ref().clone())
        .filter(|s| s.inspector.recording())
}

/// Whether someone follows the inspector (what RLS did is then found too).
pub fn watched(req: &HttpRequest) -> bool {
    req.app_data::<web::Data<Arc<AppState>>>()
        .is_some_and(|s| s.inspector.watched())
}
