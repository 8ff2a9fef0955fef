//! `POST`/`PUT /object/{bucket}/{path}` (and the signed upload, which shares `store`): the
//! row is tried under the writer's RLS before any byte is accepted (rolled back), the body is
//! streamed into a new version, and the row is written for real, pointing at it, in one
//! transaction; whatever fails, the new bytes go and the old ones stay.

use super::{Data, Reply, as_admin, err, owner, path_parts, tx, who};
use crate::error::GatewayError;
use crate::http_util::{BODY_IDLE, header, idle_timeout};
use crate::request_auth::Identity;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use futures_util::{StreamExt, TryStreamExt};
use serde_json::{Value, json};
use storage::meta::{self, Bucket};
use storage::upload::Written;
use storage::{StorageError, keys, upload};
use uuid::Uuid;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Create,
    Upsert,
    Replace,
}

/// One upload: where it goes, as whom (None: the storage admin, for signed uploads whose token
/// was issued under RLS), and the owner recorded.
pub(super) struct Target<'a> {
    pub bucket_id: String,
    pub name: String,
    pub mode: Mode,
    pub writer: Option<&'a Identity>,
    pub owner: Option<Uuid>,
}

pub(super) async fn create(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let upsert = header(&req, "x-upsert").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let mode = if upsert { Mode::Upsert } else { Mode::Create };
    respond(req, payload, state, mode).await
}

pub(super) async fn replace(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    respond(req, payload, state, Mode::Replace).await
}

async fn respond(req: HttpRequest, payload: web::Payload, state: Data, mode: Mode) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let key = format!("{bucket_id}/{name}");
    let target = Target {
        bucket_id,
        name,
        mode,
        writer: Some(&id),
        owner: owner(&id),
    };
    let object_id = store(&req, payload, &state, target).await?;
    Ok(HttpResponse::Ok().json(json!({ "Id": object_id, "Key": key })))
}

/// The largest upload a bucket takes: its own limit, never above the project's.
pub(super) fn size_limit(state: &AppState, bucket: &Bucket) -> u64 {
    bucket
        .file_size_limit
        .map_or(state.config.storage_file_size_limit, |b| {
            (b as u64).min(state.config.storage_file_size_limit)
        })
}

/// Writes the object's row as `writer` (or the storage admin): `dry` rows are rolled back.
pub(super) async fn write_row(
    state: &AppState,
    t: &Target<'_>,
    version: &str,
    metadata: &Value,
    dry: bool,
) -> Result<(Uuid, Option<String>), GatewayError> {
    let (role, claims) = match t.writer {
        Some(id) => (id.role.as_str(), id.claims.to_string()),
        None => (super::ADMIN_ROLE, "{}".to_string()),
    };
    tx(state, role, &claims, !dry, async |c| match t.mode {
        Mode::Replace => meta::update_object_row(c, &t.bucket_id, &t.name, version, metadata)
            .await
            .map(|(i, old)| (i, Some(old))),
        _ => {
            meta::write_object_row(
                c,
                &t.bucket_id,
                &t.name,
                t.owner,
                version,
                metadata,
                t.mode == Mode::Upsert,
            )
            .await
        }
    })
    .await
}

/// Receives the body into a new version and writes the row; returns the object's id.
pub(super) async fn store(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
    t: Target<'_>,
) -> Result<Uuid, GatewayError> {
    // An upload may be slow, but not stalled: a pause longer than BODY_IDLE ends it.
    let payload = idle_timeout(payload, BODY_IDLE);
    let bucket = as_admin(state, async |c| meta::bucket(c, &t.bucket_id).await).await?;
    let limit = size_limit(state, &bucket);
    if header(req, "content-length")
        .and_then(|l| l.parse::<u64>().ok())
        .is_some_and(|l| l > limit + 64 * 1024)
    {
        return Err(err(StorageError::TooLarge));
    }
    // Before any byte is accepted: may this writer write this row? (Rolled back.)
    write_row(state, &t, "dry-run", &json!({}), true).await?;

    let version = Uuid::new_v4().to_string();
    let (incoming, written) = receive(req, payload, state, &bucket, limit, &version).await?;
    let metadata = meta::object_metadata(
        &written,
        &incoming.mimetype,
        &incoming.cache_control,
        incoming.user_metadata,
    );
    match write_row(state, &t, &version, &metadata, false).await {
        Ok((object_id, old)) => {
            upload::delete_versions(state.store.as_ref(), old).await;
            Ok(object_id)
        }
        Err(e) => {
            upload::delete_versions(state.store.as_ref(), [version]).await;
            Err(e)
        }
    }
}

