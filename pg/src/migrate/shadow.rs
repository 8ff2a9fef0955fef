//! The databases `db diff` compares, made in the cluster in a fraction of a second instead of
//! the Supabase CLI's shadow container: what the project's migrations build (a copy of the
//! template when it is up to date, else the migrations applied to a copy of the platform), and
//! the platform alone, for declared schema files to be applied to. The embedded cluster keeps
//! `supagate_template_platform`, the platform as the platform migrations build it, to copy
//! from; on another server each copy is built from nothing and nothing is kept.
//!
//! On the embedded cluster the declared files are first tried on a kept copy of the platform
//! (`supagate_diff_kept`): applied in one transaction that is read and rolled back, so that no
//! database is copied or dropped (DROP DATABASE waits for a checkpoint). The copy is made again
//! when what it was made from changed (its comment holds the key).

use super::MigrateError;
use super::template::{
    self, PLATFORM_TEMPLATE, TEMPLATE, comment_of, drop_database, wait_for_no_connections,
};
use crate::database::Database;
use crate::login::connect;
use crate::quote_ident;
use ::project::Project;
use tokio_postgres::Client;

/// Names of the databases a diff makes; `<prefix><pid>_<what>`.
const PREFIX: &str = "supagate_diff_";
/// The kept copy of the platform declared files are tried on (not `<prefix><pid>_…`: a sweep
/// leaves it).
pub const KEPT: &str = "supagate_diff_kept";

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

/// What the kept platform copy is made from, as its comment says it: the platform migrations
/// and what [`platform_copy`] adds from the project (default privileges, `[db.vault]`).
pub fn kept_key(project: &Project) -> String {
    let mut all = format!(
        "platform:{}\nexpose:{}\n",
        super::platform::fingerprint(),
        project.config.api.auto_expose_new_tables
    );
    for (name, value) in &project.config.db.vault {
        all.push_str(&format!(
            "vault:{}:{}\n",
            ::project::sha256_hex(name.as_bytes()),
            ::project::sha256_hex(value.as_bytes())
        ));
    }
    format!("supagate-kept:{}", ::project::sha256_hex(all.as_bytes()))
}

/// Whether the files may share one transaction and run as they do each in its own: none has a
/// statement that ends, opens or scopes its transaction (`COMMIT`, `SET LOCAL`, …), nor one
/// PostgreSQL runs only outside a transaction block. (A setting made local to the transaction
/// by a function the files call is seen by [`try_files`].)
pub fn fit_one_transaction(files: &[(String, String)]) -> bool {
    files.iter().all(|(_, sql)| {
        !::project::sql::split(sql)
            .iter()
            .any(|s| ::project::sql::scopes_transaction(&s.text))
    })
}

/// The session's settings that differ from the server's (`SET`, `set_config`, local or not),
/// the custom ones named `$1` (pg_settings does not show those) and its role.
const SETTINGS: &str = "SELECT current_user::text || E'\\n' || coalesce(string_agg(name || '=' \
    || coalesce(setting, ''), E'\\n' ORDER BY name), '') || E'\\n' || coalesce((SELECT \
    string_agg(n || '=' || coalesce(current_setting(n, true), '(unset)'), E'\\n' ORDER BY n) \
    FROM unnest($1::text[]) n), '') FROM pg_settings WHERE source IN ('session', 'client')";

/// The settings the files name in `set_config('name', …)` and `SET LOCAL name`: those a
/// function they call may make local to the transaction.
fn named_settings(files: &[(String, String)]) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    for (_, sql) in files {
        let lower = sql.to_ascii_lowercase();
        for (at, _) in lower.match_indices("set_config") {
            let rest = lower[at + "set_config".len()..].trim_start();
            let Some(rest) = rest.strip_prefix('(').map(str::trim_start) else {
                continue;
            };
            if let Some(name) = rest.strip_prefix('\'').and_then(|r| r.split('\'').next()) {
                names.insert(name.to_string());
            }
        }
        for (at, _) in lower.match_indices("set local ") {
            let name: String = lower[at + "set local ".len()..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
                .collect();
            names.insert(name);
        }
    }
    names
        .into_iter()
        .filter(|n| !n.is_empty() && n.len() <= 128)
        .collect()
}

/// A session on the kept platform copy ([`KEPT`]), made now when it is missing or was made
/// from something else (`key`, [`kept_key`]), and locked for this session; `None` when
/// another diff has it.
pub async fn kept_platform(
    project: &Project,
    db: &Database,
    key: &str,
) -> Result<Option<Client>, MigrateError> {
    let maint = maintenance(db).await?;
    if comment_of(&maint, KEPT).await?.as_deref() != Some(key) {
        // Made under this process's name (swept if it dies), then put in place.
        let building = name("kept");
        drop(platform_copy(project, db, &building, true).await?);
        wait_for_no_connections(&maint, &building).await?;
        drop_database(&maint, KEPT).await?;
        maint
            .batch_execute(&format!(
                "ALTER DATABASE {} RENAME TO {KEPT}; COMMENT ON DATABASE {KEPT} IS '{}'",
                quote_ident(&building),
                key.replace('\'', "''")
            ))
            .await?;
    }
    let c = connect(&db.admin_on(KEPT))
        .await
        .map_err(MigrateError::Other)?;
    let locked: bool = c
        .query_one("SELECT pg_try_advisory_lock(hashtext($1))", &[&KEPT])
        .await?
        .get(0);
    Ok(locked.then_some(c))
}

