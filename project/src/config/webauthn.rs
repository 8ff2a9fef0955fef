//! `[auth.passkey]` and `[auth.webauthn]`: passkey sign-in, and the relying party (its id, name
//! and the origins a browser ceremony may come from) that passkeys and WebAuthn factors use.

use super::ConfigError;
use super::doc::Doc;
use super::fields;
use serde::Deserialize;

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

/// `[auth.webauthn]`'s keys (the relying party's id and origins default to the site URL's).
#[derive(Deserialize)]
#[serde(default)]
struct Keys {
    #[serde(deserialize_with = "fields::text")]
    rp_display_name: String,
    #[serde(deserialize_with = "fields::given_text")]
    rp_id: Option<String>,
    #[serde(deserialize_with = "fields::given_list")]
    rp_origins: Option<Vec<String>>,
}

impl Default for Keys {
    fn default() -> Self {
        Keys {
            rp_display_name: "Supabase".into(),
            rp_id: None,
            rp_origins: None,
        }
    }
}

pub(super) fn read(doc: &mut Doc, site_url: &str) -> Result<WebAuthn, ConfigError> {
    let (origin, rp_id) = origin_and_host(site_url)
        .unwrap_or_else(|| ("http://localhost:3000".into(), "localhost".into()));
    let passkey = doc.bool(&["auth", "passkey", "enabled"], false)?;
    let k: Keys = doc.section(&["auth", "webauthn"], &[])?;
    Ok(WebAuthn {
        passkey,
        rp_display_name: k.rp_display_name,
        rp_id: k.rp_id.unwrap_or(rp_id),
        rp_origins: k.rp_origins.unwrap_or_else(|| vec![origin]),
    })
}
