//! The commands of the binary, named as the Supabase CLI names them.

pub mod codegen;
pub mod db;
pub mod start;
pub mod status;
pub mod users;

use crate::config::Config;
use crate::database::Database;
use crate::{embedded_pg, migrate};

/// When a command brings the database up to date before it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Prepare {
    Never,
    /// Unless a running gateway already did (it migrated and seeded when it started).
    UnlessRunning,
    Always,
}

/// Runs `f` against the project's database: the cluster a running gateway owns as it is, or the
/// embedded cluster started for the duration of the command. A database nobody set up yet is
/// created, migrated and seeded first, as `start` would.
pub async fn with_database<F>(cfg: &Config, prepare: Prepare, f: F) -> Result<(), String>
where
    F: AsyncFnOnce(&Database) -> Result<(), String>,
{
    let db = Database::open(cfg, false).await?;
    let _guard = db.embedded.as_ref().map(embedded_pg::StopGuard);
    let running = cfg.embedded() && db.embedded.is_none();
    if prepare == Prepare::Always || (prepare == Prepare::UnlessRunning && !running) {
        let p = migrate::prepare(cfg, &db)
            .await
            .map_err(|e| e.to_string())?;
        for a in &p.applied {
            println!("Applied {a}");
        }
    }
    f(&db).await
}
