//! `[storage.buckets.NAME] objects_path`: the files of that folder uploaded into the bucket on
//! a new or reset database, as `supabase seed buckets` does (same keys as the relative paths,
//! replacing what is there).

use crate::{keys, meta, upload};
use bytes::Bytes;
use futures_util::StreamExt;
use object_store::ObjectStore;
use project::Project;
use std::path::{Path, PathBuf};

/// A bucket's folder that could not be uploaded, and why.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SeedError(String);

fn files_under(dir: &Path) -> Result<Vec<PathBuf>, SeedError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| SeedError(format!("cannot read {}: {e}", d.display())))?;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.is_file() {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A file's bytes as the stream an upload reads, in 64 KiB pieces.
fn file_stream(
    file: tokio::fs::File,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Unpin {
    Box::pin(
        futures_util::stream::unfold(file, |mut f| async move {
            let mut buf = vec![0u8; 64 * 1024];
            match tokio::io::AsyncReadExt::read(&mut f, &mut buf).await {
                Ok(0) => None,
                Ok(n) => {
                    buf.truncate(n);
                    Some((Ok(Bytes::from(buf)), f))
                }
                Err(e) => Some((Err(e), f)),
            }
        })
        .fuse(),
    )
}

/// Uploads every `objects_path` folder into its bucket, with `c` (the owner) recording the
/// rows; objects are at most `file_size_limit` bytes (and their bucket's own limit).
pub async fn upload_all(
    project: &Project,
    file_size_limit: u64,
    c: &tokio_postgres::Client,
    store: &dyn ObjectStore,
) -> Result<(), SeedError> {
    let buckets: Vec<_> = project
        .config
        .storage
        .buckets
        .iter()
        .filter_map(|(name, b)| b.objects_path.as_ref().map(|p| (name, b, p)))
        .collect();
    if buckets.is_empty() {
        return Ok(());
    }
    for (bucket, b, rel) in buckets {
        let dir = project.supabase_dir.join(rel);
        let limit = b
            .file_size_limit
            .unwrap_or(file_size_limit)
            .min(file_size_limit);
        for file in files_under(&dir)? {
            let key = file
                .strip_prefix(&dir)
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/");
            let shown = project.relative(&file);
            keys::validate_key(&key).map_err(|e| SeedError(format!("{shown}: {e}")))?;
            let mime = mime_guess::from_path(&file)
                .first_or_octet_stream()
                .essence_str()
                .to_string();
            let f = tokio::fs::File::open(&file)
                .await
                .map_err(|e| SeedError(format!("cannot read {shown}: {e}")))?;
            let version = uuid::Uuid::new_v4().to_string();
            let written = upload::write_stream(
                store,
                &keys::version_path(&version),
                file_stream(f),
                limit,
                &mime,
            )
            .await
            .map_err(|e| SeedError(format!("cannot upload {shown}: {e}")))?;
            let metadata =
                meta::object_metadata(&written, &mime, "max-age=3600", serde_json::json!({}));
            match meta::write_object_row(c, bucket, &key, None, &version, &metadata, true).await {
                Ok((_, old)) => upload::delete_versions(store, old).await,
                Err(e) => {
                    upload::delete_versions(store, [version]).await;
                    return Err(SeedError(format!("cannot record {shown}: {e}")));
                }
            }
        }
        tracing::info!("uploaded {} to bucket {bucket}", project.relative(&dir));
    }
    Ok(())
}
