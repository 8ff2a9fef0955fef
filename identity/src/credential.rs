//! Who a request is: its `apikey` and bearer token read the way the Supabase CLI's gateway reads
//! them (a user token wins; an opaque `sb_` key stands for its role), the JWT verified, the role
//! taken from its `role` claim. Every API asks [`resolve`] and renders a [`CredentialError`] in
//! its own wire shape.

use crate::jwt::{API_ROLES, CLI_PUBLISHABLE_KEY, CLI_SECRET_KEY, Claims, JwtError, JwtKeys};
use std::sync::{Arc, LazyLock};

/// A caller whose token verified (or who brought none: `anon`).
#[derive(Debug, Clone)]
pub struct Identity {
    /// Shared with the cache of verified tokens; its role claim is a string or absent.
    pub claims: Arc<Claims>,
}

/// Why a request's credentials are refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CredentialError {
    /// An opaque `sb_` key this project does not have.
    #[error("Invalid API key")]
    ApiKey,
    #[error(transparent)]
    Jwt(#[from] JwtError),
    /// The token's `role` claim is not a string.
    #[error("JWT role claim must be a string")]
    RoleNotString,
    /// The role is none the API may switch to.
    #[error("permission denied to set role \"{0}\"")]
    Role(String),
}

static ANON: LazyLock<Arc<Claims>> =
    LazyLock::new(|| Arc::new(Claims::new(crate::jwt::anon_claims())));
static SERVICE: LazyLock<Arc<Claims>> =
    LazyLock::new(|| Arc::new(Claims::new(serde_json::json!({"role": "service_role"}))));

impl Identity {
    pub fn anon() -> Self {
        Identity {
            claims: ANON.clone(),
        }
    }

    /// The role it acts as: the `role` claim, `anon` without one.
    pub fn role(&self) -> &str {
        match &self.claims.role {
            Some(Some(r)) => r,
            _ => "anon",
        }
    }

    /// This identity when its role is one the API may switch to (`anon`, `authenticated`,
    /// `service_role`).
    pub fn api_role(self) -> Result<Self, CredentialError> {
        if API_ROLES.contains(&self.role()) {
            Ok(self)
        } else {
            Err(CredentialError::Role(self.role().to_string()))
        }
    }
}

/// The identity a request's credentials claim, whatever its role: the bearer token of its
/// `Authorization` header unless that is an opaque key, else its `apikey` (the CLI's opaque
/// keys only when `local_keys`: the demo secret), else `anon`. `apikey` is asked for only when
/// the bearer token does not decide (reading a header checks every byte of it: a JWT's few
/// hundred, on every request).
pub fn resolve<'a>(
    keys: &JwtKeys,
    local_keys: bool,
    apikey: impl FnOnce() -> Option<&'a str>,
    bearer: Option<&'a str>,
) -> Result<Identity, CredentialError> {
    let token = match bearer {
        Some(t) if !t.starts_with("sb_") => Some(t),
        _ => match apikey() {
            Some(k) if local_keys && k == CLI_SECRET_KEY => {
                return Ok(Identity {
                    claims: SERVICE.clone(),
                });
            }
            Some(k) if local_keys && k == CLI_PUBLISHABLE_KEY => return Ok(Identity::anon()),
            Some(k) if k.starts_with("sb_") => return Err(CredentialError::ApiKey),
            Some(k) => Some(k),
            None => None,
        },
    };
    let Some(token) = token else {
        return Ok(Identity::anon());
    };
    let claims = keys.verify_shared(token)?;
    if let Some(None) = claims.role {
        return Err(CredentialError::RoleNotString);
    }
    Ok(Identity { claims })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jwt::DEMO_JWT_SECRET;
    use serde_json::json;

    #[test]
    fn credentials_resolve_as_the_cli_gateway_reads_them() {
        let keys = JwtKeys::new(DEMO_JWT_SECRET);
        let api = keys.api_keys();
        let role = |apikey, bearer, local| {
            resolve(&keys, local, || apikey, bearer).map(|i| i.role().to_string())
        };
        assert_eq!(role(None, None, true).unwrap(), "anon");
        assert_eq!(
            role(Some(&api.service_role), None, true).unwrap(),
            "service_role"
        );
        let user = keys.sign(&json!({"role": "authenticated", "sub": "u"}));
        // A user token wins over the apikey; an opaque bearer leaves it to the apikey.
        assert_eq!(
            role(Some(&api.anon), Some(&user), true).unwrap(),
            "authenticated"
        );
        // The apikey is not read when the bearer token decides.
        let unread = || -> Option<&str> { panic!("the apikey was read") };
        assert!(resolve(&keys, true, unread, Some(&user)).is_ok());
        assert_eq!(
            role(Some(CLI_SECRET_KEY), Some(CLI_PUBLISHABLE_KEY), true).unwrap(),
            "service_role"
        );
        assert_eq!(role(Some(CLI_PUBLISHABLE_KEY), None, true).unwrap(), "anon");
        // The CLI's keys only with the demo secret; other sb_ keys never.
        assert_eq!(
            role(Some(CLI_SECRET_KEY), None, false),
            Err(CredentialError::ApiKey)
        );
        assert_eq!(
            role(Some("sb_secret_other"), None, true),
            Err(CredentialError::ApiKey)
        );
        assert_eq!(
            role(Some("abc"), None, true),
            Err(CredentialError::Jwt(JwtError::Parts(1)))
        );
        let numeric = keys.sign(&json!({"role": 1}));
        assert_eq!(
            role(None, Some(&numeric), true),
            Err(CredentialError::RoleNotString)
        );
        let admin = keys.sign(&json!({"role": "postgres"}));
        let who = resolve(&keys, true, || None, Some(&admin)).unwrap();
        assert_eq!(who.role(), "postgres");
        assert_eq!(
            who.api_role().unwrap_err().to_string(),
            "permission denied to set role \"postgres\""
        );
    }
}
