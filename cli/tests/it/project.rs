//! Project folders as the Supabase CLI reads them: config.toml, migrations, seeds; the CLI's
//! commands (status, gen types, db reset, migration new/list, users create); failures that stop
//! start with a clear message and leave the database as it was.

use crate::support;
use std::process::Command;
use support::{Api, repo_root};

use support::run_cli as supagate;

fn text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[tokio::test]
async fn status_gen_types_and_db_reset_of_a_running_project() {
    let gw = support::start(&[]);
    let root = repo_root();
    // status prints what start announced.
    let out = gw.command(&root, &["status", "-o", "json"]);
    assert!(out.status.success(), "{}", text(&out));
    let status: std::collections::BTreeMap<String, String> =
        serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status, gw.status);
    for key in [
        "API_URL",
        "REST_URL",
        "DB_URL",
        "ANON_KEY",
        "SERVICE_ROLE_KEY",
        "JWT_SECRET",
        "PUBLISHABLE_KEY",
        "SECRET_KEY",
        "STUDIO_URL",
        "STUDIO_TOKEN",
    ] {
        assert!(status.contains_key(key), "{key}");
    }
    let env = gw.command(&root, &["status", "-o", "env"]);
    assert!(String::from_utf8_lossy(&env.stdout).contains(&format!("API_URL=\"{}\"", gw.url)));
    let toml = gw.command(&root, &["status", "-o", "toml"]);
    let toml: std::collections::BTreeMap<String, String> =
        toml::from_str(&String::from_utf8_lossy(&toml.stdout)).unwrap();
    assert_eq!(toml, gw.status);
    let yaml = gw.command(&root, &["status", "-o", "yaml"]);
    let yaml: std::collections::BTreeMap<String, String> = String::from_utf8_lossy(&yaml.stdout)
        .lines()
        .filter_map(|l| l.split_once(": "))
        // A quoted scalar is YAML's double-quoted form, which JSON reads.
        .map(|(k, v)| {
            let v = match v.starts_with('"') {
                true => serde_json::from_str(v).unwrap(),
                false => v.to_string(),
            };
            (k.to_string(), v)
        })
        .collect();
    assert_eq!(yaml, gw.status);

    // The tables, read the ways real setup scripts read the CLI's: cells split on "│" …
    let pretty = gw.command(&root, &["status"]);
    assert!(pretty.status.success(), "{}", text(&pretty));
    assert!(
        String::from_utf8_lossy(&pretty.stderr).contains("local development setup is running.")
    );
    let tables = String::from_utf8_lossy(&pretty.stdout).to_string();
    assert!(!tables.contains('\x1b'), "no colours off a terminal");
    let cell = |label: &str| {
        tables.lines().find_map(|l| {
            let cells: Vec<&str> = l
                .split('│')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            (cells.len() == 2 && cells[0] == label).then(|| cells[1].to_string())
        })
    };
    for (label, key) in [
        ("Project URL", "API_URL"),
        ("REST", "REST_URL"),
        ("URL", "DB_URL"),
        ("Mailpit", "MAILPIT_URL"),
        ("Publishable", "PUBLISHABLE_KEY"),
        ("Secret", "SECRET_KEY"),
    ] {
        assert_eq!(cell(label).as_ref(), status.get(key), "{label}\n{tables}");
    }
    // Studio's row is the link a developer opens: its URL with the secret of this start.
    assert_eq!(
        cell("Studio"),
        Some(format!(
            "{}/?token={}",
            status["STUDIO_URL"], status["STUDIO_TOKEN"]
        )),
        "{tables}"
    );
    // … and with awk.
    let mut awk = Command::new("awk")
        .args([
            "-F",
            "│",
            "/│ Publishable/ { gsub(/ /, \"\", $3); print $3 }",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    awk.stdin
        .take()
        .unwrap()
        .write_all(tables.as_bytes())
        .unwrap();
    let key = awk.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&key.stdout).trim(),
        status["PUBLISHABLE_KEY"]
    );

    // The committed types of the shop's front end are what the schema generates.
    let types = gw.command(&root, &["gen", "types", "typescript", "--local"]);
    assert!(types.status.success(), "{}", text(&types));
    let committed =
        std::fs::read_to_string(root.join("frontend/src/lib/database.types.ts")).unwrap();
    assert!(
        String::from_utf8_lossy(&types.stdout) == committed,
        "frontend/src/lib/database.types.ts is stale: regenerate it with \
         `supagate gen types typescript > frontend/src/lib/database.types.ts`"
    );

    // db reset: back to migrations + seed, while the gateway keeps serving.
    let svc = Api::service(&gw);
    let r = svc
        .send(
            "POST",
            "/rest/v1/categories",
            &[],
            Some(r#"{"name":"Temporary","slug":"temporary"}"#),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    let reset = gw.command(&root, &["db", "reset"]);
    assert!(reset.status.success(), "{}", text(&reset));
    assert!(String::from_utf8_lossy(&reset.stdout).contains("Reset the database of bluebell-sage"));
    let r = Api::anon(&gw)
        .get("/rest/v1/categories?select=slug&slug=eq.temporary")
        .await;
    assert_eq!((r.status, r.text.as_str()), (200, "[]"));
    let r = Api::anon(&gw).get("/rest/v1/categories?select=slug").await;
    assert_eq!(r.json().as_array().unwrap().len(), 8, "the seed is back");
}

#[tokio::test]
async fn an_empty_project_has_the_platform_and_no_public_table() {
    let dir = support::scratch_project(&[]);
    let gw = support::start_project(&dir, &[]);
    let rows = gw
        .sql("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'")
        .await;
    assert_eq!(rows[0][0].as_deref(), Some("0"));
    let rows = gw
        .sql("SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extnamespace = 'extensions'::regnamespace")
        .await;
    assert_eq!(rows[0][0].as_deref(), Some("pg_net,pgcrypto,uuid-ossp"));
    // Database webhooks and Vault, as a Supabase database has them from the start.
    let rows = gw
        .sql(
            "SELECT to_regprocedure('supabase_functions.http_request()') IS NOT NULL,
                     to_regclass('vault.decrypted_secrets') IS NOT NULL",
        )
        .await;
    assert_eq!(rows[0], [Some("t".to_string()), Some("t".to_string())]);
    for role in [
        "anon",
        "authenticated",
        "service_role",
        "authenticator",
        "supabase_admin",
        "supabase_auth_admin",
        "supabase_storage_admin",
        "dashboard_user",
    ] {
        let r = gw
            .sql(&format!("SELECT 1 FROM pg_roles WHERE rolname = '{role}'"))
            .await;
        assert_eq!(r.len(), 1, "role {role}");
    }
    let r = gw.sql("SELECT setconfig FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname = 'anon'").await;
    assert_eq!(r[0][0].as_deref(), Some("{statement_timeout=3s}"));
    let r = Api::anon(&gw).get("/rest/v1/").await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = Api::anon(&gw).get("/rest/v1/products").await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["code"], "PGRST205");
}

