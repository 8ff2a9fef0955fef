//! `GET /render/image/{public|authenticated|sign}/{bucket}/{path}`: an image object resized
//! and re-encoded (storage::transform), the result cached in the object store next to the
//! version it was made from, so every replica reuses it and it goes when the object does.
//! Renderings run off the async runtime, a few at a time.

use super::download::object_headers;
use super::{Data, Reader, Reply, err, find_object, not_found, path_parts, query, token, who};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, web};
use sha2::Digest;
use std::sync::OnceLock;
use storage::StorageError;
use storage::signing::{self, Scope};
use storage::transform::{self, Limits, Transform};
use tokio::sync::Semaphore;

pub(super) fn routes(cfg: &mut web::ServiceConfig) {
    for (path, kind) in [
        ("/render/image/public/{bucket}/{path:.+}", Kind::Public),
        (
            "/render/image/authenticated/{bucket}/{path:.+}",
            Kind::Authenticated,
        ),
        ("/render/image/sign/{bucket}/{path:.+}", Kind::Signed),
    ] {
        cfg.route(
            path,
            web::get().to(move |req: HttpRequest, state: Data| render(req, state, kind)),
        );
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Public,
    Authenticated,
    Signed,
}

/// Decoding and resizing are CPU-bound and can take a few hundred MB: at most one rendering
/// per core at a time in this process.
fn slots() -> &'static Semaphore {
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    SLOTS
        .get_or_init(|| Semaphore::new(std::thread::available_parallelism().map_or(1, |n| n.get())))
}

async fn render(req: HttpRequest, state: Data, kind: Kind) -> Reply {
    if !state.config.storage_image_transformation {
        return not_found(req).await;
    }
    let (bucket_id, name) = path_parts(&req)?;
    let id;
    let (reader, t) = match kind {
        Kind::Public => (
            Reader::Public,
            Transform::from_query(&query(&req)).map_err(err)?,
        ),
        Kind::Authenticated => {
            id = who(&req, &state)?;
            (
                Reader::Caller(&id),
                Transform::from_query(&query(&req)).map_err(err)?,
            )
        }
        Kind::Signed => {
            let token = token(&req)?;
            let grant = signing::verify(&state.keys, &token, &bucket_id, &name, Scope::Download)
                .map_err(err)?;
            // The token fixes the transformations; the query cannot change them.
            let t = Transform::from_token(grant.transformations.as_deref().unwrap_or(""));
            (Reader::Signed, t)
        }
    };
    let (bucket, obj) = find_object(&state, reader, &bucket_id, &name).await?;
    let limits = Limits::default();
    let accept = req.headers().get("accept").and_then(|v| v.to_str().ok());
    let webp = t.wants_webp(accept);
    let cached_at = t.cache_path(&obj.version, webp, &limits);
    let etag = format!(
        "\"{}\"",
        hex::encode(&sha2::Sha256::digest(cached_at.as_ref())[..16])
    );
    let mime = if webp { "image/webp" } else { obj.mimetype() };
    let (mut res, fresh) = object_headers(&req, &bucket, &obj, mime, &etag);
    res.insert_header(("Vary", "Accept"));
    let applied = t.imgproxy_options(&limits);
    if !applied.is_empty() {
        res.insert_header(("X-Transformations", applied));
    }
    if fresh {
        return Ok(res.status(StatusCode::NOT_MODIFIED).finish());
    }
    if let Ok(hit) = state.store.get(&cached_at).await
        && let Ok(cached) = hit.bytes().await
        && let Some((mime, image)) = unpack(&cached)
    {
        res.insert_header(("Content-Type", mime));
        return Ok(res.body(image));
    }
    if obj.size().max(0) as u64 > limits.max_source_bytes {
        return Err(err(StorageError::ImageProcessing(
            400,
            "The source image file is too large to process".into(),
        )));
    }
    // The slot is taken before the source is read: waiting renderings hold no image in memory.
    let permit = slots().acquire().await.map_err(|_| {
        err(StorageError::ImageProcessing(
            503,
            "Too many requests".into(),
        ))
    })?;
    let source = state
        .store
        .get(&storage::keys::version_path(&obj.version))
        .await
        .map_err(|e| err(e.into()))?
        .bytes()
        .await
        .map_err(|e| err(e.into()))?;
    let rendered = tokio::task::spawn_blocking(move || {
        let out = transform::render(&source, &t, webp, &limits);
        drop(permit);
        out
    })
    .await
    .map_err(|e| {
        err(StorageError::ImageProcessing(
            500,
            format!("Internal error: {e}"),
        ))
    })?
    .map_err(err)?;
    let packed = pack(rendered.mime, &rendered.bytes);
    if let Err(e) = state.store.put(&cached_at, packed.clone().into()).await {
        tracing::warn!("could not cache the rendering {cached_at}: {e}");
    }
    res.insert_header(("Content-Type", rendered.mime));
    Ok(res.body(packed.slice(rendered.mime.len() + 1..)))
}

/// A cached rendering is its type, a newline and the image: stores without per-object
/// attributes (local files) keep the type too.
fn pack(mime: &str, image: &[u8]) -> bytes::Bytes {
    let mut out = Vec::with_capacity(mime.len() + 1 + image.len());
    out.extend_from_slice(mime.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(image);
    out.into()
}

fn unpack(cached: &bytes::Bytes) -> Option<(String, bytes::Bytes)> {
    let nl = cached.iter().take(64).position(|b| *b == b'\n')?;
    let mime = std::str::from_utf8(&cached[..nl]).ok()?;
    mime.starts_with("image/")
        .then(|| (mime.to_string(), cached.slice(nl + 1..)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_renderings_keep_their_type() {
        let packed = pack("image/webp", b"RIFF....WEBP");
        let (mime, image) = unpack(&packed).unwrap();
        assert_eq!(
            (mime.as_str(), image.as_ref()),
            ("image/webp", &b"RIFF....WEBP"[..])
        );
        assert!(unpack(&bytes::Bytes::from_static(b"garbage without a type")).is_none());
    }
}
