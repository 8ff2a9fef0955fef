//! Image renderings (`/render/image/…`): an image object resized and re-encoded
//! ([`crate::transform`]), the result cached in the object store next to the version it was
//! made from, so every replica reuses it and it goes when the object does. Renderings run off
//! the async runtime, a few at a time.

use super::Storage;
use crate::meta::Object;
use crate::transform::{self, Limits, Transform};
use crate::{StorageError, keys};
use bytes::Bytes;
use sha2::Digest;
use std::sync::OnceLock;
use tokio::sync::Semaphore;

/// A rendering about to be served: what it will be (type, ETag, the options applied) before
/// any image is read, so that a client holding it gets a 304.
pub struct Rendering {
    pub mime: String,
    pub etag: String,
    /// imgproxy's options as storage-api reports them (`X-Transformations`).
    pub applied: String,
    transform: Transform,
    webp: bool,
    cached_at: object_store::path::Path,
}

/// Decoding and resizing are CPU-bound and can take a few hundred MB: at most one rendering
/// per core at a time in this process.
fn slots() -> &'static Semaphore {
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    SLOTS
        .get_or_init(|| Semaphore::new(std::thread::available_parallelism().map_or(1, |n| n.get())))
}

/// A cached rendering is its type, a newline and the image: stores without per-object
/// attributes (local files) keep the type too.
fn pack(mime: &str, image: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(mime.len() + 1 + image.len());
    out.extend_from_slice(mime.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(image);
    out.into()
}

fn unpack(cached: &Bytes) -> Option<(String, Bytes)> {
    let nl = cached.iter().take(64).position(|b| *b == b'\n')?;
    let mime = std::str::from_utf8(&cached[..nl]).ok()?;
    mime.starts_with("image/")
        .then(|| (mime.to_string(), cached.slice(nl + 1..)))
}

impl Storage {
    /// Whether `[storage.image_transformation]` is on (the routes are there only then).
    pub fn renders_images(&self) -> bool {
        self.image_transformation
    }

    /// What rendering `obj` with `t` for a client that accepts `accept` will give.
    pub fn rendering(&self, obj: &Object, t: Transform, accept: Option<&str>) -> Rendering {
        let limits = Limits::default();
        let webp = t.wants_webp(accept);
        let cached_at = t.cache_path(&obj.version, webp, &limits);
        let etag = format!(
            "\"{}\"",
            hex::encode(&sha2::Sha256::digest(cached_at.as_ref())[..16])
        );
        let mime = if webp { "image/webp" } else { obj.mimetype() };
        Rendering {
            mime: mime.to_string(),
            etag,
            applied: t.imgproxy_options(&limits),
            transform: t,
            webp,
            cached_at,
        }
    }

    /// The rendered image and its type: from the cache, or made now (and cached).
    pub async fn render(
        &self,
        obj: &Object,
        r: Rendering,
    ) -> Result<(String, Bytes), StorageError> {
        if let Ok(hit) = self.store.get(&r.cached_at).await
            && let Ok(cached) = hit.bytes().await
            && let Some(found) = unpack(&cached)
        {
            return Ok(found);
        }
        let limits = Limits::default();
        if obj.size().max(0) as u64 > limits.max_source_bytes {
            return Err(StorageError::ImageProcessing(
                400,
                "The source image file is too large to process".into(),
            ));
        }
        // The slot is taken before the source is read: waiting renderings hold no image in
        // memory.
        let permit = slots()
            .acquire()
            .await
            .map_err(|_| StorageError::ImageProcessing(503, "Too many requests".into()))?;
        let source = self
            .store
            .get(&keys::version_path(&obj.version))
            .await?
            .bytes()
            .await?;
        let (t, webp) = (r.transform, r.webp);
        let rendered = tokio::task::spawn_blocking(move || {
            let out = transform::render(&source, &t, webp, &limits);
            drop(permit);
            out
        })
        .await
        .map_err(|e| StorageError::ImageProcessing(500, format!("Internal error: {e}")))??;
        let packed = pack(rendered.mime, &rendered.bytes);
        if let Err(e) = self.store.put(&r.cached_at, packed.clone().into()).await {
            tracing::warn!("could not cache the rendering {}: {e}", r.cached_at);
        }
        Ok((
            rendered.mime.to_string(),
            packed.slice(rendered.mime.len() + 1..),
        ))
    }
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
        assert!(unpack(&Bytes::from_static(b"garbage without a type")).is_none());
    }
}
