//! The settings a running gateway uses, as the command line resolved them: flags (and their
//! environment variables) over the project's config.toml over the Supabase CLI's defaults.

use project::Project;
use std::path::PathBuf;

/// A certificate chain and its private key, PEM.
#[derive(Clone)]
pub struct TlsPem {
    pub cert: Vec<u8>,
    pub key: Vec<u8>,
}

impl std::fmt::Debug for TlsPem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsPem { .. }")
    }
}

#[derive(Debug, Clone)]
pub struct Config {
    pub project: Project,
    pub data_dir: PathBuf,
    pub host: String,
    pub port: u16,
    pub db_port: u16,
    pub pg_settings: String,
    pub database_url: Option<String>,
    pub pg_bin_dir: Option<PathBuf>,
    /// Where the private installations of PostgreSQL are kept.
    pub cache_dir: PathBuf,
    /// None: the Supabase CLI's public demo secret.
    pub jwt_secret: Option<String>,
    pub api_external_url: Option<String>,
    /// `[api.tls]`: the API's certificate chain and private key (PEM); None: plain HTTP.
    pub api_tls: Option<TlsPem>,
    pub site_dir: Option<PathBuf>,
    pub schemas: Vec<String>,
    pub extra_search_path: Vec<String>,
    /// PostgREST's in-database settings given as `PGRST_*` variables (see [`PGRST_SETTINGS`]),
    /// without the prefix, lowercased: `db_plan_enabled` → `true`.
    pub db_settings: Vec<(String, String)>,
    pub max_rows: u64,
    /// The SMS provider's API base URL (None: the provider's own).
    pub sms_api_url: Option<String>,
    pub workers: usize,
    /// Client connections kept open at most (HTTP and WebSocket, all workers): well inside the
    /// open-file limit, so that a flood of idle connections never starves the process of the
    /// descriptors its database connections and files need. Past it, connections wait in the
    /// listen queue.
    pub connection_budget: usize,
    pub db_pool: usize,
    pub db_pool_timeout: u64,
    pub db_auth_pool: usize,
    pub max_client_queries: usize,
    pub statement_cache: usize,
    pub statement_timeout_ms: u64,
    pub max_body_bytes: usize,
    pub storage_file_size_limit: u64,
    pub storage_backend: String,
    /// `[storage.image_transformation] enabled`.
    pub storage_image_transformation: bool,
    pub storage_s3_bucket: Option<String>,
    /// `[auth]` with the flags applied (secret, expiry, sign-up, rate limits, reuse interval).
    pub auth: project::config::Auth,
    /// `[inbucket]`: the built-in mail catcher (when no SMTP server is configured).
    pub inbucket: project::config::Inbucket,
    /// The mail catcher's port (None: off).
    pub mail_port: Option<u16>,
    /// The address the mail catcher listens on (127.0.0.1 unless asked).
    pub mail_host: String,
    /// Studio's port on 127.0.0.1 (None: `[studio] enabled = false`).
    pub studio_port: Option<u16>,
    /// The API address Studio's browser calls, when config.toml gives one.
    pub studio_api_url: Option<String>,
    /// Edge Functions' environment file (`--env-file`, else supabase/functions/.env).
    pub functions_env_file: Option<PathBuf>,
    /// The Deno that runs Edge Functions.
    pub deno: PathBuf,
    /// The signing-keys file's JSON ([auth] signing_keys_path), read at start.
    pub signing_keys: Option<String>,
    pub rate_limit_ip_header: Option<String>,
    pub trusted_proxy_hops: usize,
    pub insecure_demo_keys: bool,
    /// The database's requests (pg_net) may reach this machine's own and link-local addresses.
    pub net_local: bool,
    /// Browser origins the workbench API answers (lowercase, without a trailing slash).
    pub workbench_origins: Vec<String>,
    pub stop_on_stdin_close: bool,
    pub log_requests: bool,
    /// Requests the inspector keeps per service for Studio's Logs (0: none).
    pub request_history: usize,
    /// Which APIs config.toml switches on ([api], [auth], [storage] `enabled`).
    pub rest_enabled: bool,
    pub auth_enabled: bool,
    pub storage_enabled: bool,
    pub realtime_enabled: bool,
    /// Longest WebSocket upgrade request head ([realtime] max_header_length).
    pub realtime_max_header_length: usize,
    /// Changes of one transaction delivered one by one at most.
    pub realtime_max_transaction_changes: usize,
    /// How long after a start changes wait for subscribers to come back.
    pub realtime_resume_grace: std::time::Duration,
    /// Bounds of image rendering: cache bytes, variants per object, memory.
    pub render: storage::service::RenderSettings,
}

impl Config {
    /// The JWT secret and, when configured, the signing keys and the third-party issuer's
    /// keys (one set per process, shared by every copy).
    pub fn jwt_keys(&self) -> identity::jwt::JwtKeys {
        let keys = match &self.signing_keys {
            Some(json) => identity::jwt::JwtKeys::with_signing_keys(self.jwt_secret(), json)
                .expect("checked when the configuration was read"),
            None => identity::jwt::JwtKeys::new(self.jwt_secret()),
        };
        keys.with_third_party(
            self.auth
                .third_party
                .as_ref()
                .map(|t| identity::third_party::ThirdParty::for_issuer(&t.issuer)),
        )
    }

    pub fn jwt_secret(&self) -> &str {
        self.jwt_secret
            .as_deref()
            .unwrap_or(identity::jwt::DEMO_JWT_SECRET)
    }

    pub fn schemas(&self) -> Vec<String> {
        self.schemas.clone()
    }

    /// Whether the API listens on this machine only.
    pub fn on_loopback(&self) -> bool {
        is_loopback_host(&self.host)
    }

    /// Whether this gateway runs its own PostgreSQL.
    pub fn embedded(&self) -> bool {
        self.database_url.is_none()
    }
}

/// `localhost` or a loopback address: a listener there answers this machine only.
pub fn is_loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}
