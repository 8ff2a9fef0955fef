//! The platform migrations embedded from `sql/` (roles, extensions, auth, storage), recorded in
//! `supagate.platform_migrations`, and the per-database settings a Supabase database has.

use super::MigrateError;
use crate::quote_ident;
use ::project::{Project, sha256_hex};
use tokio_postgres::Client;

include!(concat!(env!("OUT_DIR"), "/platform_migrations.rs"));

/// A digest of every platform migration: a template built from other ones is stale.
pub fn fingerprint() -> String {
    let mut all = String::new();
    for (name, sql) in PLATFORM_MIGRATIONS {
        all.push_str(name);
        all.push_str(&sha256_hex(sql.as_bytes()));
    }
    sha256_hex(all.as_bytes())
}

/// Whether the database has never been set up by supagate.
pub async fn is_fresh(c: &Client) -> Result<bool, MigrateError> {
    Ok(c.query_one(
        "SELECT to_regclass('supagate.platform_migrations') IS NULL",
        &[],
    )
    .await?
    .get(0))
}

/// Makes `supabase_admin` what it is in a Supabase database, the superuser the platform's
/// objects and extensions belong to, where this login may (a superuser's).
const ADMIN_ROLE: &str = "DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'supabase_admin') THEN
    CREATE ROLE supabase_admin NOLOGIN;
  END IF;
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = session_user)
     AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = 'supabase_admin') THEN
    ALTER ROLE supabase_admin SUPERUSER CREATEDB CREATEROLE REPLICATION BYPASSRLS;
  END IF;
END
$$";

/// Whether this login can run platform migrations as a superuser `supabase_admin` (on a
/// server where it cannot, they run as the login itself).
async fn as_supabase_admin(c: &Client) -> Result<bool, MigrateError> {
    c.batch_execute(ADMIN_ROLE).await?;
    Ok(c.query_one(
        "SELECT coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = 'supabase_admin'), false)
                AND ((SELECT rolsuper FROM pg_roles WHERE rolname = session_user)
                     OR pg_has_role(session_user, 'supabase_admin', 'MEMBER'))",
        &[],
    )
    .await?
    .get(0))
}

/// What `apply` did.
pub struct Applied {
    /// The database had no platform yet: it was set up now.
    pub fresh: bool,
    pub migrations: Vec<String>,
}

/// Applies the platform migrations the database has not had, in order, each in a transaction
/// of its own, as `supabase_admin` where possible.
pub async fn apply(c: &mut Client) -> Result<Applied, MigrateError> {
    let fresh = is_fresh(c).await?;
    let old_layout: bool = c
        .query_one("SELECT to_regclass('supagate.migrations') IS NOT NULL", &[])
        .await?
        .get(0);
    if old_layout {
        return Err(MigrateError::Other(
            "this database was set up by an earlier supagate that had the flower shop built in; \
             start from a new database (`supagate db reset` for the embedded one, or a new \
             DATABASE_URL)"
                .into(),
        ));
    }
    // Only when missing: a DDL statement, even one that changes nothing, fires the event
    // trigger that has every gateway read its schema cache again.
    if fresh {
        c.batch_execute(
            "CREATE SCHEMA IF NOT EXISTS supagate;
         CREATE TABLE IF NOT EXISTS supagate.platform_migrations (
           name text PRIMARY KEY,
           checksum text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now())",
        )
        .await?;
    }
    let done: Vec<(String, String)> = c
        .query(
            "SELECT name, checksum FROM supagate.platform_migrations",
            &[],
        )
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let mut applied = Vec::new();
    let mut as_admin = None;
    for (name, sql) in PLATFORM_MIGRATIONS {
        let checksum = sha256_hex(sql.as_bytes());
        if let Some((_, old)) = done.iter().find(|(n, _)| n == name) {
            if *old != checksum {
                tracing::warn!(
                    "platform migration {name} changed after it was applied; it is not run again"
                );
            }
            continue;
        }
        let admin = match as_admin {
            Some(a) => a,
            None => *as_admin.insert(as_supabase_admin(c).await?),
        };
        let tx = c.transaction().await?;
        if admin {
            tx.batch_execute("SET LOCAL ROLE supabase_admin").await?;
        }
        if let Err(e) = tx.batch_execute(sql).await {
            let message = super::describe_db_error(&e, Some(sql));
            let _ = tx.rollback().await;
            return Err(MigrateError::Failed {
                file: format!("platform migration {name}"),
                message,
            });
        }
        tx.execute(
            "INSERT INTO supagate.platform_migrations (name, checksum) VALUES ($1, $2)",
            &[name, &checksum],
        )
        .await?;
        tx.commit().await?;
        applied.push(format!("platform {name}"));
    }
    Ok(Applied {
        fresh,
        migrations: applied,
    })
}

