//! `[auth]` (GoTrue's settings: sign-up, passwords, e-mail flows and templates, SMTP, MFA,
//! hooks, rate limits) and `[inbucket]` (the local mail catcher), with the CLI's defaults.

use super::ConfigError;
use super::doc::Doc;
use super::fields;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Value;

/// `[auth]`; what is read apart (SMS, WebAuthn, providers, hooks, third parties, sessions,
/// captcha) is skipped by serde.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct Auth {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    /// HS256 secret of access tokens and API keys (None: the CLI's well-known demo secret).
    #[serde(deserialize_with = "fields::some_text")]
    pub jwt_secret: Option<String>,
    /// A JSON file of signing keys (JWKs with their private parts), as the CLI's.
    #[serde(deserialize_with = "fields::some_text")]
    pub signing_keys_path: Option<String>,
    #[serde(deserialize_with = "fields::text")]
    pub site_url: String,
    #[serde(deserialize_with = "fields::list")]
    pub additional_redirect_urls: Vec<String>,
    #[serde(deserialize_with = "fields::int::<30, 604_800, _, _>")]
    pub jwt_expiry: i64,
    #[serde(deserialize_with = "fields::flag")]
    pub enable_signup: bool,
    #[serde(deserialize_with = "fields::flag")]
    pub enable_anonymous_sign_ins: bool,
    #[serde(deserialize_with = "fields::flag")]
    pub enable_manual_linking: bool,
    #[serde(deserialize_with = "fields::flag")]
    pub enable_refresh_token_rotation: bool,
    #[serde(deserialize_with = "fields::int::<0, { i32::MAX as i64 }, _, _>")]
    pub refresh_token_reuse_interval: i64,
    #[serde(deserialize_with = "fields::int::<6, 72, _, _>")]
    pub minimum_password_length: usize,
    /// "", "letters_digits", "lower_upper_letters_digits" or "lower_upper_letters_digits_symbols".
    #[serde(deserialize_with = "fields::text")]
    pub password_requirements: String,
    pub rate_limit: RateLimits,
    pub email: Email,
    pub mfa: Mfa,
    #[serde(skip)]
    pub sms: super::sms::Sms,
    pub oauth_server: OAuthServer,
    #[serde(skip)]
    pub webauthn: super::webauthn::WebAuthn,
    /// `[auth.external.<provider>]`, by provider.
    #[serde(skip)]
    pub external: BTreeMap<String, super::external::External>,
    /// Hooks switched on, by name (`custom_access_token`, `send_email`, …).
    #[serde(skip)]
    pub hooks: BTreeMap<String, Hook>,
    /// `[auth] external_url`: GoTrue's API_EXTERNAL_URL, the base of its links (None:
    /// `{API URL}/auth/v1`).
    #[serde(deserialize_with = "external_url")]
    pub external_url: Option<String>,
    /// `[auth] jwt_issuer`: the `iss` of access tokens (None: the external URL).
    #[serde(deserialize_with = "fields::some_text")]
    pub jwt_issuer: Option<String>,
    #[serde(skip)]
    pub third_party: Option<super::auth_trust::ThirdParty>,
    #[serde(skip)]
    pub sessions: super::auth_trust::Sessions,
    #[serde(skip)]
    pub captcha: Option<super::auth_trust::Captcha>,
    pub web3: Web3,
}

/// `[auth.web3.solana]` and `[auth.web3.ethereum]` `enabled`: the chains wallets sign in with.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(from = "Web3Keys")]
pub struct Web3 {
    pub solana: bool,
    pub ethereum: bool,
}

/// `[auth.rate_limit]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct RateLimits {
    /// Sign-ins and sign-ups per address per 5 minutes.
    #[serde(deserialize_with = "fields::int::<0, { i32::MAX as i64 }, _, _>")]
    pub sign_in_sign_ups: u32,
    /// Refresh-token grants per address per 5 minutes.
    #[serde(deserialize_with = "fields::int::<0, { i32::MAX as i64 }, _, _>")]
    pub token_refresh: u32,
    /// E-mails sent per hour (the whole project).
    #[serde(deserialize_with = "fields::int::<0, { i32::MAX as i64 }, _, _>")]
    pub email_sent: u32,
    /// Anonymous sign-ins per address per hour.
    #[serde(deserialize_with = "fields::int::<0, { i32::MAX as i64 }, _, _>")]
    pub anonymous_users: u32,
    /// Text messages sent per hour (the whole project).
    #[serde(deserialize_with = "fields::int::<0, { i32::MAX as i64 }, _, _>")]
    pub sms_sent: u32,
    /// Web3 sign-in attempts per address per 5 minutes.
    #[serde(deserialize_with = "fields::int::<0, { i32::MAX as i64 }, _, _>")]
    pub web3: u32,
    /// OTP and magic-link verifications per address per 5 minutes.
    #[serde(deserialize_with = "fields::int::<0, { i32::MAX as i64 }, _, _>")]
    pub token_verifications: u32,
}

