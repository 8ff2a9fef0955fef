//! Resumable uploads (tus 1.0.0's creation, expiration and termination, as storage-api serves
//! them): the writer's RLS is tried at creation and before every chunk, as for any upload;
//! each chunk's bytes are kept as a part even when its connection breaks, so the client
//! resumes from the offset it is told; the object appears, in one transaction, only when the
//! last byte has arrived. The tus headers are the HTTP edge's.

use super::upload::{Mode, Target};
use super::{Caller, Storage};
use crate::resumable::{self, Upload};
use crate::signing::Scope;
use crate::{StorageError, keys, meta, upload};
use bytes::Bytes;
use serde_json::{Value, json};
use std::sync::Arc;
use uuid::Uuid;

/// Who writes an upload.
#[derive(Clone)]
pub enum Uploader {
    /// A caller: their RLS, their `sub` as owner.
    Caller(Caller),
    /// The holder of a signed upload token for the object: written as the storage admin.
    Signed { owner: Option<String>, upsert: bool },
}

/// What a new upload announces (`Upload-Length`, `Upload-Metadata`).
pub struct NewUpload {
    pub bucket: String,
    pub name: String,
    pub length: i64,
    pub content_type: String,
    pub cache_control: String,
    pub user_metadata: Value,
    /// `x-upsert` (a signed token's own choice wins).
    pub upsert: bool,
}

/// How a chunk went: the offset now, and why its body broke off, if it did.
pub struct ChunkOutcome {
    pub offset: i64,
    pub broken: Option<String>,
}

impl Uploader {
    fn owner_sub(&self) -> Option<&str> {
        match self {
            Uploader::Caller(who) => who.claims["sub"].as_str(),
            Uploader::Signed { owner, .. } => owner.as_deref(),
        }
    }

