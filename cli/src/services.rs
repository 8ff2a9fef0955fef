//! The services `start` wires into the gateway, built from the resolved settings: REST (with
//! the schema cache), auth, realtime, storage and mail, for the project and for each of its
//! branches.

use crate::commands::CommandError;
use gateway::config::Config;
use gateway::state;
use identity::jwt::JwtKeys;
use std::sync::Arc;

/// The hourly e-mail limit the Supabase CLI gives GoTrue when mail is caught locally
/// (`GOTRUE_RATE_LIMIT_EMAIL_SENT=360000`).
const CAUGHT_EMAIL_PER_HOUR: u32 = 360_000;

/// The auth crate's view of `[auth]`.
/// `api_url` is the resolved external URL links and `iss` start with.
/// The OAuth providers switched on that sign users in through supagate's local stand-in (in
/// local development mode only: anyone who reaches it can sign in as anyone): those without
/// real credentials, and those supagate cannot sign in with for real yet. A provider with a
/// client id and secret that `oauth_providers::endpoints` knows signs in with the provider
/// itself.
fn local_oauth_providers(a: &project::config::Auth, local_dev: bool) -> Vec<String> {
    let mut stand_in = Vec::new();
    for (name, e) in a.external.iter().filter(|(_, e)| e.enabled) {
        let credentials = !e.secret.is_empty() && !e.client_id.is_empty();
        let real = credentials && oauth_providers::endpoints(name, &e.url).is_some();
        if real {
            continue;
        }
        if !local_dev {
            tracing::warn!(
                "auth.external.{name}: not served: sign-in through {name} itself is not \
                 implemented yet, and its local stand-in runs with the demo keys only"
            );
            continue;
        }
        if credentials {
            tracing::warn!(
                "auth.external.{name}: sign-in through {name} itself is not implemented yet: \
                 the local stand-in page signs users in"
            );
        }
        stand_in.push(name.clone());
    }
    stand_in
}

/// Whether texts are caught locally: the SMS catcher stands in for an enabled provider given
/// without its secret (no token, or an unset `env(…)`), in local development mode only. Without a
/// provider, texting a code fails as under the Supabase CLI ("Unable to get SMS provider").
fn sms_catch(a: &project::config::Auth, local_dev: bool) -> bool {
    if a.hooks.contains_key("send_sms") {
        return false;
    }
    let told = a.sms.enable_signup || a.mfa.phone_enroll;
    match a.sms.provider() {
        Some((name, false)) if local_dev => {
            if told {
                tracing::info!(
                    "auth.sms.{name}: no secret given: texts are caught locally (the catcher's \
                     page lists them)"
                );
            }
            true
        }
        Some((name, false)) if told => {
            tracing::warn!(
                "auth.sms.{name}: no secret given: texting a code fails (the local SMS catcher \
                 stands in with the demo keys only)"
            );
            false
        }
        None if told => {
            tracing::info!(
                "auth.sms: phone sign-in is on but no SMS provider is enabled: texting a code \
                 fails as under the Supabase CLI; enable [auth.sms.twilio] without an auth_token \
                 to catch texts locally"
            );
            false
        }
        _ => false,
    }
}

