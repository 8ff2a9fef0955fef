//! `[auth.external.<provider>]`: OAuth sign-in with another service (GitHub, Google, …).

use super::ConfigError;
use super::doc::Doc;
use std::collections::BTreeMap;
use toml::Value;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct External {
    pub enabled: bool,
    pub client_id: String,
    /// Empty (or an unset `env(…)`): no real credentials, as in local development.
    pub secret: String,
    pub redirect_uri: String,
    /// The provider's own base URL (self-hosted GitLab, a Keycloak realm, a single-tenant Azure).
    pub url: String,
    pub skip_nonce_check: bool,
    /// A sign-in whose provider gives no e-mail address is let in (else GoTrue refuses it).
    pub email_optional: bool,
}

pub(super) fn read(doc: &mut Doc) -> Result<BTreeMap<String, External>, ConfigError> {
    let names: Vec<String> = match doc.lookup(&["auth", "external"]) {
        Some(Value::Table(t)) => t.keys().cloned().collect(),
        _ => Vec::new(),
    };
    let mut out = BTreeMap::new();
    for name in names {
        let n = name.as_str();
        let e = External {
            enabled: doc.bool(&["auth", "external", n, "enabled"], false)?,
            client_id: doc.string(&["auth", "external", n, "client_id"], "")?,
            secret: doc.secret(&["auth", "external", n, "secret"])?,
            redirect_uri: doc.string(&["auth", "external", n, "redirect_uri"], "")?,
            url: doc.string(&["auth", "external", n, "url"], "")?,
            skip_nonce_check: doc.bool(&["auth", "external", n, "skip_nonce_check"], false)?,
            email_optional: doc.bool(&["auth", "external", n, "email_optional"], false)?,
        };
        out.insert(name, e);
    }
    Ok(out)
}
