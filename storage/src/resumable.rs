//! Resumable uploads (tus 1.0.0) shared by every gateway: the state of each upload is a row of
//! `supagate.resumable_uploads`, the bytes received so far are parts in the object store. A
//! part is recorded only by the request that wrote it and only if the offset it started from is
//! still current, so two requests racing on one upload cannot both append. When the last byte
//! has arrived the parts are streamed, in order, into one new version (size, type and content
//! checked as for any upload) and the parts are removed.

use crate::StorageError;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use futures_util::{Stream, StreamExt, TryStreamExt};
use object_store::{ObjectStore, WriteMultipart, path::Path};
use serde_json::Value;
use std::sync::Arc;
use tokio_postgres::GenericClient;

/// How long an unfinished upload is kept (storage-api's `TUS_URL_EXPIRY_MS`, one hour).
pub const EXPIRES_IN_SECS: i64 = 3600;

#[derive(Debug, Clone)]
pub struct Upload {
    pub id: String,
    pub bucket_id: String,
    pub name: String,
    pub version: String,
    pub owner_id: Option<String>,
    pub upsert: bool,
    pub length: i64,
    pub offset: i64,
    pub parts: Vec<String>,
    pub content_type: String,
    pub cache_control: String,
    pub user_metadata: Value,
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// The id of an upload, as storage-api forms it: base64url of `<bucket>/<name>/<version>`.
pub fn upload_id(bucket: &str, name: &str, version: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{bucket}/{name}/{version}"))
}

/// Where a part starting at `offset` goes. The random suffix keeps a racing request from
/// overwriting a part another request recorded.
pub fn part_path(version: &str, offset: i64) -> Path {
    Path::from(format!(
        "resumable/{version}/{offset:020}-{}",
        uuid::Uuid::new_v4().simple()
    ))
}

const COLS: &str = "id, bucket_id, name, version, owner_id, upsert, upload_length, upload_offset, \
     parts, content_type, cache_control, user_metadata, expires_at";

fn upload(r: &tokio_postgres::Row) -> Upload {
    Upload {
        id: r.get(0),
        bucket_id: r.get(1),
        name: r.get(2),
        version: r.get(3),
        owner_id: r.get(4),
        upsert: r.get(5),
        length: r.get(6),
        offset: r.get(7),
        parts: r.get(8),
        content_type: r.get(9),
        cache_control: r.get(10),
        user_metadata: r.get(11),
        expires_at: r.get(12),
    }
}

/// A new upload's row.
pub struct NewRow<'a> {
    pub bucket: &'a str,
    pub name: &'a str,
    pub owner_id: Option<&'a str>,
    pub upsert: bool,
    pub length: i64,
    pub content_type: &'a str,
    pub cache_control: &'a str,
    pub user_metadata: &'a Value,
}

/// Records a new upload; its id and expiry are chosen here.
pub async fn create(c: &impl GenericClient, n: NewRow<'_>) -> Result<Upload, StorageError> {
    let NewRow {
        bucket,
        name,
        owner_id,
        upsert,
        length,
        content_type,
        cache_control,
        user_metadata,
    } = n;
    let version = uuid::Uuid::new_v4().to_string();
    let id = upload_id(bucket, name, &version);
    let row = c
        .query_one(
            &format!(
                "INSERT INTO supagate.resumable_uploads
                   (id, bucket_id, name, version, owner_id, upsert, upload_length, content_type,
                    cache_control, user_metadata, expires_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + make_interval(secs => $11))
                 RETURNING {COLS}"
            ),
            &[
                &id,
                &bucket,
                &name,
                &version,
                &owner_id,
                &upsert,
                &length,
                &content_type,
                &cache_control,
                user_metadata,
                &(EXPIRES_IN_SECS as f64),
            ],
        )
        .await?;
    Ok(upload(&row))
}

/// An unexpired upload.
pub async fn get(c: &impl GenericClient, id: &str) -> Result<Upload, StorageError> {
    c.query_opt(
        &format!(
            "SELECT {COLS} FROM supagate.resumable_uploads WHERE id = $1 AND expires_at > now()"
        ),
        &[&id],
    )
    .await?
    .map(|r| upload(&r))
    .ok_or(StorageError::NoSuchUpload)
}

/// Records a part written from `from` with `size` bytes. `None` when another request moved the
/// offset first (the part must then be deleted and the client told the offset conflicts).
pub async fn append(
    c: &impl GenericClient,
    id: &str,
    from: i64,
    size: i64,
    part: &str,
) -> Result<Option<i64>, StorageError> {
    Ok(c.query_opt(
        "UPDATE supagate.resumable_uploads
             SET upload_offset = upload_offset + $3, parts = parts || $4::text
             WHERE id = $1 AND upload_offset = $2 AND upload_offset + $3 <= upload_length
             RETURNING upload_offset",
        &[&id, &from, &size, &part],
    )
    .await?
    .map(|r| r.get(0)))
}

