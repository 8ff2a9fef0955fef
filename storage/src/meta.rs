//! Bucket and object metadata in `storage.buckets` / `storage.objects`. Every function runs on
//! the client it is given: the gateway decides the role (the caller's, so RLS applies, or the
//! storage admin's).

use crate::StorageError;
use serde_json::{Value, json};
use tokio_postgres::GenericClient;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct Bucket {
    pub id: String,
    pub public: bool,
    pub file_size_limit: Option<i64>,
    pub allowed_mime_types: Option<Vec<String>>,
}

#[derive(Debug, Clone)]
pub struct Object {
    pub id: Uuid,
    pub bucket_id: String,
    pub name: String,
    pub version: String,
    pub metadata: Value,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

impl Object {
    pub fn mimetype(&self) -> &str {
        self.metadata["mimetype"]
            .as_str()
            .unwrap_or("application/octet-stream")
    }
    pub fn size(&self) -> i64 {
        self.metadata["size"].as_i64().unwrap_or(0)
    }
    pub fn etag(&self) -> &str {
        self.metadata["eTag"].as_str().unwrap_or("")
    }
    pub fn cache_control(&self) -> &str {
        self.metadata["cacheControl"].as_str().unwrap_or("no-cache")
    }

    /// The object info `GET /object/info` returns.
    pub fn info(&self) -> Value {
        json!({
            "id": self.id, "name": self.name, "version": self.version, "bucket_id": self.bucket_id,
            "size": self.size(), "content_type": self.mimetype(), "cache_control": self.cache_control(),
            "etag": self.etag(), "metadata": self.metadata["user_metadata"].clone(),
            "last_modified": self.updated_at, "created_at": self.created_at,
        })
    }
}

const OBJECT_COLS: &str = "id, bucket_id, name, coalesce(version, ''), coalesce(metadata, '{}'::jsonb), \
     coalesce(created_at, now()), coalesce(updated_at, now())";

fn object(r: &tokio_postgres::Row) -> Object {
    Object {
        id: r.get(0),
        bucket_id: r.get(1),
        name: r.get(2),
        version: r.get(3),
        metadata: r.get(4),
        created_at: r.get(5),
        updated_at: r.get(6),
    }
}

pub async fn bucket(c: &impl GenericClient, id: &str) -> Result<Bucket, StorageError> {
    let r = c
        .query_opt("SELECT id, coalesce(public, false), file_size_limit, allowed_mime_types FROM storage.buckets WHERE id = $1", &[&id])
        .await?
        .ok_or(StorageError::NoSuchBucket)?;
    Ok(Bucket {
        id: r.get(0),
        public: r.get(1),
        file_size_limit: r.get(2),
        allowed_mime_types: r.get(3),
    })
}

pub async fn object_by_name(
    c: &impl GenericClient,
    bucket: &str,
    name: &str,
) -> Result<Object, StorageError> {
    c.query_opt(
        &format!("SELECT {OBJECT_COLS} FROM storage.objects WHERE bucket_id = $1 AND name = $2"),
        &[&bucket, &name],
    )
    .await?
    .map(|r| object(&r))
    .ok_or(StorageError::NoSuchKey)
}

/// The `metadata` storage-api keeps with each object.
pub fn object_metadata(
    written: &crate::upload::Written,
    mimetype: &str,
    cache_control: &str,
    user_metadata: Value,
) -> Value {
    json!({
        "eTag": written.etag, "size": written.size, "mimetype": mimetype,
        "cacheControl": cache_control, "lastModified": chrono::Utc::now(),
        "contentLength": written.size, "httpStatusCode": 200, "user_metadata": user_metadata,
    })
}

/// The row an upload writes, tried under the caller's RLS before any byte is accepted (the
/// caller rolls the transaction back), and written for real once the bytes are stored.
pub async fn write_object_row(
    c: &impl GenericClient,
    bucket: &str,
    name: &str,
    owner: Option<Uuid>,
    version: &str,
    metadata: &Value,
    upsert: bool,
) -> Result<(Uuid, Option<String>), StorageError> {
    let owner_id = owner.map(|o| o.to_string());
    if upsert {
        // The old version (whose bytes are deleted after commit) comes from a locked read.
        let old: Option<String> = c
            .query_opt(
                "SELECT version FROM storage.objects WHERE bucket_id = $1 AND name = $2 FOR UPDATE",
                &[&bucket, &name],
            )
            .await?
            .and_then(|r| r.get(0));
        let row = c
            .query_one(
                "INSERT INTO storage.objects (bucket_id, name, owner, owner_id, version, metadata)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (bucket_id, name) DO UPDATE SET
                   version = EXCLUDED.version, metadata = EXCLUDED.metadata, owner = EXCLUDED.owner,
                   owner_id = EXCLUDED.owner_id, updated_at = now(), last_accessed_at = now()
                 RETURNING id",
                &[&bucket, &name, &owner, &owner_id, &version, metadata],
            )
            .await?;
        Ok((row.get(0), old))
    } else {
        let row = c
            .query_one(
                "INSERT INTO storage.objects (bucket_id, name, owner, owner_id, version, metadata)
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                &[&bucket, &name, &owner, &owner_id, &version, metadata],
            )
            .await?;
        Ok((row.get(0), None))
    }
}

/// Replaces an existing object's bytes version (PUT /object): the row must exist and the caller
/// must be allowed to update it.
pub async fn update_object_row(
    c: &impl GenericClient,
    bucket: &str,
    name: &str,
    version: &str,
    metadata: &Value,
) -> Result<(Uuid, String), StorageError> {
    let old = c
        .query_opt("SELECT id, coalesce(version, '') FROM storage.objects WHERE bucket_id = $1 AND name = $2 FOR UPDATE", &[&bucket, &name])
        .await?
        .ok_or(StorageError::NoSuchKey)?;
    let (id, old_version): (Uuid, String) = (old.get(0), old.get(1));
    let n = c
        .execute(
            "UPDATE storage.objects SET version = $3, metadata = $4, updated_at = now(), last_accessed_at = now()
             WHERE bucket_id = $1 AND name = $2",
            &[&bucket, &name, &version, metadata],
        )
        .await?;
    if n == 0 {
        return Err(StorageError::AccessDenied(
            "new row violates row-level security policy".into(),
        ));
    }
    Ok((id, old_version))
}

pub async fn delete_objects(
    c: &impl GenericClient,
    bucket: &str,
    names: &[String],
) -> Result<Vec<Object>, StorageError> {
    Ok(c
        .query(&format!("DELETE FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2) RETURNING {OBJECT_COLS}"), &[&bucket, &names])
        .await?
        .iter()
        .map(object)
        .collect())
}

pub async fn delete_all(c: &impl GenericClient, bucket: &str) -> Result<Vec<Object>, StorageError> {
    Ok(c.query(
        &format!("DELETE FROM storage.objects WHERE bucket_id = $1 RETURNING {OBJECT_COLS}"),
        &[&bucket],
    )
    .await?
    .iter()
    .map(object)
    .collect())
}

/// Renames an object (and may move it to another bucket); the bytes stay where they are.
pub async fn move_object(
    c: &impl GenericClient,
    bucket: &str,
    from: &str,
    to_bucket: &str,
    to: &str,
) -> Result<(), StorageError> {
    let n = c
        .execute(
            "UPDATE storage.objects SET bucket_id = $3, name = $4, updated_at = now() WHERE bucket_id = $1 AND name = $2",
            &[&bucket, &from, &to_bucket, &to],
        )
        .await?;
    if n == 0 {
        Err(StorageError::NoSuchKey)
    } else {
        Ok(())
    }
}

/// A bucket as storage-api answers it: `owner` is the owner column (null for buckets made with
/// the service key), `type` only in listings.
fn bucket_json(r: &tokio_postgres::Row, with_type: bool) -> Value {
    let mut b = json!({
        "id": r.get::<_, String>(0), "name": r.get::<_, String>(1), "owner": r.get::<_, Option<Uuid>>(2),
        "public": r.get::<_, bool>(3), "file_size_limit": r.get::<_, Option<i64>>(4),
        "allowed_mime_types": r.get::<_, Option<Vec<String>>>(5),
        "created_at": r.get::<_, Option<chrono::DateTime<chrono::Utc>>>(7),
        "updated_at": r.get::<_, Option<chrono::DateTime<chrono::Utc>>>(8),
    });
    if with_type {
        b["type"] = json!(r.get::<_, String>(6));
    }
    b
}

const BUCKET_COLS: &str = "id, name, owner, coalesce(public, false), file_size_limit, allowed_mime_types, \
     type::text, created_at, updated_at";

/// `GET /bucket` options (storage-js `listBuckets({limit, offset, sortColumn, sortOrder, search})`).
#[derive(Debug, Clone, Default)]
pub struct BucketListOptions {
    pub limit: Option<i64>,
    pub offset: Option<i64>,
    pub sort_column: Option<String>,
    pub desc: bool,
    pub search: Option<String>,
}

pub async fn list_buckets(
    c: &impl GenericClient,
    o: &BucketListOptions,
) -> Result<Vec<Value>, StorageError> {
    let column = match o.sort_column.as_deref() {
        Some(col @ ("id" | "name" | "created_at" | "updated_at")) => col,
        Some(other) => {
            return Err(StorageError::InvalidParameter {
                name: "sortColumn".into(),
                message: Some(format!(
                    "querystring/sortColumn must be one of id, name, created_at, updated_at, not {other}"
                )),
            });
        }
        None => "name",
    };
    let dir = if o.desc { "DESC" } else { "ASC" };
    Ok(c.query(
        &format!(
            "SELECT {BUCKET_COLS} FROM storage.buckets
             WHERE $1::text IS NULL OR name ILIKE '%' || $1 || '%'
             ORDER BY {column} {dir}, id LIMIT $2 OFFSET $3"
        ),
        &[&o.search, &o.limit, &o.offset.unwrap_or(0)],
    )
    .await?
    .iter()
    .map(|r| bucket_json(r, true))
    .collect())
}

pub async fn get_bucket(c: &impl GenericClient, id: &str) -> Result<Value, StorageError> {
    c.query_opt(
        &format!("SELECT {BUCKET_COLS} FROM storage.buckets WHERE id = $1"),
        &[&id],
    )
    .await?
    .map(|r| bucket_json(&r, false))
    .ok_or(StorageError::NoSuchBucket)
}

/// Which of `names` the caller can see (signing many URLs at once).
pub async fn visible_names(
    c: &impl GenericClient,
    bucket: &str,
    names: &[String],
) -> Result<Vec<String>, StorageError> {
    Ok(c.query(
        "SELECT name FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2)",
        &[&bucket, &names],
    )
    .await?
    .iter()
    .map(|r| r.get(0))
    .collect())
}

pub async fn create_bucket(
    c: &impl GenericClient,
    id: &str,
    public: bool,
    size: Option<i64>,
    mimes: Option<Vec<String>>,
    owner: Option<Uuid>,
) -> Result<(), StorageError> {
    let owner_id = owner.map(|o| o.to_string());
    match c
        .execute(
            "INSERT INTO storage.buckets (id, name, public, file_size_limit, allowed_mime_types, owner, owner_id)
             VALUES ($1, $1, $2, $3, $4, $5, $6)",
            &[&id, &public, &size, &mimes, &owner, &owner_id],
        )
        .await
    {
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => Err(StorageError::BucketExists),
        Err(e) => Err(e.into()),
        Ok(_) => Ok(()),
    }
}

pub async fn update_bucket(
    c: &impl GenericClient,
    id: &str,
    public: Option<bool>,
    size: Option<Option<i64>>,
    mimes: Option<Option<Vec<String>>>,
) -> Result<(), StorageError> {
    let n = c
        .execute(
            "UPDATE storage.buckets SET public = coalesce($2, public),
               file_size_limit = CASE WHEN $3 THEN $4 ELSE file_size_limit END,
               allowed_mime_types = CASE WHEN $5 THEN $6 ELSE allowed_mime_types END,
               updated_at = now()
             WHERE id = $1",
            &[
                &id,
                &public,
                &size.is_some(),
                &size.flatten(),
                &mimes.is_some(),
                &mimes.flatten(),
            ],
        )
        .await?;
    if n == 0 {
        Err(StorageError::NoSuchBucket)
    } else {
        Ok(())
    }
}

pub async fn delete_bucket(c: &impl GenericClient, id: &str) -> Result<(), StorageError> {
    let has_objects = c
        .query_opt(
            "SELECT 1 FROM storage.objects WHERE bucket_id = $1 LIMIT 1",
            &[&id],
        )
        .await?
        .is_some();
    if has_objects {
        return Err(StorageError::BucketNotEmpty);
    }
    let n = c
        .execute("DELETE FROM storage.buckets WHERE id = $1", &[&id])
        .await?;
    if n == 0 {
        Err(StorageError::NoSuchBucket)
    } else {
        Ok(())
    }
}
