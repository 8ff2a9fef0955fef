//! The project's own database changes, recorded as the Supabase CLI records them: migrations in
//! `supabase_migrations.schema_migrations`, seed files in `supabase_migrations.seed_files`, and
//! the buckets of `[storage.buckets.*]`.

use super::MigrateError;
use ::project::{Migration, Project};
use tokio_postgres::Client;

pub(crate) const CREATE_HISTORY: &str = "CREATE SCHEMA IF NOT EXISTS supabase_migrations;
    CREATE TABLE IF NOT EXISTS supabase_migrations.schema_migrations (version text NOT NULL PRIMARY KEY);
    ALTER TABLE supabase_migrations.schema_migrations ADD COLUMN IF NOT EXISTS statements text[];
    ALTER TABLE supabase_migrations.schema_migrations ADD COLUMN IF NOT EXISTS name text;
    CREATE TABLE IF NOT EXISTS supabase_migrations.seed_files (path text NOT NULL PRIMARY KEY, hash text NOT NULL);";

/// Whether the database has the CLI's migration history table.
pub async fn history_exists(c: &Client) -> Result<bool, tokio_postgres::Error> {
    Ok(c.query_one(
        "SELECT to_regclass('supabase_migrations.schema_migrations') IS NOT NULL",
        &[],
    )
    .await?
    .get(0))
}

/// Versions the database has applied, in order.
pub async fn applied_versions(c: &Client) -> Result<Vec<String>, MigrateError> {
    if !history_exists(c).await? {
        return Ok(Vec::new());
    }
    Ok(c.query(
        "SELECT version FROM supabase_migrations.schema_migrations ORDER BY version",
        &[],
    )
    .await?
    .iter()
    .map(|r| r.get(0))
    .collect())
}

/// Creates the CLI's history tables where they are missing (a database that never ran a
/// migration, or whose history an older version made). Nothing runs when they are complete: a
/// DDL statement, even one that changes nothing, fires the event trigger that has every gateway
/// read its schema cache again.
pub async fn ensure_history(c: &Client) -> Result<(), MigrateError> {
    let complete: bool = c
        .query_one(
            "SELECT to_regclass('supabase_migrations.seed_files') IS NOT NULL
               AND (SELECT count(*) FROM pg_attribute
                     WHERE attrelid = to_regclass('supabase_migrations.schema_migrations')
                       AND attname IN ('statements', 'name') AND NOT attisdropped) = 2",
            &[],
        )
        .await?
        .get(0);
    if !complete {
        c.batch_execute(CREATE_HISTORY).await?;
    }
    Ok(())
}

/// The history as recorded: (version, name, statements) in version order (`migration fetch`).
pub async fn history(c: &Client) -> Result<Vec<(String, String, Vec<String>)>, MigrateError> {
    if !history_exists(c).await? {
        return Ok(Vec::new());
    }
    Ok(c.query(
        "SELECT version, coalesce(name, ''), coalesce(statements, '{}')
               FROM supabase_migrations.schema_migrations ORDER BY version",
        &[],
    )
    .await?
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2)))
    .collect())
}

/// What `migration repair` does to the history.
pub enum Repair<'a> {
    /// Records the files as applied without running them; a version already recorded gets the
    /// file's name and statements, as the CLI's upsert does.
    Applied(&'a [&'a Migration]),
    /// Forgets the versions.
    Reverted(&'a [String]),
}

/// Records `m` as applied (again, if it was): its version, name and statements, each without
/// its final semicolon, as the Supabase CLI records them.
pub(crate) async fn record(
    tx: &impl tokio_postgres::GenericClient,
    m: &Migration,
) -> Result<(), MigrateError> {
    let statements: Vec<&str> = m
        .statements
        .iter()
        .map(|s| s.text.trim_end().trim_end_matches(';').trim_end())
        .collect();
    tx.execute(
        "INSERT INTO supabase_migrations.schema_migrations (version, name, statements) VALUES ($1, $2, $3)
         ON CONFLICT (version) DO UPDATE SET name = EXCLUDED.name, statements = EXCLUDED.statements",
        &[&m.version, &m.name, &statements],
    )
    .await?;
    Ok(())
}

/// Repairs the history in one transaction; `all`: the table is emptied first (the whole
/// history made to match the local files).
pub async fn repair(c: &mut Client, all: bool, what: Repair<'_>) -> Result<(), MigrateError> {
    ensure_history(c).await?;
    let tx = c.transaction().await?;
    if all {
        tx.batch_execute("TRUNCATE supabase_migrations.schema_migrations")
            .await?;
    }
    match what {
        Repair::Applied(files) => {
            for m in files {
                record(&tx, m).await?;
            }
        }
        Repair::Reverted(versions) if !all => {
            tx.execute(
                "DELETE FROM supabase_migrations.schema_migrations WHERE version = ANY($1)",
                &[&versions],
            )
            .await?;
        }
        Repair::Reverted(_) => {}
    }
    tx.commit().await?;
    Ok(())
}

