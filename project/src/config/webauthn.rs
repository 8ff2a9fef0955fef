//! `[auth.passkey]` and `[auth.webauthn]`: passkey sign-in, and the relying party (its id, name
//! and the origins a browser ceremony may come from) that passkeys and WebAuthn factors use.

use super::ConfigError;
use super::doc::Doc;

#[derive(Debug, Clone, PartialEq)]
pub struct WebAuthn {
    /// `[auth.passkey] enabled`: passkeys may be registered and sign users in.
    pub passkey: bool,
    pub rp_display_name: String,
    /// The relying party id (a domain; its SHA-256 starts every authenticator data).
    pub rp_id: String,
    /// Origins a ceremony's client data may name.
    pub rp_origins: Vec<String>,
}

impl Default for WebAuthn {
    fn default() -> Self {
        WebAuthn {
            passkey: false,
            rp_display_name: "Supabase".into(),
            // The CLI's default site URL, http://127.0.0.1:3000.
            rp_id: "127.0.0.1".into(),
            rp_origins: vec!["http://127.0.0.1:3000".into()],
        }
    }
}

/// The origin (`scheme://host[:port]`) and host of a URL such as the site URL.
fn origin_and_host(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?.to_string(),
        None => authority.split(':').next()?.to_string(),
    };
    (!host.is_empty()).then(|| (format!("{scheme}://{authority}"), host))
}

pub(super) fn read(doc: &mut Doc, site_url: &str) -> Result<WebAuthn, ConfigError> {
    let w = |k: &'static str| ["auth", "webauthn", k];
    let (origin, rp_id) = origin_and_host(site_url)
        .unwrap_or_else(|| ("http://localhost:3000".into(), "localhost".into()));
    Ok(WebAuthn {
        passkey: doc.bool(&["auth", "passkey", "enabled"], false)?,
        rp_display_name: doc.string(&w("rp_display_name"), "Supabase")?,
        rp_id: doc.string(&w("rp_id"), &rp_id)?,
        rp_origins: doc.strings(&w("rp_origins"), &[origin])?,
    })
}
