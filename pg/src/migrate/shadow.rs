//! The databases `db diff` compares, made in the cluster in a fraction of a second instead of
//! the Supabase CLI's shadow container: what the project's migrations build (a copy of the
//! template when it is up to date, else the migrations applied to a copy of the platform), and
//! the platform alone, for declared schema files to be applied to. The embedded cluster keeps
//! `supagate_template_platform`, the platform as the platform migrations build it, to copy
//! from; on another server each copy is built from nothing and nothing is kept.

use super::MigrateError;
use super::template::{self, PLATFORM_TEMPLATE, TEMPLATE, comment_of, drop_database};
use crate::database::Database;
use crate::login::connect;
use crate::quote_ident;
use ::project::Project;
use tokio_postgres::Client;

/// Names of the databases a diff makes; `<prefix><pid>_<what>`.
const PREFIX: &str = "supagate_diff_";

async fn maintenance(db: &Database) -> Result<Client, MigrateError> {
    connect(&db.admin_on("template1"))
        .await
        .map_err(MigrateError::Other)
}

/// The database name a diff of this process uses for `what`.
pub fn name(what: &str) -> String {
    format!("{PREFIX}{}_{what}", std::process::id())
}

/// Drops what diffs of processes that are gone left behind.
pub async fn sweep(db: &Database) -> Result<(), MigrateError> {
    let maint = maintenance(db).await?;
    let names: Vec<String> = maint
        .query(
            "SELECT datname::text FROM pg_database WHERE starts_with(datname, $1)",
            &[&PREFIX],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    for n in names {
        let pid = n[PREFIX.len()..]
            .split('_')
            .next()
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid
            && !std::path::Path::new(&format!("/proc/{pid}")).exists()
        {
            drop_database(&maint, &n).await?;
        }
    }
    Ok(())
}

/// Drops a database a diff made.
pub async fn remove(db: &Database, name: &str) -> Result<(), MigrateError> {
    drop_database(&maintenance(db).await?, name).await
}

/// Makes `name` (replacing it) a database with the platform and what a new database gets from
/// the project before its migrations run (the API roles' default privileges, `[db.vault]`'s
/// secrets, the search_path), and returns a session on it. `keep_template`: the server is the
/// embedded cluster, where the platform template is kept; elsewhere the platform is built in
/// the new database itself.
pub async fn platform_copy(
    project: &Project,
    db: &Database,
    name: &str,
    keep_template: bool,
) -> Result<Client, MigrateError> {
    let maint = maintenance(db).await?;
    drop_database(&maint, name).await?;
    let from = if keep_template {
        template::platform_template(&maint, &db.admin).await?;
        PLATFORM_TEMPLATE
    } else {
        "template0"
    };
    maint
        .batch_execute(&format!(
            "CREATE DATABASE {} TEMPLATE {from}",
            quote_ident(name)
        ))
        .await?;
    let mut c = connect(&db.admin_on(name))
        .await
        .map_err(MigrateError::Other)?;
    if !keep_template {
        super::platform::apply(&mut c).await?;
    }
    super::platform::api_privileges(&c, project).await?;
    super::platform::vault_secrets(&c, project).await?;
    super::platform::settings(&c, None).await?;
    // A new session, so the search_path's session default has extensions (see
    // `migrate_in_place`): the project's migrations run on it.
    drop(c);
    let c = connect(&db.admin_on(name))
        .await
        .map_err(MigrateError::Other)?;
    // A database made to be read and dropped: its commits need not wait for the disk.
    c.batch_execute("SET synchronous_commit = off").await?;
    Ok(c)
}

/// Makes `name` (replacing it) the database the project's migrations build, without its seed:
/// a copy of the template when it was built from these migrations, else the migrations
/// applied to a copy of the platform.
pub async fn migrations_copy(
    project: &Project,
    db: &Database,
    name: &str,
    keep_template: bool,
) -> Result<(), MigrateError> {
    let maint = maintenance(db).await?;
    if keep_template {
        let want = format!("supagate:{}", template::fingerprint(project)?);
        if comment_of(&maint, TEMPLATE).await?.as_deref() == Some(want.as_str()) {
            drop_database(&maint, name).await?;
            maint
                .batch_execute(&format!(
                    "CREATE DATABASE {} TEMPLATE {TEMPLATE}",
                    quote_ident(name)
                ))
                .await?;
            return Ok(());
        }
    }
    let mut c = platform_copy(project, db, name, keep_template).await?;
    if project.config.db.migrations_enabled {
        super::project::apply_migrations(&mut c, project).await?;
    }
    super::platform::expose_queues(&c, project).await?;
    Ok(())
}

/// Runs each file (path as shown, SQL) in order, each in a transaction of its own: the
/// declared schema files of `[db.migrations] schema_paths`.
pub async fn apply_files(c: &mut Client, files: &[(String, String)]) -> Result<(), MigrateError> {
    for (path, sql) in files {
        let tx = c.transaction().await?;
        if let Err(e) = tx.batch_execute(sql).await {
            let message = super::describe_db_error(&e, Some(sql));
            drop(tx);
            return Err(MigrateError::Failed {
                file: path.clone(),
                message,
            });
        }
        tx.commit().await?;
    }
    Ok(())
}
