//! `db advisors`: a project that trips each lint once, and the issues it reports, with the
//! dashboard's names, levels and remediation links; `--type`, `--level`, `--fail-on` and the
//! table output.

use crate::support;

use serde_json::Value;
use std::process::Output;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

const SCHEMA: &str = r#"
create table public.open_notes (body text);
create table public.posts (
  id bigint primary key,
  author uuid references auth.users,
  title text
);
alter table public.posts enable row level security;
create policy "own posts" on public.posts for select to authenticated using (author = auth.uid());
create policy "fast posts" on public.posts for select to authenticated using (author = (select auth.uid()));
create index posts_title on public.posts (title);
create index posts_title_again on public.posts (title);
create table public.drafts (id bigint primary key);
create policy "drafts" on public.drafts for select using (true);
create table public.locked (id bigint primary key);
alter table public.locked enable row level security;
create table public.trusted (id bigint primary key, owner uuid);
alter table public.trusted enable row level security;
create policy "meta" on public.trusted for select to authenticated
  using (((select auth.jwt()) -> 'user_metadata' ->> 'role') = 'admin');
create view public.people as select id, email from auth.users;
create function public.add(a int, b int) returns int language sql as 'select a + b';
create function public.whoami() returns text language sql security definer
  set search_path = '' as 'select current_user::text';
create extension citext schema public;
"#;

/// The lints `--level info` reports on the schema above, by name: (level, detail).
const WANT: &[(&str, &str, &str)] = &[
    (
        "rls_disabled_in_public",
        "ERROR",
        "Table `public.open_notes` is public, but RLS has not been enabled.",
    ),
    (
        "no_primary_key",
        "INFO",
        "Table `public.open_notes` does not have a primary key",
    ),
    (
        "unindexed_foreign_keys",
        "INFO",
        "Table `public.posts` has a foreign key `posts_author_fkey` without a covering index. This can lead to suboptimal query performance.",
    ),
    (
        "auth_rls_initplan",
        "WARN",
        "Table `public.posts` has a row level security policy `own posts` that re-evaluates current_setting() or auth.<function>() for each row.",
    ),
    (
        "multiple_permissive_policies",
        "WARN",
        "Table `public.posts` has multiple permissive policies for role `authenticated` for action `SELECT`. Policies include `{\"fast posts\",\"own posts\"}`",
    ),
    (
        "duplicate_index",
        "WARN",
        "Table `public.posts` has identical indexes {posts_title,posts_title_again}. Drop all except one of them",
    ),
    (
        "policy_exists_rls_disabled",
        "ERROR",
        "Table `public.drafts` has RLS policies but RLS is not enabled on the table. Policies include {drafts}.",
    ),
    (
        "rls_enabled_no_policy",
        "INFO",
        "Table `public.locked` has RLS enabled, but no policies exist",
    ),
    (
        "rls_references_user_metadata",
        "ERROR",
        "Table `public.trusted` has a row level security policy `meta` that references Supabase Auth `user_metadata`.",
    ),
    (
        "auth_users_exposed",
        "ERROR",
        "View/Materialized View \"people\" in the public schema may expose `auth.users` data to anon or authenticated roles.",
    ),
    (
        "security_definer_view",
        "ERROR",
        "View `public.people` is defined with the SECURITY DEFINER property",
    ),
    (
        "function_search_path_mutable",
        "WARN",
        "Function `public.add` has a role mutable search_path",
    ),
    (
        "anon_security_definer_function_executable",
        "WARN",
        "SECURITY DEFINER function `public.whoami()` is executable by the `anon` role.",
    ),
    (
        "authenticated_security_definer_function_executable",
        "WARN",
        "SECURITY DEFINER function `public.whoami()` is executable by the `authenticated` role.",
    ),
    (
        "extension_in_public",
        "WARN",
        "Extension `citext` is installed in the public schema. Move it to another schema.",
    ),
];

