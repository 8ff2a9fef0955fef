//! The auth API's flows, one function per endpoint, in a folder per sub-service (`signin`,
//! `tokens`; MFA, sign-in with OAuth providers, the admin API, the OAuth 2.1 server and passkeys
//! are crates of their own over this core), as GoTrue runs them: each in a transaction
//! as `supabase_auth_admin` on this worker's share of the auth connections, rate limits counted
//! in the database, and the mail a flow produces sent once its transaction commits (or handed to
//! the send-email hook inside it). The HTTP edge reads the request into [`Request`] and a typed
//! body ([`crate::params`]) and renders what comes back.

mod signin;
pub mod sms_send;
mod tokens;

pub use signin::verify::Verified;
pub use tokens::token::Grant;

use crate::config::AuthConfig;
use crate::error::{AuthError, ErrorCode, api};
use crate::params::Pkce;
use mail::{MailJob, Mailer};
use pg::{Login, PerThread, Pool, RoleSettings};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

const ROLE: &str = "supabase_auth_admin";
/// Windows of the per-address limits: 5 minutes, and an hour for anonymous sign-ins.
pub const WINDOW_SECS: i32 = 300;
const HOUR_SECS: i32 = 3600;

/// How the auth service reaches the database.
pub struct Connections {
    /// The API login (`authenticator`, which may become the auth admin role).
    pub login: Login,
    /// Connections in all, shared out among `workers` threads.
    pub pool_size: usize,
    pub workers: usize,
    pub pool_timeout: Duration,
}

pub struct Auth {
    cfg: AuthConfig,
    pools: PerThread<Pool>,
    role_settings: RoleSettings,
    mailer: Arc<Mailer>,
    /// OpenID providers' key sets by issuer, with when they were fetched (`auth-external`).
    oidc_keys: OidcKeys,
}

/// OpenID providers' key sets by issuer, with when they were fetched: kept by the auth service
/// for as long as it runs, used by sign-in with providers' ID tokens (`auth-external`).
pub type OidcKeys = parking_lot::Mutex<
    std::collections::HashMap<String, (std::time::Instant, identity::id_token::ProviderKeys)>,
>;

/// What the HTTP edge knows of a request.
#[derive(Debug, Default, Clone)]
pub struct Request {
    /// The client address rate limits count (a trusted proxy's header, else the peer).
    pub client_ip: String,
    /// `client_ip` came from the configured client-address header, not the connection.
    pub forwarded: bool,
    /// The peer address sessions record.
    pub peer_ip: Option<String>,
    pub user_agent: Option<String>,
    /// The `Authorization: Bearer` token.
    pub bearer: Option<String>,
    /// `redirect_to` of the query string.
    pub redirect_to: Option<String>,
}

/// The caller of an endpoint that needs a user: id and session of the access token.
#[derive(Debug, Clone, Copy)]
pub struct Caller {
    pub id: Uuid,
    pub session: Option<Uuid>,
}

/// The `keep` of [`Auth::in_tx`] for flows whose failures keep nothing.
pub fn never(_: &AuthError) -> bool {
    false
}

/// `(method, challenge)` of a PKCE request, checked.
fn challenge(p: &Pkce) -> Result<Option<(String, String)>, AuthError> {
    let method = p.code_challenge_method.as_deref();
    let challenge = p.code_challenge.as_deref();
    crate::pkce::validate(method, challenge)?;
    Ok(method
        .zip(challenge)
        .filter(|(_, c)| !c.is_empty())
        .map(|(m, c)| (m.to_string(), c.to_string())))
}

/// A password hashed off the async threads (bcrypt is slow by design).
pub async fn hash_password(pw: String) -> String {
    tokio::task::spawn_blocking(move || crate::password::hash(&pw))
        .await
        .expect("hashing thread")
}

async fn verify_password(pw: String, stored: String) -> bool {
    tokio::task::spawn_blocking(move || crate::password::verify(&pw, &stored))
        .await
        .unwrap_or(false)
}

impl Auth {
    pub fn new(
        cfg: AuthConfig,
        conn: Connections,
        role_settings: RoleSettings,
        mailer: Arc<Mailer>,
    ) -> Auth {
        let (login, size, wait) = (
            conn.login,
            pg::pool::share(conn.pool_size, conn.workers),
            conn.pool_timeout,
        );
        Auth {
            cfg,
            pools: PerThread::new(move || Pool::new(&login, size, wait)),
            role_settings,
            mailer,
            oidc_keys: Default::default(),
        }
    }

    /// The project's auth settings.
    pub fn config(&self) -> &AuthConfig {
        &self.cfg
    }

