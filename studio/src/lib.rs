//! Studio, the dashboard supagate serves on the CLI's Studio port (54323).
//!
//! The pure core: identifiers ([`ident`]), the table editor's filters, order and paging as SQL
//! with bound parameters ([`grid`]), the SQL editor's requests and answers with error positions
//! ([`sql`]), the database's catalog queries ([`catalog`]), snippet names ([`snippets`]), a
//! user's short-lived access token's claims ([`token`]). The
//! I/O edge: [`service::Studio`] (one connection as the database owner per call, snippets in
//! `supabase/snippets`). The UI is a React app in `ui/`, built by `build.rs` and kept gzipped in
//! the binary ([`assets`]).

pub mod assets;
pub mod catalog;
pub mod error;
pub mod grid;
pub mod ident;
pub mod service;
pub mod snippets;
pub mod sql;
pub mod token;

pub use error::StudioError;
pub use service::Studio;