fn lints(out: &Output) -> Vec<Value> {
    assert!(out.status.success(), "{}", text(out));
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(out)))
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test]
async fn advisors_report_the_dashboards_lints() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"advised\"\n"),
        ("supabase/migrations/20240101000000_schema.sql", SCHEMA),
    ]);
    let gw = support::start_project(&dir, &[]);
    let all = lints(&gw.command(&dir, &["db", "advisors", "--level", "info"]));
    for (name, level, detail) in WANT {
        let found: Vec<&Value> = all
            .iter()
            .filter(|l| l["name"] == *name && l["detail"].as_str().unwrap().starts_with(detail))
            .collect();
        assert_eq!(found.len(), 1, "{name}: {detail}\nin {all:#?}");
        let l = found[0];
        assert_eq!(l["level"], *level, "{name}");
        assert_eq!(l["facing"], "EXTERNAL");
        assert!(
            l["remediation"]
                .as_str()
                .unwrap()
                .starts_with("https://supabase.com/docs/guides/database/database-linter?lint=0")
                && l["remediation"].as_str().unwrap().ends_with(name),
            "{l}"
        );
        assert!(
            l["cache_key"].as_str().unwrap().starts_with(&name[..8]),
            "{l}"
        );
    }
    // The policy that wraps auth.uid() in a select is not reported; nothing from the
    // managed schemas is.
    let text_all = serde_json::to_string(&all).unwrap();
    assert!(
        !text_all.contains("`fast posts` that re-evaluates"),
        "{text_all}"
    );
    for l in &all {
        let schema = l["metadata"]["schema"].as_str().unwrap();
        assert_eq!(schema, "public", "nothing from the managed schemas: {l}");
    }

    // --type, --level: only those lints; the default level is warn.
    let perf = lints(&gw.command(
        &dir,
        &["db", "advisors", "--type", "performance", "--level", "info"],
    ));
    assert!(
        !perf.is_empty()
            && perf
                .iter()
                .all(|l| l["categories"] == serde_json::json!(["PERFORMANCE"]))
    );
    let warn = lints(&gw.command(&dir, &["db", "advisors"]));
    assert!(warn.iter().all(|l| l["level"] != "INFO"));
    assert!(warn.iter().any(|l| l["level"] == "WARN"));
    let errors = lints(&gw.command(&dir, &["db", "advisors", "--level", "error"]));
    // The five above, and drafts' missing RLS beside its policy.
    assert_eq!(errors.len(), 6, "{errors:#?}");
    assert!(errors.iter().all(|l| l["level"] == "ERROR"));

    // --fail-on: the JSON, then a failure.
    let out = gw.command(&dir, &["db", "advisors", "--fail-on", "error"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("fail-on is set to error, non-zero exit"),
        "{}",
        text(&out)
    );
    let out = gw.command(
        &dir,
        &[
            "db",
            "advisors",
            "--type",
            "performance",
            "--fail-on",
            "error",
        ],
    );
    assert!(
        out.status.success(),
        "no performance lint is an error: {}",
        text(&out)
    );

    // The table.
    let out = gw.command(&dir, &["db", "advisors", "-o", "table", "--level", "error"]);
    assert!(out.status.success(), "{}", text(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.starts_with("   LEVEL "), "{table}");
    assert!(
        table.contains("| rls_disabled_in_public ")
            && table.contains("0013_rls_disabled_in_public"),
        "{table}"
    );

    // Fixed, the issues are gone.
    gw.sql(
        "alter table public.open_notes enable row level security;
         alter table public.drafts enable row level security;
         drop view public.people;
         alter function public.add(int, int) set search_path = '';
         revoke execute on function public.whoami() from anon, authenticated, public;
         drop index public.posts_title_again;
         drop policy \"own posts\" on public.posts;
         drop policy meta on public.trusted;
         drop extension citext;",
    )
    .await;
    let out = gw.command(&dir, &["db", "advisors", "--fail-on", "warn"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("No issues found"), "{}", text(&out));
    gw.stop();
}

/// With no gateway running and a data directory nobody set up, the database is built first
/// (as `start` would) and then checked.
#[test]
fn advisors_set_up_a_new_local_database_first() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"fresh\"\n"),
        (
            "supabase/migrations/20240101000000_t.sql",
            "create table public.loose (a int);",
        ),
    ]);
    let data = support::scratch_dir("advisors-fresh");
    let out = support::run_cli(&dir, &data, &["db", "advisors", "--level", "info"]);
    let all = lints(&out);
    assert!(
        all.iter().any(|l| l["name"] == "no_primary_key"
            && l["detail"] == "Table `public.loose` does not have a primary key"),
        "{all:#?}"
    );
}