/// The API roles' default privileges on what the project creates in `public`, set once, when
/// the database is set up (as the Supabase CLI's `start` and `db reset` do), by the role that
/// runs the project's migrations: `[api] auto_expose_new_tables = false` leaves them out.
/// Never again afterwards, so what the project's migrations decide stands.
pub async fn api_privileges(c: &Client, project: &Project) -> Result<(), MigrateError> {
    if !project.config.api.auto_expose_new_tables {
        return Ok(());
    }
    c.batch_execute(
        "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role;
         ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
         ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role",
    )
    .await?;
    Ok(())
}

/// `[db.vault]`'s secrets, put into Supabase Vault when the database is set up (before the
/// project's migrations, which may read them), as the CLI does: each is created, or updated
/// when a secret of that name exists.
pub async fn vault_secrets(c: &Client, project: &Project) -> Result<(), MigrateError> {
    let secrets = &project.config.db.vault;
    if secrets.is_empty() {
        return Ok(());
    }
    let has_vault: bool = c
        .query_one("SELECT to_regclass('vault.secrets') IS NOT NULL", &[])
        .await?
        .get(0);
    if !has_vault {
        return Err(MigrateError::Other(
            "[db.vault] has secrets, but this server has no Supabase Vault (supabase_vault)".into(),
        ));
    }
    for (name, value) in secrets {
        c.execute(
            "SELECT CASE WHEN s.id IS NULL THEN vault.create_secret($2, $1)::text
                         ELSE (vault.update_secret(s.id, $2))::text END
             FROM (SELECT (SELECT id FROM vault.secrets WHERE name = $1) AS id) s",
            &[name, value],
        )
        .await?;
    }
    Ok(())
}

/// Supabase Queues exposed through the Data API when the project lists `pgmq_public` in
/// `[api] schemas` (what Studio's "Expose Queues via PostgREST" does): its wrappers are made
/// once pgmq is installed, unless the project's migrations made them already.
pub async fn expose_queues(c: &Client, project: &Project) -> Result<(), MigrateError> {
    if !project
        .config
        .api
        .schemas
        .iter()
        .any(|s| s == "pgmq_public")
    {
        return Ok(());
    }
    let row = c
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pgmq'),
                    to_regprocedure('pgmq_public.send(text, jsonb, integer)') IS NOT NULL",
            &[],
        )
        .await?;
    let (installed, made): (bool, bool) = (row.get(0), row.get(1));
    if installed && !made {
        c.batch_execute(include_str!("pgmq_public.sql")).await?;
    }
    Ok(())
}

/// The database's search_path as `ALTER DATABASE … SET` records it in `pg_db_role_setting`.
const SEARCH_PATH_SETTING: &str = "search_path=\"$user\", public, extensions";

/// Settings kept outside the database's own catalog (so they are set again on every clone):
/// the search_path migrations and seeds expect, and the API login's password on servers
/// reached with one.
pub async fn settings(c: &Client, api_password: Option<&str>) -> Result<(), MigrateError> {
    // The database's search_path is set unless it is already (a start on existing data): each
    // write is a commit the start waits for.
    let row = c
        .query_one(
            "SELECT current_database(), EXISTS (
               SELECT 1 FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
               WHERE d.datname = current_database() AND s.setrole = 0
                 AND $1 = ANY (s.setconfig))",
            &[&SEARCH_PATH_SETTING],
        )
        .await?;
    let (db, set): (String, bool) = (row.get(0), row.get(1));
    let mut sql = if set {
        String::new()
    } else {
        format!(
            "ALTER DATABASE {} SET search_path = \"$user\", public, extensions;",
            quote_ident(&db)
        )
    };
    if let Some(pw) = api_password {
        sql.push_str(&format!(
            "ALTER ROLE authenticator WITH LOGIN PASSWORD '{}';",
            pw.replace('\'', "''")
        ));
    }
    if !sql.is_empty() {
        c.batch_execute(&sql).await?;
    }
    // This session too: what runs next (migrations, seeds) finds extensions unqualified.
    c.batch_execute("SET search_path = \"$user\", public, extensions")
        .await?;
    Ok(())
}
