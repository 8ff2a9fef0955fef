//! Uploads (`POST`/`PUT /object/{bucket}/{path}`, signed uploads, finished resumable ones):
//! the row is tried under the writer's RLS before any byte is accepted (rolled back), the body
//! is streamed into a new version, and the row is written for real, pointing at it, in one
//! transaction; whatever fails, the new bytes go and the old ones stay.

use super::{ADMIN_ROLE, Caller, Storage};
use crate::meta::{self, Bucket};
use crate::upload::{self, Written};
use crate::{StorageError, keys};
use bytes::Bytes;
use serde_json::{Value, json};
use uuid::Uuid;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Create,
    Upsert,
    Replace,
}

/// One upload: where it goes, as whom (None: the storage admin, for signed uploads whose token
/// was issued under RLS), and the owner recorded.
pub struct Target<'a> {
    pub bucket_id: String,
    pub name: String,
    pub mode: Mode,
    pub writer: Option<&'a Caller>,
    pub owner: Option<Uuid>,
}

/// What the request says about the object besides its bytes.
pub struct Incoming {
    pub mimetype: String,
    pub cache_control: String,
    pub user_metadata: Value,
}

/// `Cache-Control` as storage-api stores it: a bare number of seconds means `max-age`.
pub fn cache_control(value: Option<&str>) -> String {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) if v.chars().all(|c| c.is_ascii_digit()) => format!("max-age={v}"),
        Some(v) => v.to_string(),
        None => "no-cache".to_string(),
    }
}

/// An upload the writer may make: its bytes are received next.
pub struct Upload<'a> {
    storage: &'a Storage,
    target: Target<'a>,
    bucket: Bucket,
    limit: u64,
    version: String,
}

impl Storage {
    /// Writes the object's row as the target's writer (or the storage admin): `dry` rows are
    /// rolled back. Returns the object's id and the version it replaced.
    pub(super) async fn write_row(
        &self,
        t: &Target<'_>,
        version: &str,
        metadata: &Value,
        dry: bool,
    ) -> Result<(Uuid, Option<String>), StorageError> {
        let (role, claims) = match t.writer {
            Some(who) => (who.role.as_str(), who.claims.to_string()),
            None => (ADMIN_ROLE, "{}".to_string()),
        };
        self.tx(role, &claims, !dry, async |c| match t.mode {
            Mode::Replace => meta::update_object_row(c, &t.bucket_id, &t.name, version, metadata)
                .await
                .map(|(i, old)| (i, Some(old))),
            _ => {
                meta::write_object_row(
                    c,
                    &t.bucket_id,
                    &t.name,
                    t.owner,
                    version,
                    metadata,
                    t.mode == Mode::Upsert,
                )
                .await
            }
        })
        .await
    }

    /// Starts an upload: the bucket exists, the announced size fits, and the writer may write
    /// this row (tried and rolled back) — all before any byte is accepted.
    pub async fn begin_upload<'a>(
        &'a self,
        target: Target<'a>,
        content_length: Option<u64>,
    ) -> Result<Upload<'a>, StorageError> {
        let bucket = self.bucket(&target.bucket_id).await?;
        let limit = self.size_limit(&bucket);
        if content_length.is_some_and(|l| l > limit + 64 * 1024) {
            return Err(StorageError::TooLarge);
        }
        self.write_row(&target, "dry-run", &json!({}), true).await?;
        Ok(Upload {
            storage: self,
            target,
            bucket,
            limit,
            version: Uuid::new_v4().to_string(),
        })
    }
}

impl Upload<'_> {
    /// The declared type, if the bucket allows it.
    pub fn check_type(&self, mimetype: String) -> Result<String, StorageError> {
        if keys::mime_allowed(&mimetype, self.bucket.allowed_mime_types.as_deref()) {
            Ok(mimetype)
        } else {
            Err(StorageError::InvalidMimeType(mimetype))
        }
    }

    /// Streams the bytes into the upload's new version (bounded by the bucket's limit; the
    /// content checked against `mimetype`).
    pub async fn write<S, E>(&self, body: S, mimetype: &str) -> Result<Written, StorageError>
    where
        S: futures_util::Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        upload::write_stream(
            self.storage.store.as_ref(),
            &keys::version_path(&self.version),
            body,
            self.limit,
            mimetype,
        )
        .await
    }

    /// Writes the row for real, pointing at the new bytes; returns the object's id. The bytes
    /// it replaced go; if it fails, the new ones go.
    pub async fn finish(self, incoming: Incoming, written: Written) -> Result<Uuid, StorageError> {
        let metadata = meta::object_metadata(
            &written,
            &incoming.mimetype,
            &incoming.cache_control,
            incoming.user_metadata,
        );
        let store = self.storage.store.as_ref();
        match self
            .storage
            .write_row(&self.target, &self.version, &metadata, false)
            .await
        {
            Ok((object_id, old)) => {
                upload::delete_versions(store, old).await;
                Ok(object_id)
            }
            Err(e) => {
                upload::delete_versions(store, [self.version]).await;
                Err(e)
            }
        }
    }
}
