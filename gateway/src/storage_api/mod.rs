//! `/storage/v1`: storage-api's routes, split by endpoint family as storage-api's are
//! (buckets, uploads, downloads, objects, signed URLs, image rendering, resumable uploads).
//! Each handler reads the caller, the path and a typed body, and calls the storage service;
//! errors are storage-api's `{statusCode, code, error, message}`.

mod buckets;
mod download;
mod objects;
mod render;
mod resumable;
mod signed;
mod upload;

use crate::error::GatewayError;
use crate::http_util::{BodyError, header, read_body};
use crate::request_auth::resolved;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;
use std::collections::HashMap;
use storage::{Caller, StorageError, keys};

type Data = crate::branches::State;
type Reply = Result<HttpResponse, GatewayError>;

pub fn routes(cfg: &mut web::ServiceConfig) {
    let object = "/object/{bucket}/{path:.+}";
    cfg.service(
        web::scope("/storage/v1")
            .configure(buckets::routes)
            .configure(objects::routes)
            .configure(signed::routes)
            .configure(download::routes)
            .configure(render::routes)
            .configure(resumable::routes)
            // Last: `/object/{bucket}/{path}` would also match the routes above.
            .route(object, web::post().to(upload::create))
            .route(object, web::put().to(upload::replace))
            .route(object, web::get().to(download::authenticated))
            .route(object, web::head().to(download::authenticated))
            .route(object, web::delete().to(objects::delete_one))
            .route("/object/{bucket}", web::delete().to(objects::delete_many))
            .default_service(web::to(not_found)),
    );
}

/// The caller. Like storage-api (which needs a JWT on every authenticated route), a request
/// with neither `Authorization` nor `apikey` is refused rather than treated as anonymous.
fn caller(req: &HttpRequest, state: &AppState) -> Result<Caller, StorageError> {
    if header(req, "authorization").is_none() && header(req, "apikey").is_none() {
        return Err(StorageError::InvalidJwt("Invalid Compact JWS".into()));
    }
    let id = resolved(req, &state.keys, state.local_keys())
        .and_then(identity::Identity::api_role)
        .map_err(|e| StorageError::InvalidJwt(e.to_string()))?;
    Ok(Caller {
        role: id.role().to_string(),
        claims: id.claims.value.clone(),
    })
}

fn who(req: &HttpRequest, state: &AppState) -> Result<Caller, GatewayError> {
    Ok(caller(req, state)?)
}

fn bucket(req: &HttpRequest) -> &str {
    req.match_info().query("bucket")
}

fn path_parts(req: &HttpRequest) -> Result<(String, String), GatewayError> {
    let name = req.match_info().query("path").to_string();
    keys::validate_key(&name)?;
    Ok((bucket(req).to_string(), name))
}

fn query(req: &HttpRequest) -> HashMap<String, String> {
    web::Query::<HashMap<String, String>>::from_query(req.query_string())
        .map(|q| q.into_inner())
        .unwrap_or_default()
}

/// The `token` of a signed URL.
fn token(req: &HttpRequest) -> Result<String, GatewayError> {
    query(req).remove("token").ok_or_else(|| {
        StorageError::InvalidRequest("querystring must have required property 'token'".into())
            .into()
    })
}

/// `x-upsert: true`.
fn upsert(req: &HttpRequest) -> bool {
    header(req, "x-upsert").is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// The body, bounded in size and time, read as `T`.
async fn body<T: serde::de::DeserializeOwned + Default>(
    payload: web::Payload,
    state: &AppState,
) -> Result<T, GatewayError> {
    let bytes = read_body(payload, state.config.max_body_bytes)
        .await
        .map_err(|e| match e {
            BodyError::TooLarge => StorageError::TooLarge,
            BodyError::TimedOut => {
                StorageError::InvalidRequest("the request body did not arrive in time".into())
            }
            BodyError::Broken => {
                StorageError::InvalidRequest("the request body could not be read".into())
            }
        })?;
    Ok(storage::params::read(&bytes)?)
}

fn message(m: &str) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "message": m }))
}

async fn not_found(req: HttpRequest) -> Reply {
    Err(StorageError::NoRoute(format!("{}:{}", req.method(), req.path())).into())
}
