//! What the auth flows need to know of the project's `[auth]` settings.

use crate::password::Policy;
use identity::JwtKeys;

/// A hook: a `pg-functions://` function the auth admin role calls, or an HTTP endpoint.
pub use project::config::Hook as HookFn;

#[derive(Clone, Default)]
pub struct Hooks {
    pub custom_access_token: Option<HookFn>,
    pub before_user_created: Option<HookFn>,
    pub send_email: Option<HookFn>,
    pub send_sms: Option<HookFn>,
    pub password_verification_attempt: Option<HookFn>,
    pub mfa_verification_attempt: Option<HookFn>,
}

/// `[auth.mfa]` and `[auth.oauth_server]` as the project's config.toml gives them.
pub use project::config::{Mfa, OAuthServer, OtherProvider, Sms, Twilio, Web3, WebAuthn};

/// `[auth.rate_limit]`: requests per address per window (5 minutes; anonymous sign-ins an hour).
#[derive(Clone, Debug)]
pub struct RateLimits {
    pub sign_in_sign_ups: u32,
    pub token_refresh: u32,
    pub token_verifications: u32,
    pub anonymous_users: u32,
    pub sms_sent: u32,
    /// Web3 sign-in attempts per address per 5 minutes.
    pub web3: u32,
}

#[derive(Clone)]
pub struct AuthConfig {
    pub keys: JwtKeys,
    /// Access token lifetime in seconds.
    pub jwt_expiry: i64,
    /// GoTrue's external URL, the base of links in mails and of OAuth callbacks: `[auth]
    /// external_url`, else `{API URL}/auth/v1`.
    pub issuer: String,
    /// `iss` of access tokens: `[auth] jwt_issuer`, else [`AuthConfig::issuer`].
    pub jwt_issuer: String,
    /// `[auth.sessions]`: seconds after its start / its last refresh after which a session can
    /// no longer be refreshed.
    pub session_timebox: Option<i64>,
    pub session_inactivity_timeout: Option<i64>,
    /// `[auth.captcha]` switched on.
    pub captcha: Option<crate::captcha::Captcha>,
    pub site_url: String,
    pub additional_redirect_urls: Vec<String>,
    pub password: Policy,
    pub disable_signup: bool,
    /// `[auth.email] enable_signup`: e-mail sign-ups and sign-ins are allowed.
    pub email_enabled: bool,
    pub anonymous_enabled: bool,
    /// Users are confirmed at sign-up (`enable_confirmations = false`).
    pub autoconfirm: bool,
    pub double_confirm_changes: bool,
    pub secure_password_change: bool,
    /// Seconds between two mails of one kind to one user.
    pub max_frequency: i64,
    pub otp_length: usize,
    /// Seconds an e-mailed code or link stays valid.
    pub otp_expiry: i64,
    /// Mails per hour (the whole project) while confirmations are on.
    pub email_sent_per_hour: u32,
    /// A refresh token reused after the reuse interval revokes its whole family.
    pub rotation: bool,
    /// Seconds during which a just-rotated refresh token may be presented again.
    pub refresh_reuse_interval: i64,
    pub mfa: Mfa,
    pub hooks: Hooks,
    pub rate_limits: RateLimits,
    /// `[auth] enable_manual_linking`.
    pub manual_linking: bool,
    pub web3: Web3,
    pub oauth_server: OAuthServer,
    /// `[auth.sms]`: phone sign-ups and sign-ins are on with `enable_signup`.
    pub sms: Sms,
    /// `[auth.passkey]` and `[auth.webauthn]`.
    pub webauthn: WebAuthn,
    /// OAuth providers switched on (`[auth.external.<provider>] enabled`), signed in through
    /// the local stand-in page in local development mode.
    pub external: Vec<String>,
    /// The providers switched on, by name, with their settings: for sign-in with their ID
    /// tokens, and for sign-in with the providers themselves when a secret is given.
    pub external_providers: std::collections::BTreeMap<String, project::config::External>,
    /// Texts are caught in `supagate.sms` (listed on the catcher's page) instead of sent: the
    /// catcher stands in for an enabled provider that has no secret, in local development.
    /// Without it and without a provider, texting a code fails as GoTrue's does.
    pub sms_catch: bool,
    /// The SMS provider's API base URL, for a compatible service or a stand-in (None: the
    /// provider's own).
    pub sms_api_url: Option<String>,
    /// Local development (the demo JWT secret, listening on loopback): per-client limits only
    /// for requests whose client a configured header names, as GoTrue under the Supabase CLI.
    pub local_dev: bool,
}