    /// The OpenID providers' key sets fetched so far.
    pub fn oidc_keys(&self) -> &OidcKeys {
        &self.oidc_keys
    }

    /// Runs `f` in a transaction as the auth admin role; commits when `f` succeeds (or when
    /// `keep` says the failure must be kept, like a revoked token family). The mails it returns
    /// go out after the commit — or to the send-email hook, inside the transaction, when one
    /// is set. The sub-services in crates of their own (the admin API) run their mailing flows
    /// through it.
    pub async fn in_tx_mail<T, F>(&self, keep: fn(&AuthError) -> bool, f: F) -> Result<T, AuthError>
    where
        F: AsyncFnOnce(&tokio_postgres::Client) -> Result<(T, Vec<MailJob>), AuthError>,
    {
        let tx = pg::begin_as(&self.pools.get(), ROLE, "{}", &self.role_settings.of(ROLE))
            .await
            .map_err(db_fail)?;
        let mut result = f(tx.pg()).await;
        if let Ok((_, jobs)) = &mut result
            && let Err(e) = crate::email::count_sent(tx.pg(), &self.cfg, jobs).await
        {
            result = Err(e);
        }
        if let (Ok((_, jobs)), Some(hook)) = (&mut result, &self.cfg.hooks.send_email) {
            for job in std::mem::take(jobs) {
                if let Err(e) = send_email_hook(tx.pg(), hook, &job).await {
                    result = Err(e);
                    break;
                }
            }
        }
        let commit = match &result {
            Ok(_) => true,
            Err(e) => keep(e),
        };
        tx.finish(commit).await.map_err(db_fail)?;
        let (value, jobs) = result?;
        if let Err(e) = self.mailer.deliver(&jobs).await {
            tracing::error!("mail delivery failed: {e}");
            let what = jobs.first().map(|j| j.kind.action_type()).unwrap_or("");
            return Err(api(
                500,
                ErrorCode::UnexpectedFailure,
                format!("Error sending {what} email"),
            ));
        }
        Ok(value)
    }

    /// `in_tx_mail` for flows that send no mail; the sub-services in crates of their own (the
    /// OAuth 2.1 server) run their SQL through it too.
    pub async fn in_tx<T, F>(&self, keep: fn(&AuthError) -> bool, f: F) -> Result<T, AuthError>
    where
        F: AsyncFnOnce(&tokio_postgres::Client) -> Result<T, AuthError>,
    {
        self.in_tx_mail(keep, async |c| Ok((f(c).await?, Vec::new())))
            .await
    }

    /// Counts the request in a shared, committed window per client address; 429 past the
    /// limit. Outside local development every request counts, as the client the configured
    /// header names (a same-host proxy's visitor) or else as the connecting address, loopback
    /// included. In local development only what GoTrue under the Supabase CLI counts: the CLI
    /// sets no `GOTRUE_RATE_LIMIT_HEADER`, and GoTrue limits per client only by that header,
    /// so only a request that carries a configured header counts.
    async fn limit(
        &self,
        r: &Request,
        bucket: &str,
        max: u32,
        window: i32,
    ) -> Result<(), AuthError> {
        if self.cfg.local_dev && !r.forwarded {
            return Ok(());
        }
        self.limit_key(&format!("{bucket}:{}", r.client_ip), max, window)
            .await
    }

    /// Counts an attempt on `key` (an address, a factor) in a committed window, whoever makes
    /// it and from wherever: 429 past the limit.
    pub async fn limit_key(&self, key: &str, max: u32, window: i32) -> Result<(), AuthError> {
        let allowed = self
            .in_tx(never, async |c| {
                crate::limits::allow(c, key, max, window).await
            })
            .await?;
        if allowed {
            Ok(())
        } else {
            Err(api(
                429,
                ErrorCode::OverRequestRateLimit,
                "Request rate limit reached",
            ))
        }
    }

    /// Counts a sign-in attempt of the request's client (`[auth.rate_limit] sign_in_sign_ups`).
    pub async fn limit_sign_in(&self, r: &Request) -> Result<(), AuthError> {
        let n = self.cfg.rate_limits.sign_in_sign_ups;
        self.limit(r, "signin", n, WINDOW_SECS).await
    }

    /// Where the flow may send the browser back to: `redirect_to` when allowed, else the site.
    pub fn redirect_to(&self, cfg: &AuthConfig, r: &Request, body: Option<&str>) -> String {
        let asked = r.redirect_to.as_deref().or(body);
        crate::redirect::resolve(cfg, asked)
    }