/// Replaces the versions up to `m`'s by `m` alone (`migration squash` of a remote history).
pub async fn baseline(c: &mut Client, m: &Migration) -> Result<(), MigrateError> {
    let tx = c.transaction().await?;
    tx.execute(
        "DELETE FROM supabase_migrations.schema_migrations WHERE version <= $1",
        &[&m.version],
    )
    .await?;
    record(&tx, m).await?;
    tx.commit().await?;
    Ok(())
}

/// Runs one migration file and records it, all in one transaction: a failing file leaves the
/// database as it was before it. A first statement PostgreSQL runs only outside a transaction
/// block (`create index concurrently …`) runs on its own first, as the Supabase CLI's pipeline
/// lets it: the rest of the file is then the transaction.
async fn run_one(c: &mut Client, m: &Migration) -> Result<(), MigrateError> {
    // (An error's position is in the text sent: the statement, or the rest of the file.)
    let failed = |e: &tokio_postgres::Error, sent: &str| MigrateError::Failed {
        file: m.display.clone(),
        message: super::describe_db_error(e, Some(sent)),
    };
    let mut rest = m.sql.as_str();
    if let Some(first) = m.statements.first()
        && ::project::sql::outside_transaction(&first.text)
    {
        c.batch_execute(&first.text)
            .await
            .map_err(|e| failed(&e, &first.text))?;
        rest = m.statements.get(1).map_or("", |next| &m.sql[next.offset..]);
    }
    let tx = c.transaction().await?;
    if let Err(e) = tx.batch_execute(rest).await {
        drop(tx);
        return Err(failed(&e, rest));
    }
    record(&tx, m).await?;
    tx.commit().await?;
    Ok(())
}

/// Applies the project's pending migrations in version order.
pub async fn apply_migrations(
    c: &mut Client,
    project: &Project,
) -> Result<Vec<String>, MigrateError> {
    apply_migrations_until(c, project, None).await
}

/// Whether the project has migrations the database has not applied (those up to `until` only,
/// when given).
pub async fn has_pending(
    c: &Client,
    project: &Project,
    until: Option<&str>,
) -> Result<bool, MigrateError> {
    let (migrations, _) = project.migrations()?;
    let done = applied_versions(c).await?;
    Ok(migrations
        .iter()
        .filter(|m| until.is_none_or(|u| m.version.as_str() <= u))
        .any(|m| !done.contains(&m.version)))
}

/// Applies the project's pending migrations in version order, those up to `until` only when
/// given (`migration down`: the database as it was that many migrations back).
pub async fn apply_migrations_until(
    c: &mut Client,
    project: &Project,
    until: Option<&str>,
) -> Result<Vec<String>, MigrateError> {
    let (mut migrations, skipped) = project.migrations()?;
    if let Some(until) = until {
        migrations.retain(|m| m.version.as_str() <= until);
    }
    for s in skipped {
        tracing::warn!("{s}");
    }
    ensure_history(c).await?;
    let done = applied_versions(c).await?;
    let latest = done.last().cloned();
    let mut applied = Vec::new();
    for m in migrations.iter().filter(|m| !done.contains(&m.version)) {
        if let Some(latest) = &latest
            && m.version < *latest
        {
            tracing::warn!(
                "{} is older than the latest applied migration ({latest}); applying it anyway",
                m.display
            );
        }
        run_one(c, m).await?;
        tracing::info!("applied {}", m.display);
        applied.push(m.display.clone());
    }
    for v in done
        .iter()
        .filter(|v| !migrations.iter().any(|m| &m.version == *v))
    {
        tracing::warn!(
            "the database has applied migration {v}, which is not in supabase/migrations"
        );
    }
    Ok(applied)
}

/// Runs these migrations in order, each in its transaction and recorded as the CLI records it
/// (`db push`): the session's settings are reset before each, as the CLI resets them, so that
/// one migration's `set_config` does not leak into the next.
pub async fn apply_these(c: &mut Client, migrations: &[&Migration]) -> Result<(), MigrateError> {
    ensure_history(c).await?;
    for m in migrations {
        c.batch_execute("RESET ALL").await?;
        run_one(c, m).await?;
    }
    Ok(())
}

