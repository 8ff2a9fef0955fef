//! `db dump`, as the Supabase CLI's: pg_dump (pg_dumpall for roles) of the project's PostgreSQL
//! version, with the CLI's flags, its exclusions of the schemas and roles Supabase manages, and
//! its rewriting of the output (`CREATE TABLE IF NOT EXISTS`, platform statements commented
//! out). The rewriting is pure (`rewrite_schema`, `rewrite_roles`), the programs run at the edge.

use super::CommandError;
use super::{Prepare, with_database};
// The schemas a schema dump leaves out: the CLI's list, and supagate's own schema.
use gateway::config::Config;
use schema_diff::scope::INTERNAL_SCHEMAS;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The schemas a data dump leaves out: auth's users and storage's objects are kept.
const EXCLUDED_DATA_SCHEMAS: &[&str] = &[
    "information_schema",
    "pg_*",
    "graphql",
    "graphql_public",
    "pgsodium",
    "pgsodium_masks",
    "pgtle",
    "repack",
    "tiger",
    "tiger_data",
    "timescaledb_*",
    "_timescaledb_*",
    "topology",
    "vault",
    "etl",
    "extensions",
    "pgbouncer",
    "realtime",
    "supabase_migrations",
    "_analytics",
    "_realtime",
    "_supavisor",
    "supagate",
];

/// Roles the platform makes: a role dump does not create or alter them (`*`: any ending).
const RESERVED_ROLES: &[&str] = &[
    "anon",
    "authenticated",
    "authenticator",
    "cli_login_*",
    "dashboard_user",
    "pgbouncer",
    "postgres",
    "service_role",
    "supabase_*",
    "pgsodium_keyholder",
    "pgsodium_keyiduser",
    "pgsodium_keymaker",
    "pgtle_admin",
    "supagate_*",
];

/// Role settings a role dump keeps (`*`: any ending).
const ALLOWED_CONFIGS: &[&str] = &[
    "pgaudit.*",
    "pgrst.*",
    "session_replication_role",
    "statement_timeout",
    "track_io_timing",
];

/// What `db dump` dumps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Schema,
    Data,
    Roles,
}

/// The options of `db dump` that shape the program's arguments and the output.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub schemas: Vec<String>,
    pub keep_comments: bool,
    pub use_copy: bool,
    pub exclude_tables: Vec<String>,
}

/// `name` matches a pattern of the lists above (`*` at the end: any ending).
fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

fn quote_table(t: &str) -> String {
    format!("\"{}\"", t.replace('.', "\".\""))
}

/// The program (`pg_dump` or `pg_dumpall`) and its arguments, the database's URL last.
pub fn program_args(kind: Kind, opt: &Options, url: &str) -> (&'static str, Vec<String>) {
    let mut a: Vec<String> = Vec::new();
    let program = match kind {
        Kind::Schema => {
            a.extend(
                [
                    "--schema-only",
                    "--quote-all-identifier",
                    "--role",
                    "postgres",
                ]
                .map(String::from),
            );
            if opt.schemas.is_empty() {
                a.push(format!("--exclude-schema={}", INTERNAL_SCHEMAS.join("|")));
            } else {
                a.push(format!("--schema={}", opt.schemas.join("|")));
            }
            "pg_dump"
        }
        Kind::Data => {
            a.extend(
                [
                    "--data-only",
                    "--quote-all-identifier",
                    "--role",
                    "postgres",
                ]
                .map(String::from),
            );
            if opt.schemas.is_empty() {
                a.push(format!(
                    "--exclude-schema={}",
                    EXCLUDED_DATA_SCHEMAS.join("|")
                ));
            }
            for t in [
                "auth.schema_migrations",
                "storage.migrations",
                "supabase_functions.migrations",
            ] {
                a.push(format!("--exclude-table={t}"));
            }
            a.push(format!(
                "--schema={}",
                if opt.schemas.is_empty() {
                    "*".to_string()
                } else {
                    opt.schemas.join("|")
                }
            ));
            if !opt.use_copy {
                a.extend(["--column-inserts", "--rows-per-insert=100000"].map(String::from));
            }
            for t in &opt.exclude_tables {
                a.push(format!("--exclude-table={}", quote_table(t)));
            }
            "pg_dump"
        }
        Kind::Roles => {
            a.extend(
                [
                    "--roles-only",
                    "--role",
                    "postgres",
                    "--quote-all-identifier",
                    "--no-role-passwords",
                    "--no-comments",
                ]
                .map(String::from),
            );
            "pg_dumpall"
        }
    };
    a.push(format!("--dbname={url}"));
    (program, a)
}