/// `[auth.email]`.
/// `[auth.email]` (templates, notifications and SMTP are read apart).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct Email {
    #[serde(deserialize_with = "fields::flag")]
    pub enable_signup: bool,
    #[serde(deserialize_with = "fields::flag")]
    pub enable_confirmations: bool,
    #[serde(deserialize_with = "fields::flag")]
    pub double_confirm_changes: bool,
    #[serde(deserialize_with = "fields::flag")]
    pub secure_password_change: bool,
    /// Seconds between two mails of one kind to one user.
    #[serde(deserialize_with = "fields::duration")]
    pub max_frequency: u64,
    #[serde(deserialize_with = "fields::int::<6, 10, _, _>")]
    pub otp_length: usize,
    /// Seconds an e-mailed code or link stays valid.
    #[serde(deserialize_with = "fields::int::<1, 86_400, _, _>")]
    pub otp_expiry: u64,
    /// `[auth.email.template.NAME]`: invite, confirmation, recovery, magic_link, email_change,
    /// reauthentication.
    #[serde(skip)]
    pub templates: BTreeMap<String, Template>,
    /// `[auth.email.notification.NAME]` switched on: password_changed, email_changed, …
    #[serde(skip)]
    pub notifications: BTreeMap<String, Template>,
    /// `[auth.email.smtp]` when enabled; otherwise mail goes to the built-in catcher.
    #[serde(skip)]
    pub smtp: Option<Smtp>,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct Template {
    #[serde(deserialize_with = "fields::some_text")]
    pub subject: Option<String>,
    /// Relative to the project folder, as the CLI reads it.
    #[serde(deserialize_with = "fields::some_text")]
    pub content_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct Smtp {
    #[serde(deserialize_with = "fields::text")]
    pub host: String,
    #[serde(deserialize_with = "fields::int::<1, 65535, _, _>")]
    pub port: u16,
    #[serde(deserialize_with = "fields::text")]
    pub user: String,
    #[serde(deserialize_with = "fields::text")]
    pub pass: String,
    #[serde(deserialize_with = "fields::text")]
    pub admin_email: String,
    #[serde(deserialize_with = "fields::text")]
    pub sender_name: String,
}

impl Default for Smtp {
    fn default() -> Self {
        Smtp {
            host: String::new(),
            port: 587,
            user: String::new(),
            pass: String::new(),
            admin_email: String::new(),
            sender_name: String::new(),
        }
    }
}

/// `[auth.oauth_server]`: GoTrue as an OAuth 2.1 authorization server.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct OAuthServer {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    /// Clients may register themselves (`POST /oauth/clients/register`).
    #[serde(deserialize_with = "fields::flag")]
    pub allow_dynamic_registration: bool,
    /// The app's consent page, under the site URL.
    #[serde(deserialize_with = "fields::text")]
    pub authorization_url_path: String,
}

impl Default for OAuthServer {
    fn default() -> Self {
        OAuthServer {
            enabled: false,
            allow_dynamic_registration: false,
            authorization_url_path: "/oauth/consent".into(),
        }
    }
}

/// `[auth.mfa]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "MfaKeys")]
pub struct Mfa {
    pub max_enrolled_factors: u32,
    pub totp_enroll: bool,
    pub totp_verify: bool,
    pub phone_enroll: bool,
    pub phone_verify: bool,
    /// `[auth.mfa.phone]`: digits of a texted code, its message, seconds between two texts.
    pub phone_otp_length: usize,
    pub phone_template: String,
    pub phone_max_frequency: u64,
    pub web_authn_enroll: bool,
    pub web_authn_verify: bool,
}