/// The seed files' hashes the database recorded, by path (none without the table).
pub async fn seed_hashes(
    c: &Client,
) -> Result<std::collections::HashMap<String, String>, MigrateError> {
    let exists: bool = c
        .query_one(
            "SELECT to_regclass('supabase_migrations.seed_files') IS NOT NULL",
            &[],
        )
        .await?
        .get(0);
    if !exists {
        return Ok(Default::default());
    }
    Ok(
        c.query("SELECT path, hash FROM supabase_migrations.seed_files", &[])
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect(),
    )
}

/// Runs seed files and records their hashes, as `db push --include-seed` does: a `dirty` file
/// (recorded before with another hash) only has its hash updated, never runs again.
pub async fn seed_these(
    c: &mut Client,
    seeds: &[(&::project::SeedFile, bool)],
) -> Result<(), MigrateError> {
    ensure_history(c).await?;
    for (s, dirty) in seeds {
        let tx = c.transaction().await?;
        if !dirty && let Err(e) = tx.batch_execute(&s.sql).await {
            let message = super::describe_db_error(&e, Some(&s.sql));
            drop(tx);
            return Err(MigrateError::Failed {
                file: s.path.clone(),
                message,
            });
        }
        tx.execute(
            "INSERT INTO supabase_migrations.seed_files (path, hash) VALUES ($1, $2)
             ON CONFLICT (path) DO UPDATE SET hash = EXCLUDED.hash",
            &[&s.path, &s.hash],
        )
        .await?;
        tx.commit().await?;
    }
    Ok(())
}

/// What `migration down` on another server removes before the migrations run again, as the
/// CLI's reset of a remote database removes it: every schema the project made (not Supabase's,
/// not an extension's), the extensions a new project does not have, everything in `public`,
/// every policy, the project's publications; the auth tables, webhooks' and the migration
/// history emptied. Roles stay. `$1`: the schemas Supabase manages.
const DROP_PROJECT: &str = r#"
DO $$
DECLARE
  r record;
  managed text[] := string_to_array(current_setting('supagate.managed_schemas'), ',');
BEGIN
  FOR r IN SELECT n.nspname FROM pg_namespace n
            WHERE n.nspname <> ALL (managed) AND n.nspname <> 'public'
              AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_namespace'::regclass
                                AND d.objid = n.oid AND d.deptype = 'e')
  LOOP EXECUTE format('DROP SCHEMA IF EXISTS %I CASCADE', r.nspname); END LOOP;
  FOR r IN SELECT extname FROM pg_extension
            WHERE extname NOT IN ('pg_graphql', 'pg_net', 'pg_stat_statements', 'pgcrypto', 'pgjwt',
                                  'pgsodium', 'plpgsql', 'supabase_vault', 'uuid-ossp')
  LOOP EXECUTE format('DROP EXTENSION IF EXISTS %I CASCADE', r.extname); END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS f FROM pg_proc p
            WHERE p.pronamespace = 'public'::regnamespace
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
  LOOP EXECUTE format('DROP ROUTINE IF EXISTS %s CASCADE', r.f); END LOOP;
  FOR r IN SELECT c.relname, c.relkind FROM pg_class c
            WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('v', 'm', 'r', 'p', 'f', 'S')
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
            ORDER BY c.relkind = 'S', c.relkind NOT IN ('v', 'm')
  LOOP
    EXECUTE format(CASE r.relkind WHEN 'v' THEN 'DROP VIEW IF EXISTS public.%I CASCADE'
                                  WHEN 'm' THEN 'DROP MATERIALIZED VIEW IF EXISTS public.%I CASCADE'
                                  WHEN 'f' THEN 'DROP FOREIGN TABLE IF EXISTS public.%I CASCADE'
                                  WHEN 'S' THEN 'DROP SEQUENCE IF EXISTS public.%I CASCADE'
                                  ELSE 'DROP TABLE IF EXISTS public.%I CASCADE' END, r.relname);
  END LOOP;
  FOR r IN SELECT t.typname FROM pg_type t
            WHERE t.typnamespace = 'public'::regnamespace AND t.typtype IN ('c', 'd', 'e', 'r')
              AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = t.oid AND d.deptype = 'e')
  LOOP EXECUTE format('DROP TYPE IF EXISTS public.%I CASCADE', r.typname); END LOOP;
  FOR r IN SELECT policyname, schemaname, tablename FROM pg_policies
  LOOP EXECUTE format('DROP POLICY IF EXISTS %I ON %I.%I', r.policyname, r.schemaname, r.tablename); END LOOP;
  FOR r IN SELECT pubname FROM pg_publication
            WHERE pubname NOT LIKE 'supabase\_realtime%' AND pubname NOT LIKE 'realtime\_messages%'
  LOOP EXECUTE format('DROP PUBLICATION IF EXISTS %I', r.pubname); END LOOP;
  FOR r IN SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind = 'r' AND ((n.nspname = 'auth' AND c.relname <> 'schema_migrations')
               OR (n.nspname = 'supabase_functions' AND c.relname <> 'migrations')
               OR n.nspname = 'supabase_migrations')
  LOOP EXECUTE format('TRUNCATE %I.%I CASCADE', r.nspname, r.relname); END LOOP;
