//! storage-api's endpoints, one function each: who may do what is decided by RLS on
//! `storage.buckets` / `storage.objects` (the caller's role and claims, transaction-local),
//! bookkeeping runs as `supabase_storage_admin`, and bytes go to the object store. The HTTP
//! edge reads requests (multipart forms, ranges, tus headers) and writes answers.

mod buckets;
mod objects;
mod read;
mod render;
mod resumable;
mod signed;
mod upload;

pub use read::Reader;
pub use render::Rendering;
pub use resumable::{ChunkOutcome, NewUpload, Uploader};
pub use upload::{Incoming, Mode, Target, Upload, cache_control};

use crate::StorageError;
use crate::meta::Bucket;
use identity::JwtKeys;
use object_store::ObjectStore;
use pg::{Login, PerThread, Pool, RoleSettings};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// The role storage bookkeeping runs as once RLS has allowed an action.
const ADMIN_ROLE: &str = "supabase_storage_admin";

/// What config.toml and the flags say about storage.
pub struct StorageSettings {
    /// The largest object (`[storage] file_size_limit`), whatever a bucket says.
    pub file_size_limit: u64,
    /// `[storage.image_transformation] enabled`.
    pub image_transformation: bool,
    /// The API login, connections in all (shared out among `workers` threads) and how long a
    /// request waits for one.
    pub login: Login,
    pub pool_size: usize,
    pub workers: usize,
    pub pool_timeout: Duration,
    /// Bounds of the image renderings.
    pub render: RenderSettings,
}

/// How much image rendering may hold, in memory and on disk.
#[derive(Debug, Clone, Copy)]
pub struct RenderSettings {
    /// Renderings kept in the object store, all objects together (least recently used go).
    pub cache_bytes: u64,
    /// Renderings kept per object version (its least recently used go).
    pub variants: u32,
    /// Memory renderings in progress may take together (each counted by its source's header
    /// before it is decoded; one larger than this runs alone).
    pub memory_bytes: u64,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            cache_bytes: 256 << 20,
            variants: 16,
            memory_bytes: 512 << 20,
        }
    }
}

pub struct Storage {
    pools: PerThread<Pool>,
    role_settings: RoleSettings,
    store: Arc<dyn ObjectStore>,
    keys: JwtKeys,
    file_size_limit: u64,
    image_transformation: bool,
    render: RenderSettings,
    /// Memory renderings hold, in MiB permits (see [`RenderSettings::memory_bytes`]).
    render_memory: Arc<tokio::sync::Semaphore>,
}

/// Who is asking: a role and its JWT claims (RLS sees them as `auth.uid()`, `auth.jwt()`).
#[derive(Debug, Clone)]
pub struct Caller {
    pub role: String,
    pub claims: serde_json::Value,
}

impl Caller {
    /// The owner an object written by this caller records: the token's `sub`.
    pub fn owner(&self) -> Option<Uuid> {
        self.claims["sub"]
            .as_str()
            .and_then(|s| Uuid::parse_str(s).ok())
    }
}

fn db_fail(e: pg::DbError) -> StorageError {
    if e.is_unavailable() {
        tracing::error!("storage database error: {e}");
        return StorageError::Unavailable;
    }
    match e {
        pg::DbError::Postgres(p) => p.into(),
        other => {
            tracing::error!("storage database error: {other}");
            StorageError::Internal
        }
    }
}

impl Storage {
    pub fn new(
        s: StorageSettings,
        store: Arc<dyn ObjectStore>,
        keys: JwtKeys,
        role_settings: RoleSettings,
    ) -> Storage {
        let (login, size, wait) = (
            s.login,
            pg::pool::share(s.pool_size, s.workers),
            s.pool_timeout,
        );
        Storage {
            pools: PerThread::new(move || Pool::new(&login, size, wait)),
            role_settings,
            store,
            keys,
            file_size_limit: s.file_size_limit,
            image_transformation: s.image_transformation,
            render: s.render,
            render_memory: Arc::new(tokio::sync::Semaphore::new(
                render::mib(s.render.memory_bytes) as usize,
            )),
        }
    }

    /// The largest object any bucket takes.
    pub fn file_size_limit(&self) -> u64 {
        self.file_size_limit
    }

    /// The largest upload a bucket takes: its own limit, never above the project's.
    fn size_limit(&self, bucket: &Bucket) -> u64 {
        bucket.file_size_limit.map_or(self.file_size_limit, |b| {
            (b as u64).min(self.file_size_limit)
        })
    }

    /// Runs `f` in a transaction as `role`; commits on success (dry runs always roll back).
    async fn tx<T, F>(
        &self,
        role: &str,
        claims: &str,
        commit: bool,
        f: F,
    ) -> Result<T, StorageError>
    where
        F: AsyncFnOnce(&tokio_postgres::Client) -> Result<T, StorageError>,
    {
        let t = pg::begin_as(
            &self.pools.get(),
            role,
            claims,
            &self.role_settings.of(role),
        )
        .await
        .map_err(db_fail)?;
        let result = f(t.pg()).await;
        t.finish(commit && result.is_ok()).await.map_err(db_fail)?;
        result
    }

    async fn as_user<T, F>(&self, who: &Caller, f: F) -> Result<T, StorageError>
    where
        F: AsyncFnOnce(&tokio_postgres::Client) -> Result<T, StorageError>,
    {
        self.tx(&who.role, &who.claims.to_string(), true, f).await
    }

    async fn as_admin<T, F>(&self, f: F) -> Result<T, StorageError>
    where
        F: AsyncFnOnce(&tokio_postgres::Client) -> Result<T, StorageError>,
    {
        self.tx(ADMIN_ROLE, "{}", true, f).await
    }

    /// The bucket, as the storage admin sees it (NoSuchBucket when there is none).
    async fn bucket(&self, id: &str) -> Result<Bucket, StorageError> {
        self.as_admin(async |c| crate::meta::bucket(c, id).await)
            .await
    }
}