pub fn auth_config(config: &Config, keys: &JwtKeys, api_url: &str) -> auth::AuthConfig {
    let a = &config.auth;
    let hook = |name: &str| a.hooks.get(name).cloned();
    auth::AuthConfig {
        keys: keys.clone(),
        jwt_expiry: a.jwt_expiry,
        issuer: a
            .external_url
            .clone()
            .unwrap_or_else(|| format!("{api_url}/auth/v1")),
        jwt_issuer: a
            .jwt_issuer
            .clone()
            .or_else(|| a.external_url.clone())
            .unwrap_or_else(|| format!("{api_url}/auth/v1")),
        session_timebox: a.sessions.timebox.map(|s| s as i64),
        session_inactivity_timeout: a.sessions.inactivity_timeout.map(|s| s as i64),
        // The provider's verify endpoint, or the one SUPAGATE_CAPTCHA_VERIFY_URL names (a
        // stand-in for tests, or a compatible service).
        captcha: a.captcha.as_ref().map(|c| {
            auth::captcha::Captcha::new(
                &c.provider,
                &c.secret,
                std::env::var("SUPAGATE_CAPTCHA_VERIFY_URL").ok(),
            )
        }),
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
        // As the CLI's local stack: `[auth.rate_limit] email_sent` limits mail that leaves through
        // `[auth.email.smtp]`; caught mail reaches nobody, so it passes at GoTrue's local rate.
        email_sent_per_hour: if a.email.smtp.is_some() {
            a.rate_limit.email_sent
        } else {
            CAUGHT_EMAIL_PER_HOUR
        },
        rotation: a.enable_refresh_token_rotation,
        refresh_reuse_interval: a.refresh_token_reuse_interval,
        mfa: a.mfa.clone(),
        hooks: auth::config::Hooks {
            custom_access_token: hook("custom_access_token"),
            before_user_created: hook("before_user_created"),
            send_email: hook("send_email"),
            send_sms: hook("send_sms"),
            password_verification_attempt: hook("password_verification_attempt"),
            mfa_verification_attempt: hook("mfa_verification_attempt"),
        },
        rate_limits: auth::config::RateLimits {
            sign_in_sign_ups: a.rate_limit.sign_in_sign_ups,
            token_refresh: a.rate_limit.token_refresh,
            token_verifications: a.rate_limit.token_verifications,
            anonymous_users: a.rate_limit.anonymous_users,
            sms_sent: a.rate_limit.sms_sent,
            web3: a.rate_limit.web3,
        },
        manual_linking: a.enable_manual_linking,
        web3: a.web3.clone(),
        oauth_server: a.oauth_server.clone(),
        sms: a.sms.clone(),
        sms_api_url: config.sms_api_url.clone(),
        sms_catch: sms_catch(a, config.jwt_secret() == identity::jwt::DEMO_JWT_SECRET),
        webauthn: a.webauthn.clone(),
        external: local_oauth_providers(a, config.jwt_secret() == identity::jwt::DEMO_JWT_SECRET),
        external_providers: a
            .external
            .iter()
            .filter(|(_, e)| e.enabled)
            .map(|(n, e)| (n.clone(), e.clone()))
            .collect(),
        // Local development: the CLI's demo keys, listening on this machine only.
        local_dev: config.jwt_secret() == identity::jwt::DEMO_JWT_SECRET && config.on_loopback(),
    }
}

/// Edge Functions with the environment the CLI gives them (None with `[edge_runtime] enabled =
/// false`).
pub fn functions(
    config: &Config,
    api_url: &str,
    db_url: &str,
) -> Result<Option<std::sync::Arc<functions::Functions>>, CommandError> {
    let er = &config.project.config.edge_runtime;
    if !er.enabled {
        return Ok(None);
    }
    let keys = config.jwt_keys();
    let api_keys = keys.api_keys();
    let mut platform_env = vec![
        ("SUPABASE_URL".to_string(), api_url.to_string()),
        ("SUPABASE_ANON_KEY".to_string(), api_keys.anon),
        (
            "SUPABASE_SERVICE_ROLE_KEY".to_string(),
            api_keys.service_role,
        ),
        ("SUPABASE_DB_URL".to_string(), db_url.to_string()),
        ("SUPABASE_JWKS".to_string(), keys.jwks().to_string()),
    ];
    if config.jwt_secret() == identity::jwt::DEMO_JWT_SECRET {
        let one = |k: &str| serde_json::json!({ "default": k }).to_string();
        platform_env.push((
            "SUPABASE_PUBLISHABLE_KEYS".into(),
            one(identity::jwt::CLI_PUBLISHABLE_KEY),
        ));
        platform_env.push((
            "SUPABASE_SECRET_KEYS".into(),
            one(identity::jwt::CLI_SECRET_KEY),
        ));
    }
    let settings = functions::FunctionsSettings {
        deno: config.deno.clone(),
        work_dir: config.data_dir.join("functions"),
        platform_env,
        secrets: er.secrets.clone().into_iter().collect(),
        env_file: config.functions_env_file.clone(),
        policy: er.policy,
        memory_mb: functions::FunctionsSettings::MEMORY_MB,
        wall_clock: functions::FunctionsSettings::WALL_CLOCK,
        cpu_time: functions::FunctionsSettings::CPU_TIME,
        cpu_time_soft: functions::FunctionsSettings::CPU_TIME_SOFT,
        boot_timeout: std::time::Duration::from_secs(60),
    };
    functions::Functions::new(config.project.clone(), settings)
        .map(Some)
        .map_err(|e| CommandError::other("cannot prepare Edge Functions", e))
}