/// `[auth.hook.NAME]`: a `pg-functions://DATABASE/SCHEMA/FUNCTION` URI, or an `http(s)://`
/// endpoint called with Standard Webhooks signatures.
#[derive(Debug, Clone, PartialEq)]
pub enum Hook {
    Postgres {
        schema: String,
        function: String,
    },
    Http {
        uri: String,
        /// `v1,whsec_<base64>` secrets (`secrets` split at `|`): each signs every call.
        secrets: Vec<String>,
    },
}

/// `[auth.hook.NAME]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct HookKeys {
    #[serde(deserialize_with = "fields::text")]
    uri: String,
    #[serde(deserialize_with = "fields::text")]
    secrets: String,
}

/// Whether a hook secret has the form the CLI requires: `v1,whsec_` and 32 to 88 base64
/// characters.
fn hook_secret_ok(secret: &str) -> bool {
    secret.strip_prefix("v1,whsec_").is_some_and(|b| {
        (32..=88).contains(&b.len())
            && b.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"+/=".contains(&c))
    })
}

/// `[inbucket]`: the local mail catcher.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct Inbucket {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    #[serde(deserialize_with = "fields::int::<1, 65535, _, _>")]
    pub port: u16,
    /// `smtp_port`: the catcher also takes mail over SMTP there (None: not set, not served).
    #[serde(deserialize_with = "fields::some_int::<1, 65535, _, _>")]
    pub smtp_port: Option<u16>,
    /// `pop3_port`: the caught mail served over POP3 there, as Inbucket does.
    #[serde(deserialize_with = "fields::some_int::<1, 65535, _, _>")]
    pub pop3_port: Option<u16>,
    #[serde(deserialize_with = "fields::text")]
    pub admin_email: String,
    #[serde(deserialize_with = "fields::text")]
    pub sender_name: String,
}

pub const PASSWORD_REQUIREMENTS: [&str; 4] = [
    "",
    "letters_digits",
    "lower_upper_letters_digits",
    "lower_upper_letters_digits_symbols",
];

pub const TEMPLATES: [&str; 6] = [
    "invite",
    "confirmation",
    "recovery",
    "magic_link",
    "email_change",
    "reauthentication",
];

pub const NOTIFICATIONS: [&str; 7] = [
    "password_changed",
    "email_changed",
    "phone_changed",
    "identity_linked",
    "identity_unlinked",
    "mfa_factor_enrolled",
    "mfa_factor_unenrolled",
];

pub const HOOKS: [&str; 6] = [
    "custom_access_token",
    "before_user_created",
    "send_email",
    "send_sms",
    "password_verification_attempt",
    "mfa_verification_attempt",
];

impl Default for Auth {
    fn default() -> Self {
        Auth {
            enabled: true,
            jwt_secret: None,
            signing_keys_path: None,
            site_url: "http://127.0.0.1:3000".into(),
            additional_redirect_urls: vec!["https://127.0.0.1:3000".into()],
            jwt_expiry: 3600,
            enable_signup: true,
            enable_anonymous_sign_ins: false,
            enable_manual_linking: false,
            enable_refresh_token_rotation: true,
            refresh_token_reuse_interval: 10,
            minimum_password_length: 6,
            password_requirements: String::new(),
            rate_limit: RateLimits::default(),
            email: Email::default(),
            mfa: Mfa {
                max_enrolled_factors: 10,
                totp_enroll: false,
                totp_verify: false,
                phone_enroll: false,
                phone_verify: false,
                phone_otp_length: 6,
                phone_template: "Your code is {{ .Code }}".into(),
                phone_max_frequency: 5,
                web_authn_enroll: false,
                web_authn_verify: false,
            },
            sms: super::sms::Sms::default(),
            oauth_server: OAuthServer::default(),
            webauthn: Default::default(),
            external: BTreeMap::new(),
            external_url: None,
            jwt_issuer: None,
            third_party: None,
            sessions: Default::default(),
            captcha: None,
            web3: Web3::default(),
            hooks: BTreeMap::new(),
        }
    }
}