    fn target(&self, bucket_id: &str, name: &str, upsert: bool) -> Target<'_> {
        let (writer, owner) = match self {
            Uploader::Caller(who) => (Some(who), who.owner()),
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

impl Storage {
    /// The holder of a signed upload token (`x-signature`) for `bucket/name`.
    pub fn signed_uploader(
        &self,
        token: &str,
        bucket: &str,
        name: &str,
    ) -> Result<Uploader, StorageError> {
        let grant = self.verify_token(token, bucket, name, Scope::Upload)?;
        Ok(Uploader::Signed {
            owner: grant.owner,
            upsert: grant.upsert,
        })
    }

    /// Creates an upload (completed at once when it has no bytes).
    pub async fn create_resumable(
        &self,
        uploader: &Uploader,
        n: NewUpload,
    ) -> Result<Upload, StorageError> {
        keys::validate_key(&n.name)?;
        let bucket = self.bucket(&n.bucket).await?;
        if n.length as u64 > self.size_limit(&bucket) {
            return Err(StorageError::TooLarge);
        }
        if !keys::mime_allowed(&n.content_type, bucket.allowed_mime_types.as_deref()) {
            return Err(StorageError::InvalidMimeType(n.content_type));
        }
        let upsert = match uploader {
            Uploader::Caller(_) => n.upsert,
            Uploader::Signed { upsert, .. } => *upsert,
        };
        // May the caller write this object at all? (RLS and duplicates, rolled back.)
        let t = uploader.target(&n.bucket, &n.name, upsert);
        self.write_row(&t, "dry-run", &json!({}), true).await?;
        // Whoever creates an upload also clears a few that expired, with their parts.
        let expired = self
            .as_admin(async |c| resumable::remove_expired(c, 10).await)
            .await?;
        for u in &expired {
            resumable::delete_parts(self.store.as_ref(), &u.parts).await;
        }
        let sub = uploader.owner_sub();
        let u = self
            .as_admin(async |c| {
                resumable::create(
                    c,
                    resumable::NewRow {
                        bucket: &n.bucket,
                        name: &n.name,
                        owner_id: sub,
                        upsert,
                        length: n.length,
                        content_type: &n.content_type,
                        cache_control: &n.cache_control,
                        user_metadata: &n.user_metadata,
                    },
                )
                .await
            })
            .await?;
        if n.length == 0 {
            self.complete_upload(uploader, &u.id).await?;
        }
        Ok(u)
    }

    /// The unexpired upload `id`; `uploader` makes the one who writes it from the upload's
    /// object. Someone else's upload is as good as missing.
    pub async fn resumable_upload(
        &self,
        id: &str,
        uploader: impl FnOnce(&Upload) -> Result<Uploader, StorageError>,
    ) -> Result<(Upload, Uploader), StorageError> {
        let u = self.as_admin(async |c| resumable::get(c, id).await).await?;
        let who = uploader(&u)?;
        if u.owner_id.as_deref() != who.owner_sub() {
            return Err(StorageError::NoSuchUpload);
        }
        Ok((u, who))
    }

    /// `HEAD`: every byte arrived but the request that brought the last one died first, so
    /// the upload is completed now.
    pub async fn settle_upload(&self, u: &Upload, uploader: &Uploader) -> Result<(), StorageError> {
        if u.offset == u.length {
            self.complete_upload(uploader, &u.id).await?;
        }
        Ok(())
    }

    /// Before a chunk is accepted: its offset is the upload's, and the writer's RLS still
    /// lets them write the object.
    pub async fn check_chunk(
        &self,
        u: &Upload,
        uploader: &Uploader,
        from: i64,
    ) -> Result<(), StorageError> {
        if from != u.offset {
            return Err(StorageError::Tus(409, "Upload-Offset conflict".into()));
        }
        let t = uploader.target(&u.bucket_id, &u.name, u.upsert);
        self.write_row(&t, "dry-run", &json!({}), true).await?;
        Ok(())
    }

    /// Writes one chunk as a part and records it if the offset it started from is still
    /// current; completes the upload when that was the last byte. Run in a task of its own:
    /// when the client's connection breaks, what arrived is still kept and recorded.
    pub async fn receive_chunk<S, E>(
        self: Arc<Self>,
        uploader: Uploader,
        u: Upload,
        from: i64,
        body: S,
    ) -> Result<ChunkOutcome, StorageError>
    where
        S: futures_util::Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        let part = resumable::part_path(&u.version, from);
        let (size, broken) =
            resumable::write_part(self.store.as_ref(), &part, body, (u.length - from) as u64)
                .await?;
        if size == 0 {
            return Ok(ChunkOutcome {
                offset: from,
                broken,
            });
        }
        let recorded = self
            .as_admin(async |c| resumable::append(c, &u.id, from, size as i64, part.as_ref()).await)
            .await;
        match recorded {
            Ok(Some(offset)) => {
                if offset == u.length {
                    self.complete_upload(&uploader, &u.id).await?;
                }
                Ok(ChunkOutcome { offset, broken })
            }
            Ok(None) => {
                resumable::delete_parts(self.store.as_ref(), &[part.to_string()]).await;
                Err(StorageError::Tus(409, "Upload-Offset conflict".into()))
            }
            Err(e) => {
                resumable::delete_parts(self.store.as_ref(), &[part.to_string()]).await;
                Err(e)
            }
        }
    }

    /// Termination: the upload and its parts go.
    pub async fn terminate_upload(&self, u: &Upload) -> Result<(), StorageError> {
        if let Some(gone) = self
            .as_admin(async |c| resumable::remove(c, &u.id).await)
            .await?
        {
            resumable::delete_parts(self.store.as_ref(), &gone.parts).await;
        }
        Ok(())
    }

    /// The last byte is in: whoever removes the upload's row completes it (so it is completed
    /// once, even if a `HEAD` and a `PATCH` race), the parts become one version (size, type and
    /// content checked as for any upload) and the object row is written under the writer's RLS.
    async fn complete_upload(&self, uploader: &Uploader, id: &str) -> Result<(), StorageError> {
        let Some(u) = self
            .as_admin(async |c| resumable::remove(c, id).await)
            .await?
        else {
            return Ok(());
        };
        let result = self.assemble(uploader, &u).await;
        resumable::delete_parts(self.store.as_ref(), &u.parts).await;
        result
    }

    async fn assemble(&self, uploader: &Uploader, u: &Upload) -> Result<(), StorageError> {
        let bucket = self.bucket(&u.bucket_id).await?;
        let parts = resumable::read_parts(self.store.clone(), u.parts.clone());
        let written = upload::write_stream(
            self.store.as_ref(),
            &keys::version_path(&u.version),
            parts,
            self.size_limit(&bucket),
            &u.content_type,
        )
        .await?;
        let metadata = meta::object_metadata(
            &written,
            &u.content_type,
            &u.cache_control,
            u.user_metadata.clone(),
        );
        let t = uploader.target(&u.bucket_id, &u.name, u.upsert);
        match self.write_row(&t, &u.version, &metadata, false).await {
            Ok((_, old)) => {
                upload::delete_versions(self.store.as_ref(), old).await;
                Ok(())
            }
            Err(e) => {
                upload::delete_versions(self.store.as_ref(), [u.version.clone()]).await;
                Err(e)
            }
        }
    }
}
