//! The databases `db diff` compares, made in the cluster in a fraction of a second instead of
//! the Supabase CLI's shadow container: what the project's migrations build (a copy of the
//! template when it is up to date, else the migrations applied to a copy of the platform), and
//! the platform alone, for declared schema files to be applied to. The embedded cluster keeps
//! `supagate_template_platform`, the platform as the platform migrations build it, to copy
//! from; on another server each copy is built from nothing and nothing is kept.
//!
//! On the embedded cluster the declared files are first tried on a kept copy of the platform
//! (`supagate_diff_kept`; the migrations, when the template is not up to date, on
//! `supagate_diff_kept_migrations`): applied in one transaction that is read and rolled back,
//! so that no database is copied or dropped (DROP DATABASE waits for a checkpoint). The files
//! before the first one edited since the last diff are committed to the copy, and not applied
//! again while they stay as they are. The copy is made again when what it was made from
//! changed (its comment holds the key and the files committed).

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
/// The kept copy of the platform the migrations are tried on when the template is not up to
/// date.
pub const KEPT_MIGRATIONS: &str = "supagate_diff_kept_migrations";

async fn maintenance(db: &Database) -> Result<Client, MigrateError> {
    connect(&db.admin_on("template1"))
        .await
        .map_err(MigrateError::Connect)
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
        .map_err(MigrateError::Connect)?;
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
        .map_err(MigrateError::Connect)?;
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

/// The name a `set_config('name', value, is_local)` call names (`rest`: what follows
/// `set_config`), and whether it sets it for the session (`is_local` a literal `false`, no
/// parenthesis between the name and the call's end).
fn set_config_call(rest: &str) -> Option<(&str, bool)> {
    let rest = rest.trim_start().strip_prefix('(')?.trim_start();
    let rest = rest.strip_prefix('\'')?;
    let (name, after) = rest.split_once('\'')?;
    let session = after.split_once(')').is_some_and(|(args, _)| {
        !args.contains('(') && args.rsplit(',').next().map(str::trim) == Some("false")
    });
    Some((name, session))
}

/// The settings the files name in `set_config('name', …)` (unless for the session) and
/// `SET LOCAL name`: those a function they call may make local to the transaction.
fn named_settings(files: &[(String, String)]) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    for (_, sql) in files {
        let lower = sql.to_ascii_lowercase();
        for (at, _) in lower.match_indices("set_config") {
            if let Some((name, false)) = set_config_call(&lower[at + "set_config".len()..]) {
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

/// The settings the files set for the session (a statement `SET name …`, or
/// `set_config('name', …, false)`) and no statement may set locally ([`named_settings`]): as
/// each file in a transaction of its own would, such a setting holds for the files after it
/// (pg_dump's `SET check_function_bodies = false`, …); [`in_one_transaction`] lets them differ
/// at the end, and resets them before the catalog is read.
fn session_settings(files: &[(String, String)]) -> std::collections::BTreeSet<String> {
    let local = named_settings(files);
    let mut names = std::collections::BTreeSet::new();
    for (_, sql) in files {
        for s in ::project::sql::split(sql) {
            let mut words = s.text.split_whitespace();
            if !words.next().is_some_and(|w| w.eq_ignore_ascii_case("set")) {
                continue;
            }
            let Some(name) = words.next().and_then(|w| w.split('=').next()) else {
                continue;
            };
            let name = name.to_ascii_lowercase();
            let scoped = [
                "local",
                "session",
                "transaction",
                "constraints",
                "role",
                "time",
            ];
            if !name.is_empty() && !scoped.contains(&name.as_str()) {
                names.insert(name);
            }
        }
        let lower = sql.to_ascii_lowercase();
        for (at, _) in lower.match_indices("set_config") {
            if let Some((name, true)) = set_config_call(&lower[at + "set_config".len()..]) {
                names.insert(name.to_string());
            }
        }
    }
    names.retain(|n| n.len() <= 128 && !local.contains(n));
    names
}

/// [`SETTINGS`]'s answer without the settings `names` (lower case).
fn settings_but(settings: &str, names: &std::collections::BTreeSet<String>) -> String {
    let mut lines = settings.split('\n');
    let user = lines.next().unwrap_or_default();
    std::iter::once(user)
        .chain(lines.filter(|l| {
            let name = l.split('=').next().unwrap_or_default();
            !names.contains(&name.to_ascii_lowercase())
        }))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A session on a kept platform copy, locked for this diff, and what the copy's comment says
/// besides its key: the files committed to it and the files the last diff on it applied (each
/// as its [`step`] hash). The files a diff finds as the last one left them, up to the first
/// changed one, are committed to the copy (the file being edited is usually the same from one
/// diff to the next): the next diffs apply only the files after them.
pub struct Kept {
    client: Client,
    name: &'static str,
    key: String,
    /// The files committed to the copy, in order.
    done: Vec<String>,
    /// The files the last diff on the copy applied, in order.
    last: Vec<String>,
    /// The settings the files committed to the copy left set for the session (name, value).
    settings: Vec<(String, String)>,
}

/// More files than this are not recorded in a kept copy's comment (then none is committed).
const MAX_RECORDED: usize = 20_000;

/// A file as a kept copy's comment records it: its path and content, hashed.
fn step(path: &str, sql: &str) -> String {
    ::project::sha256_hex(format!("{path}\n{sql}").as_bytes())[..16].to_string()
}

impl Kept {
    /// The session on the copy.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The statement that makes the copy's comment say these lists and settings.
    fn comment(&self, done: &[String], last: &[String], settings: &[(String, String)]) -> String {
        let last = match last.len() > MAX_RECORDED {
            true => &[][..],
            false => last,
        };
        let settings: Vec<String> = settings
            .iter()
            .map(|(n, v)| format!("{}={}", hex::encode(n), hex::encode(v)))
            .collect();
        format!(
            "COMMENT ON DATABASE {} IS '{}\ndone:{}\nlast:{}\nset:{}'",
            quote_ident(self.name),
            self.key.replace('\'', "''"),
            done.join(","),
            last.join(","),
            settings.join(",")
        )
    }
}

/// The hashes a comment's line `what:` lists.
fn listed(comment: &str, what: &str) -> Vec<String> {
    comment
        .lines()
        .find_map(|l| l.strip_prefix(what))
        .map(|l| {
            l.split(',')
                .filter(|h| !h.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A session on the kept platform copy `name` ([`KEPT`], [`KEPT_MIGRATIONS`]), made now when
/// it is missing, was made from something else (`key`, [`kept_key`], its comment's first
/// line) or holds a file committed to it that is not `files`' (paths and SQL) any more, and
/// locked for this session; `None` when another diff has it.
pub async fn kept_platform(
    project: &Project,
    db: &Database,
    key: &str,
    name: &'static str,
    files: &[(String, String)],
) -> Result<Option<Kept>, MigrateError> {
    let now: Vec<String> = files.iter().map(|(p, s)| step(p, s)).collect();
    // The files the copy made again had applied last: those before the edited one are
    // committed to the new copy at once.
    let mut applied_last = None;
    for _ in 0..2 {
        let Some(mut kept) = open_kept(project, db, key, name).await? else {
            return Ok(None);
        };
        if now.starts_with(&kept.done) {
            if kept.last.is_empty()
                && let Some(last) = applied_last.take()
            {
                kept.last = last;
            }
            return Ok(Some(kept));
        }
        applied_last = Some(std::mem::take(&mut kept.last));
        tracing::info!("a file committed to {name} changed: made again");
        kept.client
            .batch_execute(&format!(
                "COMMENT ON DATABASE {} IS 'stale'",
                quote_ident(name)
            ))
            .await?;
    }
    Ok(None)
}

/// [`kept_platform`], whatever files are committed to the copy.
async fn open_kept(
    project: &Project,
    db: &Database,
    key: &str,
    name: &'static str,
) -> Result<Option<Kept>, MigrateError> {
    let maint = maintenance(db).await?;
    let made_of = |comment: Option<String>| comment.is_some_and(|c| c.lines().next() == Some(key));
    if !made_of(comment_of(&maint, name).await?) {
        // Made under this process's name (swept if it dies), then put in place.
        let building = self::name("kept");
        drop(platform_copy(project, db, &building, true).await?);
        wait_for_no_connections(&maint, &building).await?;
        let retired = retire(&maint, name).await?;
        maint
            .batch_execute(&format!(
                "ALTER DATABASE {} RENAME TO {}; COMMENT ON DATABASE {1} IS '{}'",
                quote_ident(&building),
                quote_ident(name),
                key.replace('\'', "''")
            ))
            .await?;
        if let Some(retired) = retired {
            use futures_util::FutureExt;
            let dropping = format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                quote_ident(&retired)
            );
            drop(maint.batch_execute(&dropping).now_or_never());
        }
    }
    let c = connect(&db.admin_on(name))
        .await
        .map_err(MigrateError::Connect)?;
    // The diff before may still be rolling back on its session ([`roll_back_unawaited`]):
    // waited for, a diff that holds the copy longer is not.
    c.batch_execute("SET lock_timeout = '10s'").await?;
    let locked = match c
        .query_one("SELECT pg_advisory_lock(hashtext($1))", &[&name])
        .await
    {
        Ok(_) => true,
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE) => false,
        Err(e) => return Err(e.into()),
    };
    c.batch_execute("RESET lock_timeout").await?;
    // Read once locked: the diff before may have committed files.
    let comment = comment_of(&c, name).await?;
    if !locked || !made_of(comment.clone()) {
        return Ok(None);
    }
    let comment = comment.unwrap_or_default();
    Ok(Some(Kept {
        client: c,
        name,
        key: key.to_string(),
        done: listed(&comment, "done:"),
        last: listed(&comment, "last:"),
        settings: listed(&comment, "set:")
            .iter()
            .filter_map(|s| {
                let (n, v) = s.split_once('=')?;
                let text = |h: &str| String::from_utf8(hex::decode(h).ok()?).ok();
                Some((text(n)?, text(v)?))
            })
            .collect(),
    }))
}

/// Puts the kept copy `name` out of the way: renamed as a database a reset set aside, to be
/// dropped without waiting (DROP DATABASE waits for a checkpoint; what is not dropped when this
/// process ends is dropped when the project starts or is reset), its new name returned; or
/// dropped here when it is in use.
async fn retire(maint: &Client, name: &str) -> Result<Option<String>, MigrateError> {
    let exists = maint
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await?
        .is_some();
    if !exists {
        return Ok(None);
    }
    wait_for_no_connections(maint, name).await?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    let retired = format!("{}{stamp}_{}", template::RETIRED, std::process::id());
    let renamed = maint
        .batch_execute(&format!(
            "ALTER DATABASE {} RENAME TO {}",
            quote_ident(name),
            quote_ident(&retired)
        ))
        .await;
    match renamed {
        Ok(()) => Ok(Some(retired)),
        Err(_) => drop_database(maint, name).await.map(|()| None),
    }
}

/// Ends the transaction [`try_files`] or [`try_migrations`] left open on the copy without
/// waiting: rolling back what the files made (their tables' files removed) takes a good part
/// of the time applying them did (0.8–1.3 s of gonasi's 2 s). What is sent on the session
/// after it runs after it; the next diff waits for the copy's lock, which the session holds
/// until it is done ([`kept_platform`]); if the process ends first, the server rolls back as
/// the connection closes.
pub fn roll_back_unawaited(kept: &Kept) {
    use futures_util::FutureExt;
    // The first poll hands the message to the connection's task; its answer is dropped.
    drop(kept.client.batch_execute("ROLLBACK").now_or_never());
}

/// What is applied to a kept copy: declared files, or the project's migrations (each recorded
/// in the history table, which is made first; the queues exposed last).
enum Steps<'a> {
    Files(&'a [(String, String)]),
    Migrations {
        migrations: &'a [::project::Migration],
        project: &'a Project,
    },
}

impl Steps<'_> {
    /// Runs the steps `range` on `c`; `last`: the range ends the list. `Ok(false)`: one failed.
    async fn run(
        &self,
        c: &Client,
        range: std::ops::Range<usize>,
        last: bool,
    ) -> Result<bool, MigrateError> {
        match self {
            Steps::Files(files) => {
                for (path, sql) in &files[range] {
                    if let Err(e) = c.batch_execute(sql).await {
                        tracing::info!(
                            "{path} failed in the shared transaction ({e}); built apart"
                        );
                        return Ok(false);
                    }
                }
            }
            Steps::Migrations {
                migrations,
                project,
            } => {
                // (Committed with the first migrations when they are.)
                if project.config.db.migrations_enabled && range.start == 0 {
                    c.batch_execute(super::project::CREATE_HISTORY).await?;
                }
                for m in &migrations[range] {
                    if let Err(e) = c.batch_execute(&m.sql).await {
                        tracing::info!(
                            "{} failed in the shared transaction ({e}); built apart",
                            m.display
                        );
                        return Ok(false);
                    }
                    super::project::record(c, m).await?;
                }
                if last {
                    super::platform::expose_queues(c, project).await?;
                }
            }
        }
        Ok(true)
    }
}

/// Applies `steps` (`files`: their paths and SQL) on the kept copy and leaves the transaction
/// open (`Ok(true)`) for the caller to read and roll back ([`roll_back_unawaited`]). The files
/// committed to the copy are not applied again; the files before the first one that changed
/// since the last diff on the copy are committed first (in a transaction of their own, kept
/// only when it leaves the session's settings as they were). A copy holding a file that
/// changed since is made again by [`kept_platform`]. `Ok(false)`: not applied as each file in a transaction of its
/// own would be (see [`in_one_transaction`]); nothing is left open.
async fn apply_reusing(
    kept: &mut Kept,
    files: &[(String, String)],
    steps: &Steps<'_>,
) -> Result<bool, MigrateError> {
    let now: Vec<String> = files.iter().map(|(p, s)| step(p, s)).collect();
    if !now.starts_with(&kept.done) {
        return Err(MigrateError::Other(format!(
            "{} holds files that changed",
            kept.name
        )));
    }
    let from = kept.done.len();
    let stable = now
        .iter()
        .zip(&kept.last)
        .take_while(|(a, b)| a == b)
        .count();
    let mut at = from;
    if stable > from && stable < now.len() && now.len() <= MAX_RECORDED {
        let committed = in_one_transaction(kept, files, &files[from..stable], async |c| {
            steps.run(c, from..stable, false).await
        })
        .await?;
        if let Some(settings) = committed {
            let comment = kept.comment(&now[..stable], &now, &settings);
            kept.client
                .batch_execute(&format!("{comment}; COMMIT"))
                .await?;
            kept.done = now[..stable].to_vec();
            kept.last = now.clone();
            kept.settings = settings;
            at = stable;
        }
    }
    if kept.last != now {
        let comment = kept.comment(&kept.done, &now, &kept.settings);
        kept.client.batch_execute(&comment).await?;
        kept.last = now.clone();
    }
    tracing::info!(
        "{} of {} files applied on {} ({at} kept committed)",
        now.len() - at,
        now.len(),
        kept.name
    );
    let applied = in_one_transaction(kept, files, &files[at..], async |c| {
        steps.run(c, at..now.len(), true).await
    })
    .await?;
    Ok(applied.is_some())
}

/// Applies the files in order on the kept copy of the platform ([`KEPT`]) in one transaction,
/// but those committed to it already ([`apply_reusing`]), and leaves it open, the session's
/// settings as a new session's, for the caller to read and roll back. `Ok(false)`: a file
/// failed or ended the transaction, or the session's settings changed (a setting local to a
/// file's transaction would have been seen by the files after it); then it is rolled back (and
/// the copy, if a file committed to it, marked to be made again), and the caller builds the
/// database the usual way, which says which file failed.
pub async fn try_files(kept: &mut Kept, files: &[(String, String)]) -> Result<bool, MigrateError> {
    apply_reusing(kept, files, &Steps::Files(files)).await
}

/// [`try_files`] for the database the project's migrations build ([`migrations_copy`] when
/// the template is not up to date), on [`KEPT_MIGRATIONS`]: the migrations applied and
/// recorded, the queues exposed. `migrations` and `files` as [`migration_files`] gives them.
pub async fn try_migrations(
    kept: &mut Kept,
    project: &Project,
    migrations: &[::project::Migration],
    files: &[(String, String)],
) -> Result<bool, MigrateError> {
    let steps = Steps::Migrations {
        migrations,
        project,
    };
    apply_reusing(kept, files, &steps).await
}

/// The project's migrations and each one's path and SQL.
pub type MigrationFiles = (Vec<::project::Migration>, Vec<(String, String)>);

/// The project's migrations to apply (none when `[db.migrations] enabled` is off), and each
/// one's path and SQL.
pub fn migration_files(project: &Project) -> Result<MigrationFiles, MigrateError> {
    let migrations = match project.config.db.migrations_enabled {
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
    Ok((migrations, files))
}

/// Whether the template was built from the project's migrations as they are (then
/// [`migrations_copy`] copies it).
pub async fn template_is_current(project: &Project, db: &Database) -> Result<bool, MigrateError> {
    let maint = maintenance(db).await?;
    let want = format!("supagate:{}", template::fingerprint(project)?);
    Ok(comment_of(&maint, TEMPLATE).await?.as_deref() == Some(want.as_str()))
}

/// Runs `apply` in a transaction on the kept copy and leaves it open when it applied
/// (`Ok(true)`), the transaction not ended and the session's settings (those `files` name too)
/// as before, but (`session`) those the files set for the session; else rolls it back.
async fn in_one_transaction(
    kept: &Kept,
    all: &[(String, String)],
    files: &[(String, String)],
    apply: impl AsyncFnOnce(&Client) -> Result<bool, MigrateError>,
) -> Result<Option<Vec<(String, String)>>, MigrateError> {
    let c = &kept.client;
    let named = named_settings(all);
    let mut session = session_settings(files);
    session.retain(|n| !named.contains(n));
    // What the files committed to the copy set for the session holds for the files after them.
    for (name, value) in &kept.settings {
        c.execute("SELECT set_config($1, $2, false)", &[name, value])
            .await?;
    }
    let settings: String = c.query_one(SETTINGS, &[&named]).await?.get(0);
    let settings = settings_but(&settings, &session);
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
        true => {
            let now: String = c.query_one(SETTINGS, &[&named]).await?.get(0);
            settings_but(&now, &session) == settings
        }
        false => false,
    };
    if applied && same && !unset {
        tracing::info!("the files changed the session's settings: built apart");
    }
    if applied && same && unset {
        let mut names: Vec<String> = session.into_iter().collect();
        names.extend(kept.settings.iter().map(|(n, _)| n.clone()));
        let held = c
            .query(
                "SELECT n, current_setting(n, true) FROM unnest($1::text[]) n \
                 WHERE current_setting(n, true) IS NOT NULL GROUP BY n ORDER BY n",
                &[&names],
            )
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        c.batch_execute("RESET ALL; RESET ROLE; SET SESSION AUTHORIZATION DEFAULT")
            .await?;
        return Ok(Some(held));
    }
    c.batch_execute("ROLLBACK").await?;
    if !same {
        c.batch_execute(&format!(
            "COMMENT ON DATABASE {} IS 'stale'",
            quote_ident(kept.name)
        ))
        .await?;
    }
    Ok(None)
}

/// The transaction id of `c`'s transaction (given one now if it has none).
async fn xid(c: &Client) -> Result<i64, tokio_postgres::Error> {
    Ok(c.query_one("SELECT txid_current()", &[]).await?.get(0))
}

#[cfg(test)]
mod tests {
    use super::{fit_one_transaction, named_settings, session_settings, settings_but};

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
        // (`app.other` is set for the session: `session_settings`.)
        assert_eq!(named, ["app.converting", "statement_timeout"]);
    }

    #[test]
    fn settings_the_files_set_for_the_session() {
        let files = files(&[
            "SET statement_timeout = 0;\nSET check_function_bodies=false;
             SELECT pg_catalog.set_config('search_path', '', false);
             set local lock_timeout = 0; set role postgres; set time zone 'UTC';
             create function f() returns void language sql set work_mem = '8MB' as $$ select 1 $$;",
            "select set_config('app.a', 'x', false), set_config('app.b', f(1, false), true);
             select set_config('app.c', 'y', false); select set_config('app.c', 'z', true);",
        ]);
        let session: Vec<String> = session_settings(&files).into_iter().collect();
        assert_eq!(
            session,
            [
                "app.a",
                "check_function_bodies",
                "search_path",
                "statement_timeout"
            ]
        );
        assert_eq!(named_settings(&files), ["app.b", "app.c", "lock_timeout"]);
        let names = session_settings(&files);
        assert_eq!(
            settings_but("me\nSearch_Path=x\nwork_mem=1\napp.b=(unset)", &names),
            "me\nwork_mem=1\napp.b=(unset)"
        );
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
