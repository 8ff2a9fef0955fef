//! pg_tle (supagate's, extensions/pgrx/pg_tle) in a served database: a project's migration
//! installs a Trusted Language Extension with two versions and an update path through
//! `pgtle.install_extension`, `install_update_path` and `install_extension_version_sql`, then
//! creates, updates, drops and creates it again with plain `create / alter / drop extension`
//! (as projects do after `dbdev.install`); the tests read the result and run upstream's error
//! cases on a copy of that database.

use crate::support;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The migration every project here applies.
const MIGRATION: &str = r#"create extension if not exists pg_tle;
               select pgtle.install_extension(
                 'supagate_tle_test', '1.0', 'A TLE for the tests',
                 $_tle_$
                   create function tle_answer() returns int language sql immutable as $$ select 42 $$;
                 $_tle_$
               );
               select pgtle.install_update_path('supagate_tle_test', '1.0', '1.1', $_tle_$
                 create or replace function tle_answer() returns int language sql immutable as $$ select 43 $$;
                 create function tle_double(x int) returns int language sql immutable as $$ select x * 2 $$;
               $_tle_$);
               select pgtle.install_extension_version_sql('supagate_tle_test', '1.1', $_tle_$
                 create function tle_answer() returns int language sql immutable as $$ select 43 $$;
                 create function tle_double(x int) returns int language sql immutable as $$ select x * 2 $$;
               $_tle_$);
               create extension supagate_tle_test;
               alter extension supagate_tle_test update to '1.1';
               drop extension supagate_tle_test;
               create extension supagate_tle_test version '1.0';"#;

fn project() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        support::scratch_project(&[("supabase/migrations/20240101000000_tle.sql", MIGRATION)])
    })
}