struct Incoming {
    mimetype: String,
    cache_control: String,
    user_metadata: Value,
}

/// `Cache-Control` as storage-api stores it: a bare number of seconds means `max-age`.
pub(super) fn cache_control(value: Option<&str>) -> String {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) if v.chars().all(|c| c.is_ascii_digit()) => format!("max-age={v}"),
        Some(v) => v.to_string(),
        None => "no-cache".to_string(),
    }
}

fn checked_type(mimetype: String, bucket: &Bucket) -> Result<String, GatewayError> {
    if keys::mime_allowed(&mimetype, bucket.allowed_mime_types.as_deref()) {
        Ok(mimetype)
    } else {
        Err(err(StorageError::InvalidMimeType(mimetype)))
    }
}

async fn write(
    state: &AppState,
    path: &object_store::path::Path,
    body: impl futures_util::Stream<Item = Result<bytes::Bytes, String>> + 'static,
    limit: u64,
    mimetype: &str,
) -> Result<Written, GatewayError> {
    upload::write_stream(state.store.as_ref(), path, Box::pin(body), limit, mimetype)
        .await
        .map_err(err)
}

/// Streams the body (a multipart form as storage-js builds it, or the raw bytes) into
/// `versions/<version>`.
async fn receive(
    req: &HttpRequest,
    payload: impl futures_util::Stream<Item = Result<bytes::Bytes, actix_web::error::PayloadError>>
    + Unpin
    + 'static,
    state: &AppState,
    bucket: &Bucket,
    limit: u64,
    version: &str,
) -> Result<(Incoming, Written), GatewayError> {
    let path = keys::version_path(version);
    let content_type = header(req, "content-type").unwrap_or("").to_string();
    if !content_type
        .to_ascii_lowercase()
        .starts_with("multipart/form-data")
    {
        let mimetype = if content_type.is_empty() {
            "text/plain;charset=UTF-8".to_string()
        } else {
            content_type
        };
        let mimetype = checked_type(mimetype, bucket)?;
        let user_metadata = header(req, "x-metadata")
            .and_then(|m| {
                base64::Engine::decode(&base64::engine::general_purpose::STANDARD, m).ok()
            })
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(json!({}));
        let body = payload.map_err(|e| e.to_string());
        let written = write(state, &path, body, limit, &mimetype).await?;
        let incoming = Incoming {
            mimetype,
            cache_control: cache_control(header(req, "cache-control")),
            user_metadata,
        };
        return Ok((incoming, written));
    }
    let mut form = actix_multipart::Multipart::new(req.headers(), payload);
    let mut cache = None;
    let mut user_metadata = json!({});
    let mut explicit_type = None;
    loop {
        let Some(field) = form.next().await else {
            return Err(err(StorageError::InvalidRequest(
                "the form has no file".into(),
            )));
        };
        let mut field = field.map_err(|e| {
            err(StorageError::InvalidRequest(format!(
                "invalid multipart body: {e}"
            )))
        })?;
        let cd = field.content_disposition().cloned();
        if cd.as_ref().and_then(|d| d.get_filename()).is_none() {
            let fname = cd
                .as_ref()
                .and_then(|d| d.get_name())
                .unwrap_or("")
                .to_string();
            let mut value = Vec::new();
            while let Some(chunk) = field.next().await {
                let chunk = chunk.map_err(|e| err(StorageError::InvalidRequest(e.to_string())))?;
                if value.len() + chunk.len() > 1024 * 1024 {
                    return Err(err(StorageError::InvalidRequest(format!(
                        "form field {fname} is too large"
                    ))));
                }
                value.extend_from_slice(&chunk);
            }
            let text = String::from_utf8_lossy(&value).to_string();
            match fname.as_str() {
                "cacheControl" => cache = Some(text),
                "metadata" => user_metadata = serde_json::from_str(&text).unwrap_or(json!({})),
                "contentType" => explicit_type = Some(text),
                _ => {}
            }
            continue;
        }
        let mimetype = explicit_type
            .clone()
            .or_else(|| field.content_type().map(|m| m.essence_str().to_string()))
            .unwrap_or_else(|| "application/octet-stream".into());
        let mimetype = checked_type(mimetype, bucket)?;
        let body = field.map_err(|e| e.to_string());
        let written = write(state, &path, body, limit, &mimetype).await?;
        // Drain the rest of the form so the client gets the response.
        while let Some(f) = form.next().await {
            if let Ok(mut f) = f {
                while f.next().await.is_some() {}
            }
        }
        let incoming = Incoming {
            mimetype,
            cache_control: cache_control(cache.as_deref()),
            user_metadata,
        };
        return Ok((incoming, written));
    }
}
