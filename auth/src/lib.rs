//! GoTrue-compatible authentication: password rules, users, sessions,
//! refresh-token rotation, e-mailed links and codes, PKCE, hooks and rate limits.
//!
//! The rules and the SQL live in the modules named after them and work on any
//! `tokio_postgres::GenericClient`; [`service`] runs GoTrue's endpoints with them (its
//! transactions, rate limits and mail), one function per endpoint, over the typed bodies of
//! [`params`]. [`Auth`] is also the shared core of the sub-services in crates of their own
//! (`auth-admin`, `auth-mfa`, `auth-external`, `oauth-server`, `passkeys`). The gateway only
//! reads HTTP into those and renders what comes back.

pub mod captcha;
pub mod config;
pub mod email;
pub mod error;
pub mod hook_http;
pub mod hooks;
pub mod identities;
pub mod limits;
pub mod models;
pub mod otp;
pub mod params;
pub mod password;
pub mod phone;
pub mod pkce;
pub mod redirect;
pub mod service;
pub mod sessions;
pub mod signup;
pub mod users;
pub mod verify;

pub use config::AuthConfig;
pub use error::{AuthError, ErrorCode, api, oauth};
pub use service::{Auth, Caller, Request};

#[cfg(test)]
pub(crate) fn test_config(redirects: &[&str]) -> AuthConfig {
    AuthConfig {
        keys: identity::JwtKeys::new(identity::jwt::DEMO_JWT_SECRET),
        jwt_expiry: 3600,
        issuer: "http://127.0.0.1:54321/auth/v1".into(),
        jwt_issuer: "http://127.0.0.1:54321/auth/v1".into(),
        session_timebox: None,
        session_inactivity_timeout: None,
        captcha: None,
        site_url: "http://127.0.0.1:3000".into(),
        additional_redirect_urls: redirects.iter().map(|s| s.to_string()).collect(),
        password: password::Policy::new(6, ""),
        disable_signup: false,
        email_enabled: true,
        anonymous_enabled: false,
        autoconfirm: true,
        double_confirm_changes: true,
        secure_password_change: false,
        max_frequency: 1,
        otp_length: 6,
        otp_expiry: 3600,
        email_sent_per_hour: 2,
        rotation: true,
        refresh_reuse_interval: 10,
        mfa: config::Mfa {
            max_enrolled_factors: 10,
            totp_enroll: true,
            totp_verify: true,
            phone_enroll: false,
            phone_verify: false,
            phone_otp_length: 6,
            phone_template: "Your code is {{ .Code }}".into(),
            phone_max_frequency: 5,
            web_authn_enroll: false,
            web_authn_verify: false,
        },
        hooks: config::Hooks::default(),
        rate_limits: config::RateLimits {
            sign_in_sign_ups: 30,
            token_refresh: 150,
            token_verifications: 30,
            anonymous_users: 30,
            sms_sent: 30,
            web3: 30,
        },
        manual_linking: false,
        web3: config::Web3::default(),
        sms: config::Sms {
            enable_signup: true,
            ..Default::default()
        },
        sms_api_url: None,
        sms_catch: true,
        external: vec!["github".into()],
        external_providers: Default::default(),
        webauthn: config::WebAuthn {
            passkey: true,
            ..Default::default()
        },
        oauth_server: config::OAuthServer {
            enabled: true,
            allow_dynamic_registration: true,
            ..Default::default()
        },
        local_dev: true,
    }
}
