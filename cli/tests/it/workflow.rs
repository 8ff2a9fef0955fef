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