fn commented(line: &str) -> String {
    format!("-- {line}")
}

/// psql's `\restrict` and `\unrestrict` lines (pg_dump 15.14 and later) are not SQL.
fn is_meta(line: &str) -> bool {
    line.starts_with("\\restrict ") || line.starts_with("\\unrestrict ")
}

/// The first double-quoted identifiers after ` ON ` in a GRANT or REVOKE line.
fn quoted_after_on(line: &str) -> Vec<&str> {
    let Some(at) = line.find(" ON ") else {
        return Vec::new();
    };
    line[at..].split('"').skip(1).step_by(2).collect()
}

/// A schema dump's lines as the CLI rewrites them: objects made idempotent, the platform's own
/// statements commented out (then dropped with the other comments unless `keep_comments`).
pub fn rewrite_schema(dump: &str, excluded: &[&str], keep_comments: bool) -> String {
    const IDEMPOTENT: &[(&str, &str)] = &[
        ("CREATE SCHEMA \"", "CREATE SCHEMA IF NOT EXISTS \""),
        ("CREATE TABLE \"", "CREATE TABLE IF NOT EXISTS \""),
        ("CREATE SEQUENCE \"", "CREATE SEQUENCE IF NOT EXISTS \""),
        ("CREATE VIEW \"", "CREATE OR REPLACE VIEW \""),
        ("CREATE FUNCTION \"", "CREATE OR REPLACE FUNCTION \""),
        ("CREATE TRIGGER \"", "CREATE OR REPLACE TRIGGER \""),
    ];
    const PLATFORM: &[&str] = &[
        "CREATE PUBLICATION \"supabase_realtime",
        "CREATE EVENT TRIGGER ",
        "         WHEN TAG IN ",
        "   EXECUTE FUNCTION ",
        "ALTER EVENT TRIGGER ",
        "ALTER PUBLICATION \"supabase_realtime_",
        "ALTER DEFAULT PRIVILEGES FOR ROLE \"supabase_admin\"",
        "COMMENT ON EXTENSION ",
        "CREATE POLICY \"cron_job_",
        "ALTER TABLE \"cron\"",
        "SET transaction_timeout = 0;",
    ];
    let mut out = String::with_capacity(dump.len());
    for line in dump.lines() {
        let mut l = line.to_string();
        if is_meta(&l) {
            l = commented(&l);
        }
        for (from, to) in IDEMPOTENT {
            if let Some(rest) = l.strip_prefix(from) {
                l = format!("{to}{rest}");
            }
        }
        let fdw = l.starts_with("ALTER FOREIGN DATA WRAPPER ") && l.contains(" OWNER TO ")
            || l.starts_with("GRANT ALL ON FOREIGN DATA WRAPPER ")
                && l.ends_with(" TO \"postgres\" WITH GRANT OPTION;");
        let internal_acl = (l.starts_with("GRANT ") || l.starts_with("REVOKE "))
            && quoted_after_on(&l)
                .iter()
                .any(|id| excluded.iter().any(|p| matches(p, id)));
        if PLATFORM.iter().any(|p| l.starts_with(p)) || fdw || internal_acl {
            l = commented(&l);
        }
        for ext in ["pg_tle", "pgsodium", "pgmq"] {
            let head = format!("CREATE EXTENSION IF NOT EXISTS \"{ext}\"");
            if l.starts_with(&head) {
                l = format!("{head};");
            }
        }
        if !keep_comments && l.starts_with("--") {
            continue;
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// A data dump as the CLI writes it: triggers off while it is restored, session reset after.
pub fn rewrite_data(dump: &str) -> String {
    let mut out = String::from("SET session_replication_role = replica;\n\n");
    for line in dump.lines() {
        if is_meta(line) {
            out.push_str(&commented(line));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push_str("RESET ALL;\n");
    out
}

/// The role named by a line that starts with `prefix` and a quoted name.
fn role_after<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    line.strip_prefix(prefix)?
        .strip_prefix('"')?
        .split('"')
        .next()
}

/// A role dump as the CLI rewrites it: the platform's roles neither created nor altered,
/// attributes only a superuser may set dropped, the allowed settings kept.
pub fn rewrite_roles(dump: &str, keep_comments: bool) -> String {
    let reserved = |r: &str| RESERVED_ROLES.iter().any(|p| matches(p, r));
    let mut out = String::new();
    let mut last: Option<String> = None;
    for line in dump.lines() {
        let mut l = line.to_string();
        if is_meta(&l) {
            l = commented(&l);
        }
        let touches_reserved = ["CREATE ROLE ", "ALTER ROLE "]
            .iter()
            .any(|p| role_after(&l, p).is_some_and(reserved));
        if touches_reserved {
            l = commented(&l);
        }
        l = l.replace(" NOSUPERUSER", "").replace(" NOREPLICATION", "");
        // The platform's roles keep the settings a project may change.
        if let Some(rest) = l.strip_prefix("-- ")
            && let Some(at) = rest.find(" SET \"")
            && let Some(name) = rest[at + 6..].split('"').next()
            && ALLOWED_CONFIGS.iter().any(|p| matches(p, name))
        {
            l = rest.to_string();
        }
        if l.starts_with("GRANT \"")
            && let Some(at) = l.find(" TO \"")
            && let Some(grantee) = l[at + 5..].split('"').next()
            && reserved(grantee)
        {
            l = commented(&l);
        }
        if !keep_comments && l.starts_with("--") {
            continue;
        }
        if last.as_deref() == Some(l.as_str()) {
            continue;
        }
        out.push_str(&l);
        out.push('\n');
        last = Some(l);
    }
    out.push_str("RESET ALL;\n");
    out
}

/// Runs `db dump`. `remote`: the URL of `--db-url` or `--linked`.
pub async fn run(
    cfg: &Config,
    kind: Kind,
    opt: Options,
    file: Option<PathBuf>,
    remote: Option<String>,
    dry_run: bool,
) -> Result<(), CommandError> {
    let bin = super::pg_programs(cfg);
    let which = if remote.is_some() { "remote" } else { "local" };
    let what = match kind {
        Kind::Schema => "schemas",
        Kind::Data => "data",
        Kind::Roles => "roles",
    };
    let dump = async |url: &str| -> Result<Option<String>, CommandError> {
        let (program, args) = program_args(kind, &opt, url);
        let path = bin.join(program);
        if dry_run {
            eprintln!("DRY RUN: *only* printing the pg_dump script to console.");
            println!("{} {}", path.display(), args.join(" "));
            return Ok(None);
        }
        eprintln!("Dumping {what} from {which} database...");
        let out = Command::new(&path)
            .args(&args)
            .output()
            .map_err(|e| CommandError::io(format!("cannot run {}", path.display()), e))?;
        if !out.status.success() {
            return Err(CommandError::Message(format!(
                "error running {program}: {}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim_end()
            )));
        }
        let text = String::from_utf8(out.stdout).map_err(|_| {
            CommandError::Message(format!("{program} wrote something that is not UTF-8"))
        })?;
        Ok(Some(text))
    };
    let raw = match &remote {
        Some(url) => dump(url).await?,
        None => {
            let mut got = None;
            with_database(cfg, Prepare::UnlessRunning, async |db| {
                got = dump(&db.db_url).await?;
                Ok(())
            })
            .await?;
            got
        }
    };
    let Some(raw) = raw else { return Ok(()) };
    let excluded: &[&str] = if opt.schemas.is_empty() {
        INTERNAL_SCHEMAS
    } else {
        &[]
    };
    let sql = match kind {
        Kind::Schema => rewrite_schema(&raw, excluded, opt.keep_comments),
        Kind::Data => rewrite_data(&raw),
        Kind::Roles => rewrite_roles(&raw, opt.keep_comments),
    };
    match file {
        Some(path) => {
            write(&path, &sql)?;
            let shown = std::path::absolute(&path).unwrap_or(path);
            eprintln!("Dumped schema to {}.", shown.display());
        }
        None => print!("{sql}"),
    }
    Ok(())
}

fn write(path: &Path, sql: &str) -> Result<(), CommandError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CommandError::io("failed to open dump file", e))?;
    }
    std::fs::write(path, sql).map_err(|e| CommandError::io("failed to open dump file", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_dump_is_rewritten_as_the_clis() {
        let dump = "--\n-- PostgreSQL database dump\n--\n\\restrict abc\nSET transaction_timeout = 0;\n\
CREATE SCHEMA \"app\";\nCREATE TABLE \"public\".\"notes\" (\n    \"id\" bigint\n);\n\
CREATE FUNCTION \"public\".\"f\"() RETURNS integer\nCREATE VIEW \"public\".\"v\" AS\n\
CREATE TRIGGER \"t\" AFTER INSERT ON \"auth\".\"users\"\n\
CREATE EXTENSION IF NOT EXISTS \"pgsodium\" WITH SCHEMA \"pgsodium\";\n\
COMMENT ON EXTENSION \"pg_graphql\" IS 'x';\n\
GRANT USAGE ON SCHEMA \"auth\" TO \"anon\";\nGRANT ALL ON TABLE \"public\".\"notes\" TO \"anon\";\n\
REVOKE ALL ON FUNCTION \"pg_catalog\".\"x\"() FROM PUBLIC;\n\
ALTER PUBLICATION \"supabase_realtime_messages_publication\" ADD TABLE x;\n";
        let want = "CREATE SCHEMA IF NOT EXISTS \"app\";\n\
CREATE TABLE IF NOT EXISTS \"public\".\"notes\" (\n    \"id\" bigint\n);\n\
CREATE OR REPLACE FUNCTION \"public\".\"f\"() RETURNS integer\nCREATE OR REPLACE VIEW \"public\".\"v\" AS\n\
CREATE OR REPLACE TRIGGER \"t\" AFTER INSERT ON \"auth\".\"users\"\n\
CREATE EXTENSION IF NOT EXISTS \"pgsodium\";\n\
GRANT ALL ON TABLE \"public\".\"notes\" TO \"anon\";\n";
        assert_eq!(rewrite_schema(dump, INTERNAL_SCHEMAS, false), want);
        let kept = rewrite_schema(dump, INTERNAL_SCHEMAS, true);
        assert!(
            kept.contains("-- \\restrict abc\n")
                && kept.contains("-- GRANT USAGE ON SCHEMA \"auth\"")
        );
    }

    #[test]
    fn role_dump_leaves_the_platforms_roles_alone() {
        let dump = "\\restrict x\nCREATE ROLE \"anon\";\nALTER ROLE \"anon\" WITH NOSUPERUSER;\n\
CREATE ROLE \"app_reader\";\nALTER ROLE \"app_reader\" WITH NOSUPERUSER INHERIT NOREPLICATION LOGIN;\n\
ALTER ROLE \"app_reader\" SET \"search_path\" TO 'x';\n\
ALTER ROLE \"anon\" SET \"statement_timeout\" TO '3s';\n\
ALTER ROLE \"anon\" SET \"search_path\" TO 'x';\n\
GRANT \"app_reader\" TO \"authenticator\" GRANTED BY \"postgres\";\n\
GRANT \"anon\" TO \"app_reader\" GRANTED BY \"postgres\";\n\
GRANT \"anon\" TO \"app_reader\" GRANTED BY \"postgres\";\n";
        assert_eq!(
            rewrite_roles(dump, false),
            "CREATE ROLE \"app_reader\";\nALTER ROLE \"app_reader\" WITH INHERIT LOGIN;\n\
ALTER ROLE \"app_reader\" SET \"search_path\" TO 'x';\n\
ALTER ROLE \"anon\" SET \"statement_timeout\" TO '3s';\n\
GRANT \"anon\" TO \"app_reader\" GRANTED BY \"postgres\";\nRESET ALL;\n"
        );
    }

    #[test]
    fn arguments() {
        let (p, a) = program_args(Kind::Schema, &Options::default(), "postgresql://x");
        assert_eq!(p, "pg_dump");
        assert!(
            a.iter()
                .any(|x| x.starts_with("--exclude-schema=information_schema|pg_*|"))
        );
        assert_eq!(a.last().unwrap(), "--dbname=postgresql://x");
        let opt = Options {
            schemas: vec!["public".into(), "app".into()],
            exclude_tables: vec!["public.Logs".into()],
            ..Options::default()
        };
        let (_, a) = program_args(Kind::Data, &opt, "u");
        assert!(a.contains(&"--schema=public|app".to_string()));
        assert!(a.contains(&"--exclude-table=\"public\".\"Logs\"".to_string()));
        assert!(a.contains(&"--column-inserts".to_string()));
        assert!(!a.iter().any(|x| x.starts_with("--exclude-schema")));
        let (p, _) = program_args(Kind::Roles, &opt, "u");
        assert_eq!(p, "pg_dumpall");
        assert_eq!(
            rewrite_data("\\unrestrict x\nINSERT 1;\n"),
            "SET session_replication_role = replica;\n\n-- \\unrestrict x\nINSERT 1;\nRESET ALL;\n"
        );
    }
}
