//! Supabase's wrappers extension (supagate's `extensions/pgrx/wrappers`, wrappers 0.4.4's SQL
//! surface): a migration written as Supabase's documentation shows (the extension, a foreign
//! data wrapper, a server and foreign tables, `import foreign schema`) applies; the handler,
//! validator and meta functions of every wrapper and `wrappers_fdw_stats` are there; the
//! validators require upstream's options with upstream's error texts; a query on a foreign table
//! is refused with "<name> wrapper is not supported in supagate: ..." (feature_not_supported),
//! except Stripe's reads, which work against a local stand-in of its API, and S3's (tested
//! against SeaweedFS in wrappers_s3.rs).
//! Each case is a query and the text of its one value, or words of the error it raises.

use crate::support;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The project whose migration sets Stripe and S3 up as Supabase's documentation does.
fn project() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        support::scratch_project(&[(
            "supabase/migrations/20240101000000_wrappers.sql",
            r#"create extension if not exists wrappers with schema extensions;
               create foreign data wrapper stripe_wrapper
                 handler stripe_fdw_handler
                 validator stripe_fdw_validator;
               create server stripe_server
                 foreign data wrapper stripe_wrapper
                 options (api_key 'sk_test_xxx', api_url 'https://api.stripe.com/v1/');
               create schema stripe;
               create foreign table stripe.customers (
                 id text, email text, name text, description text, created timestamp, attrs jsonb
               ) server stripe_server options (object 'customers', rowid_column 'id');
               create schema stripe_all;
               import foreign schema stripe from server stripe_server into stripe_all;
               create foreign data wrapper s3_wrapper
                 handler s3_fdw_handler
                 validator s3_fdw_validator;
               create server s3_server foreign data wrapper s3_wrapper
                 options (aws_access_key_id 'a', aws_secret_access_key 'b', aws_region 'us-east-1');
               create foreign table public.s3_rows (name text, sex text, age text)
                 server s3_server
                 options (uri 's3://bucket/s3_fdw/rows.csv', format 'csv', has_header 'true');"#,
        )])
    })
}