#[tokio::test]
async fn a_failing_migration_stops_start_and_leaves_the_database_as_it_was() {
    let dir = support::scratch_project(&[
        (
            "supabase/migrations/20240101000000_first.sql",
            "create table public.a (id int);",
        ),
        (
            "supabase/migrations/20240102000000_second.sql",
            "create table public.b (id int);\n\ninsert into public.nope values (1);\n",
        ),
    ]);
    // A new embedded database: nothing is created at all.
    let data = dir.join("data");
    let out = supagate(&dir, &data, &["start"]);
    assert!(!out.status.success());
    let msg = text(&out);
    assert!(
        msg.contains("supabase/migrations/20240102000000_second.sql failed")
            && msg.contains("relation \"public.nope\" does not exist (SQLSTATE 42P01)")
            && msg.contains("at line 3"),
        "{msg}"
    );
    // An existing external database: the files before the failing one stay applied.
    let gw = support::shop().await;
    gw.sql("CREATE DATABASE migrate_fail TEMPLATE template0")
        .await;
    let url = format!(
        "postgresql://postgres@/migrate_fail?host={}&port=5432",
        gw.socket_dir.display()
    );
    let out = supagate(&dir, &dir.join("data2"), &["--database-url", &url, "start"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("20240102000000_second.sql failed"),
        "{}",
        text(&out)
    );
    let mut cfg = tokio_postgres::Config::new();
    cfg.host_path(&gw.socket_dir)
        .port(5432)
        .user("postgres")
        .dbname("migrate_fail");
    let (c, conn) = cfg.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let tables: Vec<String> = c
        .query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(tables, ["a"]);
    let versions: Vec<String> = c
        .query(
            "SELECT version FROM supabase_migrations.schema_migrations",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, ["20240101000000"]);
}

#[tokio::test]
async fn a_missing_extension_names_its_package() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_oracle.sql",
        "create extension if not exists orafce with schema extensions;",
    )]);
    let out = supagate(&dir, &dir.join("data"), &["start"]);
    assert!(!out.status.success());
    let msg = text(&out);
    assert!(
        msg.contains("the extension \"orafce\" is not installed")
            && msg.contains("postgresql-15-orafce"),
        "{msg}"
    );
}

