//! GoTrue's OAuth 2.1 server, the pure part: the bodies its client API reads, their checks
//! (with GoTrue's texts), client types, and client secrets (random, kept as their SHA-256).

use auth::error::{AuthError, validation};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use sha2::{Digest, Sha256};

pub const GRANT_TYPES: [&str; 2] = ["authorization_code", "refresh_token"];
const AUTH_METHODS: [&str; 3] = ["none", "client_secret_basic", "client_secret_post"];

/// `POST /admin/oauth/clients` and `POST /oauth/clients/register`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RegisterParams {
    pub redirect_uris: Option<Vec<String>>,
    pub client_type: Option<String>,
    pub token_endpoint_auth_method: Option<String>,
    pub grant_types: Option<Vec<String>>,
    pub client_name: Option<String>,
    pub client_uri: Option<String>,
    pub logo_uri: Option<String>,
}

/// `PUT /admin/oauth/clients/{client_id}`: only what is given changes.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct UpdateParams {
    pub redirect_uris: Option<Vec<String>>,
    pub grant_types: Option<Vec<String>>,
    pub client_name: Option<String>,
    pub client_uri: Option<String>,
    pub logo_uri: Option<String>,
}

/// A registration, checked, with its defaults applied.
#[derive(Debug, PartialEq)]
pub struct Registration {
    pub client_type: &'static str,
    pub redirect_uris: Vec<String>,
    pub grant_types: Vec<String>,
    pub client_name: Option<String>,
    pub client_uri: Option<String>,
    pub logo_uri: Option<String>,
}

/// What an auth method says of the client: only `none` is public.
fn type_of_method(method: &str) -> &'static str {
    if method == "none" {
        "public"
    } else {
        "confidential"
    }
}

impl RegisterParams {
    pub fn check(self) -> Result<Registration, AuthError> {
        let redirect_uris = self.redirect_uris.unwrap_or_default();
        if redirect_uris.is_empty() {
            return Err(validation("redirect_uris is required"));
        }
        check_redirect_uris(&redirect_uris)?;
        let grant_types = match self.grant_types {
            Some(g) if !g.is_empty() => {
                check_grant_types(&g)?;
                g
            }
            _ => GRANT_TYPES.map(String::from).to_vec(),
        };
        check_texts(&self.client_name, &self.client_uri, &self.logo_uri)?;
        let explicit = self.client_type.filter(|t| !t.is_empty());
        let client_type = match explicit.as_deref() {
            None => None,
            Some("public") => Some("public"),
            Some("confidential") => Some("confidential"),
            Some(_) => {
                return Err(validation("client_type must be 'public' or 'confidential'"));
            }
        };
        let method = self.token_endpoint_auth_method.filter(|m| !m.is_empty());
        if let Some(m) = &method {
            if !AUTH_METHODS.contains(&m.as_str()) {
                return Err(validation(format!(
                    "token_endpoint_auth_method must be one of: [{}]",
                    AUTH_METHODS.join(" ")
                )));
            }
            if let Some(t) = client_type
                && t != type_of_method(m)
            {
                return Err(validation(format!(
                    "client_type '{t}' is inconsistent with token_endpoint_auth_method '{m}' \
                     (expected client_type '{}')",
                    type_of_method(m)
                )));
            }
        }
        Ok(Registration {
            client_type: client_type
                .or(method.as_deref().map(type_of_method))
                .unwrap_or("confidential"),
            redirect_uris,
            grant_types,
            client_name: self.client_name.filter(|s| !s.is_empty()),
            client_uri: self.client_uri.filter(|s| !s.is_empty()),
            logo_uri: self.logo_uri.filter(|s| !s.is_empty()),
        })
    }
}

impl UpdateParams {
    pub fn check(&self) -> Result<(), AuthError> {
        if self.redirect_uris.is_none()
            && self.grant_types.is_none()
            && self.client_name.is_none()
            && self.client_uri.is_none()
            && self.logo_uri.is_none()
        {
            return Err(validation("No fields provided for update"));
        }
        if let Some(uris) = &self.redirect_uris {
            if uris.is_empty() {
                return Err(validation("redirect_uris cannot be empty"));
            }
            check_redirect_uris(uris)?;
        }
        if let Some(g) = &self.grant_types {
            check_grant_types(g)?;
        }
        check_texts(&self.client_name, &self.client_uri, &self.logo_uri)
    }
}

fn check_redirect_uris(uris: &[String]) -> Result<(), AuthError> {
    if uris.len() > 10 {
        return Err(validation("redirect_uris cannot exceed 10 items"));
    }
    for uri in uris {
        redirect_uri(uri).map_err(|e| validation(format!("invalid redirect_uri '{uri}': {e}")))?;
    }
    Ok(())
}

