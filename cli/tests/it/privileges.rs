//! Who may use what, as in a Supabase database: extensions belong to `supabase_admin`, so an
//! app's default privileges do not reach them (pgTAP runs as `authenticated` in an app that
//! revoked PUBLIC's EXECUTE); the API roles' default privileges are set once, when the database
//! is set up, and what the app's migrations decide stands across restarts and later migrations.

use crate::support;
use serde_json::json;
use support::{Api, Gateway, scratch_project, start_on};

/// The hardening real apps write in their first migration: nothing new in `public` is callable
/// by PUBLIC or the API roles unless granted.
const LOCKED_DOWN: &str = "
alter default privileges revoke execute on functions from public;
alter default privileges in schema public revoke execute on functions from anon, authenticated;

create table public.todos (
  id bigint generated always as identity primary key,
  owner uuid not null default auth.uid(),
  task text not null
);
alter table public.todos enable row level security;
create policy \"Owners read their todos\" on public.todos
  for select to authenticated using (owner = (select auth.uid()));
";

/// A pgTAP file as `supabase test db` runs it: the test helpers' way of acting as a user.
const TODOS_TEST: &str = "
begin;
select plan(3);
insert into public.todos (owner, task) values
  ('00000000-0000-0000-0000-00000000000a', 'water the ferns'),
  ('00000000-0000-0000-0000-00000000000b', 'prune the roses');
set local role authenticated;
set local request.jwt.claims = '{\"sub\": \"00000000-0000-0000-0000-00000000000a\", \"role\": \"authenticated\"}';
select results_eq('select task from public.todos', array['water the ferns'], 'a user sees their own todo only');
select row_eq('select count(*)::int from public.todos', row(1), 'one row');
select is_empty('select 1 from public.todos where task = ''prune the roses''', 'not the other user''s');
select * from finish();
rollback;
";

/// Runs a pgTAP file as the Supabase CLI's `test db` does (pgTAP enabled by the `postgres`
/// login, then dropped) and returns its TAP lines.
async fn pg_tap(gw: &Gateway, file: &str) -> Vec<String> {
    gw.sql("create extension if not exists pgtap with schema extensions")
        .await;
    let rows = gw.sql(file).await;
    gw.sql("drop extension if exists pgtap").await;
    rows.into_iter().flatten().flatten().collect()
}

#[tokio::test]
async fn extensions_belong_to_supabase_admin_so_pgtap_runs_as_authenticated() {
    let dir = scratch_project(&[("supabase/migrations/20240101000000_todos.sql", LOCKED_DOWN)]);
    let gw = support::start_project(&dir, &[]);
    let tap = pg_tap(&gw, TODOS_TEST).await;
    assert_eq!(
        tap,
        [
            "1..3",
            "ok 1 - a user sees their own todo only",
            "ok 2 - one row",
            "ok 3 - not the other user's",
        ]
    );
    // Created by a migration too, with CASCADE, and by the platform itself.
    gw.sql("create extension earthdistance cascade").await;
    let owners = gw
        .sql(
            "select extname, extowner::regrole::text from pg_extension
             where extname in ('pgcrypto', 'uuid-ossp', 'cube', 'earthdistance') order by 1",
        )
        .await;
    let want = |n: &str| vec![Some(n.to_string()), Some("supabase_admin".to_string())];
    assert_eq!(
        owners,
        [
            want("cube"),
            want("earthdistance"),
            want("pgcrypto"),
            want("uuid-ossp")
        ]
    );
    // The app's revocation reaches its own functions.
    gw.sql("create function public.mine() returns int language sql as 'select 1'")
        .await;
    let can = gw
        .sql("select has_function_privilege('authenticated', 'public.mine()', 'execute'),
                     has_function_privilege('authenticated', 'extensions.gen_random_uuid()', 'execute')")
        .await;
    assert_eq!(can, [[Some("f".to_string()), Some("t".to_string())]]);
}

async fn rpc(api: Api<'_>) -> support::Reply {
    api.send("POST", "/rest/v1/rpc/todo_stats", &[], Some("{}"))
        .await
}

#[tokio::test]
async fn an_apps_privilege_decisions_stand_across_restarts_and_later_migrations() {
    let dir = scratch_project(&[("supabase/migrations/20240101000000_todos.sql", LOCKED_DOWN)]);
    let data = dir.join("data");
    start_on(&dir, &data, &[]).stop();
    std::fs::write(
        dir.join("supabase/migrations/20240102000000_stats.sql"),
        "create function public.todo_stats() returns bigint language sql security definer
           set search_path = '' as 'select count(*) from public.todos';
         grant execute on function public.todo_stats() to authenticated;",
    )
    .unwrap();
    let gw = start_on(&dir, &data, &[]);
    let anon = rpc(Api::anon(&gw)).await;
    assert_eq!(anon.status, 401, "{}", anon.text);
    assert_eq!(anon.json()["code"], "42501");
    let user = rpc(Api::user(&gw, "00000000-0000-0000-0000-00000000000a")).await;
    assert_eq!((user.status, user.json()), (200, json!(0)));
    // Once more, restarted with nothing new.
    gw.stop();
    let gw = start_on(&dir, &data, &[]);
    let anon = rpc(Api::anon(&gw)).await;
    assert_eq!(anon.status, 401, "{}", anon.text);
}

#[tokio::test]
async fn auto_expose_new_tables_false_leaves_new_tables_to_explicit_grants() {
    let dir = scratch_project(&[
        (
            "supabase/config.toml",
            "[api]\nauto_expose_new_tables = false\n",
        ),
        (
            "supabase/migrations/20240101000000_tables.sql",
            "create table public.hidden (id int);
             create table public.shown (id int);
             grant select on public.shown to anon;",
        ),
    ]);
    let gw = support::start_project(&dir, &[]);
    let anon = Api::anon(&gw);
    assert_eq!(anon.get("/rest/v1/shown").await.status, 200);
    let hidden = anon.get("/rest/v1/hidden").await;
    assert_eq!(hidden.status, 401, "{}", hidden.text);
    assert_eq!(hidden.json()["code"], "42501");
}
