//! `db push`, `db pull` and `migration down` against a second PostgreSQL standing in for a
//! hosted project (a gateway of its own on an empty project: its cluster has what a Supabase
//! project's database has), its history table read as the CLI writes it.

use crate::support::{self, Gateway};

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs a command of `gw`'s project with `answer` on standard input (the prompts' reply).
fn answering(gw: &Gateway, workdir: &Path, args: &[&str], answer: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_supagate"))
        .arg("--workdir")
        .arg(workdir)
        .arg("--data-dir")
        .arg(&gw.data_dir)
        .args(args)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .env("SUPAGATE_CACHE_DIR", support::pg_cache())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run supagate");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answer.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `migration list`'s rows: (local, remote).
fn list_rows(out: &Output) -> Vec<(String, String)> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(3)
        .filter(|l| l.contains('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[0].to_string(), cells[1].to_string())
        })
        .collect()
}

const NOTES: &str = "create table public.notes (id bigint primary key, body text);
alter table public.notes enable row level security;
create policy \"own notes\" on public.notes for select to authenticated using (true);
";
const TAGS: &str =
    "create table public.tags (id bigint primary key, note bigint references public.notes);";
const SEED: &str = "insert into public.notes (id, body) values (1, 'seeded');\n";

#[tokio::test]
async fn push_pull_and_down_against_a_stand_in_project() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"pushing\"\n"),
        ("supabase/migrations/20240101000000_notes.sql", NOTES),
        ("supabase/migrations/20240102000000_tags.sql", TAGS),
        ("supabase/seed.sql", SEED),
    ]);
    let hosted_dir =
        support::scratch_project(&[("supabase/config.toml", "project_id = \"hosted\"\n")]);
    let gw = support::start_project(&dir, &[]);
    let hosted = support::start_project(&hosted_dir, &[]);
    let url = format!(
        "postgresql://postgres@/{}?host={}&port=5432",
        hosted.dbname,
        hosted.socket_dir.display()
    );
    let remote = ["--db-url", url.as_str()];
    let on_remote = |args: &[&str]| gw.command(&dir, &[args, &remote[..]].concat());
    let hosted_db = hosted.session_on(&hosted.dbname).await;
    let history = async || -> Vec<(String, String, Vec<String>)> {
        hosted_db
            .query(
                "select version, name, statements from supabase_migrations.schema_migrations
                  order by 1",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect()
    };

    // A dry run lists what would be pushed and changes nothing.
    let out = on_remote(&["db", "push", "--dry-run", "--include-seed"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("DRY RUN: migrations will *not* be pushed to the database.")
            && said.contains(
                "Would push these migrations:\n • 20240101000000_notes.sql\n • 20240102000000_tags.sql\n"
            )
            && said.contains("Would seed these files:\n • supabase/seed.sql\n"),
        "{said}"
    );
    assert!(history().await.is_empty(), "a dry run records nothing");
    let notes = hosted_db
        .query_one("select to_regclass('public.notes') is null", &[])
        .await
        .unwrap()
        .get::<_, bool>(0);
    assert!(notes, "a dry run runs nothing");

    // The push: each file applied and recorded as the CLI records it, the seed run once.
    let out = on_remote(&["db", "push", "--include-seed"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    for want in [
        "Do you want to push these migrations to the remote database?",
        "Applying migration 20240101000000_notes.sql...",
        "Applying migration 20240102000000_tags.sql...",
        "Seeding data from supabase/seed.sql...",
        "Finished supagate db push.",
    ] {
        assert!(said.contains(want), "no {want:?} in {said}");
    }
    assert_eq!(
        history().await,
        [
            (
                "20240101000000".to_string(),
                "notes".to_string(),
                vec![
                    "create table public.notes (id bigint primary key, body text)".to_string(),
                    "alter table public.notes enable row level security".to_string(),
                    "create policy \"own notes\" on public.notes for select to authenticated using (true)"
                        .to_string(),
                ]
            ),
            (
                "20240102000000".to_string(),
                "tags".to_string(),
                vec![TAGS.trim_end_matches(';').to_string()]
            ),
        ]
    );
    let seeded = hosted_db
        .query_one(
            "select (select body from public.notes where id = 1),
                    (select hash from supabase_migrations.seed_files where path = 'supabase/seed.sql')",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(seeded.get::<_, String>(0), "seeded");
    assert_eq!(
        seeded.get::<_, String>(1),
        project::sha256_hex(SEED.as_bytes()),
        "the seed's hash, as the CLI records it"
    );
    // Nothing is pending now; the seed does not run twice.
    let out = on_remote(&["db", "push", "--include-seed"]);
    assert!(
        out.status.success() && text(&out).contains("Remote database is up to date."),
        "{}",
        text(&out)
    );
    // Custom roles from supabase/roles.sql, run before the migrations (none pending here).
    std::fs::write(
        dir.join("supabase/roles.sql"),
        "create role app_reader nologin;\n",
    )
    .unwrap();
    let out = on_remote(&["db", "push", "--include-roles", "--dry-run"]);
    assert!(
        out.status.success()
            && text(&out).contains("Would create custom roles supabase/roles.sql..."),
        "{}",
        text(&out)
    );
    let out = on_remote(&["db", "push", "--include-roles"]);
    assert!(
        out.status.success()
            && text(&out).contains("Seeding globals from roles.sql...")
            && text(&out).contains("Schema migrations are up to date."),
        "{}",
        text(&out)
    );
    let role: i64 = hosted_db
        .query_one(
            "select count(*) from pg_roles where rolname = 'app_reader'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(role, 1);
    // A changed seed file only has its hash updated.
    std::fs::write(dir.join("supabase/seed.sql"), format!("{SEED}-- changed\n")).unwrap();
    let out = on_remote(&["db", "push", "--include-seed"]);
    assert!(
        out.status.success()
            && text(&out).contains("Schema migrations are up to date.")
            && text(&out).contains("Updating seed hash to supabase/seed.sql..."),
        "{}",
        text(&out)
    );
    let rows: i64 = hosted_db
        .query_one("select count(*) from public.notes", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(rows, 1, "a dirty seed file is not run again");

    // Both sides in `migration list`.
    let out = on_remote(&["migration", "list"]);
    assert!(out.status.success(), "{}", text(&out));
    let both = |v: &str| (v.to_string(), v.to_string());
    assert_eq!(
        list_rows(&out),
        [both("20240101000000"), both("20240102000000")]
    );

    // A change made on the hosted project comes back as a migration, recorded there.
    hosted_db
        .batch_execute(
            "create table public.remote_only (id uuid primary key default gen_random_uuid(), at timestamptz);
             alter table public.remote_only enable row level security;
             create policy \"mine\" on public.remote_only for all to authenticated using (true);",
        )
        .await
        .unwrap();
    let out = on_remote(&["db", "pull"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    let written = said
        .lines()
        .find_map(|l| l.strip_prefix("Schema written to "))
        .unwrap_or_else(|| panic!("no migration written: {said}"));
    assert!(written.ends_with("_remote_schema.sql"), "{written}");
    assert!(said.contains("Finished supagate db pull."), "{said}");
    let pulled = std::fs::read_to_string(dir.join(written)).unwrap();
    for want in [
        "CREATE TABLE \"public\".\"remote_only\"",
        "ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY \"mine\"",
    ] {
        assert!(pulled.contains(want), "no {want} in:\n{pulled}");
    }
    assert!(
        !pulled.contains("\"notes\""),
        "only what the migrations lack:\n{pulled}"
    );
    let version = written
        .rsplit('/')
        .next()
        .unwrap()
        .split('_')
        .next()
        .unwrap()
        .to_string();
    let recorded = history().await;
    assert_eq!(recorded.len(), 3);
    assert_eq!(
        (recorded[2].0.as_str(), recorded[2].1.as_str()),
        (version.as_str(), "remote_schema")
    );
    assert!(recorded[2].2.iter().any(|s| s.contains("remote_only")));
    let out = on_remote(&["migration", "list"]);
    assert_eq!(list_rows(&out).last().unwrap(), &both(&version));
    // Nothing more to pull.
    let out = on_remote(&["db", "pull", "again"]);
    assert!(
        !out.status.success() && text(&out).contains("No schema changes found"),
        "{}",
        text(&out)
    );

    // Histories that disagree: a pull refuses and says how to repair; a push refuses a local
    // file older than the last pushed one unless --include-all.
    std::fs::write(
        dir.join("supabase/migrations/20240101500000_late.sql"),
        "create table public.late (id int primary key);",
    )
    .unwrap();
    let out = on_remote(&["db", "pull"]);
    assert!(
        !out.status.success()
            && text(&out).contains("migration repair --status applied 20240101500000"),
        "{}",
        text(&out)
    );
    let out = on_remote(&["db", "push"]);
    assert!(
        !out.status.success()
            && text(&out).contains(
                "Found local migration files to be inserted before the last migration on remote database."
            )
            && text(&out).contains("--include-all"),
        "{}",
        text(&out)
    );
    let out = on_remote(&["db", "push", "--include-all"]);
    assert!(
        out.status.success()
            && text(&out).contains("Applying migration 20240101500000_late.sql..."),
        "{}",
        text(&out)
    );
    // A version the hosted project recorded that no local file has.
    std::fs::remove_file(dir.join("supabase/migrations/20240101500000_late.sql")).unwrap();
    let out = on_remote(&["db", "push"]);
    assert!(
        !out.status.success()
            && text(&out)
                .contains("Remote migration versions not found in local migrations directory.")
            && text(&out).contains("migration repair --status reverted 20240101500000"),
        "{}",
        text(&out)
    );

    // `migration down` on the hosted project: its objects and data dropped, the migrations up
    // to the one before the last run again, and the seed; the platform's schemas stay.
    let schemas = async || -> Vec<String> {
        hosted_db
            .query("select nspname::text from pg_namespace order by 1", &[])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    let before = schemas().await;
    let out = answering(
        &gw,
        &dir,
        &["migration", "down", "--db-url", url.as_str()],
        "y\n",
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Resetting database to version: 20240102000000"),
        "{}",
        text(&out)
    );
    let versions: Vec<String> = history().await.into_iter().map(|h| h.0).collect();
    assert_eq!(versions, ["20240101000000", "20240102000000"]);
    let state = hosted_db
        .query_one(
            "select to_regclass('public.remote_only') is null, to_regclass('public.late') is null,
                    (select body from public.notes where id = 1),
                    (select count(*) from public.notes),
                    (select count(*) from pg_policies where tablename = 'notes')",
            &[],
        )
        .await
        .unwrap();
    assert!(
        state.get::<_, bool>(0) && state.get::<_, bool>(1),
        "dropped"
    );
    assert_eq!(state.get::<_, String>(2), "seeded");
    assert_eq!(
        state.get::<_, i64>(3),
        1,
        "the data went, the seed came back"
    );
    assert_eq!(state.get::<_, i64>(4), 1);
    assert_eq!(schemas().await, before, "the platform's schemas stay");
    let api = crate::support::Api::service(&hosted);
    let got = api.get("/rest/v1/notes?select=body").await;
    assert_eq!(
        (got.status, got.json()),
        (200, serde_json::json!([{"body": "seeded"}]))
    );

    // `migration down` on the local database: asked first (no answer: nothing happens), then
    // rebuilt with the migrations up to the one before the last applied.
    let applied = async || -> Vec<String> {
        gw.sql("select version from supabase_migrations.schema_migrations order by 1")
            .await
            .into_iter()
            .map(|r| r[0].clone().unwrap())
            .collect()
    };
    assert_eq!(applied().await, ["20240101000000", "20240102000000"]);
    let out = answering(&gw, &dir, &["migration", "down"], "");
    assert!(
        !out.status.success()
            && text(&out)
                .contains("Do you want to revert the following migrations?\n • 20240102000000\n")
            && text(&out).contains("context canceled"),
        "{}",
        text(&out)
    );
    assert_eq!(applied().await.len(), 2);
    let out = answering(&gw, &dir, &["migration", "down", "--last", "1"], "y\n");
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Resetting database to version: 20240101000000"),
        "{}",
        text(&out)
    );
    assert_eq!(applied().await, ["20240101000000"]);
    let tables = gw
        .sql("select to_regclass('public.tags') is null, (select body from public.notes where id = 1)")
        .await;
    assert_eq!(
        tables[0][0].as_deref(),
        Some("t"),
        "tags came after the version"
    );
    assert_eq!(
        tables[0][1].as_deref(),
        Some("seeded"),
        "the seed runs again"
    );
    let out = answering(&gw, &dir, &["migration", "down", "--last", "1"], "y\n");
    assert!(
        !out.status.success()
            && text(&out).contains("--last must be smaller than total applied migrations: 1"),
        "{}",
        text(&out)
    );
    // The template is the full build still: a reset brings every migration back.
    let out = gw.command(&dir, &["db", "reset"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(applied().await.len(), 3);
    hosted.stop();
    gw.stop();
}
