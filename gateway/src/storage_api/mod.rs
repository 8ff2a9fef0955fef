//! `/storage/v1`: Supabase Storage-compatible buckets and objects, split by endpoint family as
//! storage-api's routes are (buckets, uploads, downloads, objects, signed URLs, image
//! rendering, resumable uploads). Who may do what is decided by RLS on `storage.buckets` /
//! `storage.objects`, tried before any byte is accepted; bytes are streamed into the object
//! store with bounded memory. Errors are storage-api's `{statusCode, code, error, message}`.

mod buckets;
mod download;
mod objects;
mod render;
mod resumable;
mod signed;
mod upload;

use crate::error::GatewayError;
use crate::http_util::{BodyError, header, read_body};
use crate::request_auth::{Identity, identify};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use pg as db;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use storage::meta::{self, Bucket, Object};
use storage::{StorageError, keys};
use uuid::Uuid;

type Data = web::Data<Arc<AppState>>;
type Reply = Result<HttpResponse, GatewayError>;

/// The role storage bookkeeping runs as once RLS has allowed an action.
const ADMIN_ROLE: &str = "supabase_storage_admin";

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

fn err(e: StorageError) -> GatewayError {
    let (status, code, error) = e.parts();
    if let StorageError::Db(db) = &e {
        let detail = db.as_db_error().map(|d| d.message().to_string());
        tracing::error!("storage: {e}: {}", detail.unwrap_or_default());
    } else if status >= 500 {
        tracing::error!("storage: {e}");
    }
    let message = match &e {
        StorageError::Db(_) | StorageError::Backend(_) => "Internal Server Error".to_string(),
        other => other.to_string(),
    };
    GatewayError::Storage {
        status,
        code: code.into(),
        error: error.into(),
        message,
    }
}

fn db_err(e: db::DbError) -> GatewayError {
    if e.is_unavailable() {
        tracing::error!("storage database error: {e}");
        return GatewayError::Storage {
            status: 503,
            code: "DatabaseError".into(),
            error: "Service Unavailable".into(),
            message: "The database is not available; try again shortly".into(),
        };
    }
    match e {
        db::DbError::Postgres(p) => err(p.into()),
        other => {
            tracing::error!("storage database error: {other}");
            GatewayError::Storage {
                status: 500,
                code: "DatabaseError".into(),
                error: "Internal Server Error".into(),
                message: "Internal Server Error".into(),
            }
        }
    }
}

/// The caller. Like storage-api (which needs a JWT on every authenticated route), a request
/// with neither `Authorization` nor `apikey` is refused rather than treated as anonymous.
fn who(req: &HttpRequest, state: &AppState) -> Result<Identity, GatewayError> {
    if header(req, "authorization").is_none() && header(req, "apikey").is_none() {
        return Err(err(StorageError::InvalidJwt("Invalid Compact JWS".into())));
    }
    identify(req, &state.keys, state.local_keys())
        .map_err(|e| err(StorageError::InvalidJwt(e.message)))
}

fn owner(id: &Identity) -> Option<Uuid> {
    id.claims["sub"]
        .as_str()
        .and_then(|s| Uuid::parse_str(s).ok())
}

/// Runs `f` in a transaction as `role`; commits on success (or always rolls back for dry runs).
async fn tx<T, F>(
    state: &AppState,
    role: &str,
    claims: &str,
    commit: bool,
    f: F,
) -> Result<T, GatewayError>
where
    F: AsyncFnOnce(&tokio_postgres::Client) -> Result<T, StorageError>,
{
    let t = db::begin_as(&state.pool(), role, claims, &state.role_settings(role))
        .await
        .map_err(db_err)?;
    let result = f(t.pg()).await;
    t.finish(commit && result.is_ok()).await.map_err(db_err)?;
    result.map_err(err)
}

