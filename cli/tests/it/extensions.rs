//! Extensions in a served database: supagate's Rust extensions (extensions/pgrx, built by
//! scripts/build-extensions and embedded in the binary) with the SQL surface and answers of the
//! upstream extensions (pg_jsonschema 0.3.3, pg_hashids 1.3); plv8, which cannot be built here,
//! saying so; and the distribution's extensions that scripts/setup.sh installs beyond the ones
//! tests/it/project.rs covers (RUM, pg_partman, pgAudit, pgRouting, wal2json). Each case is a query
//! and the text of its one value, or the error it raises. One project creates the extensions in
//! its migration; each test has a copy of its database.

use crate::support;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The project whose migration creates the extensions (as projects do), with a table checked by
/// pg_jsonschema.
fn project() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        support::scratch_project(&[(
            "supabase/migrations/20240101000000_extensions.sql",
            r#"create extension if not exists pg_jsonschema;
               create extension if not exists pg_hashids with schema extensions;
               create extension if not exists rum with schema extensions;
               create schema if not exists partman;
               create extension if not exists pg_partman with schema partman;
               create extension if not exists pgaudit;
               create extension if not exists pgrouting with schema extensions cascade;
               create table public.customer (
                 id serial primary key,
                 metadata json,
                 check (json_matches_schema(
                   '{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "maxLength": 16}}}}',
                   metadata))
               );"#,
        )])
    })
}

