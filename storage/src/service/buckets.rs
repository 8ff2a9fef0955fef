//! `/bucket`: list, get, create, update, empty and delete buckets, under RLS on
//! `storage.buckets`, with storage-api's bodies and texts.

use super::{Caller, Storage};
use crate::meta::{self, BucketListOptions};
use crate::params::{BucketListQuery, CreateBucket, UpdateBucket};
use crate::{StorageError, keys, upload};
use serde_json::{Value, json};

fn mime_list(v: &Value) -> Result<Option<Vec<String>>, StorageError> {
    match v {
        Value::Null => Ok(None),
        Value::Array(a) => Ok(Some(
            a.iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect(),
        )),
        _ => Err(StorageError::InvalidRequest(
            "allowed_mime_types must be an array".into(),
        )),
    }
}

/// A query number storage-api's schema reads (`limit`, `offset`): an integer ≥ 0.
fn query_number(v: Option<&String>, name: &str) -> Result<Option<i64>, StorageError> {
    v.map(|v| {
        v.parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| StorageError::InvalidParameter {
                name: name.into(),
                message: Some(format!("querystring/{name} must be integer >= 0")),
            })
    })
    .transpose()
}

impl Storage {
    pub async fn list_buckets(
        &self,
        who: &Caller,
        q: BucketListQuery,
    ) -> Result<Value, StorageError> {
        let opts = BucketListOptions {
            limit: query_number(q.limit.as_ref(), "limit")?,
            offset: query_number(q.offset.as_ref(), "offset")?,
            sort_column: q.sort_column,
            desc: q.sort_order.is_some_and(|o| o.eq_ignore_ascii_case("desc")),
            search: q.search.filter(|s| !s.is_empty()),
        };
        let list = self
            .as_user(who, async |c| meta::list_buckets(c, &opts).await)
            .await?;
        Ok(Value::Array(list))
    }

    pub async fn get_bucket(&self, who: &Caller, id: &str) -> Result<Value, StorageError> {
        self.as_user(who, async |c| meta::get_bucket(c, id).await)
            .await
    }

    /// Creates a bucket; returns `{name}`.
    pub async fn create_bucket(
        &self,
        who: &Caller,
        b: CreateBucket,
    ) -> Result<Value, StorageError> {
        let name = b.id.or(b.name).unwrap_or_default();
        keys::validate_bucket_name(&name)?;
        let size = keys::parse_size(b.file_size_limit.as_ref().unwrap_or(&Value::Null))?;
        let mimes = mime_list(b.allowed_mime_types.as_ref().unwrap_or(&Value::Null))?;
        let public = b.public.unwrap_or(false);
        let owner = who.owner();
        self.as_user(who, async |c| {
            meta::create_bucket(c, &name, public, size, mimes, owner).await
        })
        .await?;
        Ok(json!({ "name": name }))
    }

    pub async fn update_bucket(
        &self,
        who: &Caller,
        id: &str,
        b: UpdateBucket,
    ) -> Result<(), StorageError> {
        let size = b
            .file_size_limit
            .as_ref()
            .map(keys::parse_size)
            .transpose()?;
        let mimes = b.allowed_mime_types.as_ref().map(mime_list).transpose()?;
        self.as_user(who, async |c| {
            meta::update_bucket(c, id, b.public, size, mimes).await
        })
        .await
    }

    pub async fn delete_bucket(&self, who: &Caller, id: &str) -> Result<(), StorageError> {
        self.as_user(who, async |c| meta::delete_bucket(c, id).await)
            .await
    }

    /// storage-api queues the emptying; here it is done before the answer.
    pub async fn empty_bucket(&self, who: &Caller, id: &str) -> Result<(), StorageError> {
        let gone = self
            .as_user(who, async |c| {
                meta::bucket(c, id).await?;
                meta::delete_all(c, id).await
            })
            .await?;
        upload::delete_versions(self.store.as_ref(), gone.into_iter().map(|o| o.version)).await;
        Ok(())
    }
}
