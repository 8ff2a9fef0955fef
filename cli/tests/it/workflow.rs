//! The Supabase developer's schema loop, as a new user walks it: `init` → `start` → the schema
//! changed in SQL → `db diff -f` writes the migration → `db reset` builds the same schema from
//! it; and with declared schema files, `db diff -f` writes the migration that brings the
//! migrations up to them.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A command outside any gateway (no data directory of one).
fn supagate(workdir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_supagate"))
        .arg("--workdir")
        .arg(workdir)
        .args(args)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run supagate")
}

/// The migration file `db diff -f` said it created.
fn created(workdir: &Path, out: &Output) -> String {
    let said = text(out);
    let path = said
        .lines()
        .find_map(|l| l.strip_prefix("Created new migration at "))
        .unwrap_or_else(|| panic!("no migration written: {said}"));
    let file = path.rsplit('/').next().unwrap();
    let (stamp, _) = file.split_once('_').unwrap();
    assert!(
        stamp.len() == 14 && stamp.chars().all(|c| c.is_ascii_digit()),
        "the CLI's timestamp: {file}"
    );
    std::fs::read_to_string(workdir.join(path)).unwrap()
}

#[tokio::test]
async fn init_start_change_diff_reset() {
    let dir = support::scratch_dir("workflow");
    // No project yet: commands say how to make one, and make nothing.
    for args in [
        &["migration", "new", "first"][..],
        &["status"],
        &["db", "diff"],
    ] {
        let out = supagate(&dir, args);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains("Run `supagate init`"), "{}", text(&out));
    }
    assert!(
        !dir.join("supabase").exists(),
        "no partial supabase/ folder"
    );

    let out = supagate(&dir, &["init"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Finished supagate init."));
    let config = std::fs::read_to_string(dir.join("supabase/config.toml")).unwrap();
    assert!(config.contains("[db.migrations]") && config.contains("[auth.email]"));
    let out = supagate(&dir, &["init"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("Run supagate init --force to overwrite existing config file."),
        "{}",
        text(&out)
    );
    assert!(supagate(&dir, &["init", "--force"]).status.success());

    let gw = support::start_project(&dir, &[]);
    let out = gw.command(&dir, &["db", "diff"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("No schema changes found"),
        "{}",
        text(&out)
    );

    // The schema changed as a developer changes it: SQL (Studio's editor, psql).
    gw.sql(
        "create table public.profiles (id uuid primary key references auth.users on delete cascade,
           email text, nickname text);
         alter table public.profiles enable row level security;
         create policy \"Profiles are their owners'\" on public.profiles for select
           to authenticated using ((select auth.uid()) = id);
         create function public.handle_new_user() returns trigger language plpgsql
           security definer set search_path = '' as $$
         begin
           insert into public.profiles (id, email) values (new.id, new.email);
           return new;
         end $$;
         create trigger on_auth_user_created after insert on auth.users
           for each row execute function public.handle_new_user();
         revoke all on table public.profiles from anon;
         grant update (nickname) on public.profiles to authenticated;",
    )
    .await;
    let out = gw.command(&dir, &["db", "diff", "-f", "profiles"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("The diff tool is not foolproof"));
    let migration = created(&dir, &out);
    for want in [
        "CREATE TABLE \"public\".\"profiles\"",
        "ALTER TABLE \"public\".\"profiles\" ENABLE ROW LEVEL SECURITY;",
        "REFERENCES auth.users(id) ON DELETE CASCADE",
        "CREATE POLICY \"Profiles are their owners'\" ON \"public\".\"profiles\" FOR SELECT TO \"authenticated\"",
        "CREATE OR REPLACE FUNCTION public.handle_new_user()",
        "CREATE TRIGGER on_auth_user_created AFTER INSERT ON auth.users FOR EACH ROW EXECUTE FUNCTION public.handle_new_user();",
        "REVOKE ALL ON TABLE \"public\".\"profiles\" FROM \"anon\";",
        "GRANT UPDATE (\"nickname\") ON TABLE \"public\".\"profiles\" TO \"authenticated\";",
    ] {
        assert!(migration.contains(want), "no {want} in:\n{migration}");
    }
    // The function comes before the trigger that calls it, the table before its policy.
    let at = |s: &str| migration.find(s).unwrap();
    assert!(at("CREATE OR REPLACE FUNCTION") < at("CREATE TRIGGER"));
    assert!(at("CREATE TABLE") < at("CREATE POLICY"));

    // Built from the migrations, the database has the same schema: nothing left to diff.
    let out = gw.command(&dir, &["db", "reset"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = gw.command(&dir, &["db", "diff"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("No schema changes found"),
        "{}",
        text(&out)
    );
    assert!(out.stdout.is_empty());
    // And the trigger on auth.users runs there.
    let id = gw.create_user("new@example.com", false).await;
    let rows = gw
        .sql(&format!(
            "select email from public.profiles where id = '{id}'"
        ))
        .await;
    assert_eq!(rows[0][0].as_deref(), Some("new@example.com"));

    // Against a database named by URL (here the same one), and one schema only.
    let url = gw.status["DB_URL"].clone();
    let out = gw.command(
        &dir,
        &["db", "diff", "--db-url", &url, "--schema", "public"],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Diffing schemas: public"));
    assert!(
        text(&out).contains("No schema changes found"),
        "{}",
        text(&out)
    );
    // A schema named only where it is new.
    gw.sql("create schema api; create table api.things (id int);")
        .await;
    let out = gw.command(&dir, &["db", "diff", "-s", "api"]);
    assert!(out.status.success(), "{}", text(&out));
    let sql = String::from_utf8_lossy(&out.stdout);
    assert!(
        sql.starts_with("CREATE SCHEMA \"api\";")
            && sql.contains("CREATE TABLE \"api\".\"things\"")
            && !sql.contains("profiles"),
        "{sql}"
    );
    let out = gw.command(&dir, &["db", "diff", "--schema", "no_such_schema"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("schema \"no_such_schema\" does not exist"),
        "{}",
        text(&out)
    );
    let out = gw.command(&dir, &["db", "diff", "--linked"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("Have you run supabase link?"));
}

#[tokio::test]
async fn declared_schema_files_become_a_migration() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"declared\"\n"),
        (
            "supabase/schemas/10_notes.sql",
            "create table public.notes (id bigint generated always as identity primary key,
               body text not null, author uuid default auth.uid());
             alter table public.notes enable row level security;
             create policy \"Authors read\" on public.notes for select to authenticated
               using (author = (select auth.uid()));",
        ),
        (
            "supabase/schemas/20_views.sql",
            "create view public.note_bodies with (security_invoker = true) as
               select body from public.notes;",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    let out = gw.command(&dir, &["db", "diff", "-f", "declared"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("Creating local database from declarative schemas:")
            && said.contains(" • supabase/schemas/10_notes.sql")
            && said.contains(" • supabase/schemas/20_views.sql"),
        "{said}"
    );
    let migration = created(&dir, &out);
    for want in [
        "CREATE TABLE \"public\".\"notes\"",
        "\"id\" bigint GENERATED ALWAYS AS IDENTITY",
        "CREATE POLICY \"Authors read\"",
        "CREATE VIEW \"public\".\"note_bodies\" WITH (security_invoker=true) AS",
    ] {
        assert!(migration.contains(want), "no {want} in:\n{migration}");
    }
    // The migrations now build what the files declare.
    let out = gw.command(&dir, &["db", "diff"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("No schema changes found"),
        "{}",
        text(&out)
    );
    let out = gw.command(&dir, &["db", "reset"]);
    assert!(out.status.success(), "{}", text(&out));
    let rows = gw.sql("select count(*) from public.note_bodies").await;
    assert_eq!(rows[0][0].as_deref(), Some("0"));

    // A declared file that fails names itself.
    std::fs::write(
        dir.join("supabase/schemas/30_broken.sql"),
        "create table public.x (id int);\nselect nope from public.nowhere;\n",
    )
    .unwrap();
    let out = gw.command(&dir, &["db", "diff"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("supabase/schemas/30_broken.sql failed")
            && text(&out).contains("at line 2"),
        "{}",
        text(&out)
    );
}

#[tokio::test]
async fn db_diff_keeps_what_the_files_build_until_one_changes() {
    let notes = "create table public.notes (id bigint primary key, body text);";
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"kept\"\n"),
        ("supabase/migrations/20240101000000_notes.sql", notes),
        (
            "supabase/schemas/notes.sql",
            "create table public.notes (id bigint primary key, body text, done boolean);",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    let diff = |want: &str, not: &str| {
        let out = gw.command(&dir, &["db", "diff"]);
        assert!(out.status.success(), "{}", text(&out));
        let sql = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            sql.contains(want) && (not.is_empty() || !sql.contains(not)),
            "want {want:?}, not {not:?}, in:\n{sql}"
        );
        sql
    };
    let first = diff("ADD COLUMN \"done\" boolean", "");
    let kept = gw.data_dir.join("diff-cache");
    let entries = || {
        let mut names: Vec<String> = std::fs::read_dir(&kept)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().to_string())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let after_first = entries();
    assert_eq!(
        after_first.iter().map(|n| &n[..9]).collect::<Vec<_>>(),
        ["declared-", "migration"],
        "{after_first:?}"
    );
    // Nothing changed: the same diff, from the same entries.
    assert_eq!(diff("ADD COLUMN \"done\" boolean", ""), first);
    assert_eq!(entries(), after_first);
    // A declared file changes: the diff follows it.
    std::fs::write(
        dir.join("supabase/schemas/notes.sql"),
        "create table public.notes (id bigint primary key, body text, due date);",
    )
    .unwrap();
    diff("ADD COLUMN \"due\" date", "done");
    let declared = || {
        entries()
            .into_iter()
            .filter(|e| e.starts_with("declared-"))
            .collect::<Vec<_>>()
    };
    let declared_before = declared();
    // A migration changes: so does the schema the migrations build.
    std::fs::write(
        dir.join("supabase/migrations/20240101000000_notes.sql"),
        "create table public.notes (id bigint primary key, body text, due date);",
    )
    .unwrap();
    let out = gw.command(&dir, &["db", "diff"]);
    assert!(
        text(&out).contains("No schema changes found"),
        "{}",
        text(&out)
    );
    // The declared schema's database does not depend on the migrations: its entry is used.
    assert_eq!(declared(), declared_before);
    // Back as it was: the entries kept then are used again, and say what they said.
    std::fs::write(
        dir.join("supabase/migrations/20240101000000_notes.sql"),
        notes,
    )
    .unwrap();
    std::fs::write(
        dir.join("supabase/schemas/notes.sql"),
        "create table public.notes (id bigint primary key, body text, done boolean);",
    )
    .unwrap();
    assert_eq!(diff("ADD COLUMN \"done\" boolean", "due"), first);
}

/// The databases diffs made that are in the cluster: (name, comment, oid).
async fn diff_databases(gw: &support::Gateway) -> Vec<(String, String, String)> {
    gw.sql(
        "SELECT datname, coalesce(shobj_description(oid, 'pg_database'), ''), oid::text \
         FROM pg_database WHERE starts_with(datname, 'supagate_diff_') ORDER BY 1",
    )
    .await
    .into_iter()
    .map(|r| {
        let v = |i: usize| r[i].clone().unwrap_or_default();
        (v(0), v(1), v(2))
    })
    .collect()
}

#[tokio::test]
async fn declared_files_are_tried_on_a_kept_copy_of_the_platform() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"kept-copy\"\n"),
        (
            "supabase/schemas/notes.sql",
            "create table public.notes (id bigint primary key, body text);",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    // A diff's database left behind by a process that is gone (no pid is that large).
    gw.sql("CREATE DATABASE supagate_diff_4000000000_declared")
        .await;
    // The SQL, and which databases the diff built (the log's line).
    let diff = || {
        let out = gw
            .command_for(&dir, &["db", "diff"])
            .env("RUST_LOG", "info")
            .output()
            .expect("run supagate");
        assert!(out.status.success(), "{}", text(&out));
        let said = String::from_utf8_lossy(&out.stderr).to_string();
        let built = said
            .lines()
            .find_map(|l| {
                l.split_once("databases built: ")
                    .map(|(_, b)| b.to_string())
            })
            .unwrap_or_else(|| panic!("no log of the databases built: {said}"));
        (String::from_utf8_lossy(&out.stdout).to_string(), built)
    };
    let kept = |dbs: &[(String, String, String)]| kept_copy(dbs).2;
    let (sql, built) = diff();
    assert!(sql.contains("CREATE TABLE \"public\".\"notes\""), "{sql}");
    // The migrations' database is built (and the leftover swept); the declared one is not.
    assert!(
        built.contains("_migrations") && !built.contains("_declared"),
        "{built}"
    );
    let first = kept(&diff_databases(&gw).await);
    // What the files made was rolled back: the copy has the platform only.
    let copy = gw.session_on("supagate_diff_kept").await;
    let row = copy
        .query_one("SELECT to_regclass('public.notes') IS NULL", &[])
        .await
        .unwrap();
    assert!(
        row.get::<_, bool>(0),
        "the kept copy has the declared table"
    );
    drop(copy);

    // An edit: the same copy again, nothing built.
    std::fs::write(
        dir.join("supabase/schemas/notes.sql"),
        "create table public.notes (id bigint primary key, body text, done boolean);",
    )
    .unwrap();
    let (sql, built) = diff();
    assert!(sql.contains("\"done\" boolean"), "{sql}");
    assert!(built.starts_with("none"), "{built}");
    assert_eq!(kept(&diff_databases(&gw).await), first);

    // A copy made from something else (its key, in its comment) is made again.
    gw.sql("COMMENT ON DATABASE supagate_diff_kept IS 'supagate-kept:other'")
        .await;
    std::fs::write(
        dir.join("supabase/schemas/notes.sql"),
        "create table public.notes (id bigint primary key, body text, due date);",
    )
    .unwrap();
    let (sql, _) = diff();
    assert!(
        sql.contains("\"due\" date") && !sql.contains("done"),
        "{sql}"
    );
    let again = kept(&diff_databases(&gw).await);
    assert_ne!(again, first, "the copy of another key is made again");
    assert!(!kept_copy(&diff_databases(&gw).await).1.contains(":other"));

    // Files that would not run the same in one transaction are built apart, as before: one
    // that ends its transaction, one that leaves a setting local to it.
    for (name, file, table) in [
        (
            "supabase/schemas/z_commit.sql",
            "begin; create table public.committed (id int); commit;",
            "committed",
        ),
        (
            "supabase/schemas/z_local.sql",
            "create function public.mark() returns void language sql \
               as $$ select set_config('app.marked', 'yes', true) $$;
             select public.mark();
             create table public.marked (id int);",
            "marked",
        ),
    ] {
        std::fs::write(dir.join(name), file).unwrap();
        let (sql, built) = diff();
        assert!(
            sql.contains(&format!("CREATE TABLE \"public\".\"{table}\"")),
            "{sql}"
        );
        assert!(
            built.contains("_declared"),
            "{name} is built apart: {built}"
        );
        assert_eq!(kept(&diff_databases(&gw).await), again, "{name}");
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    // A migration the template was not built from: both sides on kept copies, none built.
    std::fs::create_dir_all(dir.join("supabase/migrations")).unwrap();
    std::fs::write(
        dir.join("supabase/migrations/20240101000000_notes.sql"),
        "create table public.notes (id bigint primary key, body text);",
    )
    .unwrap();
    let (sql, built) = diff();
    assert!(
        sql.contains("ADD COLUMN \"due\" date") && !sql.contains("CREATE TABLE"),
        "{sql}"
    );
    assert!(built.starts_with("none"), "{built}");
    assert_eq!(kept(&diff_databases(&gw).await), again);
    // notes.sql, unchanged when a file after it was added, was committed to the copy; what
    // the files after it made was not.
    let copy = gw.session_on("supagate_diff_kept").await;
    let row = copy
        .query_one(
            "SELECT to_regclass('public.committed') IS NULL AND to_regclass('public.marked') IS NULL \
             AND to_regclass('public.notes') IS NOT NULL",
            &[],
        )
        .await
        .unwrap();
    assert!(
        row.get::<_, bool>(0),
        "only notes.sql was committed to the kept copy"
    );
    let copy = gw.session_on("supagate_diff_kept_migrations").await;
    let row = copy
        .query_one("SELECT to_regclass('public.notes') IS NULL", &[])
        .await
        .unwrap();
    assert!(
        row.get::<_, bool>(0),
        "nothing was committed to the migrations' kept copy"
    );
}

/// The kept copy of the platform declared files are applied on among the databases diffs
/// left (name, comment, oid); the others may only be the migrations' kept copy.
fn kept_copy(dbs: &[(String, String, String)]) -> (String, String, String) {
    for d in dbs {
        assert!(
            ["supagate_diff_kept", "supagate_diff_kept_migrations"].contains(&d.0.as_str()),
            "only the kept copies are left: {dbs:?}"
        );
        assert!(d.1.starts_with("supagate-kept:"), "{dbs:?}");
    }
    dbs.iter()
        .find(|d| d.0 == "supagate_diff_kept")
        .unwrap_or_else(|| panic!("no kept copy: {dbs:?}"))
        .clone()
}

#[tokio::test]
async fn files_before_the_edited_one_stay_committed_to_the_kept_copy() {
    let table = |name: &str, columns: &str| {
        format!("create table public.{name} (id bigint primary key{columns});")
    };
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"kept-prefix\"\n"),
        ("supabase/schemas/a.sql", &table("a", "")),
        ("supabase/schemas/b.sql", &table("b", "")),
        ("supabase/schemas/c.sql", &table("c", "")),
        (
            "supabase/migrations/20240101000000_m1.sql",
            &table("m1", ""),
        ),
        (
            "supabase/migrations/20240101000001_m2.sql",
            &table("m2", ""),
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    // The SQL, and what the diff applied on the kept copies (the log's lines).
    let diff = || {
        let out = gw
            .command_for(&dir, &["db", "diff"])
            .env("RUST_LOG", "info")
            .output()
            .expect("run supagate");
        assert!(out.status.success(), "{}", text(&out));
        let said = String::from_utf8_lossy(&out.stderr).to_string();
        let applied: Vec<String> = said
            .lines()
            .filter_map(|l| l.split_once("INFO ").map(|(_, l)| l))
            .filter(|l| l.contains(" files applied on supagate_") || l.contains("made again"))
            .map(|l| l.split_once(": ").map_or(l, |(_, l)| l).to_string())
            .collect();
        (String::from_utf8_lossy(&out.stdout).to_string(), applied)
    };
    let write = |file: &str, sql: &str| std::fs::write(dir.join(file), sql).unwrap();
    let oid = || async { kept_copy(&diff_databases(&gw).await).2 };

    let (sql, applied) = diff();
    assert!(sql.contains("CREATE TABLE \"public\".\"c\""), "{sql}");
    assert_eq!(
        applied,
        ["3 of 3 files applied on supagate_diff_kept (0 kept committed)"]
    );
    let first = oid().await;
    // c.sql edited: a.sql and b.sql, as the last diff had them, are committed, c.sql is not.
    write("supabase/schemas/c.sql", &table("c", ", one int"));
    let (sql, applied) = diff();
    assert!(sql.contains("\"one\" integer"), "{sql}");
    assert_eq!(
        applied,
        ["1 of 3 files applied on supagate_diff_kept (2 kept committed)"]
    );
    let copy = gw.session_on("supagate_diff_kept").await;
    let committed = |copy: tokio_postgres::Client| async move {
        let row = copy
            .query_one(
                "SELECT to_regclass('public.a') IS NOT NULL, to_regclass('public.b') IS NOT NULL, \
                 to_regclass('public.c') IS NOT NULL",
                &[],
            )
            .await
            .unwrap();
        (
            row.get::<_, bool>(0),
            row.get::<_, bool>(1),
            row.get::<_, bool>(2),
        )
    };
    assert_eq!(committed(copy).await, (true, true, false));
    // Edited again: only c.sql is applied, on the same copy.
    write("supabase/schemas/c.sql", &table("c", ", two int"));
    let (sql, applied) = diff();
    assert!(
        sql.contains("\"two\" integer") && !sql.contains("one"),
        "{sql}"
    );
    assert_eq!(
        applied,
        ["1 of 3 files applied on supagate_diff_kept (2 kept committed)"]
    );
    assert_eq!(oid().await, first);
    // An edit in a file committed to the copy is seen: the copy is made again, with the
    // files before that one committed.
    write("supabase/schemas/b.sql", &table("b", ", three int"));
    let (sql, applied) = diff();
    assert!(
        sql.contains("\"three\" integer") && sql.contains("\"two\" integer"),
        "{sql}"
    );
    assert_eq!(
        applied,
        [
            "a file committed to supagate_diff_kept changed: made again",
            "2 of 3 files applied on supagate_diff_kept (1 kept committed)"
        ]
    );
    assert_ne!(oid().await, first);
    let copy = gw.session_on("supagate_diff_kept").await;
    assert_eq!(committed(copy).await, (true, false, false));

    // The migrations, when the template was not built from them, the same way.
    write(
        "supabase/migrations/20240101000001_m2.sql",
        &table("m2", ", four int"),
    );
    let (_, applied) = diff();
    assert_eq!(
        applied,
        ["2 of 2 files applied on supagate_diff_kept_migrations (0 kept committed)"]
    );
    write(
        "supabase/migrations/20240101000001_m2.sql",
        &table("m2", ", five int"),
    );
    let (sql, applied) = diff();
    assert_eq!(
        applied,
        ["1 of 2 files applied on supagate_diff_kept_migrations (1 kept committed)"]
    );
    assert!(
        sql.contains("DROP TABLE \"public\".\"m2\"")
            && sql.contains("DROP TABLE \"public\".\"m1\""),
        "{sql}"
    );
    // The same as all the files applied on a new copy (the catalogs kept by the last diffs
    // forgotten).
    gw.sql("COMMENT ON DATABASE supagate_diff_kept_migrations IS 'supagate-kept:other'")
        .await;
    std::fs::remove_dir_all(gw.data_dir.join("diff-cache")).unwrap();
    let (again, applied) = diff();
    assert_eq!(
        applied,
        [
            "2 of 2 files applied on supagate_diff_kept_migrations (0 kept committed)",
            "2 of 3 files applied on supagate_diff_kept (1 kept committed)"
        ]
    );
    assert_eq!(again, sql);
}

/// Rows of `migration list`'s table, trimmed: (local, remote, time).
fn list_rows(out: &Output) -> Vec<(String, String, String)> {
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    let mut lines = said.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().unwrap_or_else(|| panic!("no table: {said}"));
    assert_eq!(
        header.split('|').map(str::trim).collect::<Vec<_>>(),
        ["Local", "Remote", "Time (UTC)"],
        "{said}"
    );
    assert!(lines.next().unwrap().trim_start().starts_with("---"));
    lines
        .map(|l| {
            let cells: Vec<String> = l.split('|').map(|c| c.trim().to_string()).collect();
            (cells[0].clone(), cells[1].clone(), cells[2].clone())
        })
        .collect()
}

fn row(local: &str, remote: &str, time: &str) -> (String, String, String) {
    (local.into(), remote.into(), time.into())
}

#[tokio::test]
async fn migration_list_up_repair_squash() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"history\"\n"),
        (
            "supabase/migrations/20240101000000_notes.sql",
            "create table public.notes (id bigint primary key, body text);",
        ),
        (
            "supabase/migrations/20240102000000_tags.sql",
            "create table public.tags (id bigint primary key, note bigint references public.notes);
             alter table public.tags enable row level security;
             create policy \"read tags\" on public.tags for select to authenticated using (true);",
        ),
        (
            "supabase/migrations/20240103000000_more.sql",
            "alter table public.notes add column title text;",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    let out = gw.command(&dir, &["migration", "list"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("   20240101000000 | 20240101000000 | 2024-01-01 00:00:00 \n"),
        "{}",
        text(&out)
    );
    assert_eq!(list_rows(&out).len(), 3);

    // A second database stands in for a hosted project.
    gw.sql("create database remote").await;
    let url = format!(
        "postgresql://postgres@/remote?host={}&port=5432",
        gw.socket_dir.display()
    );
    let remote = ["--db-url", url.as_str()];
    let on_remote = |args: &[&str]| gw.command(&dir, &[args, &remote[..]].concat());
    let out = on_remote(&["migration", "list"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        list_rows(&out),
        [
            row("20240101000000", "", "2024-01-01 00:00:00"),
            row("20240102000000", "", "2024-01-02 00:00:00"),
            row("20240103000000", "", "2024-01-03 00:00:00"),
        ]
    );

    // The first file is recorded as applied without running; `up` runs the others.
    let out = on_remote(&[
        "migration",
        "repair",
        "--status",
        "applied",
        "20240101000000",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Repaired migration history: [20240101000000] => applied")
            && text(&out).contains("Finished supagate migration repair."),
        "{}",
        text(&out)
    );
    let remote_db = gw.session_on("remote").await;
    remote_db
        .batch_execute("create table public.notes (id bigint primary key, body text)")
        .await
        .unwrap();
    let out = on_remote(&["migration", "up"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Local database is up to date."));
    let recorded = remote_db
        .query(
            "select version, name, array_length(statements, 1)
               from supabase_migrations.schema_migrations order by 1",
            &[],
        )
        .await
        .unwrap();
    let recorded: Vec<(String, String, i32)> = recorded
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(
        recorded,
        [
            ("20240101000000".into(), "notes".into(), 1),
            ("20240102000000".into(), "tags".into(), 3),
            ("20240103000000".into(), "more".into(), 1),
        ]
    );
    let has_title = remote_db
        .query_one(
            "select count(*) from information_schema.columns
              where table_name = 'notes' and column_name = 'title'",
            &[],
        )
        .await
        .unwrap()
        .get::<_, i64>(0);
    assert_eq!(has_title, 1, "`up` ran the pending files");

    let out = on_remote(&[
        "migration",
        "repair",
        "--status",
        "reverted",
        "20240103000000",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        list_rows(&on_remote(&["migration", "list"]))[2],
        row("20240103000000", "", "2024-01-03 00:00:00")
    );
    // Bad input changes nothing and says why.
    for (args, says) in [
        (
            &["migration", "repair", "--status", "applied", "abc"][..],
            "failed to parse abc: invalid version number",
        ),
        (
            &[
                "migration",
                "repair",
                "--status",
                "applied",
                "20990101000000",
            ],
            "glob supabase/migrations/20990101000000_*.sql: file does not exist",
        ),
        // The whole table is only repaired after a yes (standard input is empty here).
        (
            &["migration", "repair", "--status", "reverted"],
            "context canceled",
        ),
        (
            &["migration", "squash", "--version", "20990101000000"],
            "file does not exist",
        ),
    ] {
        let out = on_remote(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
    let out = gw.command(&dir, &["migration", "repair", "20240101000000"]);
    assert!(!out.status.success(), "--status is required");
    assert_eq!(list_rows(&on_remote(&["migration", "list"])).len(), 3);

    // Squash the first two into one file, baselining the stand-in's history to it.
    let out = on_remote(&["migration", "squash", "--version", "20240102000000"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out)
            .contains("Squashed local migrations to supabase/migrations/20240102000000_tags.sql")
            && text(&out).contains("Baselining migration history to 20240102000000"),
        "{}",
        text(&out)
    );
    let mut files: Vec<String> = std::fs::read_dir(dir.join("supabase/migrations"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["20240102000000_tags.sql", "20240103000000_more.sql"]
    );
    let squashed =
        std::fs::read_to_string(dir.join("supabase/migrations/20240102000000_tags.sql")).unwrap();
    for want in [
        "CREATE TABLE \"public\".\"notes\"",
        "CREATE TABLE \"public\".\"tags\"",
        "ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY \"read tags\"",
    ] {
        assert!(squashed.contains(want), "no {want} in:\n{squashed}");
    }
    assert!(
        !squashed.contains("title"),
        "only up to --version:\n{squashed}"
    );
    assert_eq!(
        list_rows(&on_remote(&["migration", "list"])),
        [
            row("20240102000000", "20240102000000", "2024-01-02 00:00:00"),
            row("20240103000000", "", "2024-01-03 00:00:00"),
        ]
    );
    // The squashed migrations build the same schema.
    let out = gw.command(&dir, &["db", "reset"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = gw.command(&dir, &["db", "diff"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("No schema changes found"),
        "{}",
        text(&out)
    );
    let out = gw.command(
        &dir,
        &["migration", "squash", "--version", "20240102000000"],
    );
    assert!(
        out.status.success() && text(&out).contains("is already the earliest migration."),
        "{}",
        text(&out)
    );
}

#[test]
fn test_new_writes_the_pgtap_template() {
    let dir = support::scratch_project(&[("supabase/config.toml", "project_id = \"tests\"\n")]);
    let out = supagate(&dir, &["test", "new", "profiles"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Created new pgtap test at supabase/tests/profiles_test.sql."),
        "{}",
        text(&out)
    );
    let sql = std::fs::read_to_string(dir.join("supabase/tests/profiles_test.sql")).unwrap();
    assert!(sql.starts_with("BEGIN;\nSELECT plan(1);") && sql.ends_with("ROLLBACK;\n"));
    let out = supagate(&dir, &["test", "new", "profiles"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("supabase/tests/profiles_test.sql already exists."),
        "{}",
        text(&out)
    );
    for bad in [
        &["test", "new", "../x"][..],
        &["test", "new", "x", "-t", "mocha"],
    ] {
        let out = supagate(&dir, bad);
        assert!(!out.status.success(), "{bad:?}");
    }
    assert!(!dir.join("supabase/x_test.sql").exists());
}

#[tokio::test]
async fn db_dump_schema_data_and_roles() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"dump\"\n"),
        (
            "supabase/migrations/20240101000000_notes.sql",
            "create schema app;
             create table app.things (id int primary key);
             create table public.notes (id bigint primary key, body text);
             insert into public.notes values (1, 'it''s here');
             create role app_reader nologin;
             alter role app_reader set statement_timeout = '5s';
             grant select on public.notes to app_reader;
             create function public.one() returns int language sql as 'select 1';",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    let stdout = |o: &Output| String::from_utf8_lossy(&o.stdout).to_string();

    let out = gw.command(&dir, &["db", "dump"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Dumping schemas from local database..."));
    let schema = stdout(&out);
    for want in [
        "CREATE SCHEMA IF NOT EXISTS \"app\";",
        "CREATE TABLE IF NOT EXISTS \"public\".\"notes\" (",
        "CREATE OR REPLACE FUNCTION \"public\".\"one\"()",
        "GRANT SELECT ON TABLE \"public\".\"notes\" TO \"app_reader\";",
    ] {
        assert!(schema.contains(want), "no {want} in:\n{schema}");
    }
    // Supabase's schemas are left out, and pg_dump's comments.
    for unwanted in [
        "\"auth\".\"users\" (",
        "\"storage\".\"objects\" (",
        "\nCOMMENT ON EXTENSION",
    ] {
        assert!(!schema.contains(unwanted), "{unwanted} in:\n{schema}");
    }
    assert!(!schema.lines().any(|l| l.starts_with("--")), "{schema}");

    let file = dir.join("dumps/app.sql");
    let out = gw.command(
        &dir,
        &["db", "dump", "-s", "app", "-f", file.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(stdout(&out), "", "the dump goes to the file");
    assert!(
        text(&out).contains(&format!("Dumped schema to {}.", file.display())),
        "{}",
        text(&out)
    );
    let app = std::fs::read_to_string(&file).unwrap();
    assert!(
        app.contains("\"app\".\"things\"") && !app.contains("\"public\".\"notes\""),
        "{app}"
    );

    let out = gw.command(&dir, &["db", "dump", "--data-only"]);
    assert!(out.status.success(), "{}", text(&out));
    let data = stdout(&out);
    assert!(
        data.starts_with("SET session_replication_role = replica;\n"),
        "{data}"
    );
    assert!(data.ends_with("RESET ALL;\n"), "{data}");
    assert!(
        data.contains(
            "INSERT INTO \"public\".\"notes\" (\"id\", \"body\") VALUES\n\t(1, 'it''s here');"
        ),
        "{data}"
    );
    assert!(!data.contains("supabase_migrations"), "{data}");

    let out = gw.command(&dir, &["db", "dump", "--role-only"]);
    assert!(out.status.success(), "{}", text(&out));
    let roles = stdout(&out);
    assert!(roles.contains("CREATE ROLE \"app_reader\";"), "{roles}");
    assert!(roles.contains("ALTER ROLE \"app_reader\" SET \"statement_timeout\" TO '5s';"));
    for reserved in [
        "CREATE ROLE \"anon\"",
        "CREATE ROLE \"postgres\"",
        "NOSUPERUSER",
    ] {
        assert!(!roles.contains(reserved), "{reserved} in:\n{roles}");
    }

    for (args, says) in [
        (&["db", "dump", "--use-copy"][..], "--data-only"),
        (
            &["db", "dump", "--data-only", "--role-only"],
            "cannot be used with",
        ),
        (
            &[
                "db",
                "dump",
                "--db-url",
                "postgresql://postgres@/nowhere?host=/nonexistent",
            ],
            "error running pg_dump",
        ),
    ] {
        let out = gw.command(&dir, args);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
}

#[tokio::test]
async fn db_lint_reports_plpgsql_check_issues() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"lint\"\n"),
        (
            "supabase/migrations/20240101000000_functions.sql",
            "create table public.notes (id bigint primary key, body text);
             create function public.broken() returns int language plpgsql as $$
             declare x int;
             begin
               select nope into x from public.notes;
               return x;
             end $$;
             create function public.unused() returns int language plpgsql as $$
             declare y int; begin return 1; end $$;
             create function public.fine() returns int language plpgsql as $$
             begin return 1; end $$;",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    let report = |o: &Output| -> serde_json::Value {
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
    };
    let out = gw.command(&dir, &["db", "lint"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Linting schema: public"));
    let all = report(&out);
    let functions: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["function"].as_str().unwrap())
        .collect();
    assert_eq!(functions, ["public.broken", "public.unused"], "{all:#}");
    let issue = &all[0]["issues"][0];
    assert_eq!(issue["level"], "error");
    assert_eq!(issue["message"], "column \"nope\" does not exist");
    assert_eq!(issue["sqlState"], "42703");
    assert!(issue["query"]["text"].as_str().unwrap().contains("nope"));
    assert_eq!(all[1]["issues"][0]["message"], "unused variable \"y\"");

    let out = gw.command(&dir, &["db", "lint", "--level", "error"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(report(&out).as_array().unwrap().len(), 1);
    let out = gw.command(&dir, &["db", "lint", "--fail-on", "error"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("fail-on is set to error, non-zero exit"),
        "{}",
        text(&out)
    );
    // Linting leaves nothing behind.
    let ext = gw
        .sql("select count(*) from pg_extension where extname = 'plpgsql_check'")
        .await;
    assert_eq!(ext[0][0].as_deref(), Some("0"));

    gw.sql("drop function public.broken(); drop function public.unused();")
        .await;
    let out = gw.command(&dir, &["db", "lint", "--fail-on", "warning"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("No schema errors found"));
    let out = gw.command(&dir, &["db", "lint", "--level", "info"]);
    assert!(!out.status.success(), "an unknown level is refused");
}

#[tokio::test]
async fn gen_bearer_jwt_signs_tokens_the_gateway_accepts() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"jwt\"\n"),
        (
            "supabase/migrations/20240101000000_notes.sql",
            "create table public.notes (id int primary key, owner uuid);
             alter table public.notes enable row level security;
             create policy \"own notes\" on public.notes for select to authenticated
               using (owner = (select auth.uid()));
             insert into public.notes values
               (1, '00000000-0000-0000-0000-000000000001'),
               (2, '00000000-0000-0000-0000-000000000002');",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    let token = |args: &[&str]| -> String {
        let out = gw.command(&dir, &[&["gen", "bearer-jwt"][..], args].concat());
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let claims = |t: &str| -> serde_json::Value {
        use base64::Engine;
        let body = t.split('.').nth(1).unwrap();
        serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(body)
                .unwrap(),
        )
        .unwrap()
    };
    let user = token(&[
        "--role",
        "authenticated",
        "--sub",
        "00000000-0000-0000-0000-000000000002",
        "--valid-for",
        "1h",
        "--payload",
        r#"{"email":"two@example.com"}"#,
    ]);
    let c = claims(&user);
    assert_eq!(c["role"], "authenticated");
    assert_eq!(c["email"], "two@example.com");
    assert_eq!(
        c["exp"].as_i64().unwrap() - c["iat"].as_i64().unwrap(),
        3600
    );
    let r = support::Api::bearer(&gw, &user)
        .get("/rest/v1/notes?select=id")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json(), serde_json::json!([{"id": 2}]));

    let anonymous = token(&["--role", "authenticated"]);
    assert_eq!(claims(&anonymous)["is_anonymous"], true);
    assert_eq!(
        claims(&anonymous)["exp"].as_i64().unwrap() - claims(&anonymous)["iat"].as_i64().unwrap(),
        1800,
        "30 minutes by default"
    );
    let r = support::Api::bearer(&gw, &anonymous)
        .get("/rest/v1/notes?select=id")
        .await;
    assert_eq!(r.json(), serde_json::json!([]));

    let expired = token(&["--role", "authenticated", "--exp", "2020-01-01T00:00:00Z"]);
    let r = support::Api::bearer(&gw, &expired)
        .get("/rest/v1/notes")
        .await;
    assert_eq!(r.status, 401, "{}", r.text);

    for (args, says) in [
        (&["gen", "bearer-jwt"][..], "--role"),
        (
            &["gen", "bearer-jwt", "--role", "anon", "--payload", "{"],
            "failed to parse payload",
        ),
        (
            &["gen", "bearer-jwt", "--role", "anon", "--valid-for", "soon"],
            "invalid duration",
        ),
    ] {
        let out = gw.command(&dir, args);
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
}

#[tokio::test]
async fn gen_keys_derives_a_preview_branchs_variables_from_the_secret() {
    let dir = support::scratch_project(&[("supabase/config.toml", "project_id = \"keys\"\n")]);
    // The checkout's branch names the preview branch.
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/feature-x\n").unwrap();
    let secret = "a-project-secret-of-at-least-32-characters";
    let out = Command::new(env!("CARGO_BIN_EXE_supagate"))
        .arg("--workdir")
        .arg(&dir)
        .args([
            "gen",
            "keys",
            "--project-ref",
            "abcdefghijklmnopqrst",
            "-o",
            "json",
        ])
        .env("SUPABASE_AUTH_JWT_SECRET", secret)
        .env_remove("GITHUB_HEAD_REF")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let vars: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        vars["NEXT_PUBLIC_SUPABASE_URL"],
        "abcdefghijklmnopqrst-feature-x.fly.dev"
    );
    assert_eq!(vars["SUPABASE_AUTH_JWT_SECRET"], secret);
    let keys = identity::jwt::JwtKeys::new(secret);
    let anon = keys
        .verify(vars["SUPABASE_AUTH_ANON_KEY"].as_str().unwrap())
        .unwrap();
    assert_eq!(
        (anon["role"].as_str(), anon["ref"].as_str()),
        (Some("anon"), Some("abcdefghijklmnopqrst"))
    );
    // env output, a renamed variable; then the refusals.
    let out = supagate(
        &dir,
        &[
            "gen",
            "keys",
            "--project-ref",
            "abcdefghijklmnopqrst",
            "--jwt-secret",
            secret,
            "--override-name",
            "auth.anon_key=VITE_ANON_KEY",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        said.lines().any(|l| l.starts_with("VITE_ANON_KEY=\"ey")),
        "{said}"
    );
    assert!(!said.contains("SUPABASE_AUTH_ANON_KEY"), "{said}");
    for (args, says) in [
        (
            &["gen", "keys", "--project-ref", "abcdefghijklmnopqrst"][..],
            "JWT secret",
        ),
        (
            &["gen", "keys", "--jwt-secret", secret][..],
            "Have you run supabase link?",
        ),
        (
            &[
                "gen",
                "keys",
                "--project-ref",
                "nope",
                "--jwt-secret",
                secret,
            ][..],
            "Invalid project ref",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_supagate"))
            .arg("--workdir")
            .arg(&dir)
            .args(args)
            .env_remove("SUPABASE_AUTH_JWT_SECRET")
            .env("RUST_LOG", "warn")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
}

#[tokio::test]
async fn gen_signing_key_writes_keys_the_gateway_signs_with() {
    let dir = support::scratch_project(&[("supabase/config.toml", "project_id = \"keys\"\n")]);
    // No keys file configured: one key printed, and how to use it.
    let out = supagate(&dir, &["gen", "signing-key"]);
    assert!(out.status.success(), "{}", text(&out));
    let jwk: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            jwk["kty"].as_str(),
            jwk["alg"].as_str(),
            jwk["crv"].as_str()
        ),
        (Some("EC"), Some("ES256"), Some("P-256"))
    );
    assert!(text(&out).contains("signing_keys_path = \"./signing_keys.json\""));

    std::fs::write(
        dir.join("supabase/config.toml"),
        "project_id = \"keys\"\n[auth]\nsigning_keys_path = \"./signing_keys.json\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("supabase/migrations")).unwrap();
    std::fs::write(
        dir.join("supabase/migrations/20240101000000_notes.sql"),
        "create table public.notes (id int primary key); insert into public.notes values (1);",
    )
    .unwrap();
    let out = supagate(&dir, &["gen", "signing-key", "--algorithm", "RS256"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(
            "JWT signing key appended to: supabase/signing_keys.json (now contains 1 keys)"
        ),
        "{}",
        text(&out)
    );
    let out = supagate(&dir, &["gen", "signing-key", "--append"]);
    assert!(
        text(&out).contains("(now contains 2 keys)"),
        "{}",
        text(&out)
    );
    let file = dir.join("supabase/signing_keys.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let keys: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(keys[0]["alg"], "RS256");
    assert_eq!(keys[1]["alg"], "ES256");

    // The gateway signs and verifies with the first key; bearer-jwt signs with it too.
    let gw = support::start_project(&dir, &[]);
    let out = gw.command(&dir, &["gen", "bearer-jwt", "--role", "service_role"]);
    assert!(out.status.success(), "{}", text(&out));
    let token = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let header = token.split('.').next().unwrap();
    use base64::Engine;
    let header: serde_json::Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(header)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(header["alg"], "RS256");
    assert_eq!(header["kid"], keys[0]["kid"]);
    let r = support::Api::bearer(&gw, &token)
        .get("/rest/v1/notes?select=id")
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json(), serde_json::json!([{"id": 1}]));

    let out = supagate(&dir, &["gen", "signing-key", "--algorithm", "HS256"]);
    assert!(!out.status.success());
}

#[tokio::test]
async fn migration_fetch_writes_the_history_back_as_files() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"fetch\"\n"),
        (
            "supabase/migrations/20240101000000_notes.sql",
            "create table public.notes (id int primary key);\n-- a comment\ncreate index notes_id on public.notes (id);",
        ),
        (
            "supabase/migrations/20240102000000_tags.sql",
            "create table public.tags (id int primary key);",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    let migrations = dir.join("supabase/migrations");
    std::fs::remove_dir_all(&migrations).unwrap();
    let out = gw.command(&dir, &["migration", "fetch"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Fetched 2 migrations into supabase/migrations."),
        "{}",
        text(&out)
    );
    let notes = std::fs::read_to_string(migrations.join("20240101000000_notes.sql")).unwrap();
    assert!(
        notes.starts_with("create table public.notes (id int primary key);\n")
            && notes.contains("create index notes_id on public.notes (id);\n"),
        "{notes}"
    );
    assert!(migrations.join("20240102000000_tags.sql").exists());
    let out = gw.command(&dir, &["migration", "list"]);
    assert!(
        list_rows(&out).iter().all(|(l, r, _)| l == r),
        "{}",
        text(&out)
    );
    // The fetched files build the same schema.
    let out = gw.command(&dir, &["db", "reset"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = gw.command(&dir, &["db", "diff"]);
    assert!(
        text(&out).contains("No schema changes found"),
        "{}",
        text(&out)
    );
    // A history row that cannot name a file is refused, and nothing is written.
    gw.sql("insert into supabase_migrations.schema_migrations (version, name) values ('20240103000000', '../../x')")
        .await;
    let out = gw.command(&dir, &["migration", "fetch"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("is not a migration name"),
        "{}",
        text(&out)
    );
    assert!(!dir.join("x.sql").exists());
}

/// Reads `child`'s stderr lines on a thread; each line arrives on the returned channel.
fn stderr_lines(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits (at most 60 s) for a line containing `want`; the lines seen, when it never comes.
fn wait_for_line(rx: &std::sync::mpsc::Receiver<String>, want: &str) -> Result<(), Vec<String>> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut seen = Vec::new();
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) if line.contains(want) => return Ok(()),
            Ok(line) => seen.push(line),
            Err(_) => break,
        }
    }
    Err(seen)
}

#[tokio::test]
async fn declared_schema_edits_are_live_with_db_watch() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"watched\"\n"),
        (
            "supabase/schemas/notes.sql",
            "create table public.notes (id bigint primary key, body text not null);",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    let columns = async || {
        gw.sql(
            "select string_agg(column_name, ',' order by ordinal_position)
               from information_schema.columns where table_schema = 'public' and table_name = 'notes'",
        )
        .await[0][0]
            .clone()
    };
    // Once: the files as they are, applied to the running database.
    let out = gw.command(&dir, &["db", "watch", "--once"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Applied 2 statements"),
        "{}",
        text(&out)
    );
    assert_eq!(columns().await.as_deref(), Some("id,body"));
    let out = gw.command(&dir, &["db", "watch", "--once"]);
    assert!(
        text(&out).contains("No schema changes found"),
        "{}",
        text(&out)
    );

    // Watching: an edit is applied as it is saved; a broken one changes nothing.
    let mut child = gw
        .command_for(&dir, &["db", "watch"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn db watch");
    let lines = stderr_lines(&mut child);
    wait_for_line(&lines, "No schema changes found").expect("the first look");
    std::fs::write(
        dir.join("supabase/schemas/notes.sql"),
        "create table public.notes (id bigint primary key, body text not null,
           pinned boolean not null default false);",
    )
    .unwrap();
    wait_for_line(&lines, "Applied 1 statement").expect("the edit applied");
    assert_eq!(columns().await.as_deref(), Some("id,body,pinned"));
    std::fs::write(
        dir.join("supabase/schemas/notes.sql"),
        "create table public.notes (id bigint primary key);\ncreate tabel oops;",
    )
    .unwrap();
    wait_for_line(&lines, "Not applied: supabase/schemas/notes.sql failed").expect("the refusal");
    assert_eq!(columns().await.as_deref(), Some("id,body,pinned"));
    let _ = child.kill();
    let _ = child.wait();

    // The migration for what the files declared.
    std::fs::write(
        dir.join("supabase/schemas/notes.sql"),
        "create table public.notes (id bigint primary key, body text not null,
           pinned boolean not null default false);",
    )
    .unwrap();
    let out = gw.command(&dir, &["db", "diff", "-f", "notes"]);
    assert!(out.status.success(), "{}", text(&out));
    let migration = created(&dir, &out);
    assert!(migration.contains("\"pinned\" boolean"), "{migration}");
}