/// The database a set of services serves: the project's, or a branch of it.
#[derive(Clone)]
pub struct Target {
    /// The owner on that database.
    pub admin: pg::Login,
    /// The API login (`authenticator`) on that database.
    pub api: pg::Login,
    /// A branch: a few connections per service (many branches share the cluster's
    /// connections), and stored versions are never deleted through it.
    pub branch: bool,
}

impl Target {
    /// The logins with the site's address set for the database (see `with_site_url`), as the
    /// services built on them connect.
    pub fn sited(self, cfg: &Config, api_url: &str) -> Target {
        let (admin, api) = with_site_url(cfg, api_url, self.admin, self.api);
        Target { admin, api, ..self }
    }
}

/// Services on one database and their background work on it.
pub struct Built {
    pub services: state::Services,
    pub mailer: Arc<mail::Mailer>,
    /// Stopped (aborted) with the services: the schema cache's listener, the mail outbox, the
    /// pg_net worker and the rate-limit pruner.
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// The site's address, handed to every API session as `supagate.site_url` (SQL that builds
/// links in mail reads `current_setting('supagate.site_url', true)`): the gateway's external
/// URL when it serves the site (`--site-dir`), else `[auth] site_url`. An address the startup
/// options cannot carry (whitespace, backslashes, over 1000 bytes) is left out, with a warning.
fn with_site_url(
    cfg: &Config,
    api_url: &str,
    admin: pg::Login,
    api: pg::Login,
) -> (pg::Login, pg::Login) {
    let site_url = if cfg.site_dir.is_some() {
        api_url
    } else {
        cfg.auth.site_url.as_str()
    };
    let site_url = site_url.trim_end_matches('/');
    let set = |l: &pg::Login| l.with_setting("supagate.site_url", site_url);
    match (set(&admin), set(&api)) {
        (Some(admin), Some(api)) => (admin, api),
        _ => {
            tracing::warn!(
                "the site address {site_url:?} cannot be handed to the database \
                 (supagate.site_url is unset): no whitespace or backslashes, at most 1000 bytes"
            );
            (admin, api)
        }
    }
}

/// REST on `target`'s database: its pools, its schema cache read and its listener on `pgrst`.
pub async fn start_rest(
    cfg: &Config,
    target: &Target,
) -> Result<Arc<rest::Rest>, rest::schema_cache::SchemaError> {
    rest::Rest::start(
        rest::RestSettings {
            schemas: cfg.schemas(),
            extra_search_path: cfg.extra_search_path.clone(),
            max_rows: cfg.max_rows,
            pool_size: pool_size(target.branch, cfg.db_pool),
            workers: cfg.workers,
            pool_timeout: std::time::Duration::from_secs(cfg.db_pool_timeout),
            statement_cache: cfg.statement_cache,
            max_client_queries: cfg.max_client_queries,
            db_settings: cfg.db_settings.clone(),
        },
        &target.api,
        pg::RoleSettings::new(cfg.statement_timeout_ms),
    )
    .await
}

/// REST started before [`build`] (beside the migrations' check, see `start`'s `serve`).
pub struct RestAhead {
    pub started: tokio::task::JoinHandle<Result<Arc<rest::Rest>, rest::schema_cache::SchemaError>>,
    /// Its cache is read again first: something was applied after its read began.
    pub stale: bool,
}

impl RestAhead {
    /// The REST it started, current, or None when it could not start (REST is then started
    /// again, where its error is told).
    async fn take(self) -> Option<Result<Arc<rest::Rest>, rest::schema_cache::SchemaError>> {
        let why = match self.started.await {
            Ok(Ok(rest)) if self.stale => return Some(rest.refresh().await.map(|_| rest)),
            Ok(Ok(rest)) => return Some(Ok(rest)),
            Ok(Err(e)) => e.to_string(),
            Err(e) => e.to_string(),
        };
        tracing::debug!("REST started beside the migrations' check: {why}");
        None
    }
}

/// A service's connections: `main` on the project's database, a few on a branch (many branches
/// share the cluster's connections).
fn pool_size(branch: bool, main: usize) -> usize {
    if branch { 2 } else { main }
}

/// Builds REST (unless `ahead` started it), realtime, mail, auth and storage on `target`'s
/// database (its logins [`Target::sited`]; `functions`, one set of Deno processes, are shared).
pub async fn build(
    cfg: &Config,
    target: Target,
    api_url: &str,
    store: Arc<dyn object_store::ObjectStore>,
    functions: Option<Arc<functions::Functions>>,
    ahead: Option<RestAhead>,
) -> Result<Built, CommandError> {
    let rest = async {
        if let Some(a) = ahead
            && let Some(started) = a.take().await
        {
            return started;
        }
        start_rest(cfg, &target).await
    };
    let Target { admin, api, branch } = target.clone();
    let pool = |main: usize| pool_size(branch, main);
    let timeout = std::time::Duration::from_secs(cfg.db_pool_timeout);
    // REST (its schema cache), the third-party issuer's keys and realtime are made at once:
    // each waits on its own connection and queries.
    // The third-party issuer's keys are fetched before the APIs answer (10 s at most, as the
    // CLI's fetch at start; after that the APIs start without them and fetching goes on).
    let third_party = async {
        if let Some(tp) = cfg.jwt_keys().third_party() {
            tp.ready(std::time::Duration::from_secs(10)).await;
        }
    };
    let realtime = async {
        if !cfg.realtime_enabled {
            return Ok(None);
        }
        let local = cfg.jwt_secret() == identity::jwt::DEMO_JWT_SECRET;
        realtime::Realtime::start(
            admin.clone(),
            cfg.jwt_keys(),
            local,
            realtime::RealtimeSettings {
                max_transaction_changes: cfg.realtime_max_transaction_changes,
                resume_grace: cfg.realtime_resume_grace,
            },
        )
        .await
        .map(Some)
        .map_err(|e| CommandError::other("realtime cannot start", e))
    };
    let (rest, (), realtime) = tokio::join!(rest, third_party, realtime);
    let rest = match rest {
        Ok(rest) => rest,
        Err(e) => {
            // Realtime started beside it ends with it.
            if let Ok(Some(rt)) = &realtime {
                rt.shutdown().await;
            }
            return Err(e.into());
        }
    };
    let realtime = realtime?;
    let role_settings = rest.role_settings();
    let mailer = Arc::new(mail::Mailer::new(&cfg.project, &admin)?);
    let auth = Arc::new(auth::Auth::new(
        auth_config(cfg, &cfg.jwt_keys(), api_url),
        auth::service::Connections {
            login: api.clone(),
            pool_size: pool(cfg.db_auth_pool),
            workers: cfg.workers,
            pool_timeout: timeout,
        },
        role_settings.clone(),
        mailer.clone(),
    ));
    let store: Arc<dyn object_store::ObjectStore> = if branch {
        Arc::new(storage::backend::KeepVersions(store))
    } else {
        store
    };
    let storage = Arc::new(storage::Storage::new(
        storage::service::StorageSettings {
            file_size_limit: cfg.storage_file_size_limit,
            image_transformation: cfg.storage_image_transformation,
            login: api.clone(),
            // Half as many connections as REST's, at least two.
            pool_size: pool(cfg.db_pool.div_ceil(2).max(2)),
            workers: cfg.workers,
            pool_timeout: timeout,
            render: cfg.render,
        },
        store,
        cfg.jwt_keys(),
        role_settings,
    ));
    let mut tasks = vec![
        rest.spawn_listener(api),
        spawn_rate_limit_pruner(admin.clone()),
        mail::outbox::spawn(mailer.clone(), admin.clone()),
        workers::net::spawn(
            admin.clone(),
            workers::net::reach::Reach {
                local: cfg.net_local,
                api_port: Some(cfg.port),
            },
        ),
    ];
    // pg_cron's jobs run for the project's database only: a branch is a copy whose jobs name
    // the project's database, and would run twice there.
    if !branch {
        tasks.push(workers::cron::spawn(
            admin.clone(),
            identity::clock::clock_offset,
        ));
    }
    Ok(Built {
        services: state::Services {
            rest,
            storage,
            realtime,
            auth,
            functions,
            admin,
        },
        mailer,
        tasks,
    })
}

/// The branches of the project's database (`/_supagate/v1/branches`): each served by services
/// of its own, built here when a request first names it.
pub fn branches(
    cfg: &Config,
    db: &pg::Database,
    api_url: &str,
    store: Arc<dyn object_store::ObjectStore>,
    functions: Option<Arc<functions::Functions>>,
) -> Arc<gateway::branches::Branches> {
    let (cfg2, api_url, admin, api) = (
        cfg.clone(),
        api_url.to_string(),
        db.admin.clone(),
        db.api.clone(),
    );
    let factory: gateway::branches::Factory = Arc::new(move |dbname: String| {
        let (cfg, api_url, store, functions) = (
            cfg2.clone(),
            api_url.clone(),
            store.clone(),
            functions.clone(),
        );
        let target = Target {
            admin: admin.with_dbname(&dbname),
            api: api.with_dbname(&dbname),
            branch: true,
        }
        .sited(&cfg, &api_url);
        Box::pin(async move {
            let built = build(&cfg, target, &api_url, store, functions, None).await?;
            let state = state::AppState::new(cfg, built.services, api_url);
            Ok(gateway::branches::Served::new(Arc::new(state), built.tasks))
        })
    });
    gateway::branches::Branches::new(
        factory,
        workbench::branch::Cluster {
            db: db.clone_logins(),
            slot: cfg.realtime_enabled,
        },
    )
}

/// Every few minutes, rate-limit windows long past are deleted (each replica may do it).
fn spawn_rate_limit_pruner(admin: pg::Login) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(300));
        loop {
            tick.tick().await;
            match pg::connect(&admin).await {
                Ok(c) => match auth::limits::prune(&c).await {
                    Ok(n) if n > 0 => tracing::debug!("pruned {n} rate-limit windows"),
                    Ok(_) => {}
                    Err(e) => tracing::warn!("pruning rate limits failed: {e}"),
                },
                Err(e) => tracing::debug!("pruning rate limits skipped: {e}"),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stand-in lets whoever reaches it sign in as anyone: never outside local development.
    #[test]
    fn the_local_oauth_stand_in_serves_local_development_only() {
        let mut a = project::config::Auth::default();
        let on = |secret: &str| project::config::External {
            enabled: true,
            secret: secret.into(),
            ..Default::default()
        };
        a.external.insert("github".into(), on(""));
        a.external.insert("apple".into(), on("real-secret"));
        a.external
            .insert("gitlab".into(), project::config::External::default());
        assert_eq!(local_oauth_providers(&a, true), ["apple", "github"]);
        assert!(local_oauth_providers(&a, false).is_empty());
        // With a client id and secret, Google signs in with Google itself, in any mode.
        let mut real = on("real-secret");
        real.client_id = "id".into();
        a.external.insert("google".into(), real);
        assert_eq!(local_oauth_providers(&a, true), ["apple", "github"]);
    }

    /// The SMS catcher stands in for a provider without its secret, in local development only;
    /// without a provider (as under the CLI) or with a send-SMS hook, nothing is caught.
    #[test]
    fn texts_are_caught_for_a_provider_without_its_secret_in_local_development() {
        use project::config::{OtherProvider, Twilio};
        let mut a = project::config::Auth::default();
        a.sms.enable_signup = true;
        assert!(!sms_catch(&a, true), "no provider");
        let twilio = |token: &str| Twilio {
            account_sid: "AC1".into(),
            message_service_sid: "MG1".into(),
            auth_token: token.into(),
        };
        a.sms.twilio = Some(twilio(""));
        assert!(sms_catch(&a, true));
        assert!(!sms_catch(&a, false), "a project's own JWT secret");
        a.sms.twilio = Some(twilio("real"));
        assert!(!sms_catch(&a, true));
        a.sms.twilio = None;
        a.sms.other = Some(OtherProvider::Vonage {
            from: "Bloom".into(),
            api_key: "vk".into(),
            api_secret: String::new(),
        });
        assert!(sms_catch(&a, true));
        a.hooks.insert(
            "send_sms".into(),
            project::config::Hook::Postgres {
                schema: "public".into(),
                function: "send_sms".into(),
            },
        );
        assert!(!sms_catch(&a, true), "the hook gets the code");
    }
}
