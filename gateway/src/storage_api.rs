//! `/storage/v1`: Supabase Storage-compatible buckets and objects. Who may do what is decided by
//! RLS on `storage.buckets` / `storage.objects`, tried before any byte is accepted; bytes are
//! streamed into the object store with bounded memory.

use crate::db;
use crate::error::GatewayError;
use crate::http_util::{BODY_IDLE, BodyError, header, idle_timeout, read_body};
use crate::request_auth::{Identity, identify};
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use futures_util::{StreamExt, TryStreamExt};
use object_store::{GetOptions, GetRange, ObjectStore};
use serde_json::{Value, json};
use std::sync::Arc;
use storage::meta::{self, ListOptions, Object};
use storage::{StorageError, keys, signing, upload};
use uuid::Uuid;

type Data = web::Data<Arc<AppState>>;
type Reply = Result<HttpResponse, GatewayError>;

/// The role storage bookkeeping runs as once RLS has allowed an action.
const ADMIN_ROLE: &str = "supabase_storage_admin";
/// Bulk deletes are capped like storage-api's.
const MAX_DELETE: usize = 1000;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/storage/v1")
            .route("/bucket", web::get().to(list_buckets))
            .route("/bucket", web::post().to(create_bucket))
            .route("/bucket/{id}/empty", web::post().to(empty_bucket))
            .route("/bucket/{id}", web::get().to(get_bucket))
            .route("/bucket/{id}", web::put().to(update_bucket))
            .route("/bucket/{id}", web::delete().to(delete_bucket))
            .route("/object/list/{bucket}", web::post().to(list_objects))
            .route("/object/move", web::post().to(move_object))
            .route("/object/copy", web::post().to(copy_object))
            .route("/object/sign/{bucket}", web::post().to(sign_many))
            .route("/object/sign/{bucket}/{path:.+}", web::post().to(sign_one))
            .route(
                "/object/sign/{bucket}/{path:.+}",
                web::get().to(download_signed),
            )
            .route(
                "/object/sign/{bucket}/{path:.+}",
                web::head().to(download_signed),
            )
            .route(
                "/object/public/{bucket}/{path:.+}",
                web::get().to(download_public),
            )
            .route(
                "/object/public/{bucket}/{path:.+}",
                web::head().to(download_public),
            )
            .route(
                "/object/authenticated/{bucket}/{path:.+}",
                web::get().to(download_private),
            )
            .route(
                "/object/authenticated/{bucket}/{path:.+}",
                web::head().to(download_private),
            )
            .route(
                "/object/info/public/{bucket}/{path:.+}",
                web::get().to(info_public),
            )
            .route(
                "/object/info/authenticated/{bucket}/{path:.+}",
                web::get().to(info_private),
            )
            .route(
                "/object/info/{bucket}/{path:.+}",
                web::get().to(info_private),
            )
            .route("/object/{bucket}/{path:.+}", web::post().to(upload_new))
            .route("/object/{bucket}/{path:.+}", web::put().to(upload_replace))
            .route(
                "/object/{bucket}/{path:.+}",
                web::get().to(download_private),
            )
            .route(
                "/object/{bucket}/{path:.+}",
                web::head().to(download_private),
            )
            .route("/object/{bucket}/{path:.+}", web::delete().to(delete_one))
            .route("/object/{bucket}", web::delete().to(delete_many))
            .default_service(web::to(not_found)),
    );
}

