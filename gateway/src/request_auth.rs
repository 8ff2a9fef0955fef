//! Who a request is: the `apikey` and `Authorization` headers read the way the Supabase CLI's
//! gateway reads them, the JWT verified, the role taken from its `role` claim.

use actix_web::HttpRequest;
use auth::jwt::{API_ROLES, CLI_PUBLISHABLE_KEY, CLI_SECRET_KEY, Claims, JwtError, JwtKeys};
use query_engine::ApiError;
use query_engine::Pgrst;
use std::sync::{Arc, LazyLock};

#[derive(Debug, Clone)]
pub struct Identity {
    /// Shared with the cache of verified tokens; its role claim is a string or absent.
    pub claims: Arc<Claims>,
}

static ANON: LazyLock<Arc<Claims>> =
    LazyLock::new(|| Arc::new(Claims::new(auth::jwt::anon_claims())));
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
}

fn header(req: &HttpRequest, name: impl actix_web::http::header::AsHeaderName) -> Option<&str> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

pub fn jwt_error(e: JwtError) -> ApiError {
    match e {
        JwtError::Expired | JwtError::NotYetValid | JwtError::IssuedInFuture => {
            ApiError::pgrst(Pgrst::JwtClaims, e.to_string())
        }
        _ => ApiError::pgrst(Pgrst::InvalidJwt, e.to_string()),
    }
}

/// Resolves the identity: a user token in Authorization wins; otherwise the apikey decides. The
/// role must be one the API may switch to.
pub fn identify(req: &HttpRequest, keys: &JwtKeys, local_keys: bool) -> Result<Identity, ApiError> {
    let identity = claimed(req, keys, local_keys)?;
    if !API_ROLES.contains(&identity.role()) {
        return Err(ApiError::new(
            403,
            "42501",
            format!("permission denied to set role \"{}\"", identity.role()),
        ));
    }
    Ok(identity)
}

/// The identity a request's verified token claims, whatever its role.
pub fn claimed(req: &HttpRequest, keys: &JwtKeys, local_keys: bool) -> Result<Identity, ApiError> {
    let token = match crate::http_util::bearer_token(req) {
        Some(t) if !t.starts_with("sb_") => Some(t),
        _ => match header(req, crate::http_util::APIKEY) {
            Some(k) if local_keys && k == CLI_SECRET_KEY => {
                return Ok(Identity {
                    claims: SERVICE.clone(),
                });
            }
            Some(k) if local_keys && k == CLI_PUBLISHABLE_KEY => return Ok(Identity::anon()),
            Some(k) if k.starts_with("sb_") => {
                return Err(ApiError::pgrst(Pgrst::InvalidJwt, "Invalid API key"));
            }
            Some(k) => Some(k),
            None => None,
        },
    };
    let Some(token) = token else {
        return Ok(Identity::anon());
    };
    let claims = keys.verify_shared(token).map_err(jwt_error)?;
    if let Some(None) = claims.role {
        return Err(ApiError::pgrst(
            Pgrst::InvalidJwt,
            "JWT role claim must be a string",
        ));
    }
    Ok(Identity { claims })
}