/// `(query, the text of its one value)`, or `Err(words the error message contains)`.
type Case = (&'static str, Result<&'static str, &'static str>);

async fn check(gw: &support::Gateway, cases: &[Case]) {
    check_in(gw, "", cases).await
}

/// Runs the cases in one session, after `setup`.
async fn check_in(gw: &support::Gateway, setup: &str, cases: &[Case]) {
    let client = gw.session_on(&gw.dbname).await;
    client.batch_execute(setup).await.expect("setup");
    support::sql::check(&client, cases).await
}

const JSONSCHEMA_CASES: &[Case] = &[
    (
        r#"select json_matches_schema('{"type": "object"}', '{}')"#,
        Ok("t"),
    ),
    (
        r#"select json_matches_schema('{"type": "object"}', '1')"#,
        Ok("f"),
    ),
    (
        r#"select json_matches_schema('{"maxLength": 5}', '"foo"')"#,
        Ok("t"),
    ),
    (
        r#"select json_matches_schema('{"maxLength": 5}', '"foobar"')"#,
        Ok("f"),
    ),
    (
        r#"select jsonb_matches_schema('{"maxLength": 5}', '"foo"'::jsonb)"#,
        Ok("t"),
    ),
    (
        r#"select jsonb_matches_schema('{"maxLength": 5}', '"foobar"'::jsonb)"#,
        Ok("f"),
    ),
    // Strict: a null argument is a null answer.
    (
        r#"select json_matches_schema('{"type": "object"}', null) is null"#,
        Ok("t"),
    ),
    (
        r#"select jsonschema_is_valid('{"type": "object"}')"#,
        Ok("t"),
    ),
    (r#"select jsonschema_is_valid('{"type": "obj"}')"#, Ok("f")),
    (
        r#"select jsonschema_is_valid('{"$schema": "invalid-uri", "type": "string"}')"#,
        Ok("f"),
    ),
    (
        r#"select jsonschema_validation_errors('{"maxLength": 4}', '"foo"')"#,
        Ok("{}"),
    ),
    (
        r#"select jsonschema_validation_errors('{"maxLength": 4}', '"123456789"')"#,
        Ok(r#"{"\"123456789\" is longer than 4 characters"}"#),
    ),
    (
        r#"select array_to_string(jsonschema_validation_errors(
             '{"type": "object", "properties": {"foo": {"type": "string"}, "bar": {"type": "number"}, "baz": {"type": "boolean"}, "additionalProperties": false}}',
             '{"foo": 1, "bar": [], "baz": "1"}'), ' | ')"#,
        Ok(
            r#"[] is not of type "number" | "1" is not of type "boolean" | 1 is not of type "string""#,
        ),
    ),
    // A schema that is not one: the validation errors are its own error; matching fails.
    (
        r#"select cardinality(jsonschema_validation_errors('{"type": "obj"}', '1'))"#,
        Ok("1"),
    ),
    (
        r#"select json_matches_schema('{"type": "obj"}', '1')"#,
        Err("Invalid schema"),
    ),
    // Large numbers keep their precision (the crate's arbitrary-precision feature, as upstream).
    (
        r#"select json_matches_schema('{"maximum": 18446744073709551615}', '18446744073709551616')"#,
        Ok("f"),
    ),
    // The catalogue: upstream's signatures, each immutable, strict and parallel safe.
    (
        "select string_agg(format('%s %s%s%s %s', p.oid::regprocedure, p.provolatile, p.proisstrict, p.proparallel, p.prorettype::regtype), ', ' order by p.proname)
           from pg_proc p join pg_depend d on d.objid = p.oid
           join pg_extension e on e.oid = d.refobjid and e.extname = 'pg_jsonschema'",
        Ok(
            "json_matches_schema(json,json) its boolean, jsonb_matches_schema(json,jsonb) its boolean, jsonschema_is_valid(json) its boolean, jsonschema_validation_errors(json,json) its text[]",
        ),
    ),
];

#[tokio::test]
async fn pg_jsonschema_validates_as_supabases() {
    let gw = support::clone_of(project(), &[]).await;
    check(&gw, JSONSCHEMA_CASES).await;
    check(
        &gw,
        &[
            (
                r#"insert into public.customer (metadata) values ('{"tags": ["vip", "darkmode-ui"]}') returning id"#,
                Ok("1"),
            ),
            (
                r#"insert into public.customer (metadata) values ('{"tags": [1, 3]}')"#,
                Err("violates check constraint \"customer_metadata_check\""),
            ),
            (
                "select extversion from pg_extension where extname = 'pg_jsonschema'",
                Ok("0.3.3"),
            ),
        ],
    )
    .await;
}

const HASHIDS_CASES: &[Case] = &[
    // pg_hashids 1.3's own regression tests.
    ("select id_encode(1001)", Ok("jNl")),
    ("select id_encode(1234567, 'This is my salt')", Ok("Pdzxp")),
    (
        "select id_encode(1234567, 'This is my salt', 10)",
        Ok("PlRPdzxpR7"),
    ),
    (
        "select id_encode(1234567, 'This is my salt', 10, 'abcdefghijABCDxFGHIJ1234567890')",
        Ok("3GJ956J9B9"),
    ),
    ("select id_decode('jNl')", Ok("{1001}")),
    (
        "select id_decode('Pdzxp', 'This is my salt')",
        Ok("{1234567}"),
    ),
    (
        "select id_decode('PlRPdzxpR7', 'This is my salt', 10)",
        Ok("{1234567}"),
    ),
    (
        "select id_decode('3GJ956J9B9', 'This is my salt', 10, 'abcdefghijABCDxFGHIJ1234567890')",
        Ok("{1234567}"),
    ),
    ("select id_decode_once('jNl')", Ok("1001")),
    (
        "select id_decode_once('Pdzxp', 'This is my salt')",
        Ok("1234567"),
    ),
    (
        "select id_decode_once('PlRPdzxpR7', 'This is my salt', 10)",
        Ok("1234567"),
    ),
    (
        "select id_decode_once('3GJ956J9B9', 'This is my salt', 10, 'abcdefghijABCDxFGHIJ1234567890')",
        Ok("1234567"),
    ),
    // Several numbers (hashids.org's examples), arrays, and the 1.0 names.
    ("select id_encode(array[1, 2, 3]::bigint[])", Ok("o2fXhV")),
    (
        "select id_encode(array[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::bigint[], 'this is my salt')",
        Ok("kRHnurhptKcjIDTWC3sx"),
    ),
    (
        "select id_decode('kRHnurhptKcjIDTWC3sx', 'this is my salt')",
        Ok("{1,2,3,4,5,6,7,8,9,10}"),
    ),
    (
        "select id_decode_once('laHquq', 'this is my salt')",
        Ok("1"),
    ),
    ("select id_encode(1, 'this is my salt', 8)", Ok("gB0NV05e")),
    ("select id_encode('{}'::bigint[])", Ok("")),
    ("select hash_encode(1001)", Ok("jNl")),
    (
        "select hash_decode('PlRPdzxpR7', 'This is my salt', 10)",
        Ok("1234567"),
    ),
    // Bigints are unsigned to Hashids: a negative one comes back as it was.
    (
        "select id_decode(id_encode(-1, 's', 5), 's', 5)",
        Ok("{-1}"),
    ),
    (
        "select id_decode_once(id_encode(9223372036854775807))",
        Ok("9223372036854775807"),
    ),
    // Strict: null in, null out.
    ("select id_encode(null::bigint) is null", Ok("t")),
    // Errors, with pg_hashids' texts.
    (
        "select id_encode(1, 'salt', 0, 'abcdefghijklmno')",
        Err("alphabet is too short"),
    ),
    (
        "select id_encode(1, 'salt', 0, 'abcdefghijklmnop q')",
        Err("alphabet contains whitespace characters"),
    ),
    ("select id_decode('jN!')", Err("invalid hash")),
    ("select id_decode_once('')", Err("invalid hash")),
    (
        "select id_encode(array[1, null]::bigint[])",
        Err("null value not allowed for array element"),
    ),
    (
        "select id_encode(1, 'salt', -1)",
        Err("min_length must be between 0 and 1000000, not -1"),
    ),
    // The catalogue: upstream's 20 functions, immutable and strict.
    (
        "select count(*) filter (where p.provolatile = 'i' and p.proisstrict)
           from pg_proc p join pg_depend d on d.objid = p.oid
           join pg_extension e on e.oid = d.refobjid and e.extname = 'pg_hashids'",
        Ok("20"),
    ),
    (
        "select pronamespace::regnamespace::text from pg_proc
           where oid = 'id_decode(text,text,integer,text)'::regprocedure",
        Ok("extensions"),
    ),
];

#[tokio::test]
async fn pg_hashids_makes_and_reads_the_ids_pg_hashids_makes() {
    let gw = support::clone_of(project(), &[]).await;
    check_in(&gw, "set search_path = public, extensions", HASHIDS_CASES).await;
}

#[tokio::test]
async fn plv8_says_it_cannot_be_had_here() {
    let gw = support::clone_of(project(), &[]).await;
    check(
        &gw,
        &[(
            "create extension plv8",
            Err("plv8 is not available in supagate: it needs the V8 engine, which cannot be built here"),
        )],
    )
    .await;
    // A project whose migration creates it stops at start with those words and what to do.
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_js.sql",
        "create extension if not exists plv8;
         create function public.js() returns int language plv8 as $$ return 1 $$;",
    )]);
    let out = support::run_cli(&dir, &dir.join("data"), &["start"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("20240101000000_js.sql failed")
            && text.contains("plv8 is not available in supagate: it needs the V8 engine")
            && text.contains("Rewrite the plv8 functions in plpgsql or SQL"),
        "{text}"
    );
}

