//! `/upload/resumable`: tus 1.0.0 resumable uploads (core, creation, expiration, termination),
//! as Supabase Storage serves them to tus-js-client. The writer's RLS is tried at creation and
//! before every chunk, as for any upload; the bytes of each chunk are kept even when its
//! connection breaks, so the client resumes from the offset a `HEAD` reports; the object
//! appears, in one transaction, only when the last byte has arrived. Under
//! `/upload/resumable/sign` the writer is instead the holder of a signed upload token (sent as
//! `x-signature`, issued under RLS by `createSignedUploadUrl`). Errors carry the logical status
//! (403, 404, 409, 413, 415 …) and storage-api's message as text, as tus clients expect.

use super::upload::{Mode, Target, cache_control, size_limit, write_row};
use super::{Data, as_admin, err, owner, who};
use crate::error::GatewayError;
use crate::http_util::{BODY_IDLE, header, idle_timeout};
use crate::request_auth::Identity;
use crate::state::AppState;
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder, web};
use base64::Engine;
use futures_util::TryStreamExt;
use serde_json::json;
use std::collections::HashMap;
use storage::resumable::{self, Upload};
use storage::signing::{self, Scope};
use storage::{StorageError, keys, meta, upload};
use uuid::Uuid;

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

/// Who writes an upload.
#[derive(Clone)]
enum Uploader {
    /// A caller: their RLS, their `sub` as owner.
    Caller(Identity),
    /// The holder of a signed upload token for the object: written as the storage admin.
    Signed { owner: Option<String>, upsert: bool },
}

impl Uploader {
    /// The caller, or the `x-signature` token checked against `bucket/name`.
    fn of(
        req: &HttpRequest,
        state: &AppState,
        signed: bool,
        bucket: &str,
        name: &str,
    ) -> Result<Uploader, GatewayError> {
        if !signed {
            return Ok(Uploader::Caller(who(req, state)?));
        }
        let token = header(req, "x-signature").ok_or_else(|| {
            err(StorageError::InvalidSignature(
                "Missing x-signature header".into(),
            ))
        })?;
        let grant =
            signing::verify(&state.keys, token, bucket, name, Scope::Upload).map_err(err)?;
        Ok(Uploader::Signed {
            owner: grant.owner,
            upsert: grant.upsert,
        })
    }

    fn owner_sub(&self) -> Option<&str> {
        match self {
            Uploader::Caller(id) => id.claims["sub"].as_str(),
            Uploader::Signed { owner, .. } => owner.as_deref(),
        }
    }

    fn target(&self, bucket_id: &str, name: &str, upsert: bool) -> Target<'_> {
        let (writer, owner) = match self {
            Uploader::Caller(id) => (Some(id), owner(id)),
            Uploader::Signed { owner, .. } => {
                (None, owner.as_deref().and_then(|o| Uuid::parse_str(o).ok()))
            }
        };
        Target {
            bucket_id: bucket_id.to_string(),
            name: name.to_string(),
            mode: if upsert { Mode::Upsert } else { Mode::Create },
            writer,
            owner,
        }
    }
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
        GatewayError::Storage {
            status, message, ..
        } => tus(StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST))
            .content_type("text/plain; charset=utf-8")
            .body(message),
        other => actix_web::ResponseError::error_response(&other),
    }
}

fn answer(r: Result<HttpResponse, GatewayError>) -> HttpResponse {
    r.unwrap_or_else(failure)
}

fn tus_error(status: u16, message: &str) -> GatewayError {
    GatewayError::Storage {
        status,
        code: "TusError".into(),
        error: "TusError".into(),
        message: message.into(),
    }
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
        .insert_header((
            "Tus-Max-Size",
            state.config.storage_file_size_limit.to_string(),
        ))
        .finish()
}