/// Applies the files in order in one transaction on `c` (a session on the kept platform copy)
/// and leaves it open, the session's settings as a new session's, for the caller to read and
/// roll back. `Ok(false)`: a file failed or ended the transaction, or the session's settings
/// changed (a setting local to a file's transaction would have been seen by the files after
/// it); then it is rolled back (and the copy, if a file committed to it, marked to be made
/// again), and the caller builds the database the usual way, which says which file failed.
pub async fn try_files(c: &Client, files: &[(String, String)]) -> Result<bool, MigrateError> {
    in_one_transaction(c, files, async |c: &Client| {
        for (path, sql) in files {
            if let Err(e) = c.batch_execute(sql).await {
                tracing::info!("{path} failed in the shared transaction ({e}); built apart");
                return Ok(false);
            }
        }
        Ok(true)
    })
    .await
}

/// [`try_files`] for the database the project's migrations build ([`migrations_copy`] when
/// the template is not up to date): the migrations applied and recorded, the queues exposed.
/// `Ok(false)` without a transaction when the migrations do not [`fit_one_transaction`].
pub async fn try_migrations(c: &Client, project: &Project) -> Result<bool, MigrateError> {
    let enabled = project.config.db.migrations_enabled;
    let migrations = match enabled {
        true => {
            let (migrations, skipped) = project.migrations()?;
            for s in skipped {
                tracing::warn!("{s}");
            }
            migrations
        }
        false => Vec::new(),
    };
    let files: Vec<(String, String)> = migrations
        .iter()
        .map(|m| (m.display.clone(), m.sql.clone()))
        .collect();
    if !fit_one_transaction(&files) {
        return Ok(false);
    }
    in_one_transaction(c, &files, async |c: &Client| {
        if enabled {
            c.batch_execute(super::project::CREATE_HISTORY).await?;
        }
        for m in &migrations {
            if let Err(e) = c.batch_execute(&m.sql).await {
                tracing::info!(
                    "{} failed in the shared transaction ({e}); built apart",
                    m.display
                );
                return Ok(false);
            }
            super::project::record(c, m).await?;
        }
        super::platform::expose_queues(c, project).await?;
        Ok(true)
    })
    .await
}

/// Whether the template was built from the project's migrations as they are (then
/// [`migrations_copy`] copies it).
pub async fn template_is_current(project: &Project, db: &Database) -> Result<bool, MigrateError> {
    let maint = maintenance(db).await?;
    let want = format!("supagate:{}", template::fingerprint(project)?);
    Ok(comment_of(&maint, TEMPLATE).await?.as_deref() == Some(want.as_str()))
}

/// Runs `apply` in a transaction on `c` and leaves it open when it applied (`Ok(true)`), the
/// transaction not ended and the session's settings (those `files` name too) as before; else
/// rolls it back.
async fn in_one_transaction(
    c: &Client,
    files: &[(String, String)],
    apply: impl AsyncFnOnce(&Client) -> Result<bool, MigrateError>,
) -> Result<bool, MigrateError> {
    let named = named_settings(files);
    let settings: String = c.query_one(SETTINGS, &[&named]).await?.get(0);
    c.batch_execute("BEGIN").await?;
    let first = xid(c).await?;
    let applied = match apply(c).await {
        Ok(applied) => applied,
        Err(e) => {
            tracing::info!("not applied in the shared transaction ({e}); built apart");
            false
        }
    };
    let same = match xid(c).await {
        Ok(x) => x == first,
        Err(_) => !applied,
    };
    let unset = match applied && same {
        true => c.query_one(SETTINGS, &[&named]).await?.get::<_, String>(0) == settings,
        false => false,
    };
    if applied && same && !unset {
        tracing::info!("the files changed the session's settings: built apart");
    }
    if applied && same && unset {
        c.batch_execute("RESET ALL; RESET ROLE; SET SESSION AUTHORIZATION DEFAULT")
            .await?;
        return Ok(true);
    }
    c.batch_execute("ROLLBACK").await?;
    if !same {
        c.batch_execute(&format!("COMMENT ON DATABASE {KEPT} IS 'stale'"))
            .await?;
    }
    Ok(false)
}

/// The transaction id of `c`'s transaction (given one now if it has none).
async fn xid(c: &Client) -> Result<i64, tokio_postgres::Error> {
    Ok(c.query_one("SELECT txid_current()", &[]).await?.get(0))
}

#[cfg(test)]
mod tests {
    use super::{fit_one_transaction, named_settings};

    fn files(sql: &[&str]) -> Vec<(String, String)> {
        sql.iter()
            .map(|s| ("f.sql".to_string(), s.to_string()))
            .collect()
    }

    #[test]
    fn settings_a_called_function_may_make_local() {
        let named = named_settings(&files(&[
            "create function f() returns void language plpgsql as $$ begin
               perform set_config( 'App.Converting', 'true', true);
               set local statement_timeout = 0; end $$;",
            "select set_config(name, 'x', true) from t; select SET_CONFIG('app.other', 'y', false)",
        ]));
        assert_eq!(named, ["app.converting", "app.other", "statement_timeout"]);
    }

    #[test]
    fn files_that_share_a_transaction() {
        assert!(fit_one_transaction(&files(&[
            "create table t (id int); create function f() returns void language plpgsql \
             as $$ begin commit; end $$;",
            "set search_path = public; create index on t (id);",
        ])));
        for sql in [
            "begin; create table t (id int); commit;",
            "set local search_path = ''",
            "create index concurrently on t (id)",
        ] {
            assert!(!fit_one_transaction(&files(&[sql])), "{sql}");
        }
    }
}
