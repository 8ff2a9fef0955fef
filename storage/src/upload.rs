//! Streams an upload into the object store with bounded memory: a size limit enforced while
//! the bytes arrive, the content checked against its declared type from the first bytes, an
//! ETag computed on the way. On any failure the partial upload is aborted.

use crate::{StorageError, keys};
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use object_store::{ObjectStore, WriteMultipart, path::Path};
use sha2::Digest;

/// Bytes needed to recognise a file's type.
const SNIFF_BYTES: usize = 512;
/// Part size of multipart uploads (S3's minimum).
const PART_SIZE: usize = 5 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct Written {
    pub size: i64,
    pub etag: String,
}

pub async fn write_stream<S, E>(
    store: &dyn ObjectStore,
    path: &Path,
    mut body: S,
    limit: u64,
    declared_mime: &str,
) -> Result<Written, StorageError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    let upload = store.put_multipart(path).await?;
    let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_SIZE);
    let mut hasher = sha2::Sha256::new();
    let mut size: u64 = 0;
    let mut head: Vec<u8> = Vec::with_capacity(SNIFF_BYTES);
    let mut checked = false;
    let failure = loop {
        let chunk = match body.next().await {
            None => break None,
            Some(Ok(c)) => c,
            Some(Err(e)) => {
                break Some(StorageError::InvalidRequest(format!(
                    "the upload was interrupted: {e}"
                )));
            }
        };
        size += chunk.len() as u64;
        if size > limit {
            break Some(StorageError::TooLarge);
        }
        if !checked {
            let take = (SNIFF_BYTES - head.len()).min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
            if head.len() >= SNIFF_BYTES {
                checked = true;
                if !keys::content_allowed(declared_mime, &head) {
                    break Some(refused(declared_mime));
                }
            }
        }
        hasher.update(&chunk);
        // Waits for in-flight parts when too many are buffered: memory stays bounded.
        if let Err(e) = writer.wait_for_capacity(2).await {
            break Some(e.into());
        }
        writer.write(&chunk);
    };
    if failure.is_none() && !checked && !keys::content_allowed(declared_mime, &head) {
        let _ = writer.abort().await;
        return Err(refused(declared_mime));
    }
    if let Some(e) = failure {
        let _ = writer.abort().await;
        return Err(e);
    }
    writer.finish().await?;
    let digest = hasher.finalize();
    Ok(Written {
        size: size as i64,
        etag: format!("\"{}\"", hex::encode(&digest[..16])),
    })
}

fn refused(declared_mime: &str) -> StorageError {
    StorageError::ActiveContent(declared_mime.to_string())
}

/// Deletes stored bytes, and the image renderings made from them, after their rows are gone;
/// a failure only leaves an orphan file.
pub async fn delete_versions(store: &dyn ObjectStore, versions: impl IntoIterator<Item = String>) {
    for v in versions.into_iter().filter(|v| !v.is_empty()) {
        if let Err(e) = store.delete(&keys::version_path(&v)).await {
            tracing::warn!("could not delete stored bytes of version {v}: {e}");
        }
        let renders: Vec<_> = store
            .list(Some(&keys::render_prefix(&v)))
            .filter_map(|m| async move { m.ok().map(|m| m.location) })
            .collect()
            .await;
        for path in renders {
            if let Err(e) = store.delete(&path).await {
                tracing::warn!("could not delete rendering {path}: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::memory::InMemory;

    fn chunks(parts: Vec<&'static [u8]>) -> impl Stream<Item = Result<Bytes, String>> + Unpin {
        futures_util::stream::iter(parts.into_iter().map(|p| Ok(Bytes::from_static(p))))
    }

    #[tokio::test]
    async fn writes_and_hashes() {
        let store = InMemory::new();
        let p = Path::from("objects/a/1");
        let w = write_stream(
            &store,
            &p,
            chunks(vec![b"hello ", b"world"]),
            100,
            "text/plain",
        )
        .await
        .unwrap();
        assert_eq!(w.size, 11);
        assert_eq!(w.etag.len(), 34);
        assert_eq!(
            store.get(&p).await.unwrap().bytes().await.unwrap().as_ref(),
            b"hello world"
        );
    }

    #[tokio::test]
    async fn stops_at_the_limit_and_leaves_nothing() {
        let store = InMemory::new();
        let p = Path::from("objects/a/2");
        let e = write_stream(
            &store,
            &p,
            chunks(vec![b"0123456789", b"0123456789"]),
            15,
            "text/plain",
        )
        .await
        .unwrap_err();
        assert!(matches!(e, StorageError::TooLarge));
        assert!(store.head(&p).await.is_err());
    }

    #[tokio::test]
    async fn refuses_content_of_another_type() {
        let store = InMemory::new();
        let p = Path::from("objects/a/3");
        let e = write_stream(
            &store,
            &p,
            chunks(vec![b"MZ\x90\x00not an image"]),
            100,
            "image/png",
        )
        .await
        .unwrap_err();
        assert!(matches!(e, StorageError::ActiveContent(_)));
        assert!(store.head(&p).await.is_err());
    }

    #[tokio::test]
    async fn an_interrupted_upload_leaves_nothing() {
        let store = InMemory::new();
        let p = Path::from("objects/a/4");
        let body = futures_util::stream::iter(vec![
            Ok(Bytes::from_static(b"part")),
            Err("connection reset".to_string()),
        ]);
        let e = write_stream(&store, &p, body, 100, "text/plain")
            .await
            .unwrap_err();
        assert!(matches!(e, StorageError::InvalidRequest(_)));
        assert!(store.head(&p).await.is_err());
    }
}