const DISTRIBUTION_CASES: &[Case] = &[
    // RUM: full text search ordered by distance, from the index.
    (
        "create table public.docs (body tsvector);
         insert into public.docs values (to_tsvector('simple', 'the quick brown fox')),
           (to_tsvector('simple', 'a lazy dog'));
         create index on public.docs using rum (body extensions.rum_tsvector_ops);
         set enable_seqscan = off;
         select count(*) from public.docs where body @@ to_tsquery('simple', 'fox')",
        Ok("1"),
    ),
    // pg_partman: a partition set managed by it.
    (
        "create table public.events (at timestamptz not null) partition by range (at);
         select partman.create_parent('public.events', 'at', 'native', 'daily')",
        Ok("t"),
    ),
    (
        "select count(*) > 1 from pg_inherits where inhparent = 'public.events'::regclass",
        Ok("t"),
    ),
    // pgAudit: preloaded, so the extension exists and its settings are there.
    ("select current_setting('pgaudit.log')", Ok("none")),
    // pgRouting: the shortest path over a small graph.
    (
        "select string_agg(node::text, ',' order by seq) from extensions.pgr_dijkstra(
           'select * from (values (1, 1, 2, 1.0, -1.0), (2, 2, 3, 1.0, -1.0), (3, 1, 3, 5.0, -1.0))
              as e(id, source, target, cost, reverse_cost)', 1, 3)",
        Ok("1,2,3"),
    ),
    // wal2json: logical decoding of a change as JSON (where the server allows only the output
    // plugins output_plugin_libraries names, supagate names it there).
    (
        "select count(*) from pg_create_logical_replication_slot('t_wal2json', 'wal2json')",
        Ok("1"),
    ),
    // (Each case is one transaction: the change is committed before it is read.)
    (
        "create table public.w (id int primary key); insert into public.w values (7) returning id",
        Ok("7"),
    ),
    (
        "select bool_or(data like '%\"table\":\"w\"%')
           from pg_logical_slot_get_changes('t_wal2json', null, null)",
        Ok("t"),
    ),
    ("select pg_drop_replication_slot('t_wal2json')", Ok("")),
];

