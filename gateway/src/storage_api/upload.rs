//! `POST`/`PUT /object/{bucket}/{path}` (and the signed upload, which shares `store`): the
//! storage service checks the writer before any byte is accepted; the body — a multipart form
//! as storage-js builds it, or the raw bytes — is streamed into the new version.

use super::{Data, Reply, path_parts, upsert, who};
use crate::error::GatewayError;
use crate::http_util::{BODY_IDLE, header, idle_timeout};
use crate::state::AppState;
use actix_web::error::PayloadError;
use actix_web::{HttpRequest, HttpResponse, web};
use futures_util::{Stream, StreamExt, TryStreamExt};
use serde_json::json;
use storage::StorageError;
use storage::service::{Incoming, Mode, Target, Upload, cache_control};
use storage::upload::Written;
use uuid::Uuid;

pub(super) async fn create(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let mode = if upsert(&req) {
        Mode::Upsert
    } else {
        Mode::Create
    };
    respond(req, payload, state, mode).await
}

pub(super) async fn replace(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    respond(req, payload, state, Mode::Replace).await
}

async fn respond(req: HttpRequest, payload: web::Payload, state: Data, mode: Mode) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let who = who(&req, &state)?;
    let key = format!("{bucket_id}/{name}");
    let target = Target {
        bucket_id,
        name,
        mode,
        owner: who.owner(),
        writer: Some(&who),
    };
    let object_id = store(&req, payload, &state, target).await?;
    Ok(HttpResponse::Ok().json(json!({ "Id": object_id, "Key": key })))
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
    let length = header(req, "content-length").and_then(|l| l.parse::<u64>().ok());
    let upload = state.storage.begin_upload(t, length).await?;
    let (incoming, written) = receive(req, payload, &upload).await?;
    Ok(upload.finish(incoming, written).await?)
}

/// Streams the body (a multipart form, or the raw bytes) into the upload's version.
async fn receive(
    req: &HttpRequest,
    payload: impl Stream<Item = Result<bytes::Bytes, PayloadError>> + Unpin + 'static,
    upload: &Upload<'_>,
) -> Result<(Incoming, Written), GatewayError> {
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
        let mimetype = upload.check_type(mimetype)?;
        let user_metadata = header(req, "x-metadata")
            .and_then(|m| {
                base64::Engine::decode(&base64::engine::general_purpose::STANDARD, m).ok()
            })
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(json!({}));
        let body = Box::pin(payload.map_err(|e| e.to_string()));
        let written = upload.write(body, &mimetype).await?;
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
            return Err(StorageError::InvalidRequest("the form has no file".into()).into());
        };
        let mut field = field
            .map_err(|e| StorageError::InvalidRequest(format!("invalid multipart body: {e}")))?;
        let cd = field.content_disposition().cloned();
        if cd.as_ref().and_then(|d| d.get_filename()).is_none() {
            let fname = cd
                .as_ref()
                .and_then(|d| d.get_name())
                .unwrap_or("")
                .to_string();
            let mut value = Vec::new();
            while let Some(chunk) = field.next().await {
                let chunk = chunk.map_err(|e| StorageError::InvalidRequest(e.to_string()))?;
                if value.len() + chunk.len() > 1024 * 1024 {
                    return Err(StorageError::InvalidRequest(format!(
                        "form field {fname} is too large"
                    ))
                    .into());
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
        let mimetype = upload.check_type(mimetype)?;
        let body = Box::pin(field.map_err(|e| e.to_string()));
        let written = upload.write(body, &mimetype).await?;
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