/// `(query, the text of its one value)`, or `Err(words the error message contains)`.
type Case = (&'static str, Result<&'static str, &'static str>);

const SURFACE_CASES: &[Case] = &[
    (
        "select extversion || ' in ' || extnamespace::regnamespace from pg_extension where extname = 'wrappers'",
        Ok("0.4.4 in extensions"),
    ),
    // Three functions for each of the twelve wrappers 0.4.4 builds.
    (
        "select count(*) from pg_depend d join pg_proc p on p.oid = d.objid
           join pg_extension e on e.oid = d.refobjid and e.extname = 'wrappers'",
        Ok("36"),
    ),
    (
        "select string_agg(p.proname, ' ' order by p.proname) from pg_proc p
           where p.proname like '%_fdw_handler' and p.prorettype = 'fdw_handler'::regtype
             and p.pronamespace = 'extensions'::regnamespace",
        Ok(
            "airtable_fdw_handler auth0_fdw_handler big_query_fdw_handler click_house_fdw_handler cognito_fdw_handler firebase_fdw_handler logflare_fdw_handler mssql_fdw_handler redis_fdw_handler s3_fdw_handler stripe_fdw_handler wasm_fdw_handler",
        ),
    ),
    (
        "select 'extensions.stripe_fdw_validator(text[],oid)'::regprocedure::text",
        Ok("stripe_fdw_validator(text[],oid)"),
    ),
    (
        "select concat_ws(' ', name, version, author, website) from extensions.stripe_fdw_meta()",
        Ok(
            "StripeFdw 0.1.11 Supabase https://github.com/supabase/wrappers/tree/main/wrappers/src/fdw/stripe_fdw",
        ),
    ),
    (
        "select concat_ws(' ', name, version, author) from extensions.click_house_fdw_meta()",
        Ok("ClickHouseFdw 0.1.5 Supabase"),
    ),
    (
        "select concat_ws(' ', name, version, author) from extensions.airtable_fdw_meta()",
        Ok("AirtableFdw 0.1.4 Ankur Goyal"),
    ),
    (
        "select string_agg(column_name || ' ' || data_type, ', ' order by ordinal_position)
           from information_schema.columns
           where table_schema = 'extensions' and table_name = 'wrappers_fdw_stats'",
        Ok(
            "fdw_name text, create_times bigint, rows_in bigint, rows_out bigint, bytes_in bigint, bytes_out bigint, metadata jsonb, created_at timestamp with time zone, updated_at timestamp with time zone",
        ),
    ),
    (
        "select obj_description('extensions.wrappers_fdw_stats'::regclass)",
        Ok("Wrappers Foreign Data Wrapper statistics"),
    ),
    (
        "select count(*) from extensions.wrappers_fdw_stats",
        Ok("0"),
    ),
    // What the migration made.
    (
        "select string_agg(ftoptions::text, ' ') from pg_foreign_table
           where ftrelid = 'stripe.customers'::regclass",
        Ok("{object=customers,rowid_column=id}"),
    ),
    // 0.4.4's wrappers import nothing.
    (
        "select count(*) from pg_class where relnamespace = 'stripe_all'::regnamespace",
        Ok("0"),
    ),
];

const VALIDATOR_CASES: &[Case] = &[
    (
        "create foreign table stripe.bad (id text) server stripe_server options (rowid_column 'id')",
        Err("required option `object` is not specified"),
    ),
    (
        "create foreign table public.bad (name text) server s3_server options (uri 's3://b/k.csv')",
        Err("required option `format` is not specified"),
    ),
    (
        "create foreign table public.bad (name text) server s3_server options (format 'csv')",
        Err("required option `uri` is not specified"),
    ),
    (
        "create foreign data wrapper auth0_wrapper handler auth0_fdw_handler validator auth0_fdw_validator",
        Ok(""),
    ),
    (
        "create server auth0_server foreign data wrapper auth0_wrapper options (url 'https://x.auth0.com/api/v2/users')",
        Err("exactly one of `api_key` or `api_key_id` options must be set"),
    ),
    (
        "create server auth0_server foreign data wrapper auth0_wrapper options (api_key 'k', api_key_id 'i', url 'u')",
        Err("exactly one of `api_key` or `api_key_id` options must be set"),
    ),
    (
        "create server auth0_server foreign data wrapper auth0_wrapper options (api_key 'k')",
        Err("`url` option must be set"),
    ),
    (
        "create server auth0_server foreign data wrapper auth0_wrapper options (api_key 'k', url 'u')",
        Ok(""),
    ),
    (
        "create foreign table public.users (user_id text) server auth0_server options (objects 'users')",
        Err("required option `object` is not specified"),
    ),
    (
        "create foreign data wrapper cognito_wrapper handler cognito_fdw_handler validator cognito_fdw_validator",
        Ok(""),
    ),
    (
        "create server cognito_server foreign data wrapper cognito_wrapper options (region 'us-east-1')",
        Err("both `api_key` and `api_secret_key` options must be set"),
    ),
    (
        "create server cognito_server foreign data wrapper cognito_wrapper options (aws_access_key_id 'a')",
        Err("exactly one of `aws_secret_access_key` or `api_key_id` options must be set"),
    ),
    (
        "create server cognito_server foreign data wrapper cognito_wrapper options (aws_access_key_id 'a', api_key_id 'v')",
        Ok(""),
    ),
    (
        "create foreign data wrapper wasm_wrapper handler wasm_fdw_handler validator wasm_fdw_validator",
        Ok(""),
    ),
    (
        "create server paddle_server foreign data wrapper wasm_wrapper options (fdw_package_name 'supabase:paddle-fdw')",
        Err("required option `fdw_package_url` is not specified"),
    ),
    (
        "create server paddle_server foreign data wrapper wasm_wrapper options (fdw_package_url 'u', fdw_package_name 'n')",
        Err("required option `fdw_package_version` is not specified"),
    ),
    // Wrappers without a validator of their own upstream take any option.
    (
        "create foreign data wrapper redis_wrapper handler redis_fdw_handler validator redis_fdw_validator",
        Ok(""),
    ),
    (
        "create server redis_server foreign data wrapper redis_wrapper options (conn_url 'redis://localhost:6379/')",
        Ok(""),
    ),
    (
        "create foreign table public.redis_list (element text) server redis_server options (src_type 'list', src_key 'list')",
        Ok(""),
    ),
];

const REFUSAL_CASES: &[Case] = &[
    // S3's scans work (wrappers_s3.rs); its writes are refused.
    (
        "insert into public.s3_rows (name) values ('a')",
        Err("S3 wrapper is not supported in supagate: writing is not, the S3 wrapper only reads"),
    ),
    // Stripe's scans work (see below); its writes are refused.
    (
        "insert into stripe.customers (email) values ('a@example.com')",
        Err(
            "Stripe wrapper is not supported in supagate: writing is not, supagate's Stripe wrapper only reads",
        ),
    ),
    (
        "update stripe.customers set name = 'x' where id = 'cus_1'",
        Err("Stripe wrapper is not supported in supagate"),
    ),
    (
        "delete from stripe.customers where id = 'cus_1'",
        Err("Stripe wrapper is not supported in supagate"),
    ),
    ("select 1", Ok("1")),
];

#[tokio::test]
async fn wrappers_installs_with_upstreams_surface() {
    let gw = support::clone_of(project(), &[]).await;
    let client = gw.session_on(&gw.dbname).await;
    support::sql::check(&client, SURFACE_CASES).await;
}

#[tokio::test]
async fn wrappers_validators_require_upstreams_options() {
    let gw = support::clone_of(project(), &[]).await;
    let client = gw.session_on(&gw.dbname).await;
    support::sql::check(&client, VALIDATOR_CASES).await;
    let e = client
        .simple_query("create foreign table stripe.bad (id text) server stripe_server")
        .await
        .expect_err("no object");
    assert_eq!(
        e.code(),
        Some(&tokio_postgres::error::SqlState::FDW_OPTION_NAME_NOT_FOUND),
        "{e:?}"
    );
}

#[tokio::test]
async fn wrappers_refuse_queries_with_a_clear_error() {
    let gw = support::clone_of(project(), &[]).await;
    let client = gw.session_on(&gw.dbname).await;
    support::sql::check(&client, REFUSAL_CASES).await;
    // Every wrapper: a server and a foreign table with the options its validator requires.
    let every: &[(&str, &str, &str, &str)] = &[
        ("airtable", "", "base_id 'b', table_id 't'", "Airtable"),
        ("auth0", "api_key 'k', url 'u'", "object 'users'", "Auth0"),
        ("big_query", "", "table 't'", "BigQuery"),
        ("click_house", "", "table 't'", "ClickHouse"),
        (
            "cognito",
            "aws_access_key_id 'a', api_key_id 'v'",
            "object 'users'",
            "Cognito",
        ),
        ("firebase", "", "object 'auth/users'", "Firebase"),
        ("logflare", "", "endpoint 'e'", "Logflare"),
        ("mssql", "", "table 't'", "SQL Server"),
        ("redis", "", "src_type 'list', src_key 'k'", "Redis"),
        (
            "wasm",
            "fdw_package_url 'u', fdw_package_name 'n', fdw_package_version 'v'",
            "object 'o'",
            "Wasm",
        ),
    ];
    for (name, server, table, label) in every {
        let server = if server.is_empty() {
            String::new()
        } else {
            format!("options ({server})")
        };
        client
            .batch_execute(&format!(
                "create foreign data wrapper {name}_w handler {name}_fdw_handler validator {name}_fdw_validator;
                 create server {name}_s foreign data wrapper {name}_w {server};
                 create foreign table public.{name}_t (id text, attrs jsonb) server {name}_s options ({table});"
            ))
            .await
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let e = client
            .simple_query(&format!("select * from public.{name}_t"))
            .await
            .expect_err("refused");
        let db = e.as_db_error().expect("the server's error");
        assert_eq!(
            db.code(),
            &tokio_postgres::error::SqlState::FEATURE_NOT_SUPPORTED,
            "{name}: {db:?}"
        );
        assert!(
            db.message()
                .starts_with(&format!("{label} wrapper is not supported in supagate: ")),
            "{name}: {db:?}"
        );
    }
}

/// A stand-in for Stripe's API on 127.0.0.1: `GET /v1/customers` lists three customers two to a
/// page (`starting_after`, `has_more`) to the key `sk_test_local`, 401 to any other.
fn stand_in() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let _ = answer(stream);
            });
        }
    });
    port
}