END $$"#;

/// Resets another server's database to the project's migrations up to `until` and its seed
/// (`migration down --db-url`): the project's objects dropped (`DROP_PROJECT`), then the
/// migrations run and the seed files, each recorded. `managed`: the schemas Supabase manages.
pub async fn reset_remote(
    c: &mut Client,
    project: &Project,
    until: &str,
    managed: &[&str],
) -> Result<Vec<String>, MigrateError> {
    c.execute(
        "SELECT set_config('supagate.managed_schemas', $1, false)",
        &[&managed.join(",")],
    )
    .await?;
    c.batch_execute(DROP_PROJECT).await?;
    c.batch_execute("RESET ALL").await?;
    super::platform::vault_secrets(c, project).await?;
    let applied = apply_migrations_until(c, project, Some(until)).await?;
    if project.config.db.seed_enabled {
        seed(c, project).await?;
    }
    Ok(applied)
}

/// Runs the seed files (each in its own transaction) and records their hashes.
pub async fn seed(c: &mut Client, project: &Project) -> Result<Vec<String>, MigrateError> {
    let (seeds, notes) = project.seed_files()?;
    for n in notes {
        tracing::warn!("{n}");
    }
    ensure_history(c).await?;
    let mut done = Vec::new();
    for s in seeds {
        let tx = c.transaction().await?;
        if let Err(e) = tx.batch_execute(&s.sql).await {
            let message = super::describe_db_error(&e, Some(&s.sql));
            drop(tx);
            return Err(MigrateError::Failed {
                file: s.path,
                message,
            });
        }
        tx.execute(
            "INSERT INTO supabase_migrations.seed_files (path, hash) VALUES ($1, $2)
             ON CONFLICT (path) DO UPDATE SET hash = EXCLUDED.hash",
            &[&s.path, &s.hash],
        )
        .await?;
        tx.commit().await?;
        tracing::info!("seeded data from {}", s.path);
        done.push(s.path);
    }
    Ok(done)
}

/// Creates or updates the buckets of `[storage.buckets.*]`, as `supabase start` does. A bucket
/// that is as config.toml says already is left alone (nothing written: each write is a commit
/// the start waits for).
pub async fn sync_buckets(c: &Client, project: &Project) -> Result<(), MigrateError> {
    for (name, b) in &project.config.storage.buckets {
        let size = b.file_size_limit.map(|s| s as i64);
        c.execute(
            "INSERT INTO storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
             SELECT $1, $1, $2, $3, $4
             WHERE NOT EXISTS (SELECT 1 FROM storage.buckets
                               WHERE id = $1 AND public IS NOT DISTINCT FROM $2
                                 AND file_size_limit IS NOT DISTINCT FROM $3
                                 AND allowed_mime_types IS NOT DISTINCT FROM $4)
             ON CONFLICT (id) DO UPDATE SET public = EXCLUDED.public,
               file_size_limit = EXCLUDED.file_size_limit,
               allowed_mime_types = EXCLUDED.allowed_mime_types, updated_at = now()",
            &[
                name,
                &b.public.unwrap_or(false),
                &size,
                &b.allowed_mime_types,
            ],
        )
        .await?;
    }
    Ok(())
}

/// One line of `migration list`: a version, its name, whether it is a local file, whether the
/// database applied it.
pub struct ListEntry {
    pub version: String,
    pub name: String,
    pub local: bool,
    pub applied: bool,
}

pub async fn list(c: &Client, project: &Project) -> Result<Vec<ListEntry>, MigrateError> {
    let (local, _) = project.migrations()?;
    let done = applied_versions(c).await?;
    let mut out: Vec<ListEntry> = local
        .iter()
        .map(|m| ListEntry {
            version: m.version.clone(),
            name: m.name.clone(),
            local: true,
            applied: done.contains(&m.version),
        })
        .collect();
    for v in done
        .iter()
        .filter(|v| !local.iter().any(|m| &m.version == *v))
    {
        out.push(ListEntry {
            version: v.clone(),
            name: String::new(),
            local: false,
            applied: true,
        });
    }
    out.sort_by(|a, b| a.version.cmp(&b.version));
    Ok(out)
}
