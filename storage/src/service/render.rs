//! Image renderings (`/render/image/…`): an image object resized and re-encoded
//! ([`crate::transform`]), the result cached in the object store next to the version it was
//! made from, so every replica reuses it and it goes when the object does. The cache is kept
//! within a byte budget and a number of variants per object (`storage.supagate_renders` records
//! each rendering's size and last use; the least recently used go). Renderings run off the
//! async runtime, one per core at most, and together within a memory budget counted from each
//! source's header before it is decoded.

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
    /// An SVG asked for in no raster format: served as it is, as imgproxy does (it rasterises
    /// SVG only into a format named explicitly).
    as_is: bool,
    cached_at: object_store::path::Path,
}

/// Decoding and resizing are CPU-bound: at most one rendering per core at a time in this
/// process (and within the memory budget, see [`Storage::render`]).
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
        let as_is = keys::is_svg(obj.mimetype()) && t.format != transform::Format::Webp;
        let webp = !as_is && t.wants_webp(accept);
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
            as_is,
            cached_at,
        }
    }

    /// The rendered image and its type: from the cache, or made now (and cached).
    pub async fn render(
        &self,
        obj: &Object,
        r: Rendering,
    ) -> Result<(String, Bytes), StorageError> {
        let limits = Limits::default();
        if obj.size().max(0) as u64 > limits.max_source_bytes {
            return Err(StorageError::ImageProcessing(
                400,
                "The source image file is too large to process".into(),
            ));
        }
        if r.as_is {
            let source = self.store.get(&keys::version_path(&obj.version)).await?;
            return Ok((r.mime, source.bytes().await?));
        }
        if let Ok(hit) = self.store.get(&r.cached_at).await
            && let Ok(cached) = hit.bytes().await
            && let Some(found) = unpack(&cached)
        {
            self.touch(&r.cached_at, &obj.version, cached.len()).await;
            return Ok(found);
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
        // Its share of the memory budget, from the header, before a pixel is decoded.
        let header = transform::probe(&source, &limits)?;
        let budget = mib(self.render.memory_bytes).max(1);
        let need = mib(transform::peak_bytes(&header, &r.transform, &limits)).clamp(1, budget);
        let memory = self
            .render_memory
            .clone()
            .acquire_many_owned(need)
            .await
            .map_err(|_| StorageError::ImageProcessing(503, "Too many requests".into()))?;
        let (t, webp) = (r.transform, r.webp);
        let rendered = tokio::task::spawn_blocking(move || {
            let out = transform::render(&source, &t, webp, &limits);
            drop((permit, memory));
            out
        })
        .await
        .map_err(|e| StorageError::ImageProcessing(500, format!("Internal error: {e}")))??;
        let packed = pack(rendered.mime, &rendered.bytes);
        match self.store.put(&r.cached_at, packed.clone().into()).await {
            Ok(_) => self.keep(&r.cached_at, &obj.version, packed.len()).await,
            Err(e) => tracing::warn!("could not cache the rendering {}: {e}", r.cached_at),
        }
        Ok((
            rendered.mime.to_string(),
            packed.slice(rendered.mime.len() + 1..),
        ))
    }

    /// Records a rendering just cached (or a hit on one), then removes what takes the cache
    /// past its budgets: the object's least recently used variants past `variants`, and the
    /// least recently used renderings past `cache_bytes`. A failure here costs cache, never
    /// the answer.
    async fn keep(&self, path: &object_store::path::Path, version: &str, bytes: usize) {
        let settings = self.render;
        let doomed = self
            .as_admin(async |c| {
                c.execute(
                    "INSERT INTO storage.supagate_renders AS r (path, version, bytes) VALUES ($1, $2, $3)
                     ON CONFLICT (path) DO UPDATE SET bytes = EXCLUDED.bytes, used_at = now()",
                    &[&path.as_ref(), &version, &(bytes as i64)],
                )
                .await?;
                let rows = c
                    .query(
                        "WITH variants AS (
                           SELECT path FROM storage.supagate_renders WHERE version = $1
                           ORDER BY used_at DESC, path OFFSET $2
                         ), ranked AS (
                           SELECT path, (sum(bytes) OVER (ORDER BY used_at DESC, path))::int8 AS running
                           FROM storage.supagate_renders
                         )
                         DELETE FROM storage.supagate_renders
                         WHERE path IN (SELECT path FROM variants
                                        UNION SELECT path FROM ranked WHERE running > $3)
                         RETURNING path",
                        &[&version, &i64::from(settings.variants), &(settings.cache_bytes as i64)],
                    )
                    .await?;
                Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect::<Vec<_>>())
            })
            .await;
        match doomed {
            Ok(paths) => {
                for p in paths {
                    let p = object_store::path::Path::from(p);
                    if let Err(e) = self.store.delete(&p).await
                        && !matches!(e, object_store::Error::NotFound { .. })
                    {
                        tracing::warn!("could not remove the rendering {p}: {e}");
                    }
                }
            }
            Err(e) => tracing::warn!("could not account for the rendering {path}: {e}"),
        }
    }

    /// A cache hit: its last use is recorded (at most once a minute), so that it is not the
    /// first to go.
    async fn touch(&self, path: &object_store::path::Path, version: &str, bytes: usize) {
        let touched = self
            .as_admin(async |c| {
                Ok(c.execute(
                    "INSERT INTO storage.supagate_renders AS r (path, version, bytes) VALUES ($1, $2, $3)
                     ON CONFLICT (path) DO UPDATE SET used_at = now()
                     WHERE r.used_at < now() - interval '1 minute'",
                    &[&path.as_ref(), &version, &(bytes as i64)],
                )
                .await?)
            })
            .await;
        if let Err(e) = touched {
            tracing::warn!("could not record a use of the rendering {path}: {e}");
        }
    }
}

/// Bytes in whole MiB, rounded up (the memory budget's permits).
pub(super) fn mib(bytes: u64) -> u32 {
    u32::try_from(bytes.div_ceil(1 << 20)).unwrap_or(u32::MAX)
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