/// `Upload-Metadata`: comma-separated `key base64(value)` pairs.
fn parse_metadata(h: &str) -> Result<HashMap<String, String>, GatewayError> {
    let bad = || {
        err(StorageError::InvalidParameter {
            name: "upload-metadata".into(),
            message: Some("Invalid Upload-Metadata header".into()),
        })
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

fn location(req: &HttpRequest, state: &AppState, signed: bool, id: &str) -> String {
    let base = state.public_url.clone().unwrap_or_else(|| {
        let info = req.connection_info();
        format!("{}://{}", info.scheme(), info.host())
    });
    let sign = if signed { "/sign" } else { "" };
    format!("{}{PATH}{sign}/{id}", base.trim_end_matches('/'))
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
    let (Some(bucket_id), Some(name)) = (meta_in.get("bucketName"), meta_in.get("objectName"))
    else {
        return Err(err(StorageError::InvalidRequest(
            "Metadata header is required".into(),
        )));
    };
    keys::validate_key(name).map_err(err)?;
    let uploader = Uploader::of(req, state, signed, bucket_id, name)?;
    let bucket = as_admin(state, async |c| meta::bucket(c, bucket_id).await).await?;
    if length as u64 > size_limit(state, &bucket) {
        return Err(err(StorageError::TooLarge));
    }
    let content_type = meta_in
        .get("contentType")
        .filter(|t| !t.is_empty())
        .cloned()
        .unwrap_or_else(|| "application/octet-stream".into());
    if !keys::mime_allowed(&content_type, bucket.allowed_mime_types.as_deref()) {
        return Err(err(StorageError::InvalidMimeType(content_type)));
    }
    let user_metadata = meta_in
        .get("metadata")
        .and_then(|m| serde_json::from_str(m).ok())
        .unwrap_or(json!({}));
    let upsert = match &uploader {
        Uploader::Caller(_) => {
            header(req, "x-upsert").is_some_and(|v| v.eq_ignore_ascii_case("true"))
        }
        Uploader::Signed { upsert, .. } => *upsert,
    };
    // May the caller write this object at all? (RLS and duplicates, rolled back.)
    let t = uploader.target(bucket_id, name, upsert);
    write_row(state, &t, "dry-run", &json!({}), true).await?;
    // Whoever creates an upload also clears a few that expired, with their parts.
    let expired = as_admin(state, async |c| resumable::remove_expired(c, 10).await).await?;
    for u in &expired {
        resumable::delete_parts(state.store.as_ref(), &u.parts).await;
    }
    let sub = uploader.owner_sub();
    let cache = cache_control(meta_in.get("cacheControl").map(String::as_str));
    let u = as_admin(state, async |c| {
        resumable::create(
            c,
            bucket_id,
            name,
            sub,
            upsert,
            length,
            &content_type,
            &cache,
            &user_metadata,
        )
        .await
    })
    .await?;
    if length == 0 {
        complete(state, &uploader, &u.id).await?;
    }
    Ok(tus(StatusCode::CREATED)
        .insert_header(("Location", location(req, state, signed, &u.id)))
        .insert_header(("Upload-Expires", super::download::http_date(u.expires_at)))
        .finish())
}

/// The unexpired upload the URL names and who is writing it; someone else's upload is as good
/// as missing.
async fn own_upload(
    req: &HttpRequest,
    state: &AppState,
    signed: bool,
) -> Result<(Upload, Uploader), GatewayError> {
    let upload_id = req.match_info().query("id").to_string();
    let u = as_admin(state, async |c| resumable::get(c, &upload_id).await).await?;
    let uploader = Uploader::of(req, state, signed, &u.bucket_id, &u.name)?;
    if u.owner_id.as_deref() != uploader.owner_sub() {
        return Err(err(StorageError::NoSuchUpload));
    }
    Ok((u, uploader))
}

async fn head(req: HttpRequest, state: Data, signed: bool) -> HttpResponse {
    answer(
        async {
            check_version(&req)?;
            let (u, uploader) = own_upload(&req, &state, signed).await?;
            if u.offset == u.length {
                // Every byte arrived but the request that brought the last one died first.
                complete(&state, &uploader, &u.id).await?;
            }
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
    data: Data,
    signed: bool,
) -> Result<HttpResponse, GatewayError> {
    let state: &AppState = &data;
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
    let (u, uploader) = own_upload(req, state, signed).await?;
    if from != u.offset {
        return Err(tus_error(409, "Upload-Offset conflict"));
    }
    // The writer's RLS, before any byte of this chunk is accepted.
    let t = uploader.target(&u.bucket_id, &u.name, u.upsert);
    write_row(state, &t, "dry-run", &json!({}), true).await?;
    // The chunk is received by a task of its own: when the client's connection breaks, actix
    // drops this handler, but the task still keeps and records what arrived.
    let (length, expires_at) = (u.length, u.expires_at);
    let task = actix_web::rt::spawn(receive_chunk(
        data.get_ref().clone(),
        uploader,
        u,
        from,
        payload,
    ));
    let (offset, broken) = task.await.map_err(|e| {
        err(StorageError::InvalidRequest(format!(
            "the upload failed: {e}"
        )))
    })??;
    if let Some(why) = broken {
        return Err(err(StorageError::InvalidRequest(format!(
            "the upload was interrupted at offset {offset}: {why}"
        ))));
    }
    let mut res = tus(StatusCode::NO_CONTENT);
    res.insert_header(("Upload-Offset", offset.to_string()));
    if offset == length {
        res.insert_header(("Tus-Complete", "1"));
    } else {
        res.insert_header(("Upload-Expires", super::download::http_date(expires_at)));
    }
    Ok(res.finish())
}

/// Writes one chunk as a part and records it if the offset it started from is still current;
/// completes the upload when that was the last byte. Returns the new offset and, if the body
/// broke off, why.
async fn receive_chunk(
    state: std::sync::Arc<AppState>,
    uploader: Uploader,
    u: Upload,
    from: i64,
    payload: web::Payload,
) -> Result<(i64, Option<String>), GatewayError> {
    let part = resumable::part_path(&u.version, from);
    let body = idle_timeout(payload, BODY_IDLE).map_err(|e| e.to_string());
    let (size, broken) = resumable::write_part(
        state.store.as_ref(),
        &part,
        Box::pin(body),
        (u.length - from) as u64,
    )
    .await
    .map_err(err)?;
    if size == 0 {
        return Ok((from, broken));
    }
    let recorded = as_admin(&state, async |c| {
        resumable::append(c, &u.id, from, size as i64, part.as_ref()).await
    })
    .await;
    match recorded {
        Ok(Some(offset)) if offset == u.length => {
            complete(&state, &uploader, &u.id).await?;
            Ok((offset, broken))
        }
        Ok(Some(offset)) => Ok((offset, broken)),
        Ok(None) => {
            resumable::delete_parts(state.store.as_ref(), &[part.to_string()]).await;
            Err(tus_error(409, "Upload-Offset conflict"))
        }
        Err(e) => {
            resumable::delete_parts(state.store.as_ref(), &[part.to_string()]).await;
            Err(e)
        }
    }
}

/// The last byte is in: whoever removes the upload's row completes it (so it is completed once,
/// even if a `HEAD` and a `PATCH` race), the parts become one version (size, type and content
/// checked as for any upload) and the object row is written under the writer's RLS.
async fn complete(
    state: &AppState,
    uploader: &Uploader,
    upload_id: &str,
) -> Result<(), GatewayError> {
    let Some(u) = as_admin(state, async |c| resumable::remove(c, upload_id).await).await? else {
        return Ok(());
    };
    let result = finish(state, uploader, &u).await;
    resumable::delete_parts(state.store.as_ref(), &u.parts).await;
    result
}

async fn finish(state: &AppState, uploader: &Uploader, u: &Upload) -> Result<(), GatewayError> {
    let bucket = as_admin(state, async |c| meta::bucket(c, &u.bucket_id).await).await?;
    let parts =
        resumable::read_parts(state.store.clone(), u.parts.clone()).map_err(|e| e.to_string());
    let written = upload::write_stream(
        state.store.as_ref(),
        &keys::version_path(&u.version),
        parts,
        size_limit(state, &bucket),
        &u.content_type,
    )
    .await;
    match written {
        Err(e) => Err(err(e)),
        Ok(written) => {
            let metadata = meta::object_metadata(
                &written,
                &u.content_type,
                &u.cache_control,
                u.user_metadata.clone(),
            );
            let t = uploader.target(&u.bucket_id, &u.name, u.upsert);
            match write_row(state, &t, &u.version, &metadata, false).await {
                Ok((_, old)) => {
                    upload::delete_versions(state.store.as_ref(), old).await;
                    Ok(())
                }
                Err(e) => {
                    upload::delete_versions(state.store.as_ref(), [u.version.clone()]).await;
                    Err(e)
                }
            }
        }
    }
}

async fn terminate(req: HttpRequest, state: Data, signed: bool) -> HttpResponse {
    answer(
        async {
            check_version(&req)?;
            let (u, _) = own_upload(&req, &state, signed).await?;
            if let Some(gone) =
                as_admin(&state, async |c| resumable::remove(c, &u.id).await).await?
            {
                resumable::delete_parts(state.store.as_ref(), &gone.parts).await;
            }
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
