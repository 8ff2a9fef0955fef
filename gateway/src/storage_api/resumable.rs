//! `/upload/resumable`: tus 1.0.0 resumable uploads (core, creation, expiration, termination),
//! as Supabase Storage serves them to tus-js-client: the tus headers here, the flow in the
//! storage service. Under `/upload/resumable/sign` the writer is the holder of a signed upload
//! token (sent as `x-signature`, issued under RLS by `createSignedUploadUrl`). Errors carry the
//! logical status (403, 404, 409, 413, 415 …) and storage-api's message as text, as tus
//! clients expect.

use super::{Data, caller, upsert};
use crate::error::GatewayError;
use crate::http_util::{BODY_IDLE, header, idle_timeout};
use crate::state::AppState;
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder, web};
use base64::Engine;
use futures_util::TryStreamExt;
use serde_json::json;
use std::collections::HashMap;
use storage::StorageError;
use storage::resumable::Upload;
use storage::service::{NewUpload, Uploader, cache_control};

const TUS_VERSION: &str = "1.0.0";
const PATH: &str = "/storage/v1/upload/resumable";

pub(super) fn routes(cfg: &mut web::ServiceConfig) {
    // The signed routes first: `/upload/resumable/{id}` would also match `…/sign`.
    for signed in [true, false] {
        let base = if signed {
            "/upload/resumable/sign"
        } else {
            "/upload/resumable"
        };
        let one = format!("{base}/{{id}}");
        cfg.route(
            base,
            web::post().to(move |req: HttpRequest, state: Data| create(req, state, signed)),
        )
        .route(base, web::method(Method::OPTIONS).to(options))
        .route(
            &one,
            web::head().to(move |req: HttpRequest, state: Data| head(req, state, signed)),
        )
        .route(
            &one,
            web::patch().to(
                move |req: HttpRequest, payload: web::Payload, state: Data| {
                    patch(req, payload, state, signed)
                },
            ),
        )
        .route(
            &one,
            web::delete().to(move |req: HttpRequest, state: Data| terminate(req, state, signed)),
        )
        .route(&one, web::method(Method::OPTIONS).to(options));
    }
}

/// The writer of an upload to `bucket/name`: the caller, or the `x-signature` token's holder.
fn uploader(
    req: &HttpRequest,
    state: &AppState,
    signed: bool,
    bucket: &str,
    name: &str,
) -> Result<Uploader, StorageError> {
    if !signed {
        return Ok(Uploader::Caller(caller(req, state)?));
    }
    let token = header(req, "x-signature")
        .ok_or_else(|| StorageError::InvalidSignature("Missing x-signature header".into()))?;
    state.storage.signed_uploader(token, bucket, name)
}

fn tus(status: StatusCode) -> HttpResponseBuilder {
    let mut r = HttpResponse::build(status);
    r.insert_header(("Tus-Resumable", TUS_VERSION))
        .insert_header(("Cache-Control", "no-store"));
    r
}

/// A storage error as tus answers it: the logical status and the message as text.
fn failure(e: GatewayError) -> HttpResponse {
    match e {
        GatewayError::Storage(e) => {
            let status = e.parts().0;
            tus(StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST))
                .content_type("text/plain; charset=utf-8")
                .body(e.message())
        }
        other => actix_web::ResponseError::error_response(&other),
    }
}

fn answer(r: Result<HttpResponse, GatewayError>) -> HttpResponse {
    r.unwrap_or_else(failure)
}

fn tus_error(status: u16, message: &str) -> GatewayError {
    StorageError::Tus(status, message.into()).into()
}

/// Every request but OPTIONS must speak tus 1.0.0.
fn check_version(req: &HttpRequest) -> Result<(), GatewayError> {
    match header(req, "tus-resumable") {
        Some(TUS_VERSION) => Ok(()),
        _ => Err(tus_error(412, "Unsupported version")),
    }
}

async fn options(state: Data) -> HttpResponse {
    tus(StatusCode::NO_CONTENT)
        .insert_header(("Tus-Version", TUS_VERSION))
        .insert_header(("Tus-Extension", "creation,expiration,termination"))
        .insert_header(("Tus-Max-Size", state.storage.file_size_limit().to_string()))
        .finish()
}

/// `Upload-Metadata`: comma-separated `key base64(value)` pairs.
fn parse_metadata(h: &str) -> Result<HashMap<String, String>, GatewayError> {
    let bad = || -> GatewayError {
        StorageError::InvalidParameter {
            name: "upload-metadata".into(),
            message: Some("Invalid Upload-Metadata header".into()),
        }
        .into()
    };
    let mut out = HashMap::new();
    for pair in h.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut kv = pair.splitn(2, ' ');
        let k = kv.next().ok_or_else(bad)?;
        let v = match kv.next() {
            Some(v) => String::from_utf8(
                base64::engine::general_purpose::STANDARD
                    .decode(v.trim())
                    .map_err(|_| bad())?,
            )
            .map_err(|_| bad())?,
            None => String::new(),
        };
        out.insert(k.to_string(), v);
    }
    Ok(out)
}

fn location(state: &AppState, signed: bool, id: &str) -> String {
    let sign = if signed { "/sign" } else { "" };
    format!("{}{PATH}{sign}/{id}", state.api_url.trim_end_matches('/'))
}

async fn create(req: HttpRequest, state: Data, signed: bool) -> HttpResponse {
    answer(create_upload(&req, &state, signed).await)
}

