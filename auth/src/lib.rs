//! GoTrue-compatible authentication: JWTs, password rules, users, sessions and refresh tokens.
//!
//! The gateway owns the connection pool and the HTTP layer; this crate holds the rules and the SQL
//! and works on any `tokio_postgres::GenericClient` it is handed.

pub mod jwt;
pub mod password;
pub mod service;
pub mod users;

pub use jwt::{ApiKeys, JwtError, JwtKeys};