#[tokio::test]
async fn a_bad_config_stops_everything_before_it_starts() {
    let dir = support::scratch_project(&[(
        "supabase/config.toml",
        "[storage]\nfile_size_limit = \"lots\"\n",
    )]);
    let data = dir.join("data");
    let out = supagate(&dir, &data, &["start"]);
    assert!(!out.status.success());
    let msg = text(&out);
    assert!(
        msg.contains("supabase/config.toml: storage.file_size_limit: \"lots\" is not a size"),
        "{msg}"
    );
    assert!(!data.exists(), "nothing was started");
}

#[tokio::test]
async fn migration_new_and_list_and_users_create() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_first.sql",
        "create table public.t (id int);",
    )]);
    let data = dir.join("data");
    // A command on a project nobody started sets its database up first, as start would.
    let out = supagate(
        &dir,
        &data,
        &["users", "create", "Staff@Example.com", "a-good-password"],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Created user staff@example.com"));
    let out = supagate(
        &dir,
        &data,
        &["users", "create", "staff@example.com", "a-good-password"],
    );
    assert!(!out.status.success());
    assert!(text(&out).contains("already been registered"));
    let out = supagate(&dir, &data, &["migration", "new", "add_things"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Created new migration at supabase/migrations/"));
    let out = supagate(&dir, &data, &["migration", "list"]);
    assert!(out.status.success(), "{}", text(&out));
    let list = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(
        lines[3], "   20240101000000 | 20240101000000 | 2024-01-01 00:00:00 ",
        "{list}"
    );
    assert!(
        lines[4].contains(" |                | "),
        "the new file is not applied yet: {list}"
    );
    // The user signs in through the API of a gateway on that data directory.
    let child = support::start_on(&dir, &data, &[]);
    let r = reqwest::Client::new()
        .post(format!("{}/auth/v1/token?grant_type=password", child.url))
        .header("apikey", &child.anon)
        .json(&serde_json::json!({"email": "staff@example.com", "password": "a-good-password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// On Supabase the postgres role's own search_path has extensions, so it is also what RESET
/// restores (pg_settings.reset_val). PostGIS topology's install script sets the search_path
/// from reset_val (topology.AddToSearchPath): with postgis in extensions, it failed here with
/// 'type "geometry" does not exist' (a real project's first migration).
#[tokio::test]
async fn migrations_reset_the_search_path_to_supabases() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_topology.sql",
        "create extension if not exists postgis with schema extensions;
         create schema if not exists topology;
         create extension if not exists postgis_topology with schema topology;
         reset search_path;
         create table public.seen as select current_setting('search_path') as path;",
    )]);
    let gw = support::start_project(&dir, &[]);
    assert_eq!(
        gw.sql("select path from public.seen").await[0][0].as_deref(),
        Some("\"$user\", public, extensions")
    );
    assert_eq!(
        gw.sql("select count(*) from pg_extension where extname = 'postgis_topology'")
            .await[0][0]
            .as_deref(),
        Some("1")
    );
    // db diff builds the migrations' database again in a copy of the platform when they changed
    // since the template was made: the same there.
    std::fs::write(
        dir.join("supabase/migrations/20240101000001_more.sql"),
        "create table public.more (id int);",
    )
    .unwrap();
    let out = gw.command(&dir, &["db", "diff"]);
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("DROP TABLE \"public\".\"more\";"), "{text}");
}

#[tokio::test]
async fn the_distributions_extensions_work_in_the_served_database() {
    let dir = support::scratch_project(&[(
        "supabase/migrations/20240101000000_tools.sql",
        "create extension if not exists pg_stat_statements with schema extensions;
         create extension if not exists plpgsql_check with schema extensions;
         create extension if not exists hypopg with schema extensions;
         create extension if not exists pg_repack;
         create extension if not exists postgis with schema extensions;
         create table public.t (a int, b text);
         create function public.broken() returns int language plpgsql as $$
           begin return (select missing from public.t); end $$;",
    )]);
    let gw = support::start_project(&dir, &[]);
    let one = |sql: &'static str| {
        let gw = &gw;
        async move { gw.sql(sql).await[0][0].clone().unwrap_or_default() }
    };
    assert!(
        one("select count(*) > 0 from extensions.pg_stat_statements").await == "t",
        "pg_stat_statements is preloaded"
    );
    assert!(
        one("select string_agg(message, ' ') from extensions.plpgsql_check_function_tb('public.broken()')")
            .await
            .contains("column \"missing\" does not exist")
    );
    assert_eq!(
        one("select count(*) from extensions.hypopg_create_index('create index on public.t (a)')")
            .await,
        "1"
    );
    assert_eq!(
        one("select extensions.st_astext(extensions.st_point(1, 2))").await,
        "POINT(1 2)"
    );
    assert_eq!(
        one("select extowner::regrole::text from pg_extension where extname = 'pg_repack'").await,
        "supabase_admin"
    );
}