impl Default for Email {
    fn default() -> Self {
        Email {
            enable_signup: true,
            enable_confirmations: false,
            double_confirm_changes: true,
            secure_password_change: false,
            max_frequency: 1,
            otp_length: 6,
            otp_expiry: 3600,
            templates: BTreeMap::new(),
            notifications: BTreeMap::new(),
            smtp: None,
        }
    }
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            sign_in_sign_ups: 30,
            token_refresh: 150,
            email_sent: 2,
            anonymous_users: 30,
            sms_sent: 30,
            token_verifications: 30,
            web3: 30,
        }
    }
}

/// `[auth] external_url`, without a trailing `/`; empty is none.
fn external_url<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(fields::some_text(d)?.map(|u| u.trim_end_matches('/').to_string()))
}

/// `[auth.mfa]`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct MfaKeys {
    #[serde(deserialize_with = "fields::some_int::<0, 100, _, _>")]
    max_enrolled_factors: Option<u32>,
    totp: Factor,
    phone: PhoneFactor,
    web_authn: Factor,
}

impl From<MfaKeys> for Mfa {
    fn from(m: MfaKeys) -> Mfa {
        let d = Auth::default().mfa;
        Mfa {
            max_enrolled_factors: m.max_enrolled_factors.unwrap_or(d.max_enrolled_factors),
            totp_enroll: m.totp.enroll_enabled,
            totp_verify: m.totp.verify_enabled,
            phone_enroll: m.phone.enroll_enabled,
            phone_verify: m.phone.verify_enabled,
            phone_otp_length: m.phone.otp_length.unwrap_or(d.phone_otp_length),
            phone_template: m.phone.template.unwrap_or(d.phone_template),
            phone_max_frequency: m.phone.max_frequency.unwrap_or(d.phone_max_frequency),
            web_authn_enroll: m.web_authn.enroll_enabled,
            web_authn_verify: m.web_authn.verify_enabled,
        }
    }
}

/// `[auth.mfa.totp]`, `[auth.mfa.web_authn]`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Factor {
    #[serde(deserialize_with = "fields::flag")]
    enroll_enabled: bool,
    #[serde(deserialize_with = "fields::flag")]
    verify_enabled: bool,
}

/// `[auth.mfa.phone]`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct PhoneFactor {
    #[serde(deserialize_with = "fields::flag")]
    enroll_enabled: bool,
    #[serde(deserialize_with = "fields::flag")]
    verify_enabled: bool,
    #[serde(deserialize_with = "fields::some_int::<6, 10, _, _>")]
    otp_length: Option<usize>,
    #[serde(deserialize_with = "fields::given_text")]
    template: Option<String>,
    #[serde(deserialize_with = "fields::given_duration")]
    max_frequency: Option<u64>,
}

/// `[auth.web3]`: `solana` and `ethereum`, each switched by its `enabled`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Web3Keys {
    solana: Chain,
    ethereum: Chain,
}

