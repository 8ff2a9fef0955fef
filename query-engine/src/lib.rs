//! PostgREST's request language turned into SQL: parse (nom) → plan against a schema cache →
//! SQL text with bound parameters → response shaping. No I/O: the `rest` crate runs what this
//! builds.

pub mod ast;
mod compile;
pub mod error;
#[cfg(test)]
mod fuzz;
mod fuzzy;
pub mod parser;
pub mod plan;
mod plan_cache;
mod render;
pub mod request;
pub mod response;
pub mod schema;

pub use compile::{Plan, plan};
pub use error::{ApiError, Pgrst};
pub use plan::{EngineConfig, Input};
pub use plan_cache::{Compiled, plan_cached};
pub use render::Statement;
pub use schema::SchemaCache;
