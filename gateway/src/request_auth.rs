//! Who a request is: its `apikey` and `Authorization` headers handed to [`identity::resolve`].
//! Each API renders a refusal in its own shape; PostgREST's (REST's, and realtime's handshake's)
//! is here.

use actix_web::HttpRequest;
use identity::jwt::{JwtError, JwtKeys};
use identity::{CredentialError, Identity};
use query_engine::ApiError;
use query_engine::Pgrst;

fn header(req: &HttpRequest, name: impl actix_web::http::header::AsHeaderName) -> Option<&str> {
    req.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// A refused credential as PostgREST answers it.
pub fn credential_error(e: CredentialError) -> ApiError {
    match e {
        CredentialError::Jwt(
            e @ (JwtError::Expired | JwtError::NotYetValid | JwtError::IssuedInFuture),
        ) => ApiError::pgrst(Pgrst::JwtClaims, e.to_string()),
        CredentialError::Role(_) => ApiError::new(403, "42501", e.to_string()),
        e => ApiError::pgrst(Pgrst::InvalidJwt, e.to_string()),
    }
}

/// Resolves the identity: a user token in Authorization wins; otherwise the apikey decides. The
/// role must be one the API may switch to.
pub fn identify(req: &HttpRequest, keys: &JwtKeys, local_keys: bool) -> Result<Identity, ApiError> {
    resolved(req, keys, local_keys)
        .and_then(Identity::api_role)
        .map_err(credential_error)
}

/// The identity a request's verified token claims, whatever its role (kept on the request while
/// the inspector records: [`recorded`] takes it back after the handler).
pub fn resolved(
    req: &HttpRequest,
    keys: &JwtKeys,
    local_keys: bool,
) -> Result<Identity, CredentialError> {
    use actix_web::HttpMessage;
    let resolved = of_headers(req, keys, local_keys);
    if let Ok(id) = &resolved
        && crate::state::recording(req).is_some()
    {
        req.extensions_mut().insert(id.clone());
    }
    resolved
}

/// The identity the inspector records for a request: the one its handler resolved (taken off
/// the request), else its headers' (a request whose handler did not ask).
pub fn recorded(req: &HttpRequest, keys: &JwtKeys, local_keys: bool) -> Option<Identity> {
    use actix_web::HttpMessage;
    let known = req.extensions_mut().remove::<Identity>();
    known.or_else(|| of_headers(req, keys, local_keys).ok())
}

fn of_headers(
    req: &HttpRequest,
    keys: &JwtKeys,
    local_keys: bool,
) -> Result<Identity, CredentialError> {
    identity::resolve(
        keys,
        local_keys,
        || header(req, crate::http_util::APIKEY),
        crate::http_util::bearer_token(req),
    )
}
