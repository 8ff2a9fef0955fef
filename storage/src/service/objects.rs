//! Listing, deleting, moving and copying objects: `/object/list`, `/object/list-v2`,
//! `DELETE /object/…`, `/object/move`, `/object/copy`.

use super::{Caller, Storage};
use crate::listing::{self, ListOptions, ListV2, SortColumn};
use crate::meta::{self, Object};
use crate::params::{DeleteObjects, ListV2Params, MoveParams, SearchParams, strings};
use crate::{StorageError, keys, upload};
use serde_json::{Value, json};
use uuid::Uuid;

/// Bulk deletes are capped like storage-api's.
const MAX_DELETE: usize = 1000;

fn invalid(name: &str, message: &str) -> StorageError {
    StorageError::InvalidParameter {
        name: name.into(),
        message: Some(message.into()),
    }
}

/// The checks storage-api's schema makes on a `list-v2` body.
fn list_v2_options(b: &ListV2Params) -> Result<ListV2, StorageError> {
    let text = |k: &str, v: &Option<Value>| match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        _ => Err(invalid(k, &format!("body/{k} must be string"))),
    };
    let limit = match &b.limit {
        None | Some(Value::Null) => 1000,
        Some(v) => v
            .as_i64()
            .filter(|n| *n >= 1)
            .ok_or_else(|| invalid("limit", "body/limit must be >= 1"))?,
    };
    let delimiter = match &b.with_delimiter {
        None | Some(Value::Null) => false,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| invalid("with_delimiter", "body/with_delimiter must be boolean"))?,
    };
    let (sort, desc) = match &b.sort_by {
        None | Some(Value::Null) => (None, None),
        Some(s) => {
            let column = match s["column"].as_str() {
                Some("name") => SortColumn::Name,
                Some("created_at") => SortColumn::CreatedAt,
                Some("updated_at") => SortColumn::UpdatedAt,
                _ => {
                    return Err(invalid(
                        "sortBy",
                        "body/sortBy/column must be equal to one of the allowed values",
                    ));
                }
            };
            let desc = match s["order"].as_str() {
                None => None,
                Some("asc") => Some(false),
                Some("desc") => Some(true),
                Some(_) => {
                    return Err(invalid(
                        "sortBy",
                        "body/sortBy/order must be equal to one of the allowed values",
                    ));
                }
            };
            (Some(column), desc)
        }
    };
    Ok(ListV2 {
        prefix: text("prefix", &b.prefix)?.unwrap_or_default(),
        delimiter,
        limit,
        sort,
        desc,
        cursor: text("cursor", &b.cursor)?.filter(|c| !c.is_empty()),
    })
}

fn object_json(o: &Object) -> Value {
    json!({"id": o.id, "name": o.name, "bucket_id": o.bucket_id, "version": o.version, "metadata": o.metadata,
           "created_at": o.created_at, "updated_at": o.updated_at})
}

/// The source and destination of a move or copy, checked.
struct Move {
    bucket: String,
    from: String,
    to_bucket: String,
    to: String,
}

fn move_args(b: MoveParams) -> Result<Move, StorageError> {
    let (Some(bucket), Some(from), Some(to)) = (b.bucket_id, b.source_key, b.destination_key)
    else {
        return Err(StorageError::InvalidRequest(
            "bucketId, sourceKey and destinationKey are required".into(),
        ));
    };
    keys::validate_key(&from)?;
    keys::validate_key(&to)?;
    let to_bucket = b.destination_bucket.unwrap_or_else(|| bucket.clone());
    Ok(Move {
        bucket,
        from,
        to_bucket,
        to,
    })
}

impl Storage {
    pub async fn list_objects(
        &self,
        who: &Caller,
        bucket: &str,
        b: SearchParams,
    ) -> Result<Value, StorageError> {
        let sort = b.sort_by.unwrap_or_default();
        let opts = ListOptions {
            prefix: b.prefix.unwrap_or_default(),
            search: b.search.unwrap_or_default(),
            limit: b.limit.unwrap_or(100).clamp(1, 1000),
            offset: b.offset.unwrap_or(0).max(0),
            sort_column: sort.column.unwrap_or_else(|| "name".into()),
            sort_desc: sort.order.is_some_and(|o| o.eq_ignore_ascii_case("desc")),
        };
        self.bucket(bucket).await?;
        self.as_user(who, async |c| listing::list(c, bucket, &opts).await)
            .await
    }

    pub async fn list_objects_v2(
        &self,
        who: &Caller,
        bucket: &str,
        b: ListV2Params,
    ) -> Result<Value, StorageError> {
        let opts = list_v2_options(&b)?;
        self.bucket(bucket).await?;
        self.as_user(who, async |c| listing::list_v2(c, bucket, &opts).await)
            .await
    }

    pub async fn delete_object(
        &self,
        who: &Caller,
        bucket: &str,
        name: &str,
    ) -> Result<(), StorageError> {
        let names = vec![name.to_string()];
        let gone = self
            .as_user(who, async |c| meta::delete_objects(c, bucket, &names).await)
            .await?;
        if gone.is_empty() {
            return Err(StorageError::NoSuchKey);
        }
        upload::delete_versions(self.store.as_ref(), gone.into_iter().map(|o| o.version)).await;
        Ok(())
    }

    /// Deletes the objects `prefixes` names; returns those that went.
    pub async fn delete_objects(
        &self,
        who: &Caller,
        bucket: &str,
        b: DeleteObjects,
    ) -> Result<Value, StorageError> {
        let names = strings(&b.prefixes);
        if names.is_empty() || names.len() > MAX_DELETE {
            return Err(StorageError::InvalidRequest(format!(
                "prefixes must list between 1 and {MAX_DELETE} objects"
            )));
        }
        let gone = self
            .as_user(who, async |c| meta::delete_objects(c, bucket, &names).await)
            .await?;
        let body: Vec<Value> = gone.iter().map(object_json).collect();
        upload::delete_versions(self.store.as_ref(), gone.into_iter().map(|o| o.version)).await;
        Ok(Value::Array(body))
    }

    pub async fn move_object(&self, who: &Caller, b: MoveParams) -> Result<(), StorageError> {
        let a = move_args(b)?;
        self.as_user(who, async |c| {
            meta::move_object(c, &a.bucket, &a.from, &a.to_bucket, &a.to).await
        })
        .await
    }

    /// Copies an object (a new version of the same bytes); returns `{Id, Key}`.
    pub async fn copy_object(&self, who: &Caller, b: MoveParams) -> Result<Value, StorageError> {
        let a = move_args(b)?;
        let source = self
            .as_user(who, async |c| {
                meta::object_by_name(c, &a.bucket, &a.from).await
            })
            .await?;
        let version = Uuid::new_v4().to_string();
        self.store
            .copy(
                &keys::version_path(&source.version),
                &keys::version_path(&version),
            )
            .await?;
        let owner = who.owner();
        let result = self
            .as_user(who, async |c| {
                meta::write_object_row(
                    c,
                    &a.to_bucket,
                    &a.to,
                    owner,
                    &version,
                    &source.metadata,
                    false,
                )
                .await
            })
            .await;
        match result {
            Ok((object_id, _)) => {
                Ok(json!({"Id": object_id, "Key": format!("{}/{}", a.to_bucket, a.to)}))
            }
            Err(e) => {
                upload::delete_versions(self.store.as_ref(), [version]).await;
                Err(e)
            }
        }
    }
}
