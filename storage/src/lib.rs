//! Supabase Storage: buckets and objects whose metadata lives in `storage.*` under RLS and whose
//! bytes live in an `object_store` (local files by default, any S3-compatible store).
//!
//! Bytes are stored under `versions/<version>`: a new upload writes a new version and
//! the metadata row is switched to it in one transaction, so a row never points at missing bytes
//! and a failed upload leaves nothing visible.

pub mod backend;
pub mod error;
pub mod keys;
pub mod listing;
pub mod meta;
pub mod params;
pub mod resumable;
pub mod seed;
pub mod service;
pub mod signing;
pub mod sweep;
pub mod transform;
pub mod upload;

pub use error::StorageError;
pub use service::{Caller, Storage};