type Case = (&'static str, Result<&'static str, &'static str>);

async fn check(gw: &support::Gateway, cases: &[Case]) {
    let client = gw.session_on(&gw.dbname).await;
    support::sql::check(&client, cases).await
}

const LIFECYCLE: &[Case] = &[
    // What the migration left: 1.0 created, a member of its extension, pg_tle required.
    (
        "select extversion from pg_extension where extname = 'supagate_tle_test'",
        Ok("1.0"),
    ),
    ("select tle_answer()", Ok("42")),
    (
        "select count(*) from pg_depend d join pg_extension e on e.oid = d.refobjid \
         where e.extname = 'supagate_tle_test' and d.deptype = 'e'",
        Ok("1"),
    ),
    (
        "select string_agg(r.extname, ',') from pg_depend d \
         join pg_extension e on e.oid = d.objid join pg_extension r on r.oid = d.refobjid \
         where e.extname = 'supagate_tle_test' and d.classid = 'pg_extension'::regclass",
        Ok("pg_tle"),
    ),
    // The catalog functions.
    (
        "select format('%s %s %s', name, default_version, comment) from pgtle.available_extensions()",
        Ok("supagate_tle_test 1.0 A TLE for the tests"),
    ),
    (
        "select string_agg(format('%s %s %s %s %s %s', name, version, superuser, trusted, \
         relocatable, requires), '; ' order by version) from pgtle.available_extension_versions()",
        Ok("supagate_tle_test 1.0 f f f {pg_tle}; supagate_tle_test 1.1 f f f {pg_tle}"),
    ),
    (
        "select string_agg(format('%s>%s:%s', source, target, path), ' ' order by source) \
         from pgtle.extension_update_paths('supagate_tle_test')",
        Ok("1.0>1.1:1.0--1.1 1.1>1.0:"),
    ),
    (
        "select pgtle.\"supagate_tle_test.control\"() like '%default_version = ''1.0''%'",
        Ok("t"),
    ),
    // The control and script functions depend on pg_tle.
    (
        "drop extension pg_tle",
        Err("cannot drop extension pg_tle because other objects depend on it"),
    ),
    // Plain ALTER EXTENSION … UPDATE (to the default version, then the one named).
    (
        "select pgtle.set_default_version('supagate_tle_test', '1.1')",
        Ok("t"),
    ),
    ("alter extension supagate_tle_test update", Ok("")),
    (
        "select extversion from pg_extension where extname = 'supagate_tle_test'",
        Ok("1.1"),
    ),
    ("select tle_answer() + tle_double(2)", Ok("47")),
    (
        "select count(*) from pg_depend d join pg_extension e on e.oid = d.refobjid \
         where e.extname = 'supagate_tle_test' and d.deptype = 'e'",
        Ok("2"),
    ),
    (
        "alter extension supagate_tle_test update to '1.0'",
        Err(
            "extension \"supagate_tle_test\" has no update path from version \"1.1\" to version \"1.0\"",
        ),
    ),
    // DROP, then CREATE at the new default version.
    ("drop extension supagate_tle_test", Ok("")),
    (
        "select tle_answer()",
        Err("function tle_answer() does not exist"),
    ),
    ("create extension supagate_tle_test", Ok("")),
    ("select tle_double(21)", Ok("42")),
    ("drop extension supagate_tle_test", Ok("")),
    // requires: another extension, created by CASCADE from the installation's own files.
    (
        "select pgtle.install_extension('supagate_tle_needs', '0.1', 'needs isn', \
         'create function tle_isbn() returns isbn language sql as $$ select ''978-0-393-04002-9''::isbn $$;', \
         '{isn}')",
        Ok("t"),
    ),
    (
        "create extension supagate_tle_needs",
        Err("required extension \"isn\" is not installed"),
    ),
    ("create extension supagate_tle_needs cascade", Ok("")),
    ("select tle_isbn() is not null", Ok("t")),
    ("drop extension supagate_tle_needs", Ok("")),
    (
        "select pgtle.uninstall_extension('supagate_tle_needs')",
        Ok("t"),
    ),
    (
        "create extension supagate_tle_needs",
        Err("extension \"supagate_tle_needs\" is not available"),
    ),
    // A script may read pg_tle's catalog while it is being created.
    (
        "select pgtle.install_extension('supagate_tle_nested', '1.0', 'reads the catalog', \
         'create table tle_seen as select string_agg(name, '','' order by name) names \
          from pgtle.available_extensions();')",
        Ok("t"),
    ),
    ("create extension supagate_tle_nested", Ok("")),
    (
        "select names from tle_seen",
        Ok("supagate_tle_nested,supagate_tle_test"),
    ),
    ("select count(*) from pgtle.available_extensions()", Ok("2")),
];

#[tokio::test]
async fn a_tle_is_created_updated_and_dropped_with_plain_extension_commands() {
    let gw = support::clone_of(project(), &[]).await;
    check(&gw, LIFECYCLE).await;
}

/// The same on PostgreSQL 17 (npm's build, as `scripts/test` installs it; pg_tle built from
/// pgrx's bindings for 17).
#[tokio::test]
async fn a_tle_works_on_postgres_17() {
    let dir = support::scratch_project(&[
        (
            "supabase/config.toml",
            "project_id = \"tle17\"\n[db]\nmajor_version = 17\n",
        ),
        ("supabase/migrations/20240101000000_tle.sql", MIGRATION),
    ]);
    let gw = support::start_project(&dir, &[]);
    check(
        &gw,
        &[(
            "select current_setting('server_version_num')::int >= 170000",
            Ok("t"),
        )],
    )
    .await;
    check(&gw, LIFECYCLE).await;
    gw.stop();
}

const ERRORS: &[Case] = &[
    (
        "select pgtle.install_extension('supagate_tle_test', '1.0', 'again', 'select 1')",
        Err("extension \"supagate_tle_test\" already installed"),
    ),
    (
        "select pgtle.install_extension('plpgsql', '1.0', 'x', 'select 1')",
        Err("control file already exists for the plpgsql extension"),
    ),
    (
        "select pgtle.install_extension('bad--name', '1.0', 'x', 'select 1')",
        Err("invalid extension name: \"bad--name\""),
    ),
    (
        "select pgtle.install_extension('tle_x', '-1', 'x', 'select 1')",
        Err("invalid extension version name: \"-1\""),
    ),
    (
        "select pgtle.install_extension(null, '1.0', 'x', 'select 1')",
        Err("\"name\" is a required argument"),
    ),
    (
        "select pgtle.install_extension('tle_x', '1.0', null, 'select 1')",
        Err("\"description\" is a required argument"),
    ),
    (
        "select pgtle.install_extension('tle_x', '1.0', 'x', 'select $_pgtle_i_$')",
        Err("invalid character in extension definition"),
    ),
    (
        "select pgtle.install_update_path('supagate_tle_test', '1.0', '1.1', 'select 1')",
        Err("extension \"supagate_tle_test\" update path \"1.0-1.1\" already installed"),
    ),
    (
        "select pgtle.install_update_path('supagate_tle_test', '1.0', '1.2', 'select $_pgtle_o_$')",
        Err("invalid character in extension update definition"),
    ),
    (
        "select pgtle.install_extension_version_sql('tle_none', '1.0', 'select 1')",
        Err(
            "could not find control function \"tle_none.control\" for extension tle_none in schema pgtle",
        ),
    ),
    (
        "select pgtle.install_extension_version_sql('supagate_tle_test', '1.1', 'select 1')",
        Err("version \"1.1\" of extension \"supagate_tle_test\" already installed"),
    ),
    (
        "select pgtle.set_default_version('supagate_tle_test', '9.9')",
        Err("extension and version do not exist"),
    ),
    (
        "select pgtle.set_default_version(null, '1.0')",
        Err("\"name\" is a required argument."),
    ),
    (
        "select pgtle.uninstall_extension('tle_none')",
        Err("Extension tle_none does not exist"),
    ),
    (
        "select pgtle.uninstall_extension_if_exists('tle_none')",
        Ok("f"),
    ),
    (
        "select pgtle.uninstall_update_path('supagate_tle_test', '1.0', '2.0')",
        Err("Extension supagate_tle_test does not exist"),
    ),
    (
        "select pgtle.uninstall_update_path_if_exists('supagate_tle_test', '1.0', '2.0')",
        Ok("f"),
    ),
    (
        "select pgtle.uninstall_extension('supagate_tle_test', '1.0')",
        Err(
            "Can not uninstall default version of extension supagate_tle_test, use set_default_version to update the default to another available version and retry",
        ),
    ),
    // Uninstalling 1.1 takes its script and the update path to it; the created 1.0 stays.
    (
        "select pgtle.uninstall_extension('supagate_tle_test', '1.1')",
        Ok("t"),
    ),
    (
        "select string_agg(version, ',') from pgtle.available_extension_versions()",
        Ok("1.0"),
    ),
    (
        "select count(*) from pgtle.extension_update_paths('supagate_tle_test') where path is not null",
        Ok("0"),
    ),
    ("select tle_answer()", Ok("42")),
    (
        "select pgtle.uninstall_extension('supagate_tle_test', '2.0')",
        Err("Version 2.0 of extension supagate_tle_test is not installed"),
    ),
    // Managing is pgtle_admin's; reading is everyone's.
    (
        "set role authenticated; select pgtle.install_extension('tle_x', '1.0', 'x', 'select 1')",
        Err("permission denied for function install_extension"),
    ),
    (
        "set role authenticated; select count(*) from pgtle.available_extensions()",
        Ok("1"),
    ),
    (
        "reset role; select pgtle.uninstall_extension('supagate_tle_test')",
        Ok("t"),
    ),
    ("select count(*) from pgtle.available_extensions()", Ok("0")),
    // Uninstalling leaves the created extension (upstream: DROP EXTENSION is the user's).
    (
        "select extversion from pg_extension where extname = 'supagate_tle_test'",
        Ok("1.0"),
    ),
];

#[tokio::test]
async fn pg_tle_refuses_as_upstream_does() {
    let gw = support::clone_of(project(), &[]).await;
    check(&gw, ERRORS).await;
}

/// Features are recorded (and their functions kept from being dropped); supagate does not run
/// passcheck or clientauth functions.
const FEATURES: &[Case] = &[
    (
        "create function public.tle_passcheck(username text, password text, \
         password_type pgtle.password_types, valid_until timestamptz, valid_null boolean) \
         returns void language plpgsql as $$ begin end $$",
        Ok(""),
    ),
    (
        "select pgtle.register_feature('public.tle_passcheck', 'passcheck')",
        Ok(""),
    ),
    (
        "select pgtle.register_feature_if_not_exists('public.tle_passcheck', 'passcheck')",
        Ok("f"),
    ),
    (
        "select format('%s %s %s', feature, schema_name, proname) from pgtle.feature_info",
        Ok("passcheck public tle_passcheck"),
    ),
    (
        "drop function public.tle_passcheck",
        Err("Function is referenced in pgtle.feature_info"),
    ),
    (
        "select pgtle.unregister_feature('public.tle_passcheck', 'passcheck')",
        Ok(""),
    ),
    (
        "select pgtle.unregister_feature('public.tle_passcheck', 'passcheck')",
        Err("Could not unregister \"tle_passcheck\": does not exist."),
    ),
    (
        "select pgtle.unregister_feature_if_exists('public.tle_passcheck', 'passcheck')",
        Ok("f"),
    ),
    ("drop function public.tle_passcheck", Ok("")),
];

#[tokio::test]
async fn features_are_registered_as_upstream_records_them() {
    let gw = support::clone_of(project(), &[]).await;
    check(&gw, FEATURES).await;
}

/// A control function written into pgtle by hand (pgtle_admin may) cannot make a TLE's script
/// run as a superuser, nor point at other files: only a TLE's own keys are read.
const FORGED: &[Case] = &[
    (
        "create function pgtle.\"supagate_tle_forged.control\"() returns text language sql as \
         $$ select 'default_version = ''1.0''' || chr(10) || 'trusted = true' || chr(10) \
         || 'superuser = true' || chr(10) || 'directory = ''/etc''' || chr(10) \
         || 'comment = E''back\\\\slash''' $$",
        Ok(""),
    ),
    (
        "create function pgtle.\"supagate_tle_forged--1.0.sql\"() returns text language sql as \
         $$ select 'create table tle_forged as select 1 one' $$",
        Ok(""),
    ),
    (
        "create function pgtle.\"supagate_tle_forged--1.0.control\"() returns text language sql \
         as $$ select 'superuser = true' $$",
        Ok(""),
    ),
    (
        "select format('%s %s %s', superuser, trusted, comment) from pgtle.available_extension_versions() \
         where name = 'supagate_tle_forged'",
        Ok("f f back\\slash"),
    ),
    ("create extension supagate_tle_forged", Ok("")),
    ("select one from tle_forged", Ok("1")),
];

#[tokio::test]
async fn a_hand_written_control_function_gets_no_more_than_a_tle() {
    let gw = support::clone_of(project(), &[]).await;
    check(&gw, FORGED).await;
}