/// Removes an upload's row, returning it (its parts are then the caller's to delete).
pub async fn remove(c: &impl GenericClient, id: &str) -> Result<Option<Upload>, StorageError> {
    Ok(c.query_opt(
        &format!("DELETE FROM supagate.resumable_uploads WHERE id = $1 RETURNING {COLS}"),
        &[&id],
    )
    .await?
    .map(|r| upload(&r)))
}

/// Removes up to `max` expired uploads, returning them so their parts can be deleted.
pub async fn remove_expired(c: &impl GenericClient, max: i64) -> Result<Vec<Upload>, StorageError> {
    Ok(c.query(
        &format!(
            "DELETE FROM supagate.resumable_uploads WHERE id IN (
                   SELECT id FROM supagate.resumable_uploads WHERE expires_at <= now()
                   ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
                 RETURNING {COLS}"
        ),
        &[&max],
    )
    .await?
    .iter()
    .map(upload)
    .collect())
}

/// Writes one request's bytes as a part, keeping whatever arrived if the connection breaks
/// (that is what lets the client resume from there). At most `max` bytes are taken; more is
/// an error. Returns the bytes written and, if the body broke off, why.
pub async fn write_part<S, E>(
    store: &dyn ObjectStore,
    path: &Path,
    mut body: S,
    max: u64,
) -> Result<(u64, Option<String>), StorageError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    let upload = store.put_multipart(path).await?;
    let mut writer = WriteMultipart::new_with_chunk_size(upload, 5 * 1024 * 1024);
    let mut size: u64 = 0;
    let mut broken = None;
    while let Some(chunk) = body.next().await {
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => {
                broken = Some(e.to_string());
                break;
            }
        };
        size += chunk.len() as u64;
        if size > max {
            let _ = writer.abort().await;
            return Err(StorageError::TooLarge);
        }
        if let Err(e) = writer.wait_for_capacity(2).await {
            return Err(e.into());
        }
        writer.write(&chunk);
    }
    if size == 0 {
        let _ = writer.abort().await;
        return Ok((0, broken));
    }
    writer.finish().await?;
    Ok((size, broken))
}

/// The parts of an upload, in order, as one stream of bytes.
pub fn read_parts(
    store: Arc<dyn ObjectStore>,
    parts: Vec<String>,
) -> impl Stream<Item = Result<Bytes, object_store::Error>> + Unpin {
    Box::pin(
        futures_util::stream::iter(parts)
            .then(move |p| {
                let store = store.clone();
                async move { store.get(&Path::from(p)).await.map(|r| r.into_stream()) }
            })
            .try_flatten(),
    )
}

/// Deletes an upload's parts; a failure leaves only an orphan part.
pub async fn delete_parts(store: &dyn ObjectStore, parts: &[String]) {
    for p in parts {
        match store.delete(&Path::from(p.as_str())).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
            Err(e) => tracing::warn!("could not delete resumable upload part {p}: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::memory::InMemory;

    #[test]
    fn ids_are_storage_apis() {
        let id = upload_id("b", "a/x.png", "v1");
        assert_eq!(
            String::from_utf8(URL_SAFE_NO_PAD.decode(&id).unwrap()).unwrap(),
            "b/a/x.png/v1"
        );
        assert!(!id.contains('/') && !id.contains('+') && !id.contains('='));
    }

    #[tokio::test]
    async fn a_broken_body_keeps_what_arrived_and_parts_read_back_in_order() {
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let p1 = part_path("v", 0);
        let body = futures_util::stream::iter(vec![
            Ok(Bytes::from_static(b"hello ")),
            Err("connection reset".to_string()),
        ]);
        let (n, broken) = write_part(store.as_ref(), &p1, body, 100).await.unwrap();
        assert_eq!((n, broken.as_deref()), (6, Some("connection reset")));
        let p2 = part_path("v", 6);
        let body = futures_util::stream::iter(vec![Ok::<_, String>(Bytes::from_static(b"world"))]);
        assert_eq!(write_part(store.as_ref(), &p2, body, 5).await.unwrap().0, 5);
        let parts = vec![p1.to_string(), p2.to_string()];
        let all: Vec<Bytes> = read_parts(store.clone(), parts.clone())
            .try_collect()
            .await
            .unwrap();
        assert_eq!(all.concat(), b"hello world");
        // More than the upload's remaining length is refused and leaves nothing.
        let p3 = part_path("v", 11);
        let body = futures_util::stream::iter(vec![Ok::<_, String>(Bytes::from_static(b"xx"))]);
        assert!(matches!(
            write_part(store.as_ref(), &p3, body, 1).await,
            Err(StorageError::TooLarge)
        ));
        assert!(store.head(&p3).await.is_err());
        delete_parts(store.as_ref(), &parts).await;
        assert!(store.head(&p1).await.is_err());
    }
}