async fn as_user<T, F>(state: &AppState, id: &Identity, f: F) -> Result<T, GatewayError>
where
    F: AsyncFnOnce(&tokio_postgres::Client) -> Result<T, StorageError>,
{
    tx(state, &id.role, &id.claims.to_string(), true, f).await
}

async fn as_admin<T, F>(state: &AppState, f: F) -> Result<T, GatewayError>
where
    F: AsyncFnOnce(&tokio_postgres::Client) -> Result<T, StorageError>,
{
    tx(state, ADMIN_ROLE, "{}", true, f).await
}

/// Who reads an object, and so how it is looked up.
enum Reader<'a> {
    /// No credentials: only objects of public buckets.
    Public,
    /// A caller: any object of a public bucket, else what RLS lets them select.
    Caller(&'a Identity),
    /// A signed URL already names the object: no RLS.
    Signed,
}

/// The one object lookup of every read route, as storage-api's: a bucket that does not exist
/// (or is not public, for public routes) is `NoSuchBucket`; public buckets are read without
/// RLS; an object the reader cannot see is `NoSuchKey`.
async fn find_object(
    state: &AppState,
    reader: Reader<'_>,
    bucket_id: &str,
    name: &str,
) -> Result<(Bucket, Object), GatewayError> {
    let (bucket, obj) = as_admin(state, async |c| {
        let b = meta::bucket(c, bucket_id).await?;
        let without_rls = match reader {
            Reader::Public if !b.public => return Err(StorageError::NoSuchBucket),
            Reader::Public | Reader::Signed => true,
            Reader::Caller(_) => b.public,
        };
        let obj = if without_rls {
            Some(meta::object_by_name(c, bucket_id, name).await?)
        } else {
            None
        };
        Ok((b, obj))
    })
    .await?;
    let obj = match (obj, reader) {
        (Some(o), _) => o,
        (None, Reader::Caller(id)) => {
            as_user(state, id, async |c| {
                meta::object_by_name(c, bucket_id, name).await
            })
            .await?
        }
        (None, _) => return Err(err(StorageError::NoSuchKey)),
    };
    Ok((bucket, obj))
}

fn path_parts(req: &HttpRequest) -> Result<(String, String), GatewayError> {
    let bucket = req.match_info().query("bucket").to_string();
    let name = req.match_info().query("path").to_string();
    keys::validate_key(&name).map_err(err)?;
    Ok((bucket, name))
}

fn query(req: &HttpRequest) -> HashMap<String, String> {
    web::Query::<HashMap<String, String>>::from_query(req.query_string())
        .map(|q| q.into_inner())
        .unwrap_or_default()
}

/// The strings of a JSON array field (`paths`, `prefixes`); anything else counts as none.
fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The `token` of a signed URL.
fn token(req: &HttpRequest) -> Result<String, GatewayError> {
    query(req).remove("token").ok_or_else(|| {
        err(StorageError::InvalidRequest(
            "querystring must have required property 'token'".into(),
        ))
    })
}

async fn json_body(payload: web::Payload, state: &AppState) -> Result<Value, GatewayError> {
    let body = read_body(payload, state.config.max_body_bytes)
        .await
        .map_err(|e| match e {
            BodyError::TooLarge => err(StorageError::TooLarge),
            BodyError::TimedOut => err(StorageError::InvalidRequest(
                "the request body did not arrive in time".into(),
            )),
            BodyError::Broken => err(StorageError::InvalidRequest(
                "the request body could not be read".into(),
            )),
        })?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(&body).map_err(|e| {
        err(StorageError::InvalidRequest(format!(
            "invalid JSON body: {e}"
        )))
    })
}

fn message(m: &str) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "message": m }))
}

async fn not_found(req: HttpRequest) -> Reply {
    Err(GatewayError::Storage {
        status: 404,
        code: "NotFound".into(),
        error: "not_found".into(),
        message: format!("Route {}:{} not found", req.method(), req.path()),
    })
}
