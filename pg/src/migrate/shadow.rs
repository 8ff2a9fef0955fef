//! The databases `db diff` compares, made in the cluster in a fraction of a second instead of
//! the Supabase CLI's shadow container: what the project's migrations build (a copy of the
//! template when it is up to date, else the migrations applied to a copy of the platform), and
//! the platform alone, for declared schema files to be applied to. The embedded cluster keeps
//! `supagate_template_platform`, the platform as the platform migrations build it, to copy
//! from; on another server each copy is built from nothing and nothing is kept.

use super::MigrateError;
use super::template::{self, TEMPLATE, drop_database};
use crate::database::Database;
use crate::login::connect;
use crate::quote_ident;
use ::project::Project;
use tokio_postgres::Client;

/// The platform alone, kept in the embedded cluster to copy from.
pub const PLATFORM_TEMPLATE: &str = "supagate_template_platform";
const BUILDING: &str = "supagate_template_platform_new";
/// Names of the databases a diff makes; `<prefix><pid>_<what>`.
const PREFIX: &str = "supagate_diff_";
/// The advisory lock (on `template1`) held while the platform template is built.
const BUILD_LOCK: i64 = 0x5ba9_d1ff;

async fn maintenance(db: &Database) -> Result<Client, MigrateError> {
    connect(&db.admin_on("template1"))
        .await
        .map_err(MigrateError::Other)
}

async fn comment_of(maint: &Client, name: &str) -> Result<Option<String>, MigrateError> {
    Ok(maint
        .query_opt(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1",
            &[&name],
        )
        .await?
        .and_then(|r| r.get::<_, Option<String>>(0)))
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

/// The platform template, built now when missing or made by other platform migrations.
async fn platform_template(maint: &Client, db: &Database) -> Result<(), MigrateError> {
    let want = format!("supagate-platform:{}", super::platform::fingerprint());
    if comment_of(maint, PLATFORM_TEMPLATE).await?.as_deref() == Some(want.as_str()) {
        return Ok(());
    }
    maint
        .execute("SELECT pg_advisory_lock($1)", &[&BUILD_LOCK])
        .await?;
    let built = async {
        // Another diff may have built it while this one waited.
        if comment_of(maint, PLATFORM_TEMPLATE).await?.as_deref() == Some(want.as_str()) {
            return Ok(());
        }
        drop_database(maint, BUILDING).await?;
        maint
            .batch_execute(&format!("CREATE DATABASE {BUILDING} TEMPLATE template0"))
            .await?;
        {
            let mut c = connect(&db.admin_on(BUILDING))
                .await
                .map_err(MigrateError::Other)?;
            super::platform::apply(&mut c).await?;
        }
        template::wait_for_no_connections(maint, BUILDING).await?;
        drop_database(maint, PLATFORM_TEMPLATE).await?;
        maint
            .batch_execute(&format!(
                "ALTER DATABASE {BUILDING} RENAME TO {PLATFORM_TEMPLATE};
                 ALTER DATABASE {PLATFORM_TEMPLATE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false;
                 COMMENT ON DATABASE {PLATFORM_TEMPLATE} IS '{want}'"
            ))
            .await?;
        Ok(())
    }
    .await;
    maint
        .execute("SELECT pg_advisory_unlock($1)", &[&BUILD_LOCK])
        .await?;
    built
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
        platform_template(&maint, db).await?;
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
    connect(&db.admin_on(name))
        .await
        .map_err(MigrateError::Other)
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