fn err(e: StorageError) -> GatewayError {
    let (status, code, error) = e.parts();
    if status >= 500 {
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

fn who(req: &HttpRequest, state: &AppState) -> Result<Identity, GatewayError> {
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

fn path_parts(req: &HttpRequest) -> Result<(String, String), GatewayError> {
    let bucket = req.match_info().query("bucket").to_string();
    let name = req.match_info().query("path").to_string();
    keys::validate_key(&name).map_err(err)?;
    Ok((bucket, name))
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

// ------------------------------------------------------------------ uploads

struct Incoming {
    mimetype: String,
    cache_control: String,
    user_metadata: Value,
}

fn cache_control(value: Option<&str>) -> String {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) if v.chars().all(|c| c.is_ascii_digit()) => format!("max-age={v}"),
        Some(v) => v.to_string(),
        None => "no-cache".to_string(),
    }
}

async fn upload_new(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let upsert = header(&req, "x-upsert").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    upload(
        req,
        payload,
        state,
        if upsert { Mode::Upsert } else { Mode::Create },
    )
    .await
}

async fn upload_replace(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    upload(req, payload, state, Mode::Replace).await
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Create,
    Upsert,
    Replace,
}

async fn upload(req: HttpRequest, payload: web::Payload, state: Data, mode: Mode) -> Reply {
    // An upload may be slow, but not stalled: a pause longer than BODY_IDLE ends it.
    let payload = idle_timeout(payload, BODY_IDLE);
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let bucket = as_admin(&state, async |c| meta::bucket(c, &bucket_id).await).await?;
    let limit = bucket
        .file_size_limit
        .map_or(state.config.storage_file_size_limit, |b| {
            (b as u64).min(state.config.storage_file_size_limit)
        });
    if header(&req, "content-length")
        .and_then(|l| l.parse::<u64>().ok())
        .is_some_and(|l| l > limit + 64 * 1024)
    {
        return Err(err(StorageError::TooLarge));
    }
    // Before any byte is accepted: may this caller write this row? (RLS, rolled back.)
    let claims = id.claims.to_string();
    let dry = serde_json::json!({});
    tx(&state, &id.role, &claims, false, async |c| match mode {
        Mode::Replace => meta::update_object_row(c, &bucket_id, &name, "dry-run", &dry)
            .await
            .map(|_| ()),
        _ => meta::write_object_row(
            c,
            &bucket_id,
            &name,
            owner(&id),
            "dry-run",
            &dry,
            mode == Mode::Upsert,
        )
        .await
        .map(|_| ()),
    })
    .await?;

    let version = Uuid::new_v4().to_string();
    let path = keys::version_path(&version);
    let content_type = header(&req, "content-type").unwrap_or("").to_string();
    let (incoming, written) = if content_type
        .to_ascii_lowercase()
        .starts_with("multipart/form-data")
    {
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
            let is_file = cd.as_ref().and_then(|d| d.get_filename()).is_some();
            if !is_file {
                let fname = cd
                    .as_ref()
                    .and_then(|d| d.get_name())
                    .unwrap_or("")
                    .to_string();
                let mut value = Vec::new();
                while let Some(chunk) = field.next().await {
                    let chunk =
                        chunk.map_err(|e| err(StorageError::InvalidRequest(e.to_string())))?;
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
            if !keys::mime_allowed(&mimetype, bucket.allowed_mime_types.as_deref()) {
                return Err(err(StorageError::InvalidMimeType(mimetype)));
            }
            let body = field.map_err(|e| e.to_string());
            let written = upload::write_stream(
                state.store.as_ref(),
                &path,
                Box::pin(body),
                limit,
                &mimetype,
            )
            .await
            .map_err(err)?;
            // Drain the rest of the form so the client gets the response.
            while let Some(f) = form.next().await {
                if let Ok(mut f) = f {
                    while f.next().await.is_some() {}
                }
            }
            break (
                Incoming {
                    mimetype,
                    cache_control: cache_control(cache.as_deref()),
                    user_metadata,
                },
                written,
            );
        }
    } else {
        let mimetype = if content_type.is_empty() {
            "text/plain;charset=UTF-8".to_string()
        } else {
            content_type.clone()
        };
        if !keys::mime_allowed(&mimetype, bucket.allowed_mime_types.as_deref()) {
            return Err(err(StorageError::InvalidMimeType(mimetype)));
        }
        let user_metadata = header(&req, "x-metadata")
            .and_then(|m| {
                base64::Engine::decode(&base64::engine::general_purpose::STANDARD, m).ok()
            })
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(json!({}));
        let body = payload.map_err(|e| e.to_string());
        let written = upload::write_stream(
            state.store.as_ref(),
            &path,
            Box::pin(body),
            limit,
            &mimetype,
        )
        .await
        .map_err(err)?;
        (
            Incoming {
                mimetype,
                cache_control: cache_control(header(&req, "cache-control")),
                user_metadata,
            },
            written,
        )
    };

    let metadata = meta::object_metadata(
        &written,
        &incoming.mimetype,
        &incoming.cache_control,
        incoming.user_metadata,
    );
    // The real write, under the caller's RLS again. If it fails, the new bytes go away.
    let result = as_user(&state, &id, async |c| match mode {
        Mode::Replace => meta::update_object_row(c, &bucket_id, &name, &version, &metadata)
            .await
            .map(|(i, old)| (i, Some(old))),
        _ => {
            meta::write_object_row(
                c,
                &bucket_id,
                &name,
                owner(&id),
                &version,
                &metadata,
                mode == Mode::Upsert,
            )
            .await
        }
    })
    .await;
    match result {
        Ok((object_id, old)) => {
            upload::delete_versions(state.store.as_ref(), old).await;
            Ok(HttpResponse::Ok()
                .json(json!({ "Id": object_id, "Key": format!("{bucket_id}/{name}") })))
        }
        Err(e) => {
            upload::delete_versions(state.store.as_ref(), [version]).await;
            Err(e)
        }
    }
}

// ------------------------------------------------------------------ downloads

fn http_date(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn parse_range(h: &str, size: u64) -> Option<(u64, u64)> {
    let spec = h.trim().strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (start, end) = match (a.trim(), b.trim()) {
        ("", suffix) => {
            let n: u64 = suffix.parse().ok()?;
            (size.saturating_sub(n), size.checked_sub(1)?)
        }
        (s, "") => (s.parse().ok()?, size.checked_sub(1)?),
        (s, e) => (
            s.parse().ok()?,
            e.parse::<u64>().ok()?.min(size.checked_sub(1)?),
        ),
    };
    (start <= end && start < size).then_some((start, end))
}

async fn serve_object(req: &HttpRequest, state: &AppState, obj: Object) -> Reply {
    let etag = obj.etag().to_string();
    let mut res = HttpResponse::Ok();
    res.insert_header(("Content-Type", obj.mimetype()))
        .insert_header(("Cache-Control", obj.cache_control()))
        .insert_header(("ETag", etag.clone()))
        .insert_header(("Last-Modified", http_date(obj.updated_at)))
        .insert_header(("Accept-Ranges", "bytes"));
    if header(req, "if-none-match")
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"))
    {
        return Ok(res.status(StatusCode::NOT_MODIFIED).finish());
    }
    let download =
        web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.get("download").cloned());
    // HTML, SVG and XML would run script with the API's origin when opened: they download,
    // unless the bucket lists the type itself among its allowed types; then they are sandboxed.
    let mut forced = false;
    if keys::runs_in_browser(obj.mimetype()) {
        let bucket_id = obj.bucket_id.clone();
        let bucket = as_admin(state, async |c| meta::bucket(c, &bucket_id).await).await?;
        let listed = bucket.allowed_mime_types.as_deref().is_some_and(|types| {
            types.iter().any(|t| {
                t.eq_ignore_ascii_case(obj.mimetype().split(';').next().unwrap_or("").trim())
            })
        });
        res.insert_header((
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox",
        ));
        forced = !listed;
    }
    if download.is_some() || forced {
        let name = download.filter(|n| !n.is_empty()).unwrap_or_else(|| {
            obj.name
                .rsplit('/')
                .next()
                .unwrap_or("download")
                .to_string()
        });
        res.insert_header(("Content-Disposition", keys::attachment(&name)));
    }
    let size = obj.size().max(0) as u64;
    let range = header(req, "range").and_then(|r| parse_range(r, size));
    if header(req, "range").is_some() && range.is_none() && size > 0 {
        return Ok(HttpResponse::RangeNotSatisfiable()
            .insert_header(("Content-Range", format!("bytes */{size}")))
            .finish());
    }
    let mut opts = GetOptions::default();
    if let Some((s, e)) = range {
        opts.range = Some(GetRange::Bounded(s..e + 1));
        res.status(StatusCode::PARTIAL_CONTENT)
            .insert_header(("Content-Range", format!("bytes {s}-{e}/{size}")));
    }
    let len = range.map_or(size, |(s, e)| e - s + 1);
    if req.method() == actix_web::http::Method::HEAD {
        // A sized body that is never read: actix reports its length and sends no bytes for HEAD.
        let nothing = futures_util::stream::empty::<Result<bytes::Bytes, std::io::Error>>();
        return Ok(res.body(actix_web::body::SizedStream::new(len, nothing)));
    }
    let got = state
        .store
        .get_opts(&keys::version_path(&obj.version), opts)
        .await
        .map_err(|e| {
            tracing::error!(
                "object {} of {} has no stored bytes: {e}",
                obj.name,
                obj.bucket_id
            );
            err(StorageError::NoSuchKey)
        })?;
    res.no_chunking(len);
    Ok(res.streaming(got.into_stream()))
}

async fn download_public(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let obj = as_admin(&state, async |c| {
        if !meta::bucket(c, &bucket_id).await?.public {
            return Err(StorageError::NoSuchBucket);
        }
        meta::object_by_name(c, &bucket_id, &name).await
    })
    .await?;
    serve_object(&req, &state, obj).await
}

async fn download_private(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let obj = as_user(&state, &id, async |c| {
        meta::object_by_name(c, &bucket_id, &name).await
    })
    .await?;
    serve_object(&req, &state, obj).await
}

async fn download_signed(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let token =
        web::Query::<std::collections::HashMap<String, String>>::from_query(req.query_string())
            .ok()
            .and_then(|q| q.get("token").cloned())
            .ok_or_else(|| {
                err(StorageError::InvalidRequest(
                    "querystring must have required property 'token'".into(),
                ))
            })?;
    if !signing::verify(&state.keys, &token, &bucket_id, &name) {
        return Err(err(StorageError::InvalidJwt(
            "invalid signature or expired token".into(),
        )));
    }
    let obj = as_admin(&state, async |c| {
        meta::object_by_name(c, &bucket_id, &name).await
    })
    .await?;
    serve_object(&req, &state, obj).await
}

async fn info_public(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let obj = as_admin(&state, async |c| {
        if !meta::bucket(c, &bucket_id).await?.public {
            return Err(StorageError::NoSuchBucket);
        }
        meta::object_by_name(c, &bucket_id, &name).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(obj.info()))
}

async fn info_private(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let obj = as_user(&state, &id, async |c| {
        meta::object_by_name(c, &bucket_id, &name).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(obj.info()))
}

// ------------------------------------------------------------------ listing, deleting, moving

async fn list_objects(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let bucket_id = req.match_info().query("bucket").to_string();
    let id = who(&req, &state)?;
    let b = json_body(payload, &state).await?;
    let opts = ListOptions {
        prefix: b["prefix"].as_str().unwrap_or("").to_string(),
        search: b["search"].as_str().unwrap_or("").to_string(),
        limit: b["limit"].as_i64().unwrap_or(100).clamp(1, 1000),
        offset: b["offset"].as_i64().unwrap_or(0).max(0),
        sort_column: b["sortBy"]["column"].as_str().unwrap_or("name").to_string(),
        sort_desc: b["sortBy"]["order"]
            .as_str()
            .is_some_and(|o| o.eq_ignore_ascii_case("desc")),
    };
    as_admin(&state, async |c| meta::bucket(c, &bucket_id).await).await?;
    let list = as_user(&state, &id, async |c| {
        meta::list(c, &bucket_id, &opts).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(list))
}

fn object_json(o: &Object) -> Value {
    json!({"id": o.id, "name": o.name, "bucket_id": o.bucket_id, "version": o.version, "metadata": o.metadata,
           "created_at": o.created_at, "updated_at": o.updated_at})
}

async fn delete_one(req: HttpRequest, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let names = vec![name];
    let gone = as_user(&state, &id, async |c| {
        meta::delete_objects(c, &bucket_id, &names).await
    })
    .await?;
    if gone.is_empty() {
        return Err(err(StorageError::NoSuchKey));
    }
    upload::delete_versions(state.store.as_ref(), gone.into_iter().map(|o| o.version)).await;
    Ok(message("Successfully deleted"))
}

async fn delete_many(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let bucket_id = req.match_info().query("bucket").to_string();
    let id = who(&req, &state)?;
    let b = json_body(payload, &state).await?;
    let names: Vec<String> = b["prefixes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if names.is_empty() || names.len() > MAX_DELETE {
        return Err(err(StorageError::InvalidRequest(format!(
            "prefixes must list between 1 and {MAX_DELETE} objects"
        ))));
    }
    let gone = as_user(&state, &id, async |c| {
        meta::delete_objects(c, &bucket_id, &names).await
    })
    .await?;
    let body: Vec<Value> = gone.iter().map(object_json).collect();
    upload::delete_versions(state.store.as_ref(), gone.into_iter().map(|o| o.version)).await;
    Ok(HttpResponse::Ok().json(body))
}

struct MoveArgs {
    bucket: String,
    from: String,
    to_bucket: String,
    to: String,
}

async fn move_args(payload: web::Payload, state: &AppState) -> Result<MoveArgs, GatewayError> {
    let b = json_body(payload, state).await?;
    let s = |k: &str| b[k].as_str().map(str::to_string);
    let (Some(bucket), Some(from), Some(to)) = (s("bucketId"), s("sourceKey"), s("destinationKey"))
    else {
        return Err(err(StorageError::InvalidRequest(
            "bucketId, sourceKey and destinationKey are required".into(),
        )));
    };
    keys::validate_key(&from).map_err(err)?;
    keys::validate_key(&to).map_err(err)?;
    let to_bucket = s("destinationBucket").unwrap_or_else(|| bucket.clone());
    Ok(MoveArgs {
        bucket,
        from,
        to_bucket,
        to,
    })
}

async fn move_object(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let a = move_args(payload, &state).await?;
    as_user(&state, &id, async |c| {
        meta::move_object(c, &a.bucket, &a.from, &a.to_bucket, &a.to).await
    })
    .await?;
    Ok(message("Successfully moved"))
}

async fn copy_object(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let a = move_args(payload, &state).await?;
    let source = as_user(&state, &id, async |c| {
        meta::object_by_name(c, &a.bucket, &a.from).await
    })
    .await?;
    let version = Uuid::new_v4().to_string();
    state
        .store
        .copy(
            &keys::version_path(&source.version),
            &keys::version_path(&version),
        )
        .await
        .map_err(|e| err(e.into()))?;
    let result = as_user(&state, &id, async |c| {
        meta::write_object_row(
            c,
            &a.to_bucket,
            &a.to,
            owner(&id),
            &version,
            &source.metadata,
            false,
        )
        .await
    })
    .await;
    match result {
        Ok((object_id, _)) => Ok(HttpResponse::Ok()
            .json(json!({"Id": object_id, "Key": format!("{}/{}", a.to_bucket, a.to)}))),
        Err(e) => {
            upload::delete_versions(state.store.as_ref(), [version]).await;
            Err(e)
        }
    }
}

// ------------------------------------------------------------------ signed URLs

fn expires_in(b: &Value) -> Result<i64, GatewayError> {
    b["expiresIn"]
        .as_i64()
        .filter(|e| (1..=signing::MAX_EXPIRES_IN).contains(e))
        .ok_or_else(|| {
            err(StorageError::InvalidRequest(format!(
                "expiresIn must be a whole number of seconds from 1 to {} (100 years)",
                signing::MAX_EXPIRES_IN
            )))
        })
}

fn signed_url(state: &AppState, bucket: &str, name: &str, secs: i64) -> String {
    // Unencoded, as storage-api returns it: storage-js applies encodeURI to the whole URL.
    let token = signing::sign(&state.keys, bucket, name, secs);
    format!("/object/sign/{bucket}/{name}?token={token}")
}

async fn sign_one(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let (bucket_id, name) = path_parts(&req)?;
    let id = who(&req, &state)?;
    let secs = expires_in(&json_body(payload, &state).await?)?;
    as_user(&state, &id, async |c| {
        meta::object_by_name(c, &bucket_id, &name).await
    })
    .await?;
    Ok(
        HttpResponse::Ok()
            .json(json!({ "signedURL": signed_url(&state, &bucket_id, &name, secs) })),
    )
}

async fn sign_many(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let bucket_id = req.match_info().query("bucket").to_string();
    let id = who(&req, &state)?;
    let b = json_body(payload, &state).await?;
    let secs = expires_in(&b)?;
    let paths: Vec<String> = b["paths"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let visible: Vec<String> = as_user(&state, &id, async |c| {
        let rows = c
            .query(
                "SELECT name FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2)",
                &[&bucket_id, &paths],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    })
    .await?;
    let out: Vec<Value> = paths
        .iter()
        .map(|p| {
            if visible.contains(p) {
                json!({"error": null, "path": p, "signedURL": signed_url(&state, &bucket_id, p, secs)})
            } else {
                json!({"error": "Either the object does not exist or you do not have access to it", "path": p, "signedURL": null})
            }
        })
        .collect();
    Ok(HttpResponse::Ok().json(out))
}

// ------------------------------------------------------------------ buckets

async fn list_buckets(req: HttpRequest, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let list = as_user(&state, &id, async |c| meta::list_buckets(c).await).await?;
    Ok(HttpResponse::Ok().json(list))
}

async fn get_bucket(req: HttpRequest, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let bucket = req.match_info().query("id").to_string();
    let b = as_user(&state, &id, async |c| meta::get_bucket(c, &bucket).await).await?;
    Ok(HttpResponse::Ok().json(b))
}

fn mime_list(v: &Value) -> Result<Option<Vec<String>>, GatewayError> {
    match v {
        Value::Null => Ok(None),
        Value::Array(a) => Ok(Some(
            a.iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect(),
        )),
        _ => Err(err(StorageError::InvalidRequest(
            "allowed_mime_types must be an array".into(),
        ))),
    }
}

async fn create_bucket(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let b = json_body(payload, &state).await?;
    let name = b["id"]
        .as_str()
        .or(b["name"].as_str())
        .unwrap_or("")
        .to_string();
    keys::validate_bucket_name(&name).map_err(err)?;
    let size = keys::parse_size(&b["file_size_limit"]).map_err(err)?;
    let mimes = mime_list(&b["allowed_mime_types"])?;
    let public = b["public"].as_bool().unwrap_or(false);
    as_user(&state, &id, async |c| {
        meta::create_bucket(c, &name, public, size, mimes, owner(&id)).await
    })
    .await?;
    Ok(HttpResponse::Ok().json(json!({ "name": name })))
}

async fn update_bucket(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let bucket = req.match_info().query("id").to_string();
    let b = json_body(payload, &state).await?;
    let size = if b.get("file_size_limit").is_some() {
        Some(keys::parse_size(&b["file_size_limit"]).map_err(err)?)
    } else {
        None
    };
    let mimes = if b.get("allowed_mime_types").is_some() {
        Some(mime_list(&b["allowed_mime_types"])?)
    } else {
        None
    };
    let public = b["public"].as_bool();
    as_user(&state, &id, async |c| {
        meta::update_bucket(c, &bucket, public, size, mimes).await
    })
    .await?;
    Ok(message("Successfully updated"))
}

async fn delete_bucket(req: HttpRequest, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let bucket = req.match_info().query("id").to_string();
    as_user(&state, &id, async |c| meta::delete_bucket(c, &bucket).await).await?;
    Ok(message("Successfully deleted"))
}

async fn empty_bucket(req: HttpRequest, state: Data) -> Reply {
    let id = who(&req, &state)?;
    let bucket = req.match_info().query("id").to_string();
    let gone = as_user(&state, &id, async |c| {
        meta::bucket(c, &bucket).await?;
        meta::delete_all(c, &bucket).await
    })
    .await?;
    upload::delete_versions(state.store.as_ref(), gone.into_iter().map(|o| o.version)).await;
    Ok(message("Successfully emptied"))
}

async fn not_found(req: HttpRequest) -> Reply {
    Err(GatewayError::Storage {
        status: 404,
        code: "NotFound".into(),
        error: "not_found".into(),
        message: format!("Route {}:{} not found", req.method(), req.path()),
    })
}