#[tokio::test]
async fn a_migration_may_begin_with_create_index_concurrently() {
    // As the CLI's pipeline lets it: the first statement runs on its own, the rest of the file in
    // a transaction. Later in a file, PostgreSQL refuses it, and the file changes nothing.
    let ok = support::scratch_project(&[
        (
            "supabase/migrations/20240101000000_table.sql",
            "create table t (id int, name text);",
        ),
        (
            "supabase/migrations/20240102000000_index.sql",
            "-- a comment first\ncreate index concurrently t_id on t (id);\ncreate index t_name on t (name);",
        ),
    ]);
    let gw = support::start_project(&ok, &[]);
    let rows = gw
        .sql(
            "select string_agg(c.relname || ':' || i.indisvalid, ',' order by c.relname)
             from pg_index i join pg_class c on c.oid = i.indexrelid
             where i.indrelid = 'public.t'::regclass",
        )
        .await;
    assert_eq!(rows[0][0].as_deref(), Some("t_id:true,t_name:true"));
    // Recorded as the CLI records statements: without their final semicolons.
    let rows = gw
        .sql("select statements::text from supabase_migrations.schema_migrations order by version")
        .await;
    assert_eq!(
        rows.iter()
            .map(|r| r[0].as_deref().unwrap())
            .collect::<Vec<_>>(),
        [
            r#"{"create table t (id int, name text)"}"#,
            r#"{"create index concurrently t_id on t (id)","create index t_name on t (name)"}"#
        ]
    );
    gw.stop();

    let later = support::scratch_project(&[(
        "supabase/migrations/20240101000000_table.sql",
        "create table t (id int);\ncreate index concurrently t_id on t (id);",
    )]);
    let out = supagate(&later, &later.join("data"), &["db", "reset"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("CREATE INDEX CONCURRENTLY cannot run inside a transaction block"),
        "{err}"
    );
}

/// The pristine cluster a start's log says its data directory was copied from.
fn copied_from(log: &str) -> std::path::PathBuf {
    let (_, rest) = log
        .split_once("copied a pristine cluster in ")
        .unwrap_or_else(|| panic!("no copy in: {log}"));
    let (_, rest) = rest.split_once("(from ").unwrap();
    let path = std::path::PathBuf::from(rest.split_once(')').unwrap().0);
    // The cache's entry: its `pg` folder's parent.
    path.parent().unwrap().to_path_buf()
}

#[tokio::test]
async fn new_data_directories_are_copies_of_one_pristine_cluster() {
    let dir = support::scratch_project(&[]);
    let reset = |data: &std::path::Path, cache: &std::path::Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_supagate"))
            .arg("--workdir")
            .arg(&dir)
            .arg("--data-dir")
            .arg(data)
            .args(["--db-port", "0", "db", "reset"])
            .env_remove("DATABASE_URL")
            .env("RUST_LOG", "pg=info")
            .env("SUPAGATE_CACHE_DIR", cache)
            .output()
            .expect("run supagate");
        assert!(out.status.success(), "{}", text(&out));
        text(&out)
    };
    // A private folder (as mkdtemp makes them): PostgreSQL's user is let through it.
    let data = dir.join(".data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::set_permissions(&data, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let cache = support::pg_cache();
    let pristine = copied_from(&reset(&data.join("a"), &cache));
    assert!(pristine.starts_with(&cache), "{}", pristine.display());
    let mark = std::fs::read_to_string(pristine.join("pristine")).unwrap();
    // A second data directory is a copy of the same one, made once.
    let second = reset(&data.join("b"), &cache);
    assert_eq!(copied_from(&second), pristine);
    assert!(!second.contains("initdb took"), "{second}");
    assert_eq!(
        std::fs::read_to_string(pristine.join("pristine")).unwrap(),
        mark
    );
    // One left incomplete (its making interrupted) is made again, then copied.
    let other = dir.join(".cache");
    let made = copied_from(&reset(&data.join("c"), &other));
    std::fs::remove_file(made.join("pristine")).unwrap();
    std::fs::remove_dir_all(made.join("pg/base")).unwrap();
    let again = reset(&data.join("d"), &other);
    assert_eq!(copied_from(&again), made);
    assert!(made.join("pristine").is_file() && made.join("pg/base").is_dir());
    // Each copy makes its own Vault key; the pristine cluster keeps none.
    assert!(!made.join("pg/supagate_vault.key").exists());
    let key = |d: &str| std::fs::read(data.join(d).join("pg/supagate_vault.key")).unwrap();
    assert_ne!(key("c"), key("d"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The names of the cluster's databases that start with `prefix`.
async fn databases_named(gw: &support::Gateway, prefix: &str) -> Vec<String> {
    gw.session_on("template1")
        .await
        .query(
            "SELECT datname::text FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1",
            &[&prefix],
        )
        .await
        .expect("list databases")
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// Waits (up to 60 s) until `check` holds for the databases named with `prefix`.
async fn until_databases(gw: &support::Gateway, prefix: &str, check: impl Fn(&[String]) -> bool) {
    let t0 = std::time::Instant::now();
    loop {
        let names = databases_named(gw, prefix).await;
        if check(&names) {
            return;
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "databases {prefix}*: {names:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn db_reset_back_to_back_with_a_session_open_and_what_it_sets_aside_is_dropped() {
    let gw = support::start(&[]);
    let root = repo_root();
    // A session on the served database (a developer's psql) is ended by each reset.
    let session = gw.session_on("postgres").await;
    for round in 0..3 {
        gw.sql("INSERT INTO public.categories (name, slug) VALUES ('Gone', 'gone')")
            .await;
        let reset = gw.command(&root, &["db", "reset"]);
        assert!(reset.status.success(), "round {round}: {}", text(&reset));
        let rows = gw
            .sql("SELECT count(*) FILTER (WHERE slug = 'gone'), count(*) FROM public.categories")
            .await;
        assert_eq!(
            (rows[0][0].as_deref(), rows[0][1].as_deref()),
            (Some("0"), Some("8")),
            "round {round}: the seed, and only it"
        );
        let r = Api::anon(&gw).get("/rest/v1/categories?select=slug").await;
        assert_eq!(r.status, 200, "round {round}: {}", r.text);
    }
    assert!(
        session.simple_query("SELECT 1").await.is_err(),
        "the session was ended"
    );
    // What the resets set aside goes in the background (a psql left running).
    until_databases(&gw, "supagate_retired_", |n| n.is_empty()).await;

    // One left behind (its drop interrupted) is dropped by the next start; the clone of the
    // template the last reset made ahead, gone too (a stop ended its copy), is made again by
    // the next start on this data directory (its template was there before it).
    until_databases(&gw, "supagate_spare", |n| n.len() == 1).await;
    let maint = gw.session_on("template1").await;
    for sql in [
        "CREATE DATABASE supagate_retired_1_1",
        "DROP DATABASE supagate_spare WITH (FORCE)",
    ] {
        maint.batch_execute(sql).await.expect(sql);
    }
    drop(maint);
    let data = gw.data_dir.clone();
    gw.stop();
    let gw = support::start_on(&root, &data, &[]);
    until_databases(&gw, "supagate_retired_", |n| n.is_empty()).await;
    // The next reset takes it (and makes another).
    until_databases(&gw, "supagate_spare", |n| n.len() == 1).await;
    let reset = gw.command(&root, &["db", "reset"]);
    assert!(reset.status.success(), "{}", text(&reset));
    let rows = gw.sql("SELECT count(*) FROM public.categories").await;
    assert_eq!(rows[0][0].as_deref(), Some("8"));
    gw.stop();
}

/// A gateway that starts with nothing to apply changes nothing in the database: a DDL statement
/// that changes nothing (`CREATE TABLE IF NOT EXISTS`) fires the schema-reload event trigger all
/// the same, and every running gateway would read its schema cache again.
#[tokio::test]
async fn a_start_with_nothing_to_apply_tells_no_gateway_to_reload() {
    use futures_util::StreamExt;
    let a = support::shop().await;
    let (client, mut conn) = tokio_postgres::connect(&a.status["DB_URL"], tokio_postgres::NoTls)
        .await
        .expect("connect");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| conn.poll_message(cx));
        while let Some(Ok(m)) = messages.next().await {
            if let tokio_postgres::AsyncMessage::Notification(n) = m {
                let _ = tx.send(n.payload().to_string());
            }
        }
    });
    client.batch_execute("LISTEN pgrst").await.unwrap();
    // A replica's start checks and applies what is pending, as any start does.
    let b = a.replica();
    // Notifications arrive in commit order: everything the start sent comes before this one.
    client
        .batch_execute("NOTIFY pgrst, 'marker'")
        .await
        .unwrap();
    let mut before = Vec::new();
    loop {
        match tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv()).await {
            Ok(Some(p)) if p == "marker" => break,
            Ok(Some(p)) => before.push(p),
            other => panic!("the marker did not arrive: {other:?}"),
        }
    }
    assert_eq!(before, Vec::<String>::new(), "the start sent these");
    b.stop();
}
