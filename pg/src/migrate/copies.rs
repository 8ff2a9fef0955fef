//! Copies of the served database kept in the same cluster, made and put back with CREATE
//! DATABASE … TEMPLATE (a file copy: milliseconds for a small project): the workbench's
//! snapshots and branches. A copy keeps everything the database holds (auth users and
//! sessions, every schema, caught mail and texts, realtime's messages); what PostgreSQL keeps
//! outside a database (its `ALTER DATABASE … SET` settings, replication slots) is set again.

use super::MigrateError;
use super::template::{SERVED, copy_served, drop_database};
use crate::database::Database;
use crate::login::connect;
use tokio_postgres::Client;

/// One kept copy.
#[derive(Debug, Clone)]
pub struct Copy {
    pub name: String,
    /// What the copy was made with (`COMMENT ON DATABASE`).
    pub comment: Option<String>,
    pub bytes: i64,
}

async fn maintenance(db: &Database) -> Result<Client, MigrateError> {
    connect(&db.admin_on("template1"))
        .await
        .map_err(MigrateError::Connect)
}

fn comment_sql(name: &str, comment: &str) -> String {
    format!(
        "COMMENT ON DATABASE {} IS '{}'",
        crate::quote_ident(name),
        comment.replace('\'', "''")
    )
}

/// Copies the served database into `name` (replacing it). `connectable`: a branch is served
/// itself; a snapshot refuses connections, so nothing changes it until it is put back.
pub async fn save(
    db: &Database,
    name: &str,
    comment: &str,
    connectable: bool,
) -> Result<(), MigrateError> {
    let maint = maintenance(db).await?;
    copy_served(&maint, name).await?;
    maint.batch_execute(&comment_sql(name, comment)).await?;
    if connectable {
        settings_of(db, name).await
    } else {
        maint
            .batch_execute(&format!(
                "ALTER DATABASE {} WITH ALLOW_CONNECTIONS false",
                crate::quote_ident(name)
            ))
            .await?;
        Ok(())
    }
}

/// Makes `to` a copy of the kept copy `from` (a branch of a snapshot), served itself.
pub async fn copy(db: &Database, from: &str, to: &str, comment: &str) -> Result<(), MigrateError> {
    let maint = maintenance(db).await?;
    recreate(&maint, to, from).await?;
    maint.batch_execute(&comment_sql(to, comment)).await?;
    settings_of(db, to).await
}

/// The settings a served copy needs (search_path), as every clone gets them.
async fn settings_of(db: &Database, name: &str) -> Result<(), MigrateError> {
    let c = connect(&db.admin_on(name))
        .await
        .map_err(MigrateError::Connect)?;
    super::platform::settings(&c, None).await
}

/// Puts the kept copy `name` back as the served database (the one served now is dropped; its
/// sessions end and running gateways reconnect). `slot`: realtime's replication slot is made
/// again at once.
pub async fn restore(db: &Database, name: &str, slot: bool) -> Result<(), MigrateError> {
    recreate(&maintenance(db).await?, SERVED, name).await?;
    super::template::served_settings(db, slot).await
}

/// Makes database `to` anew as a copy of `template` (dropping the one of that name).
async fn recreate(maint: &Client, to: &str, template: &str) -> Result<(), MigrateError> {
    drop_database(maint, to).await?;
    maint
        .batch_execute(&format!(
            "CREATE DATABASE {} TEMPLATE {}",
            crate::quote_ident(to),
            crate::quote_ident(template)
        ))
        .await?;
    Ok(())
}

/// Whether a database of this name exists.
pub async fn exists(db: &Database, name: &str) -> Result<bool, MigrateError> {
    Ok(maintenance(db)
        .await?
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await?
        .is_some())
}

/// Drops a kept copy (its sessions end). Dropping one that does not exist is not an error.
pub async fn remove(db: &Database, name: &str) -> Result<(), MigrateError> {
    drop_database(&maintenance(db).await?, name).await
}

/// The kept copies whose names start with `prefix`, by name.
pub async fn list(db: &Database, prefix: &str) -> Result<Vec<Copy>, MigrateError> {
    let maint = maintenance(db).await?;
    let rows = maint
        .query(
            "SELECT datname, shobj_description(oid, 'pg_database'), pg_database_size(oid) \
             FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname",
            &[&prefix],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| Copy {
            name: r.get(0),
            comment: r.get(1),
            bytes: r.get(2),
        })
        .collect())
}

/// Makes `name` an empty database (replacing it), to restore an archive into.
pub async fn empty(db: &Database, name: &str) -> Result<(), MigrateError> {
    recreate(&maintenance(db).await?, name, "template0").await?;
    settings_of(db, name).await
}
