//! `test db` runs psql in the folder the CLI runs pg_prove in (the tests folder by default), so
//! a test file's relative `\i` finds files from there, as a project's suite expects.

use crate::support;

use std::process::Output;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

const TEST: &str = "begin;
\\i _shared/helpers.psql
select plan(2);
select is(pg_temp.answer(), 42, 'the shared helper is there');
select has_table('public', 'notes', 'the migration ran');
select * from finish();
rollback;
";

#[tokio::test]
async fn test_files_include_shared_files_from_the_tests_folder() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"tested\"\n"),
        (
            "supabase/migrations/20240101000000_notes.sql",
            "create table public.notes (id bigint primary key);",
        ),
        (
            "supabase/tests/_shared/helpers.psql",
            "create function pg_temp.answer() returns int language sql as 'select 42';\n",
        ),
        ("supabase/tests/database/answer_test.sql", TEST),
        ("supabase/tests/database/more/again_test.sql", TEST),
    ]);
    let gw = support::start_project(&dir, &[]);
    let out = gw.command(&dir, &["test", "db"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("supabase/tests/database/answer_test.sql")
            && said.contains("supabase/tests/database/more/again_test.sql")
            && said.contains("All tests successful."),
        "{said}"
    );
    // Given a file, psql works in its folder (as pg_prove in the CLI's container): the
    // include is not found from there.
    let out = gw.command(
        &dir,
        &[
            "test",
            "db",
            dir.join("supabase/tests/database/answer_test.sql")
                .to_str()
                .unwrap(),
        ],
    );
    assert!(!out.status.success());
    assert!(
        text(&out).contains("_shared/helpers.psql: No such file or directory"),
        "{}",
        text(&out)
    );
    gw.stop();
}

/// A project that asks for PostgreSQL 17 runs on npm's build (node_modules, as `scripts/test`
/// installs it) with pgTAP from the system's 15, and one whose migrations create an extension
/// only the system's 15 has (PostGIS) runs on 15: each test file checks the server it ran on.
#[tokio::test]
async fn postgres_17_where_the_project_asks_for_it_and_has_what_it_creates() {
    for (extension, on_17) in [(None, true), (Some("postgis"), false)] {
        let migration = match extension {
            Some(e) => {
                format!("create extension {e}; create table public.notes (id bigint primary key);")
            }
            None => "create table public.notes (id bigint primary key);".to_string(),
        };
        let check = format!(
            "begin;
select plan(2);
select ok(current_setting('server_version_num')::int {} 170000, 'the server it should run on');
select has_table('public', 'notes', 'the migration ran');
select * from finish();
rollback;
",
            if on_17 { ">=" } else { "<" }
        );
        let dir = support::scratch_project(&[
            (
                "supabase/config.toml",
                "project_id = \"seventeen\"\n[db]\nmajor_version = 17\n",
            ),
            ("supabase/migrations/20240101000000_notes.sql", &migration),
            ("supabase/tests/database/version_test.sql", &check),
        ]);
        let gw = support::start_project(&dir, &[]);
        let out = gw.command(&dir, &["test", "db"]);
        let said = text(&out);
        gw.stop();
        assert!(
            out.status.success() && said.contains("All tests successful."),
            "{extension:?}: {said}"
        );
    }
}