fn check_grant_types(grant_types: &[String]) -> Result<(), AuthError> {
    if grant_types.is_empty() {
        return Err(validation("grant_types cannot be empty"));
    }
    if grant_types
        .iter()
        .any(|g| !GRANT_TYPES.contains(&g.as_str()))
    {
        return Err(validation(
            "grant_types must only contain 'authorization_code' and/or 'refresh_token'",
        ));
    }
    Ok(())
}

fn check_texts(
    name: &Option<String>,
    client_uri: &Option<String>,
    logo_uri: &Option<String>,
) -> Result<(), AuthError> {
    if name.as_ref().is_some_and(|n| n.chars().count() > 1024) {
        return Err(validation("client_name cannot exceed 1024 characters"));
    }
    for (field, v) in [("client_uri", client_uri), ("logo_uri", logo_uri)] {
        let Some(v) = v.as_deref().filter(|v| !v.is_empty()) else {
            continue;
        };
        if v.len() > 2048 {
            return Err(validation(format!("{field} cannot exceed 2048 characters")));
        }
        if url::Url::parse(v).is_err() {
            return Err(validation(format!("{field} must be a valid URL")));
        }
    }
    Ok(())
}

/// OAuth 2.1's rules for a redirect URI: absolute, no fragment, HTTPS (HTTP for localhost and
/// 127.0.0.1 only).
fn redirect_uri(uri: &str) -> Result<(), &'static str> {
    if uri.is_empty() {
        return Err("redirect URI cannot be empty");
    }
    let u = url::Url::parse(uri).map_err(|_| "invalid URL format")?;
    let host = u.host_str().unwrap_or("");
    if host.is_empty() {
        return Err("must have scheme and host");
    }
    if u.fragment().is_some() {
        return Err("fragment not allowed in redirect URI");
    }
    match u.scheme() {
        "https" => Ok(()),
        "http" if host == "localhost" || host == "127.0.0.1" => Ok(()),
        "http" => Err("HTTP scheme only allowed for localhost"),
        _ => Err("scheme must be HTTPS or HTTP (localhost only)"),
    }
}

/// A new client secret and the hash that is stored of it.
pub fn new_secret() -> (String, String) {
    let secret = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
    let hash = hash_secret(&secret);
    (secret, hash)
}

pub fn hash_secret(secret: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(secret.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn register(body: serde_json::Value) -> Result<Registration, String> {
        serde_json::from_value::<RegisterParams>(body)
            .unwrap()
            .check()
            .map_err(|e| e.to_string())
    }

    #[test]
    fn registrations_are_checked_as_gotrue_checks_them() {
        let r = register(json!({"redirect_uris": ["https://app.example/cb"], "client_name": "A"}))
            .unwrap();
        assert_eq!(r.client_type, "confidential");
        assert_eq!(r.grant_types, ["authorization_code", "refresh_token"]);
        let public = register(json!({"redirect_uris": ["http://localhost:3000/cb"],
                                     "token_endpoint_auth_method": "none"}));
        assert_eq!(public.unwrap().client_type, "public");
        for (body, says) in [
            (json!({"redirect_uris": []}), "redirect_uris is required"),
            (json!({}), "redirect_uris is required"),
            (
                json!({"redirect_uris": ["http://app.example/cb"]}),
                "HTTP scheme only allowed for localhost",
            ),
            (
                json!({"redirect_uris": ["https://app.example/cb#x"]}),
                "fragment not allowed",
            ),
            (
                json!({"redirect_uris": ["ftp://app.example/cb"]}),
                "scheme must be HTTPS",
            ),
            (
                json!({"redirect_uris": ["https://a.example"], "grant_types": ["implicit"]}),
                "grant_types must only contain",
            ),
            (
                json!({"redirect_uris": ["https://a.example"], "client_type": "public",
                       "token_endpoint_auth_method": "client_secret_basic"}),
                "client_type 'public' is inconsistent",
            ),
            (
                json!({"redirect_uris": ["https://a.example"], "logo_uri": "not a url"}),
                "logo_uri must be a valid URL",
            ),
        ] {
            let e = register(body.clone()).unwrap_err();
            assert!(e.contains(says), "{body}: {e}");
        }
        let none: UpdateParams = serde_json::from_value(json!({})).unwrap();
        assert!(none.check().is_err());
    }

    #[test]
    fn secrets_are_kept_as_their_hash() {
        let (secret, hash) = new_secret();
        assert_eq!(secret.len(), 43);
        assert_eq!(hash_secret(&secret), hash);
        assert_ne!(new_secret().0, secret);
    }
}
