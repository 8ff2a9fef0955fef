//! The embedded cluster keeps `supagate_template`: a database built from the platform
//! migrations, the project's migrations, its seed and buckets. A new or reset database is a
//! clone of it (CREATE DATABASE … TEMPLATE), which takes a fraction of a second; the template is
//! rebuilt when any of those files change.

use super::MigrateError;
use crate::database::Database;
use crate::login::connect;
use ::project::Project;
use std::time::{Duration, Instant};
use tokio_postgres::Client;

pub const TEMPLATE: &str = "supagate_template";
const BUILDING: &str = "supagate_template_new";
/// The database the gateway serves (the Supabase CLI's).
const SERVED: &str = "postgres";

/// What a template built now would be made of.
pub fn fingerprint(project: &Project) -> Result<String, MigrateError> {
    Ok(::project::sha256_hex(
        format!(
            "{}:{}",
            super::platform::fingerprint(),
            project.fingerprint()?
        )
        .as_bytes(),
    ))
}

async fn template_fingerprint(maint: &Client) -> Result<Option<String>, MigrateError> {
    Ok(maint
        .query_opt(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1",
            &[&TEMPLATE],
        )
        .await?
        .and_then(|r| r.get::<_, Option<String>>(0))
        .and_then(|c| c.strip_prefix("supagate:").map(str::to_string)))
}

/// Waits until nobody is connected to `db` (a closed client's backend exits asynchronously).
async fn wait_for_no_connections(maint: &Client, db: &str) -> Result<(), MigrateError> {
    let t0 = Instant::now();
    loop {
        let n: i64 = maint
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1",
                &[&db],
            )
            .await?
            .get(0);
        if n == 0 || t0.elapsed() > Duration::from_secs(10) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Runs each statement on its own: CREATE and DROP DATABASE refuse to run in a transaction.
async fn each(maint: &Client, statements: &[String]) -> Result<(), MigrateError> {
    for s in statements {
        maint.batch_execute(s).await?;
    }
    Ok(())
}

/// A database with a replication slot (realtime's) cannot be dropped: its sessions are ended
/// and its slots dropped first (a slot in use by a session just ended frees within moments).
async fn drop_slots(maint: &Client, name: &str) -> Result<(), MigrateError> {
    let t0 = Instant::now();
    loop {
        maint
            .execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = $1 AND pid <> pg_backend_pid()",
                &[&name],
            )
            .await?;
        let dropped = maint
            .execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots \
                 WHERE database = $1",
                &[&name],
            )
            .await;
        match dropped {
            Ok(_) => return Ok(()),
            Err(_) if t0.elapsed() < Duration::from_secs(5) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

async fn drop_database(maint: &Client, name: &str) -> Result<(), MigrateError> {
    let exists = maint
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await?
        .is_some();
    if exists {
        drop_slots(maint, name).await?;
        each(
            maint,
            &[
                format!("ALTER DATABASE \"{name}\" IS_TEMPLATE false"),
                format!("DROP DATABASE \"{name}\" WITH (FORCE)"),
            ],
        )
        .await?;
    }
    Ok(())
}

/// Builds the template unless an up-to-date one exists. Returns whether it built one.
pub async fn ensure(project: &Project, db: &Database) -> Result<bool, MigrateError> {
    let maint = connect(&db.admin_on("template1"))
        .await
        .map_err(MigrateError::Other)?;
    let want = fingerprint(project)?;
    if template_fingerprint(&maint).await?.as_deref() == Some(want.as_str()) {
        return Ok(false);
    }
    let t0 = Instant::now();
    drop_database(&maint, BUILDING).await?;
    maint
        .batch_execute(&format!(
            "CREATE DATABASE \"{BUILDING}\" TEMPLATE template0"
        ))
        .await?;
    {
        let mut c = connect(&db.admin_on(BUILDING))
            .await
            .map_err(MigrateError::Other)?;
        let built = super::migrate_in_place(&mut c, project, db, true).await;
        drop(c);
        if let Err(e) = built {
            wait_for_no_connections(&maint, BUILDING).await?;
            let _ = drop_database(&maint, BUILDING).await;
            return Err(e);
        }
    }
    wait_for_no_connections(&maint, BUILDING).await?;
    drop_database(&maint, TEMPLATE).await?;
    each(
        &maint,
        &[
            format!("ALTER DATABASE \"{BUILDING}\" RENAME TO \"{TEMPLATE}\""),
            format!("ALTER DATABASE \"{TEMPLATE}\" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"),
            format!("COMMENT ON DATABASE \"{TEMPLATE}\" IS 'supagate:{want}'"),
        ],
    )
    .await?;
    tracing::info!(
        "built the database template in {} ms",
        t0.elapsed().as_millis()
    );
    Ok(true)
}

/// Replaces the served database by a fresh clone of the template (built first if needed).
/// Sessions on the old database are ended; running gateways reconnect by themselves. `slot`:
/// realtime's replication slot is made at once, so no change committed before a gateway
/// captures is lost.
pub async fn reset(project: &Project, db: &Database, slot: bool) -> Result<(), MigrateError> {
    ensure(project, db).await?;
    let maint = connect(&db.admin_on("template1"))
        .await
        .map_err(MigrateError::Other)?;
    drop_database(&maint, SERVED).await?;
    maint
        .batch_execute(&format!(
            "CREATE DATABASE \"{SERVED}\" TEMPLATE \"{TEMPLATE}\""
        ))
        .await?;
    let c = connect(&db.admin).await.map_err(MigrateError::Other)?;
    super::platform::settings(&c, db.api_password.as_deref()).await?;
    if slot {
        crate::replication::prepare_slot(&c)
            .await
            .map_err(|e| MigrateError::Other(e.to_string()))?;
    }
    Ok(())
}