fn answer(stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let target = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut authorized = false;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if h.eq_ignore_ascii_case("authorization: Bearer sk_test_local") {
            authorized = true;
        }
    }
    let customers = [
        serde_json::json!({"id": "cus_1", "object": "customer", "email": "ada@example.com", "name": "Ada", "created": 1_700_000_000, "balance": 0, "delinquent": false, "currency": "usd"}),
        serde_json::json!({"id": "cus_2", "object": "customer", "email": "bob@example.com", "name": null, "created": 1_700_000_100, "balance": -250, "delinquent": true, "currency": "eur"}),
        serde_json::json!({"id": "cus_3", "object": "customer", "email": "cy@example.com", "name": "Cy", "created": 1_700_000_200, "balance": 10, "delinquent": false, "currency": null}),
    ];
    let (status, body) = if !authorized {
        (
            401,
            serde_json::json!({"error": {"message": "Invalid API Key provided"}}),
        )
    } else if target == "/v1/customers?limit=100" {
        (
            200,
            serde_json::json!({"object": "list", "data": [customers[0], customers[1]], "has_more": true}),
        )
    } else if target == "/v1/customers?limit=100&starting_after=cus_2" {
        (
            200,
            serde_json::json!({"object": "list", "data": [customers[2]], "has_more": false}),
        )
    } else {
        (
            404,
            serde_json::json!({"error": {"message": format!("no {target}")}}),
        )
    };
    let body = body.to_string();
    write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn wrappers_stripe_reads_a_local_stand_in() {
    let port = stand_in();
    let gw = support::clone_of(project(), &[]).await;
    let client = gw.session_on(&gw.dbname).await;
    let setup = format!(
        "create server local_stripe foreign data wrapper stripe_wrapper
           options (api_key 'sk_test_local', api_url 'http://127.0.0.1:{port}/v1');
         create foreign table stripe.local_customers (
           id text, email text, name text, created timestamp, balance bigint, delinquent bool,
           attrs jsonb
         ) server local_stripe options (object 'customers');
         create server vault_stripe foreign data wrapper stripe_wrapper
           options (api_key_id '{{id}}', api_url 'http://127.0.0.1:{port}/v1/');
         create server bad_stripe foreign data wrapper stripe_wrapper
           options (api_key 'sk_wrong', api_url 'http://127.0.0.1:{port}/v1');
         create foreign table stripe.bad_customers (id text) server bad_stripe
           options (object 'customers');"
    );
    let id = support::sql::value(
        &client,
        "select vault.create_secret('sk_test_local', 'stripe')::text",
    )
    .await
    .expect("a Vault secret");
    client
        .batch_execute(&setup.replace("{id}", &id))
        .await
        .expect("setup");
    client
        .batch_execute(
            "create foreign table stripe.vault_customers (id text) server vault_stripe
               options (object 'customers')",
        )
        .await
        .expect("vault table");
    let cases: Vec<(String, Result<String, String>)> = vec![
        // This machine's own addresses are refused unless a superuser allows them (supagate
        // sets the setting from --net-local: off for a gateway on loopback).
        (
            "select setting || ' ' || source from pg_settings where name = 'wrappers.supagate_allow_local'".into(),
            Ok("off command line".into()),
        ),
        (
            "select count(*) from stripe.local_customers".into(),
            Err("supagate refuses requests from the database to this machine's own".into()),
        ),
        ("set wrappers.supagate_allow_local = on".into(), Ok("".into())),
        ("select count(*) from stripe.local_customers".into(), Ok("3".into())),
        (
            "select string_agg(concat_ws(' ', id, email, coalesce(name, '-'), created, balance, delinquent), ', ' order by id) from stripe.local_customers".into(),
            Ok("cus_1 ada@example.com Ada 2023-11-14 22:13:20 0 f, cus_2 bob@example.com - 2023-11-14 22:15:00 -250 t, cus_3 cy@example.com Cy 2023-11-14 22:16:40 10 f".into()),
        ),
        (
            "select attrs->>'currency' from stripe.local_customers where id = 'cus_2'".into(),
            Ok("eur".into()),
        ),
        (
            "select count(*) from stripe.local_customers where attrs->'currency' = 'null'::jsonb".into(),
            Ok("1".into()),
        ),
        // A rescan (the inner side of a nested loop) reads the same rows.
        (
            "select count(*) from stripe.local_customers a join stripe.local_customers b on a.balance < b.balance".into(),
            Ok("3".into()),
        ),
        // The key from Vault, by the secret's id.
        ("select string_agg(id, ' ' order by id) from stripe.vault_customers".into(), Ok("cus_1 cus_2 cus_3".into())),
        (
            "select count(*) from stripe.bad_customers".into(),
            Err("request failed: HTTP status 401".into()),
        ),
        (
            "insert into stripe.local_customers (id) values ('cus_4')".into(),
            Err("Stripe wrapper is not supported in supagate".into()),
        ),
        ("select 1".into(), Ok("1".into())),
    ];
    support::sql::check(&client, &cases).await;
    // Only a superuser may allow local requests.
    let anon = gw.session_on(&gw.dbname).await;
    support::sql::check(
        &anon,
        &[
            ("select count(*) from extensions.stripe_fdw_meta()", Ok("1")),
            ("set role anon", Ok("")),
            (
                "set wrappers.supagate_allow_local = on",
                Err("permission denied to set parameter \"wrappers.supagate_allow_local\""),
            ),
        ],
    )
    .await;
}
