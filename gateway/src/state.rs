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
    /// Each worker's connections for storage, and the auth API's own.
    storage_pool: PerThread<Pool>,
    auth_pool: PerThread<Pool>,
    /// The public URL clients use; None means "the origin the site was loaded from".
    pub public_url: Option<String>,
    /// The site served at `/`, when there is one.
    pub site: Option<crate::site::Site>,
    /// Where stored objects' bytes live.
    pub store: Arc<dyn object_store::ObjectStore>,
    /// Realtime, unless config.toml switches it off.
    pub realtime: Option<Arc<realtime::Realtime>>,
    /// The auth flows' settings (links and `iss` use the public URL when there is one).
    pub auth: auth::AuthConfig,
    /// Where the auth flows' mail goes.
    pub mailer: Arc<mail::Mailer>,
}

/// The services a gateway wires up.
pub struct Services {
    pub rest: Arc<rest::Rest>,
    pub role_settings: RoleSettings,
    pub store: Arc<dyn object_store::ObjectStore>,
    pub realtime: Option<Arc<realtime::Realtime>>,
    pub mailer: Arc<mail::Mailer>,
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
    /// `api` is the authenticator login the API pools use.
    pub fn new(config: Config, api: &Login, services: Services) -> Self {
        let keys = config.jwt_keys();
        let api_keys = keys.api_keys();
        let public_url = config.api_external_url.clone();
        let auth = auth_config(&config, &keys, public_url.as_deref());
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
            auth_pool: per_thread(config.db_auth_pool),
            config,
            keys,
            rest: services.rest,
            role_settings: services.role_settings,
            public_url,
            site,
            store: services.store,
            realtime: services.realtime,
            auth,
            mailer: services.mailer,
        }
    }

    /// This thread's pool for storage: half as many connections as REST's (at least two).
    pub fn pool(&self) -> Pool {
        self.storage_pool.get()
    }

    /// This thread's share of the auth API's own connections: sign-in and token refresh keep
    /// working while REST requests hold every connection of the REST pools.
    pub fn auth_pool(&self) -> Pool {
        self.auth_pool.get()
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
