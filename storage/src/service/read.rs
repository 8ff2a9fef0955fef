//! Reading objects: the one lookup of every read route (public, authenticated, signed), and
//! an object's bytes, whole or a range.

use super::{Caller, Storage};
use crate::meta::{self, Bucket, Object};
use crate::signing::{self, Grant, Scope};
use crate::{StorageError, keys};
use bytes::Bytes;
use futures_util::stream::BoxStream;
use object_store::{GetOptions, GetRange};

/// Who reads an object, and so how it is looked up.
pub enum Reader<'a> {
    /// No credentials: only objects of public buckets.
    Public,
    /// A caller: any object of a public bucket, else what RLS lets them select.
    Caller(&'a Caller),
    /// A signed URL already names the object: no RLS.
    Signed,
}

impl Storage {
    /// A signed URL's token, checked against the object it is used for.
    pub fn verify_token(
        &self,
        token: &str,
        bucket: &str,
        name: &str,
        scope: Scope,
    ) -> Result<Grant, StorageError> {
        signing::verify(&self.keys, token, bucket, name, scope)
    }

    /// The object, as storage-api looks it up: a bucket that does not exist (or is not public,
    /// for public routes) is `NoSuchBucket`; public buckets are read without RLS; an object the
    /// reader cannot see is `NoSuchKey`.
    pub async fn find_object(
        &self,
        reader: Reader<'_>,
        bucket_id: &str,
        name: &str,
    ) -> Result<(Bucket, Object), StorageError> {
        let (bucket, obj) = self
            .as_admin(async |c| {
                let b = meta::bucket(c, bucket_id).await?;
                let without_rls = match reader {
                    Reader::Public if !b.public => return Err(StorageError::NoSuchBucket),
                    Reader::Public | Reader::Signed => true,
                    Reader::Caller(_) => b.public,
                };
                let obj = if without_rls {
                    Some(meta::object_by_name(c, bucket_id, name).await?)
                } else {
                    None
                };
                Ok((b, obj))
            })
            .await?;
        let obj = match (obj, reader) {
            (Some(o), _) => o,
            (None, Reader::Caller(who)) => {
                self.as_user(who, async |c| {
                    meta::object_by_name(c, bucket_id, name).await
                })
                .await?
            }
            (None, _) => return Err(StorageError::NoSuchKey),
        };
        Ok((bucket, obj))
    }

    /// The object's bytes, or the bytes `first..=last`.
    pub async fn read(
        &self,
        obj: &Object,
        range: Option<(u64, u64)>,
    ) -> Result<BoxStream<'static, object_store::Result<Bytes>>, StorageError> {
        let mut opts = GetOptions::default();
        if let Some((s, e)) = range {
            opts.range = Some(GetRange::Bounded(s..e + 1));
        }
        let got = self
            .store
            .get_opts(&keys::version_path(&obj.version), opts)
            .await
            .map_err(|e| {
                tracing::error!(
                    "object {} of {} has no stored bytes: {e}",
                    obj.name,
                    obj.bucket_id
                );
                StorageError::NoSuchKey
            })?;
        Ok(got.into_stream())
    }
}
