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
/// the inspector records, which asks again after the handler did).
pub fn resolved(
    req: &HttpRequest,
    keys: &JwtKeys,
    local_keys: bool,
) -> Result<Identity, CredentialError> {
    use actix_web::HttpMessage;
    if let Some(known) = req.extensions().get::<Identity>() {
        return Ok(known.clone());
    }
    let resolved = identity::resolve(
        keys,
        local_keys,
        header(req, crate::http_util::APIKEY),
        crate::http_util::bearer_token(req),
    );
    if let Ok(id) = &resolved
        && crate::state::recording(req).is_some()
    {
        req.extensions_mut().insert(id.clone());
    }
    resolved
}