    /// The caller of an endpoint that needs a user, from the bearer token.
    pub fn caller(&self, r: &Request) -> Result<Caller, AuthError> {
        let token = r.bearer.as_deref().ok_or_else(|| {
            api(
                401,
                ErrorCode::NoAuthorization,
                "This endpoint requires a valid Bearer token",
            )
        })?;
        let claims = self.cfg.keys.verify(token).map_err(|e| {
            api(
                403,
                ErrorCode::BadJwt,
                format!("invalid JWT: unable to parse or verify signature, {e}"),
            )
        })?;
        let sub = claims["sub"].as_str().unwrap_or_default();
        if sub.is_empty() {
            return Err(api(
                403,
                ErrorCode::BadJwt,
                "invalid claim: missing sub claim",
            ));
        }
        let id = Uuid::parse_str(sub).map_err(|_| {
            api(
                400,
                ErrorCode::BadJwt,
                "invalid claim: sub claim must be a UUID",
            )
        })?;
        // A token without a session (or with the nil one) names none, as GoTrue reads it.
        let session = match claims["session_id"].as_str().unwrap_or_default() {
            "" => None,
            s => Some(Uuid::parse_str(s).map_err(|_| {
                api(
                    403,
                    ErrorCode::BadJwt,
                    "invalid claim: session_id claim must be a UUID",
                )
            })?),
        }
        .filter(|s| !s.is_nil());
        Ok(Caller { id, session })
    }

    /// GoTrue's checks of a signed-in caller, for an endpoint that reads nothing else of them
    /// in a transaction: the user and the session still exist, and the user is not banned.
    pub async fn check_caller(&self, who: Caller) -> Result<(), AuthError> {
        self.in_tx(never, async |c| {
            crate::sessions::check(c, who.id, who.session)
                .await
                .map(|_| ())
        })
        .await
    }

    /// `GET /settings`: the providers and switches clients read.
    pub fn settings(&self) -> Value {
        let a = &self.cfg;
        let mut external = serde_json::Map::new();
        for p in PROVIDERS {
            external.insert(p.into(), json!(false));
        }
        for p in &a.external {
            external.insert(p.clone(), json!(true));
        }
        external.insert("email".into(), json!(a.email_enabled));
        external.insert("phone".into(), json!(a.sms.enable_signup));
        external.insert("anonymous_users".into(), json!(a.anonymous_enabled));
        json!({
            "external": external,
            "disable_signup": a.disable_signup,
            "mailer_autoconfirm": a.autoconfirm,
            "phone_autoconfirm": a.sms.enable_signup && !a.sms.enable_confirmations,
            "sms_provider": "",
            "saml_enabled": false,
        })
    }

    /// `GET /authorize?provider=…` (and linking an identity): no OAuth provider can be on.
    pub fn authorize(&self, provider: &str) -> AuthError {
        let why = if PROVIDERS.contains(&provider) {
            "provider is not enabled".to_string()
        } else {
            format!("Provider {provider} could not be found")
        };
        crate::error::validation(format!("Unsupported provider: {why}"))
    }
}

/// The OAuth providers GoTrue knows; all off here.
const PROVIDERS: [&str; 24] = [
    "apple",
    "azure",
    "bitbucket",
    "discord",
    "facebook",
    "figma",
    "fly",
    "github",
    "gitlab",
    "google",
    "keycloak",
    "kakao",
    "linkedin",
    "linkedin_oidc",
    "notion",
    "slack",
    "slack_oidc",
    "snapchat",
    "spotify",
    "twitch",
    "twitter",
    "x",
    "workos",
    "zoom",
];

fn db_fail(e: pg::DbError) -> AuthError {
    tracing::error!("auth database error: {e}");
    if e.is_unavailable() {
        api(
            503,
            ErrorCode::UnexpectedFailure,
            "The database is not available; try again shortly",
        )
    } else {
        api(500, ErrorCode::UnexpectedFailure, "Internal Server Error")
    }
}

/// The send-email hook gets what GoTrue gives it instead of a mail.
async fn send_email_hook(
    c: &tokio_postgres::Client,
    hook: &crate::config::HookFn,
    job: &MailJob,
) -> Result<(), AuthError> {
    let user = crate::users::require(c, job.user_id).await?;
    let email_data = crate::models::hooks::EmailData {
        token: job.var("Token"),
        token_hash: job.var("TokenHash"),
        redirect_to: job.var("RedirectTo"),
        email_action_type: job.kind.action_type(),
        site_url: job.var("SiteURL"),
        token_new: "",
        token_hash_new: "",
    };
    crate::hooks::send_email(c, hook, &user, email_data).await
}
