//! Brings a database to what the platform and the project say: the platform migrations
//! (embedded), the project's `supabase/migrations`, its seed files on a new database, its
//! buckets (`objects_path` uploads are storage's). The embedded cluster keeps a template database built from all of that, so a new or
//! reset database is a cheap clone.

pub mod copies;
pub mod platform;
pub mod project;
pub mod shadow;
pub mod template;

pub mod extensions;

use crate::database::Database;
use crate::login::connect;
use ::project::Project;
use tokio_postgres::Client;

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("{file} failed: {message}")]
    Failed { file: String, message: String },
    #[error("database error: {}", describe_db_error(.0, None))]
    Db(#[from] tokio_postgres::Error),
    #[error(transparent)]
    Project(#[from] ::project::ProjectError),
    #[error("{0}")]
    Connect(#[from] crate::login::ConnectError),
    #[error("{0}")]
    Other(String),
}

/// What `prepare` did.
#[derive(Debug, Default)]
pub struct Prepared {
    /// The database was created (or rebuilt) now, seed included.
    pub fresh: bool,
    pub applied: Vec<String>,
}

/// Arbitrary constant key of the advisory lock replicas serialise their migrations on.
const LOCK_KEY: i64 = 7_354_321;

pub use crate::error::describe_db_error;

async fn with_lock<T>(
    c: &mut Client,
    f: impl AsyncFnOnce(&mut Client) -> Result<T, MigrateError>,
) -> Result<T, MigrateError> {
    c.execute("SELECT pg_advisory_lock($1)", &[&LOCK_KEY])
        .await?;
    let result = f(c).await;
    let _ = c
        .execute("SELECT pg_advisory_unlock($1)", &[&LOCK_KEY])
        .await;
    result
}

/// Applies what is pending to the database the gateway serves. An embedded cluster whose
/// database was never set up is built from the template; a new external database is migrated
/// and seeded in place. `slot`: a new database gets realtime's replication slot at once.
pub async fn prepare(
    project: &Project,
    db: &Database,
    slot: bool,
) -> Result<Prepared, MigrateError> {
    prepare_with(project, db, slot, || {}).await
}

/// [`prepare`], calling `set_up` once the database is known to have been set up before (what is
/// pending is then checked and applied in place, not built from the template or from nothing; a
/// reader of its catalog may start beside). On an external server that is once this gateway
/// holds the migrations' lock: another one's migrations are committed by then.
pub async fn prepare_with(
    project: &Project,
    db: &Database,
    slot: bool,
    set_up: impl FnOnce(),
) -> Result<Prepared, MigrateError> {
    if db.embedded.is_some() {
        let mut c = connect(&db.admin).await.map_err(MigrateError::Connect)?;
        if platform::is_fresh(&c).await? {
            drop(c);
            template::reset(project, db, slot).await?;
            return Ok(Prepared {
                fresh: true,
                applied: Vec::new(),
            });
        }
        set_up();
        let applied = with_lock(&mut c, async |c| {
            migrate_in_place(c, project, db, false).await
        })
        .await?;
        return Ok(Prepared {
            fresh: false,
            applied,
        });
    }
    let mut c = connect(&db.admin).await.map_err(MigrateError::Connect)?;
    let (fresh, applied) = with_lock(&mut c, async |c| {
        let fresh = platform::is_fresh(c).await?;
        if !fresh {
            set_up();
        }
        let applied = migrate_in_place(c, project, db, fresh).await?;
        Ok((fresh, applied))
    })
    .await?;
    if fresh {
        tracing::info!("set up a new database for {}", project.name());
    }
    Ok(Prepared { fresh, applied })
}

/// Platform and project migrations, seeds when `seed`, settings and buckets, on `c`.
pub async fn migrate_in_place(
    c: &mut Client,
    proj: &Project,
    db: &Database,
    seed: bool,
) -> Result<Vec<String>, MigrateError> {
    migrate_in_place_until(c, proj, db, seed, None).await
}

/// `migrate_in_place` with the project's migrations up to `until` only, when given.
pub async fn migrate_in_place_until(
    c: &mut Client,
    proj: &Project,
    db: &Database,
    seed: bool,
    until: Option<&str>,
) -> Result<Vec<String>, MigrateError> {
    let platform = platform::apply(c).await?;
    if platform.fresh {
        platform::api_privileges(c, proj).await?;
        platform::vault_secrets(c, proj).await?;
    }
    let mut applied = platform.migrations;
    platform::settings(c, db.api_password.as_deref()).await?;
    // The project's migrations and seeds run in a session opened after those settings, as the
    // CLI's run on Supabase (whose postgres role has the search_path): the session default
    // (what RESET restores, pg_settings.reset_val) then has extensions too. PostGIS topology's
    // install script sets the search_path from reset_val and found no geometry type without.
    // With nothing to run (a start on existing data), the checks and the history's tables are
    // done on this session: a session costs a backend and its first catalog reads.
    let migrations = proj.config.db.migrations_enabled;
    let seeding = seed && proj.config.db.seed_enabled;
    if seeding || (migrations && project::has_pending(c, proj, until).await?) {
        let mut p = connect(&db.admin).await.map_err(MigrateError::Connect)?;
        if migrations {
            applied.extend(project::apply_migrations_until(&mut p, proj, until).await?);
        }
        if seeding {
            project::seed(&mut p, proj).await?;
        }
    } else if migrations {
        applied.extend(project::apply_migrations_until(c, proj, until).await?);
    }
    platform::expose_queues(c, proj).await?;
    project::sync_buckets(c, proj).await?;
    if !applied.is_empty() {
        // Running gateways (replicas) refresh their schema caches.
        c.batch_execute("NOTIFY pgrst, 'reload schema'").await?;
    }
    Ok(applied)
}
