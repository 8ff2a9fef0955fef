//! `[auth.external.<provider>]`: OAuth sign-in with another service (GitHub, Google, …).

use super::ConfigError;
use super::doc::Doc;
use super::fields;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Value;

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(default)]
pub struct External {
    #[serde(deserialize_with = "fields::flag")]
    pub enabled: bool,
    #[serde(deserialize_with = "fields::text")]
    pub client_id: String,
    /// Empty (or an unset `env(…)`): no real credentials, as in local development.
    #[serde(deserialize_with = "fields::secret")]
    pub secret: String,
    #[serde(deserialize_with = "fields::text")]
    pub redirect_uri: String,
    /// The provider's own base URL (self-hosted GitLab, a Keycloak realm, a single-tenant Azure).
    #[serde(deserialize_with = "fields::text")]
    pub url: String,
    #[serde(deserialize_with = "fields::flag")]
    pub skip_nonce_check: bool,
    /// A sign-in whose provider gives no e-mail address is let in (else GoTrue refuses it).
    #[serde(deserialize_with = "fields::flag")]
    pub email_optional: bool,
}

pub(super) fn read(doc: &mut Doc) -> Result<BTreeMap<String, External>, ConfigError> {
    let names: Vec<String> = match doc.lookup(&["auth", "external"]) {
        Some(Value::Table(t)) => t.keys().cloned().collect(),
        _ => Vec::new(),
    };
    let mut out = BTreeMap::new();
    for name in names {
        let e = doc.section(&["auth", "external", &name], &[])?;
        out.insert(name, e);
    }
    Ok(out)
}
