//! supagate's pgvector 0.8.0, written in Rust against PostgreSQL's own headers: the `vector`,
//! `halfvec` and `sparsevec` types and distances on `bit`, with pgvector's SQL surface (the
//! install script `vector--0.8.0.sql` beside this crate names every function's C symbol as
//! upstream's does), text and binary forms, limits and error texts; and the `hnsw` index access
//! method, whose graph lives on the index's pages under generic WAL.
//!
//! Unsafe code is allowed in this crate (as in every pgrx crate of this workspace): PostgreSQL
//! calls it through the version-1 C calling convention and the index access method API, which
//! are raw pointers into PostgreSQL's memory, buffers and catalogs. Each unsafe block states
//! what it relies on; every entry point is `#[pg_guard]`ed, so a Rust panic or a PostgreSQL
//! error unwinds Rust frames and surfaces as an SQL error.

pub mod am;
pub mod bitvec;
pub mod casts;
pub mod fmgr;
pub mod halfvec;
pub mod hnsw;
pub mod ivfflat;
pub mod kernels;
#[cfg(any(feature = "pg16", feature = "pg17", feature = "pg18"))]
pub mod page_shim;
pub mod sparsevec;
pub mod text;
pub mod vector;

pgrx::pg_module_magic!();

/// Registers the index settings and storage parameters when the library loads.
#[pgrx::pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // SAFETY: called once by PostgreSQL as the library loads.
    unsafe { am::init() };
}