/// index_advisor 0.2 over HypoPG: the advice and costs upstream's README shows for its example
/// schema, a comment with a semicolon ignored, a second statement and a planning error answered
/// in `errors`, and the caller's prepared statements, hypothetical indexes and plan cache mode
/// left as they were.
const INDEX_ADVISOR_SETUP: &str = "
    create extension index_advisor with schema extensions cascade;
    set search_path = public, extensions;
    create table author (id serial primary key, name text not null);
    create table publisher (id serial primary key, name text not null, corporate_address text);
    create table book (id serial primary key, author_id int not null references author (id),
      publisher_id int not null references publisher (id), title text);
    create table review (id serial primary key, book_id int references book (id), body text not null);
    prepare callers_own as select 1;";

const INDEX_ADVISOR_CASES: &[Case] = &[
    (
        "select array_to_string(index_statements, '; ') || ' | ' || concat_ws(' ', startup_cost_before,
           startup_cost_after, total_cost_before, total_cost_after) || ' | ' || cardinality(errors)
         from index_advisor('
           select book.id, book.title, publisher.name, author.name, review.body
           from book join publisher on book.publisher_id = publisher.id
             join author on book.author_id = author.id
             join review on book.id = review.book_id -- a comment; with a semicolon
           where author.id = $1 and publisher.id = $2 /* and another; */ ;')",
        Ok("CREATE INDEX ON public.book USING btree (author_id); \
            CREATE INDEX ON public.book USING btree (publisher_id); \
            CREATE INDEX ON public.review USING btree (book_id) | 27.26 12.77 68.48 42.37 | 0"),
    ),
    (
        "select index_statements::text || errors::text from index_advisor('select 1; select 2')",
        Ok(r#"{}{"Query must not contain a semicolon"}"#),
    ),
    (
        "select errors::text from index_advisor('select * from nowhere where id = $1')",
        Ok(r#"{"relation \"nowhere\" does not exist"}"#),
    ),
    (
        "select string_agg(name, ',') from pg_prepared_statements",
        Ok("callers_own"),
    ),
    ("select count(*) from hypopg()", Ok("0")),
    ("show plan_cache_mode", Ok("auto")),
    (
        "select extversion from pg_extension where extname = 'index_advisor'",
        Ok("0.2.0"),
    ),
];

#[tokio::test]
async fn index_advisor_advises_as_supabases() {
    let gw = support::clone_of(project(), &[]).await;
    check_in(&gw, INDEX_ADVISOR_SETUP, INDEX_ADVISOR_CASES).await;
}

#[tokio::test]
async fn the_distributions_other_extensions_work() {
    let gw = support::clone_of(project(), &[]).await;
    check(&gw, DISTRIBUTION_CASES).await;
}

#[tokio::test]
async fn an_extension_s_error_carries_no_rust_backtrace() {
    // pgrx appends a backtrace to an error's DETAIL when RUST_BACKTRACE is set in the server's
    // environment; supagate starts PostgreSQL without it, whatever its own environment says.
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_vector.sql",
        "create extension vector with schema extensions;",
    )]);
    let gw = support::start_project_env(&dir, &[], &[("RUST_BACKTRACE", "1")]);
    let db = gw.session_on(&gw.dbname).await;
    let e = db
        .simple_query("select '[1,2]'::extensions.vector('a')")
        .await
        .expect_err("a typmod that is no number");
    let e = e.as_db_error().expect("the server's error");
    assert!(
        e.message()
            .contains("invalid input syntax for type integer"),
        "{e:?}"
    );
    assert!(
        e.detail().is_none_or(|d| !d.contains("backtrace")),
        "{:?}",
        e.detail()
    );
}
