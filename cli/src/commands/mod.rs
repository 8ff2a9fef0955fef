//! The commands of the binary, named as the Supabase CLI names them.

pub mod advisors;
pub mod codegen;
pub mod db;
pub mod diff;
mod diff_cache;
pub mod dump;
mod error;
pub mod functions;
pub mod init;
pub mod inspect;
pub mod keys;
pub mod lint;
pub mod logs;
pub mod migration;
pub mod query;
pub mod remote;
pub mod running;
pub mod seed;
pub mod snapshot;
pub mod start;
pub mod status;
mod tables;
pub mod test_db;
pub mod users;
pub mod watch;

pub use error::CommandError;
use gateway::config::Config;
use pg::embedded::StopGuard;
use pg::{Database, DbSettings, migrate};

/// When a command brings the database up to date before it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Prepare {
    Never,
    /// Unless a running gateway already did (it migrated and seeded when it started).
    UnlessRunning,
    Always,
    /// Only a database nobody set up yet (the platform not installed), quietly: the command
    /// then compares or changes its schema as it is.
    IfFresh,
}

/// Runs `f` against the project's database: the cluster a running gateway owns as it is, or the
/// embedded cluster started for the duration of the command. A database nobody set up yet is
/// created, migrated and seeded first, as `start` would.
pub async fn with_database<F>(cfg: &Config, prepare: Prepare, f: F) -> Result<(), CommandError>
where
    F: AsyncFnOnce(&Database) -> Result<(), CommandError>,
{
    let db = open_database(cfg, false).await?;
    let _guard = db.embedded.as_ref().map(StopGuard);
    let running = cfg.embedded() && db.embedded.is_none();
    if prepare == Prepare::IfFresh {
        let c = pg::connect(&db.admin).await?;
        if migrate::platform::is_fresh(&c).await? {
            migrate::prepare(&cfg.project, &db, cfg.realtime_enabled).await?;
        }
    } else if prepare == Prepare::Always || (prepare == Prepare::UnlessRunning && !running) {
        let p = migrate::prepare(&cfg.project, &db, cfg.realtime_enabled).await?;
        for a in &p.applied {
            println!("Applied {a}");
        }
    }
    f(&db).await
}

/// The project's database, as `pg` opens it: `serving` when this process runs the API (and
/// owns the embedded cluster); otherwise a cluster a running gateway owns is reached the way it
/// published.
pub async fn open_database(cfg: &Config, serving: bool) -> Result<Database, CommandError> {
    let published = if serving {
        None
    } else {
        status::running_db_url(&cfg.data_dir)
    };
    Database::open(&db_settings(cfg), serving, published.as_deref())
        .await
        .map_err(CommandError::from)
}

/// What a new data directory's cluster starts with: supagate's platform built, as the platform
/// template a new served database is copied from (made once per installation, in the cache).
static PRISTINE: std::sync::LazyLock<pg::embedded::PristineSetup> =
    std::sync::LazyLock::new(|| pg::embedded::PristineSetup {
        key: format!("platform:{}", pg::migrate::platform::fingerprint()),
        run: Box::new(|admin| {
            Box::pin(async move {
                pg::migrate::template::keep_platform_template(&admin)
                    .await
                    .map_err(Into::into)
            })
        }),
    });

/// Where the project's database is, from the resolved settings.
pub fn db_settings(cfg: &Config) -> DbSettings<'_> {
    DbSettings {
        database_url: cfg.database_url.as_deref(),
        pg_bin_dir: cfg.pg_bin_dir.as_deref(),
        data_dir: &cfg.data_dir,
        db_port: cfg.db_port,
        pg_settings: &cfg.pg_settings,
        major_version: cfg.project.config.db.major_version,
        extensions: cfg.project.created_extensions(),
        cache_dir: &cfg.cache_dir,
        pristine: Some(&PRISTINE),
    }
}

/// The folder of PostgreSQL's programs (psql, pg_dump, pg_restore) of the version the project
/// runs on; where that installation has none (npm's builds carry only the server), the newest
/// installation's that has them (psql talks to any later server; pg_dump says when it cannot);
/// the programs on PATH when none is found.
pub fn pg_programs(cfg: &Config) -> std::path::PathBuf {
    let chosen = pg::embedded::find_binaries_for(
        cfg.pg_bin_dir.as_deref(),
        cfg.project.config.db.major_version,
        pg::embedded::EmbeddedPg::data_major(&cfg.data_dir),
        &cfg.project.created_extensions(),
        Some(&cfg.cache_dir),
    )
    .map(|b| b.dir)
    .unwrap_or_default();
    if chosen.join("psql").is_file() {
        return chosen;
    }
    pg::embedded::find_binaries(None, None, None)
        .map(|b| b.dir)
        .ok()
        .filter(|d| d.join("psql").is_file())
        .unwrap_or_default()
}