async fn create_upload(
    req: &HttpRequest,
    state: &AppState,
    signed: bool,
) -> Result<HttpResponse, GatewayError> {
    check_version(req)?;
    let length: i64 = header(req, "upload-length")
        .and_then(|l| l.trim().parse().ok())
        .filter(|l| *l >= 0)
        .ok_or_else(|| tus_error(400, "Upload-Length or Upload-Defer-Length header required"))?;
    let meta_in = parse_metadata(header(req, "upload-metadata").unwrap_or(""))?;
    let (Some(bucket), Some(name)) = (meta_in.get("bucketName"), meta_in.get("objectName")) else {
        return Err(StorageError::InvalidRequest("Metadata header is required".into()).into());
    };
    storage::keys::validate_key(name)?;
    let writer = uploader(req, state, signed, bucket, name)?;
    let new = NewUpload {
        bucket: bucket.clone(),
        name: name.clone(),
        length,
        content_type: meta_in
            .get("contentType")
            .filter(|t| !t.is_empty())
            .cloned()
            .unwrap_or_else(|| "application/octet-stream".into()),
        cache_control: cache_control(meta_in.get("cacheControl").map(String::as_str)),
        user_metadata: meta_in
            .get("metadata")
            .and_then(|m| serde_json::from_str(m).ok())
            .unwrap_or(json!({})),
        upsert: upsert(req),
    };
    let u = state.storage.create_resumable(&writer, new).await?;
    Ok(tus(StatusCode::CREATED)
        .insert_header(("Location", location(state, signed, &u.id)))
        .insert_header(("Upload-Expires", super::download::http_date(u.expires_at)))
        .finish())
}

/// The unexpired upload the URL names and who is writing it.
async fn own_upload(
    req: &HttpRequest,
    state: &AppState,
    signed: bool,
) -> Result<(Upload, Uploader), GatewayError> {
    let id = req.match_info().query("id");
    Ok(state
        .storage
        .resumable_upload(id, |u| uploader(req, state, signed, &u.bucket_id, &u.name))
        .await?)
}

async fn head(req: HttpRequest, state: Data, signed: bool) -> HttpResponse {
    answer(
        async {
            check_version(&req)?;
            let (u, writer) = own_upload(&req, &state, signed).await?;
            state.storage.settle_upload(&u, &writer).await?;
            Ok(tus(StatusCode::OK)
                .insert_header(("Upload-Offset", u.offset.to_string()))
                .insert_header(("Upload-Length", u.length.to_string()))
                .insert_header(("Upload-Expires", super::download::http_date(u.expires_at)))
                .finish())
        }
        .await,
    )
}

async fn patch(req: HttpRequest, payload: web::Payload, state: Data, signed: bool) -> HttpResponse {
    answer(patch_upload(&req, payload, state, signed).await)
}

async fn patch_upload(
    req: &HttpRequest,
    payload: web::Payload,
    state: Data,
    signed: bool,
) -> Result<HttpResponse, GatewayError> {
    check_version(req)?;
    if header(req, "content-type") != Some("application/offset+octet-stream") {
        return Err(tus_error(
            415,
            "Content-Type must be application/offset+octet-stream",
        ));
    }
    let from: i64 = header(req, "upload-offset")
        .and_then(|o| o.trim().parse().ok())
        .ok_or_else(|| tus_error(403, "Upload-Offset header required"))?;
    let (u, writer) = own_upload(req, &state, signed).await?;
    state.storage.check_chunk(&u, &writer, from).await?;
    // The chunk is received by a task of its own: when the client's connection breaks, actix
    // drops this handler, but the task still keeps and records what arrived.
    let (length, expires_at) = (u.length, u.expires_at);
    let body = Box::pin(idle_timeout(payload, BODY_IDLE).map_err(|e| e.to_string()));
    let task = actix_web::rt::spawn(state.storage.clone().receive_chunk(writer, u, from, body));
    let chunk = task
        .await
        .map_err(|e| StorageError::InvalidRequest(format!("the upload failed: {e}")))??;
    if let Some(why) = chunk.broken {
        return Err(StorageError::InvalidRequest(format!(
            "the upload was interrupted at offset {}: {why}",
            chunk.offset
        ))
        .into());
    }
    let mut res = tus(StatusCode::NO_CONTENT);
    res.insert_header(("Upload-Offset", chunk.offset.to_string()));
    if chunk.offset == length {
        res.insert_header(("Tus-Complete", "1"));
    } else {
        res.insert_header(("Upload-Expires", super::download::http_date(expires_at)));
    }
    Ok(res.finish())
}

async fn terminate(req: HttpRequest, state: Data, signed: bool) -> HttpResponse {
    answer(
        async {
            check_version(&req)?;
            let (u, _) = own_upload(&req, &state, signed).await?;
            state.storage.terminate_upload(&u).await?;
            Ok(tus(StatusCode::NO_CONTENT).finish())
        }
        .await,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upload_metadata_is_base64_pairs() {
        let b = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let h = format!(
            "bucketName {},objectName {}, contentType {},empty",
            b("photos"),
            b("a/b c.png"),
            b("image/png")
        );
        let m = parse_metadata(&h).unwrap();
        assert_eq!(m["bucketName"], "photos");
        assert_eq!(m["objectName"], "a/b c.png");
        assert_eq!(m["contentType"], "image/png");
        assert_eq!(m["empty"], "");
        assert!(parse_metadata("bucketName !!!").is_err());
    }
}
