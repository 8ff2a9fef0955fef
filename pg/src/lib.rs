//! Every PostgreSQL connection supagate opens goes through this crate: logins with TLS as
//! libpq reads `sslmode` ([`login`], [`tls`]), tokio-postgres pools and per-thread pools
//! ([`pool`]), the pipelined REST client ([`pipeline`]) and its per-request transaction
//! ([`tx`]), `LISTEN` ([`listen`]), the embedded cluster and its supervisor ([`embedded`]),
//! the database a project is served from ([`database`]), its replication slot
//! ([`replication`]) and migrations ([`migrate`]).

pub mod database;
pub mod embedded;
pub mod error;
pub mod listen;
pub mod login;
pub mod migrate;
pub mod pipeline;
pub mod pool;
pub mod replication;
pub mod tls;
pub mod tx;

pub use database::{Database, DbSettings, OpenError};
pub use error::DbError;
pub use login::{ConnectError, Login, LoginError, connect};
pub use pool::{PerThread, Pool, RoleSettings};
pub use tls::SslMode;
/// A session, as `connect` opens it.
pub use tokio_postgres::Client;
pub use tx::{RequestContext, Tx, begin_as};

/// An identifier quoted for SQL.
pub fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}