impl From<Web3Keys> for Web3 {
    fn from(w: Web3Keys) -> Web3 {
        Web3 {
            solana: w.solana.enabled,
            ethereum: w.ethereum.enabled,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Chain {
    #[serde(deserialize_with = "fields::flag")]
    enabled: bool,
}

impl Default for Inbucket {
    fn default() -> Self {
        Inbucket {
            enabled: true,
            port: 54324,
            smtp_port: None,
            pop3_port: None,
            admin_email: "admin@email.com".into(),
            sender_name: "Admin".into(),
        }
    }
}

fn names(doc: &Doc, path: &[&str]) -> Vec<String> {
    match doc.lookup(path) {
        Some(Value::Table(t)) => t.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

pub(super) fn read(doc: &mut Doc) -> Result<Auth, ConfigError> {
    let mut templates = BTreeMap::new();
    for name in names(doc, &["auth", "email", "template"]) {
        if !TEMPLATES.contains(&name.as_str()) {
            return Err(doc.err(
                &["auth", "email", "template", &name],
                format!("unknown template (use {})", TEMPLATES.join(", ")),
            ));
        }
        let t = doc.section(&["auth", "email", "template", &name], &[])?;
        templates.insert(name, t);
    }
    let mut notifications = BTreeMap::new();
    for name in names(doc, &["auth", "email", "notification"]) {
        let base = ["auth", "email", "notification", name.as_str()];
        if !NOTIFICATIONS.contains(&name.as_str()) {
            return Err(doc.err(
                &base,
                format!("unknown notification (use {})", NOTIFICATIONS.join(", ")),
            ));
        }
        if doc.bool(&[&base[..], &["enabled"]].concat(), false)? {
            let t = doc.section(&base, &[])?;
            notifications.insert(name, t);
        }
    }
    let smtp = if doc.lookup(&["auth", "email", "smtp"]).is_some()
        && doc.bool(&["auth", "email", "smtp", "enabled"], true)?
    {
        Some(doc.section::<Smtp>(&["auth", "email", "smtp"], &[])?).filter(|s| !s.host.is_empty())
    } else {
        None
    };
    let mut hooks = BTreeMap::new();
    for name in names(doc, &["auth", "hook"]) {
        let base = ["auth", "hook", name.as_str()];
        if !HOOKS.contains(&name.as_str()) {
            return Err(doc.err(&base, format!("unknown hook (use {})", HOOKS.join(", "))));
        }
        if !doc.bool(&[&base[..], &["enabled"]].concat(), false)? {
            continue;
        }
        let uri_key = [&base[..], &["uri"]].concat();
        let secrets_key = [&base[..], &["secrets"]].concat();
        let HookKeys { uri, secrets } = doc.section(&base, &[])?;
        let scheme = uri.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
        let hook = match scheme.as_deref() {
            Some("pg-functions") => {
                let parts: Vec<&str> = uri["pg-functions://".len()..].split('/').collect();
                let [_db, schema, function] = parts[..] else {
                    return Err(doc.err(
                        &uri_key,
                        format!("\"{uri}\" is not a pg-functions://DATABASE/SCHEMA/FUNCTION URI"),
                    ));
                };
                if !secrets.is_empty() {
                    return Err(doc.err(&secrets_key, "unsupported for a pg-functions URI"));
                }
                Hook::Postgres {
                    schema: schema.to_string(),
                    function: function.to_string(),
                }
            }
            Some("http" | "https") => {
                let host = uri.split_once("://").map_or("", |(_, r)| {
                    r.split(['/', '?', '#']).next().unwrap_or_default()
                });
                if host.is_empty() || host.contains(char::is_whitespace) {
                    return Err(doc.err(&uri_key, format!("\"{uri}\" is not a URL")));
                }
                if secrets.is_empty() {
                    return Err(doc.err(&secrets_key, "required for an HTTP hook"));
                }
                let secrets: Vec<String> = secrets.split('|').map(str::to_string).collect();
                if !secrets.iter().all(|s| hook_secret_ok(s)) {
                    return Err(doc.err(
                        &secrets_key,
                        "must be formatted as \"v1,whsec_<base64_encoded_secret>\" with a \
                         minimum length of 32 characters",
                    ));
                }
                Hook::Http { uri, secrets }
            }
            _ => {
                return Err(doc.err(
                    &uri_key,
                    format!("\"{uri}\" should be a HTTP, HTTPS, or pg-functions URI"),
                ));
            }
        };
        hooks.insert(name.clone(), hook);
    }
    let mut auth: Auth = doc.section(
        &["auth"],
        &[
            "rate_limit",
            "email",
            "mfa",
            "mfa.totp",
            "mfa.phone",
            "mfa.web_authn",
            "oauth_server",
            "web3",
            "web3.solana",
            "web3.ethereum",
        ],
    )?;
    auth.email.templates = templates;
    auth.email.notifications = notifications;
    auth.email.smtp = smtp;
    auth.hooks = hooks;
    auth.sms = super::sms::read(doc)?;
    auth.external = super::external::read(doc)?;
    auth.third_party = super::auth_trust::read_third_party(doc)?;
    auth.sessions = super::auth_trust::read_sessions(doc)?;
    auth.captcha = super::auth_trust::read_captcha(doc)?;
    auth.webauthn = super::webauthn::read(doc, &auth.site_url)?;
    if let Some(secret) = &auth.jwt_secret
        && secret.len() < 16
    {
        return Err(doc.err(&["auth", "jwt_secret"], "must be at least 16 characters"));
    }
    if !PASSWORD_REQUIREMENTS.contains(&auth.password_requirements.as_str()) {
        return Err(doc.err(
            &["auth", "password_requirements"],
            format!(
                "\"{}\" is not one of letters_digits, lower_upper_letters_digits, \
                 lower_upper_letters_digits_symbols",
                auth.password_requirements
            ),
        ));
    }
    Ok(auth)
}
