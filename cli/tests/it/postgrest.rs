//! PostgREST v14 fidelity on a fixture project of its own (`tests/fixtures/postgrest`): exact
//! status, headers and bodies as PostgREST answers them, as tables of requests and answers.
//! Each table runs on a fresh copy of the fixture's database (a clone of its template) with a
//! gateway of its own; the one table about role-wide configuration has a cluster of its own.

use crate::support;
use serde_json::{Value, json};
use support::table::{self, get, post, send, with_json};
use support::{Gateway, Reply};

fn fixture_dir() -> std::path::PathBuf {
    support::repo_root().join("tests/fixtures/postgrest")
}

/// A gateway on a fresh copy of the fixture's database.
async fn fixture() -> Gateway {
    support::clone_of(&fixture_dir(), &[]).await
}

/// Sets `pgrst.<name>` on the login role for this database only (as PostgREST reads
/// database-specific settings over role-wide ones) and waits until the gateway has reloaded.
async fn db_setting(gw: &Gateway, name: &str, value: &str, until: impl AsyncFn() -> bool) {
    gw.sql(&format!(
        "ALTER ROLE authenticator IN DATABASE \"{}\" SET pgrst.{name} = '{value}'; \
         NOTIFY pgrst, 'reload config'",
        gw.dbname
    ))
    .await;
    wait_for(until, name).await;
}

/// `PGRST_*` variables configure the API as PostgREST's do, under the database's own settings.
#[tokio::test]
async fn pgrst_variables_are_read_under_the_databases_settings() {
    let env = [("PGRST_DB_PLAN_ENABLED", "1")];
    let gw = support::clone_of_env(&fixture_dir(), &[], &env).await;
    let anon = support::Api::anon(&gw);
    let plan = async || {
        let accept = [("accept", "application/vnd.pgrst.plan")];
        anon.send("GET", "/rest/v1/books", &accept, None).await
    };
    let first = plan().await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert!(first.text.starts_with("Aggregate"), "{}", first.text);
    db_setting(&gw, "db_plan_enabled", "false", async || {
        plan().await.status == 406
    })
    .await;
}

/// Polls `until` (the gateway reloading its configuration) for up to five seconds.
async fn wait_for(until: impl AsyncFn() -> bool, what: &str) {
    for _ in 0..100 {
        if until().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the configuration was not reloaded: {what}");
}

fn starts_with(prefix: &'static str) -> impl Fn(&Reply) -> Result<(), String> + Send + Sync {
    move |r: &Reply| {
        r.text
            .starts_with(prefix)
            .then_some(())
            .ok_or_else(|| format!("body does not start with {prefix:?}"))
    }
}

#[tokio::test]
async fn media_types_as_postgrest_builds_them() {
    let gw = &fixture().await;
    let stripped = "application/vnd.pgrst.array+json;nulls=stripped";
    let one = "application/vnd.pgrst.object+json;nulls=stripped";
    table::run(gw, vec![
        // CSV: the header from the first row's keys, then each row's PostgreSQL text form, so
        // the quoting is PostgreSQL's (spaces, commas, quotes, backslashes, empty strings) and
        // JSON keeps jsonb's own spacing.
        get("/rest/v1/people?order=id").accept("text/csv").says("CSV in PostgreSQL's quoting")
            .status(200).has("content-type", Some("text/csv; charset=utf-8"))
            .text("id,name,nickname,tags,data,span\n\
                   1,\"Ada Lovelace\",ada,\"{math,\"\"first, programmer\"\"}\",\"{\"\"born\"\": 1815, \"\"note\"\": \"\"say \\\\\"\"hi\\\\\"\"\"\"}\",\"[1,5)\"\n\
                   2,Grace,,,,\n\
                   3,\"Grace \"\"Amazing\"\" Hopper\",\"\",{},\"{\"\"navy\"\": true}\",empty"),
        get("/rest/v1/people?select=id,name&id=eq.99").accept("text/csv")
            .says("no rows: no header either").status(200).text("\n"),
        get("/rest/v1/rpc/all_nicknames").accept("text/csv").says("a scalar function as CSV")
            .text("pgrst_scalar\nada\n\n\"\""),
        // nulls=stripped, for arrays, single objects, embedded JSON and functions.
        get("/rest/v1/people?id=eq.2").accept(stripped).says("nulls stripped from an array")
            .status(200)
            .has("content-type", Some("application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"))
            .json(json!([{"id": 2, "name": "Grace"}])),
        get("/rest/v1/people?id=eq.2").accept(one).says("nulls stripped from one object")
            .json(json!({"id": 2, "name": "Grace"}))
            .has("content-type", Some("application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8")),
        get("/rest/v1/people?id=in.(1,2)").accept(one).says("one object asked for, two found")
            .status(406).at("/code", json!("PGRST116")),
        get("/rest/v1/rpc/person?pid=2").accept(stripped).says("a function's row, stripped")
            .json(json!({"id": 2, "name": "Grace"})),
        get("/rest/v1/rpc/people_named?prefix=Grace&select=id,nickname").accept(stripped)
            .says("a function's rows, stripped")
            .json(json!([{"id": 2}, {"id": 3, "nickname": ""}])),
        get("/rest/v1/rpc/nickname_of?pid=2").accept(stripped).says("a null scalar").text("null"),
        // Without the parameter the array type is plain JSON.
        get("/rest/v1/people?id=eq.2&select=id,nickname").accept("application/vnd.pgrst.array+json")
            .says("the array type without nulls=stripped is plain JSON")
            .has("content-type", Some("application/json; charset=utf-8"))
            .json(json!([{"id": 2, "nickname": null}])),
        get("/rest/v1/people").accept("image/png").says("a media type PostgREST does not have")
            .status(406)
            .json(json!({"code": "PGRST107", "details": null, "hint": null,
                         "message": "None of these media types are available: image/png"})),
    ]).await;
}

#[tokio::test]
async fn geojson_with_postgis() {
    let gw = &fixture().await;
    let has_postgis = gw
        .sql("SELECT count(*) FROM pg_extension WHERE extname = 'postgis'")
        .await[0][0]
        .as_deref()
        == Some("1");
    assert!(
        has_postgis,
        "PostGIS is installed for the tests (scripts/setup.sh ensure_postgis)"
    );
    table::run(
        gw,
        vec![
            get("/rest/v1/places?select=id,name,location")
                .accept("application/geo+json")
                .says("rows as a FeatureCollection")
                .status(200)
                .has("content-type", Some("application/geo+json; charset=utf-8"))
                .json(json!({"type": "FeatureCollection", "features": [{
                    "type": "Feature",
                    "geometry": {"type": "Point", "coordinates": [-111.891, 40.7608]},
                    "properties": {"id": 1, "name": "Shop"}
                }]})),
        ],
    )
    .await;
}

#[tokio::test]
async fn writes_count_and_upserts_answer_as_postgrest() {
    let gw = &fixture().await;
    let w = |method: &str, path: &str, prefer: &str, body: Option<&str>| {
        match body {
            Some(b) => with_json(method, path, b),
            None => send(method, path),
        }
        .service()
        .prefer(prefer)
    };
    table::run(
        gw,
        vec![
            // Inserts and deletes give no range, only the count; updates give 0-(n-1).
            w(
                "POST",
                "/rest/v1/people",
                "count=exact",
                Some(r#"{"id":10,"name":"Ten"}"#),
            )
            .says("an insert's count")
            .status(201)
            .has("content-range", Some("*/1")),
            w(
                "POST",
                "/rest/v1/people",
                "count=exact, return=representation",
                Some(r#"[{"id":11,"name":"Eleven"},{"id":12,"name":"Twelve"}]"#),
            )
            .says("two inserted")
            .status(201)
            .has("content-range", Some("*/2")),
            w(
                "POST",
                "/rest/v1/people",
                "",
                Some(r#"{"id":13,"name":"Thirteen"}"#),
            )
            .says("no count asked")
            .status(201)
            .has("content-range", Some("*/*")),
            w(
                "PATCH",
                "/rest/v1/people?id=in.(11,12)",
                "count=exact",
                Some(r#"{"nickname":"twin"}"#),
            )
            .says("an update's range")
            .status(204)
            .has("content-range", Some("0-1/2")),
            w(
                "PATCH",
                "/rest/v1/people?id=eq.99",
                "count=exact",
                Some(r#"{"nickname":"x"}"#),
            )
            .says("an update of nothing")
            .status(204)
            .has("content-range", Some("*/0")),
            w("DELETE", "/rest/v1/people?id=eq.13", "count=exact", None)
                .says("a delete's count")
                .status(204)
                .has("content-range", Some("*/1")),
            w(
                "DELETE",
                "/rest/v1/people?id=eq.12",
                "return=representation",
                None,
            )
            .says("a delete returning its row")
            .status(200)
            .has("content-range", Some("*/*")),
            // An upsert that only updates answers 200; one that inserts anything, 201.
            w(
                "POST",
                "/rest/v1/people",
                "resolution=merge-duplicates, return=representation, count=exact",
                Some(r#"{"id":10,"name":"Ten again"}"#),
            )
            .says("an upsert that updated")
            .status(200)
            .has("content-range", Some("*/1"))
            .at("/0/name", json!("Ten again")),
            w(
                "POST",
                "/rest/v1/people",
                "resolution=merge-duplicates",
                Some(r#"[{"id":10,"name":"Ten"},{"id":14,"name":"Fourteen"}]"#),
            )
            .says("an upsert that inserted")
            .status(201),
            // Ignoring duplicates is an insert whatever happened.
            w(
                "POST",
                "/rest/v1/people",
                "resolution=ignore-duplicates",
                Some(r#"{"id":10,"name":"ignored"}"#),
            )
            .says("ignored duplicates")
            .status(201),
            get("/rest/v1/people?id=eq.10&select=name")
                .service()
                .says("the ignored row kept its name")
                .json(json!([{"name": "Ten"}])),
        ],
    )
    .await;
}

#[tokio::test]
async fn strict_handling_and_max_affected() {
    let gw = &fixture().await;
    let strict =
        |method: &str, path: &str, prefer: &str| send(method, path).service().prefer(prefer);
    let people = |n: usize| {
        get("/rest/v1/people?select=id")
            .service()
            .check(move |r: &Reply| {
                let len = r.json().as_array().map_or(0, Vec::len);
                (len == n)
                    .then_some(())
                    .ok_or_else(|| format!("{len} people, not {n}"))
            })
    };
    table::run(gw, vec![
        // Unknown preferences: ignored, unless handling=strict.
        strict("GET", "/rest/v1/people?select=id&id=eq.1", "bogus=1, count=exact")
            .says("unknown preferences are ignored").status(200)
            .has("preference-applied", Some("count=exact")),
        strict("GET", "/rest/v1/people?select=id", "handling=strict, bogus=1, nope")
            .says("unless handling=strict").status(400)
            .json(json!({"code": "PGRST122", "message": "Invalid preferences given with handling=strict",
                         "details": "Invalid preferences: bogus=1, nope", "hint": null})),
        // max-affected: an update or delete touching more rows fails and changes nothing.
        with_json("PATCH", "/rest/v1/people?id=in.(1,2,3)", r#"{"nickname":"x"}"#).service()
            .prefer("handling=strict, max-affected=2").says("an update past max-affected")
            .status(400)
            .json(json!({"code": "PGRST124", "message": "Query result exceeds max-affected preference constraint",
                         "details": "The query affects 3 rows", "hint": null})),
        get("/rest/v1/people?nickname=eq.x&select=id").service().says("rolled back").json(json!([])),
        strict("DELETE", "/rest/v1/people?id=in.(1,2,3)", "handling=strict, max-affected=1, return=representation")
            .says("a delete past max-affected").at("/code", json!("PGRST124")),
        people(3).says("the delete was rolled back"),
        with_json("PATCH", "/rest/v1/people?id=in.(1,2)", r#"{"nickname":"y"}"#).service()
            .prefer("handling=strict, max-affected=2").says("within max-affected").status(204)
            .has("preference-applied", Some("handling=strict, max-affected=2")),
        // Without handling=strict, max-affected is not applied.
        strict("DELETE", "/rest/v1/people?id=in.(1,2)", "max-affected=1")
            .says("max-affected without handling=strict").status(204),
        // Functions: a set is limited like a write; a single value cannot be.
        strict("GET", "/rest/v1/rpc/all_nicknames", "handling=strict, max-affected=0")
            .says("a function's set past max-affected").status(400)
            .at("/code", json!("PGRST124")).at("/details", json!("The query affects 1 rows")),
        strict("GET", "/rest/v1/rpc/nickname_of?pid=3", "handling=strict, max-affected=1")
            .says("a single value cannot be limited").status(400).at("/code", json!("PGRST128")),
    ]).await;
}

#[tokio::test]
async fn missing_default_uses_every_kind_of_default() {
    let gw = &fixture().await;
    table::run(
        gw,
        vec![
            post(
                "/rest/v1/tickets?columns=id,title,status,note&select=id,title,status,note",
                r#"[{"title":"a"},{"id":100,"title":"b","status":"done","note":null}]"#,
            )
            .service()
            .prefer("missing=default, return=representation")
            .says("missing keys take the column's default")
            .status(201)
            .json(json!([
                {"id": 1, "title": "a", "status": "open", "note": "n/a"},
                {"id": 100, "title": "b", "status": "done", "note": null}
            ]))
            .has(
                "preference-applied",
                Some("missing=default, return=representation"),
            ),
            // Without it, a missing key is null (and the NOT NULL column says so).
            post(
                "/rest/v1/tickets?columns=title,status",
                r#"[{"title":"c"}]"#,
            )
            .service()
            .says("without it, null")
            .status(400)
            .at("/code", json!("23502")),
        ],
    )
    .await;
}

#[tokio::test]
async fn function_counts_and_ranges() {
    let gw = &fixture().await;
    let exact = |method: &str, path: &str| send(method, path).prefer("count=exact");
    table::run(
        gw,
        vec![
            // A set of rows: the count is of the filtered rows, the range of the page.
            exact("GET", "/rest/v1/rpc/people_named?prefix=&select=id&limit=2")
                .says("a page of a function's rows")
                .status(206)
                .has("content-range", Some("0-1/3"))
                .json(json!([{"id": 1}, {"id": 2}])),
            exact(
                "GET",
                "/rest/v1/rpc/people_named?prefix=Gr&select=id&id=gt.2",
            )
            .says("filtered rows counted")
            .status(200)
            .has("content-range", Some("0-0/1")),
            exact("HEAD", "/rest/v1/rpc/people_named?prefix=")
                .says("HEAD")
                .status(200)
                .has("content-range", Some("0-2/3"))
                .text(""),
            with_json(
                "POST",
                "/rest/v1/rpc/people_named?select=id&offset=1",
                r#"{"prefix":""}"#,
            )
            .prefer("count=exact")
            .says("an offset")
            .status(206)
            .has("content-range", Some("1-2/3")),
            // Scalars: a set counts its values, one value is one.
            exact("GET", "/rest/v1/rpc/all_nicknames")
                .says("a set of scalars")
                .has("content-range", Some("0-2/3")),
            exact("GET", "/rest/v1/rpc/nickname_of?pid=1")
                .says("one scalar")
                .has("content-range", Some("0-0/1"))
                .text("\"ada\""),
            exact("GET", "/rest/v1/rpc/person?pid=1&select=name")
                .says("one row")
                .has("content-range", Some("0-0/1"))
                .json(json!({"name": "Ada Lovelace"})),
            // Without the preference there is no total.
            get("/rest/v1/rpc/all_nicknames")
                .says("no count asked")
                .has("content-range", Some("0-2/*")),
        ],
    )
    .await;
}

#[tokio::test]
async fn functions_resolve_as_postgrest_finds_them() {
    let gw = &fixture().await;
    let raw = |path: &str, ctype: &str, body: &[u8]| send("POST", path).raw(ctype, body);
    table::run(gw, vec![
        // One unnamed parameter: the whole body, by its Content-Type.
        raw("/rest/v1/rpc/echo_text", "text/plain", b"hello, world").says("text")
            .status(200).text("\"hello, world\""),
        raw("/rest/v1/rpc/echo_json", "application/json", b"[1, {\"a\": 2}]").says("a JSON array")
            .status(200).json(json!([1, {"a": 2}])),
        raw("/rest/v1/rpc/echo_json", "application/json", b"{\"a\": 1}").says("a JSON object")
            .json(json!({"a": 1})),
        raw("/rest/v1/rpc/echo_xml", "text/xml", b"<a>1</a>").says("XML").text("\"<a>1</a>\""),
        raw("/rest/v1/rpc/echo_bytes", "application/octet-stream", &[0, 1, 2, 255]).says("bytes")
            .status(200).text("4"),
        // postgrest-js's rpc('f', {'': value}) names the unnamed parameter with an empty key.
        raw("/rest/v1/rpc/echo_text", "application/json", br#"{"": "foo"}"#)
            .says("the unnamed parameter by an empty key").status(200).text("\"foo\""),
        // Overloads that cannot be told apart: 300 PGRST203.
        raw("/rest/v1/rpc/twin", "application/json", br#"{"a": 1}"#).says("ambiguous overloads")
            .status(300)
            .json(json!({"code": "PGRST203", "details": null,
                         "hint": "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
                         "message": "Could not choose the best candidate function between: public.twin(a => integer), public.twin(a => text)"})),
        // Defaults: the overloads the keys match; both match `a` alone.
        get("/rest/v1/rpc/opt").says("all defaults").text("1"),
        get("/rest/v1/rpc/opt?a=1&b=5").says("both given").text("6"),
        get("/rest/v1/rpc/opt?a=4").says("two overloads take `a` alone")
            .status(300).at("/code", json!("PGRST203")),
        // None: PGRST202 with PostgREST's words.
        get("/rest/v1/rpc/nothing_here").says("no such function").status(404)
            .at("/message", json!("Could not find the function public.nothing_here without parameters in the schema cache"))
            .at("/details", json!("Searched for the function public.nothing_here without parameters, but no matches were found in the schema cache.")),
        raw("/rest/v1/rpc/twin", "application/json", br#"{"a": 1, "zz": 2}"#).says("no overload with these keys")
            .status(404)
            .at("/message", json!("Could not find the function public.twin(a, zz) in the schema cache"))
            .at("/details", json!("Searched for the function public.twin with parameters a, zz or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.")),
        raw("/rest/v1/rpc/twin", "text/plain", b"x").says("no overload taking text")
            .at("/message", json!("Could not find the function public.twin in the schema cache"))
            .at("/details", json!("Searched for the function public.twin with a single unnamed text parameter, but no matches were found in the schema cache.")),
    ]).await;
}

/// Sets in-database configuration on the login role (role-wide, so on a cluster of this test's
/// own) and waits until the gateway reloads it.
async fn db_config(gw: &Gateway, statements: &str, until: impl AsyncFn() -> bool) {
    gw.sql(&format!("{statements}; NOTIFY pgrst, 'reload config'"))
        .await;
    wait_for(until, statements).await;
}

#[tokio::test]
async fn in_database_configuration() {
    // Role-wide settings reach every database of a cluster: this test has one of its own.
    let gw = &support::start_project(&fixture_dir(), &[]);
    let svc = support::Api::service(gw);
    let people = async || {
        svc.get("/rest/v1/people?select=id")
            .await
            .json()
            .as_array()
            .unwrap()
            .len()
    };
    let count = |n: usize| {
        get("/rest/v1/people?select=id")
            .service()
            .check(move |r: &Reply| {
                let len = r.json().as_array().map_or(0, Vec::len);
                (len == n)
                    .then_some(())
                    .ok_or_else(|| format!("{len} people, not {n}"))
            })
    };
    // db-tx-end is commit by default: tx=rollback is ignored, as PostgREST.
    table::run(
        gw,
        vec![
            post("/rest/v1/people", r#"{"id":20,"name":"Kept"}"#)
                .service()
                .prefer("tx=rollback")
                .says("tx=rollback is ignored by default")
                .status(201)
                .has("preference-applied", None),
            count(4).says("the row was kept"),
        ],
    )
    .await;
    // commit-allow-override: tx=rollback answers but keeps nothing.
    db_config(
        gw,
        "ALTER ROLE authenticator SET pgrst.db_tx_end = 'commit-allow-override'",
        async || {
            svc.send(
                "GET",
                "/rest/v1/people?select=id&limit=1",
                &[("prefer", "tx=rollback")],
                None,
            )
            .await
            .header("preference-applied")
                == Some("tx=rollback")
        },
    )
    .await;
    table::run(
        gw,
        vec![
            send("DELETE", "/rest/v1/people?id=eq.20")
                .service()
                .prefer("tx=rollback, return=representation")
                .says("a rolled-back delete answers")
                .status(200)
                .check(|r: &Reply| {
                    (r.json().as_array().map_or(0, Vec::len) == 1)
                        .then_some(())
                        .ok_or("not one row".into())
                }),
            count(4).says("rolled back"),
        ],
    )
    .await;
    // db-max-rows from the database, and a database-specific value over the role-wide one.
    db_config(
        gw,
        "ALTER ROLE authenticator SET pgrst.db_max_rows = '2'",
        async || people().await == 2,
    )
    .await;
    db_config(
        gw,
        "DO $$ BEGIN EXECUTE format('ALTER ROLE authenticator IN DATABASE %I SET pgrst.db_max_rows = %L', current_database(), '1'); END $$",
        async || people().await == 1,
    )
    .await;
    // db-pre-request runs before every request, with its settings in place.
    db_config(
        gw,
        "ALTER ROLE authenticator SET pgrst.db_pre_request = 'public.guard'",
        async || {
            svc.send("GET", "/rest/v1/people", &[("x-block", "1")], None)
                .await
                .status
                == 400
        },
    )
    .await;
    table::run(
        gw,
        vec![
            get("/rest/v1/people")
                .service()
                .header("x-block", "1")
                .says("refused by db-pre-request")
                .status(400)
                .at("/code", json!("P0001"))
                .at("/message", json!("blocked by db-pre-request")),
            get("/rest/v1/people?select=id")
                .service()
                .says("let through by db-pre-request")
                .status(200),
        ],
    )
    .await;
}

/// The `details` array, sorted by relationship (PostgREST's order is not specified).
fn sorted_details(r: &Reply) -> Value {
    let mut a = r.json()["details"].as_array().cloned().unwrap_or_default();
    a.sort_by_key(|x| x["relationship"].as_str().unwrap_or("").to_string());
    Value::Array(a)
}

#[tokio::test]
async fn embedding_errors_as_postgrest_words_them() {
    let gw = &fixture().await;
    table::run(gw, vec![
        // Two foreign keys: 300 PGRST201, the candidates as JSON details, a hint per constraint.
        get("/rest/v1/matches?select=id,teams(name)").says("two relationships").status(300)
            .at("/code", json!("PGRST201"))
            .at("/message", json!("Could not embed because more than one relationship was found for 'matches' and 'teams'"))
            .check(|r: &Reply| {
                let want = json!([
                    {"cardinality": "many-to-one", "embedding": "matches with teams",
                     "relationship": "matches_away_fkey using matches(away) and teams(id)"},
                    {"cardinality": "many-to-one", "embedding": "matches with teams",
                     "relationship": "matches_home_fkey using matches(home) and teams(id)"}
                ]);
                (sorted_details(r) == want).then_some(()).ok_or(format!("details {}", sorted_details(r)))
            })
            .check(|r: &Reply| {
                let hint = r.json()["hint"].as_str().unwrap_or("").to_string();
                (hint.starts_with("Try changing 'teams' to one of the following: ")
                    && hint.contains("'teams!matches_home_fkey'")
                    && hint.contains("'teams!matches_away_fkey'")
                    && hint.ends_with(". Find the desired relationship in the 'details' key."))
                .then_some(())
                .ok_or(format!("hint {hint:?}"))
            }),
        get("/rest/v1/teams?select=id,matches(id)").says("the other way round")
            .check(|r: &Reply| {
                let want = json!({"cardinality": "one-to-many", "embedding": "teams with matches",
                                  "relationship": "matches_home_fkey using teams(id) and matches(home)"});
                (sorted_details(r)[1] == want).then_some(()).ok_or(format!("details {}", sorted_details(r)))
            }),
        // The constraint name resolves it.
        get("/rest/v1/matches?select=id,home:teams!matches_home_fkey(name),away:teams!matches_away_fkey(name)")
            .says("hints by constraint").json(json!([{"id": 1, "home": {"name": "Lilies"}, "away": {"name": "Roses"}}])),
        // No relationship: 400 PGRST200 with PostgREST's details.
        get("/rest/v1/matches?select=id,people(*)").says("no relationship").status(400)
            .json(json!({"code": "PGRST200", "hint": null,
                         "message": "Could not find a relationship between 'matches' and 'people' in the schema cache",
                         "details": "Searched for a foreign key relationship between 'matches' and 'people' in the schema 'public', but no matches were found."})),
        get("/rest/v1/matches?select=id,teams!nope(*)").says("a hint that matches nothing")
            .at("/details", json!("Searched for a foreign key relationship between 'matches' and 'teams' using the hint 'nope' in the schema 'public', but no matches were found.")),
    ]).await;
}

/// A GET that must answer 200 with this JSON.
fn ok(path: &str, body: Value) -> table::Case {
    get(path).status(200).json(body)
}

#[tokio::test]
async fn relationships_of_every_kind() {
    let gw = &fixture().await;
    table::run(gw, vec![
        // A table referencing itself: `authors(…)` are the children, `mentor_id(…)` the
        // parent, and `authors!mentor_id(…)` the children by the referencing column.
        ok("/rest/v1/authors?select=name,mentor_id(name),authors(name)&order=id&authors.order=id", json!([
            {"name": "Ursula", "mentor_id": null, "authors": [{"name": "Octavia"}, {"name": "Nnedi"}]},
            {"name": "Octavia", "mentor_id": {"name": "Ursula"}, "authors": []},
            {"name": "Nnedi", "mentor_id": {"name": "Ursula"}, "authors": []}
        ])).says("a table referencing itself"),
        ok("/rest/v1/authors?select=name,pupils:authors!mentor_id(name)&id=eq.1",
           json!([{"name": "Ursula", "pupils": [{"name": "Octavia"}, {"name": "Nnedi"}]}]))
            .says("children by the referencing column"),
        // Computed relationships: a SETOF function embeds as an array, a single-row one as an
        // object (a composite function without a row gives a row of nulls, as in PostgREST).
        ok("/rest/v1/authors?select=name,long_books(title),mentor(name)&order=id", json!([
            {"name": "Ursula", "long_books": [{"title": "Earthsea"}, {"title": "Lathe"}], "mentor": {"name": null}},
            {"name": "Octavia", "long_books": [{"title": "Kindred"}], "mentor": {"name": "Ursula"}},
            {"name": "Nnedi", "long_books": [], "mentor": {"name": "Ursula"}}
        ])).says("computed relationships"),
        // Through views: a renamed foreign key column, and a view of a table in an unexposed
        // schema.
        ok("/rest/v1/book_list?select=title,writer,authors(name)&order=id&limit=2", json!([
            {"title": "Earthsea", "writer": 1, "authors": {"name": "Ursula"}},
            {"title": "Lathe", "writer": 1, "authors": {"name": "Ursula"}}
        ])).says("a view's renamed key column"),
        ok("/rest/v1/authors?select=name,book_list(title)&id=eq.2",
           json!([{"name": "Octavia", "book_list": [{"title": "Kindred"}]}])).says("embedding a view"),
        ok("/rest/v1/books?select=title,reviews(stars)&id=in.(1,2)&order=id&reviews.order=id", json!([
            {"title": "Earthsea", "reviews": [{"stars": 5}, {"stars": 4}]},
            {"title": "Lathe", "reviews": []}
        ])).says("a view of an unexposed schema's table"),
        // A function's rows embed like its table's.
        ok("/rest/v1/rpc/books_over?min_pages=190&select=title,authors(name)", json!([
            {"title": "Earthsea", "authors": {"name": "Ursula"}},
            {"title": "Kindred", "authors": {"name": "Octavia"}}
        ])).says("a function's rows embed"),
        // PGRST200 suggests a close name, as PostgREST's fuzzy search does.
        get("/rest/v1/books?select=title,autors(name)").says("a close name suggested").status(400)
            .at("/code", json!("PGRST200"))
            .at("/hint", json!("Perhaps you meant 'authors' instead of 'autors'.")),
        // Two embeds under one key: PostgreSQL's error, as PostgREST's statement gets it.
        get("/rest/v1/books?select=authors(name),authors(id)").says("two embeds under one key")
            .status(400)
            .json(json!({"code": "42712", "details": null, "hint": null,
                         "message": "table name \"books_authors_1\" specified more than once"})),
    ]).await;
}

#[tokio::test]
async fn aggregates_and_spreads() {
    let gw = &fixture().await;
    table::run(
        gw,
        vec![
            // Off unless the database enables them, as PostgREST.
            get("/rest/v1/books?select=pages.sum()")
                .says("aggregates are off")
                .status(400)
                .json(json!({"code": "PGRST123", "details": null, "hint": null,
                         "message": "Use of aggregate functions is not allowed"})),
        ],
    )
    .await;
    let anon = support::Api::anon(gw);
    db_setting(gw, "db_aggregates_enabled", "true", async || {
        anon.get("/rest/v1/books?select=count()").await.status == 200
    })
    .await;
    table::run(
        gw,
        vec![
            // Grouped by the other columns; named after the function unless aliased; casts of the
            // column and of the result.
            ok(
                "/rest/v1/books?select=genre,pages.sum(),count()&order=genre",
                json!([
                    {"genre": "fantasy", "sum": 200, "count": 1},
                    {"genre": "scifi", "sum": 536, "count": 3}
                ]),
            )
            .says("grouped by the other columns"),
            ok(
                "/rest/v1/books?select=total:pages.sum()::text,longest:pages::bigint.max()",
                json!([{"total": "736", "longest": 260}]),
            )
            .says("aliases and casts"),
            // In an embed, per parent row.
            ok(
                "/rest/v1/authors?select=name,books(count(),pages.avg()::int)&order=id",
                json!([
                    {"name": "Ursula", "books": [{"count": 2, "avg": 190}]},
                    {"name": "Octavia", "books": [{"count": 1, "avg": 260}]},
                    {"name": "Nnedi", "books": [{"count": 1, "avg": 96}]}
                ]),
            )
            .says("in an embed"),
            // Spreads: a to-one relation's columns join the parent's; a to-many's become arrays.
            ok(
                "/rest/v1/books?select=title,...authors(author:name)&order=id&limit=2",
                json!([
                    {"title": "Earthsea", "author": "Ursula"},
                    {"title": "Lathe", "author": "Ursula"}
                ]),
            )
            .says("a to-one spread"),
            ok(
                "/rest/v1/authors?select=name,...books(title,pages)&id=eq.1&books.order=id",
                json!([{"name": "Ursula", "title": ["Earthsea", "Lathe"], "pages": [200, 180]}]),
            )
            .says("a to-many spread"),
            ok(
                "/rest/v1/books?select=id,...authors(*)&id=eq.3",
                json!([{"id": 2, "name": "Octavia", "mentor_id": 1}]),
            )
            .says("the spread's id is the author's (the later key wins in JSON)"),
            // An aggregate inside a to-one spread is the parent's: books' pages summed per author.
            get("/rest/v1/books?select=...authors(name),pages.sum()")
                .says("an aggregate with a to-one spread")
                .status(200)
                .check(|r: &Reply| {
                    let mut rows = r.json().as_array().cloned().unwrap_or_default();
                    rows.sort_by_key(|x| x["name"].as_str().unwrap_or("").to_string());
                    let want = json!([
                        {"name": "Nnedi", "sum": 96},
                        {"name": "Octavia", "sum": 260},
                        {"name": "Ursula", "sum": 380}
                    ]);
                    (Value::Array(rows.clone()) == want)
                        .then_some(())
                        .ok_or(format!("{rows:?}"))
                }),
            // On a function's rows.
            ok(
                "/rest/v1/rpc/books_over?min_pages=0&select=genre,count()&order=genre",
                json!([{"genre": "fantasy", "count": 1}, {"genre": "scifi", "count": 3}]),
            )
            .says("on a function's rows"),
        ],
    )
    .await;
}

#[tokio::test]
async fn explain_and_planned_counts() {
    let gw = &fixture().await;
    let plan_json = "application/vnd.pgrst.plan+json";
    table::run(
        gw,
        vec![
            // Off unless the database enables it.
            get("/rest/v1/books")
                .accept(plan_json)
                .says("plans are off")
                .status(406)
                .at("/code", json!("PGRST107"))
                .at(
                    "/message",
                    json!(
                        "None of these media types are available: application/vnd.pgrst.plan+json"
                    ),
                ),
        ],
    )
    .await;
    let anon = support::Api::anon(gw);
    db_setting(gw, "db_plan_enabled", "true", async || {
        anon.send("GET", "/rest/v1/books", &[("accept", plan_json)], None)
            .await
            .status
            == 200
    })
    .await;
    table::run(gw, vec![
        get("/rest/v1/books?genre=eq.scifi").accept(plan_json).says("EXPLAIN as JSON")
            .has("content-type", Some("application/vnd.pgrst.plan+json; for=\"application/json\"; charset=utf-8"))
            .at("/0/Plan/Node Type", json!("Aggregate")),
        get("/rest/v1/books").accept("application/vnd.pgrst.plan").says("EXPLAIN as text")
            .check(starts_with("Aggregate  (cost="))
            .has("content-type", Some("application/vnd.pgrst.plan+text; for=\"application/json\"; charset=utf-8")),
        get("/rest/v1/books")
            .accept("application/vnd.pgrst.plan+json; for=\"text/csv\"; options=verbose|settings")
            .says("EXPLAIN's options")
            .has("content-type", Some("application/vnd.pgrst.plan+json; for=\"text/csv\"; options=verbose|settings; charset=utf-8"))
            .check(|r: &Reply| r.json()[0]["Query Identifier"].is_number().then_some(()).ok_or("no query identifier".into()))
            .at("/0/Settings/effective_cache_size", json!("128MB")),
        // An explained write changes nothing.
        send("DELETE", "/rest/v1/authors?id=eq.3").accept(plan_json).says("an explained delete").status(200),
        get("/rest/v1/authors?id=eq.3").says("changed nothing").at("/0/id", json!(3)),
    ]).await;
    // Planned counts are the planner's estimate for the filtered rows.
    gw.sql("ANALYZE public.books").await;
    let head = |path: &str, prefer: &str| send("HEAD", path).prefer(prefer);
    table::run(
        gw,
        vec![
            head("/rest/v1/books", "count=planned")
                .says("a planned count")
                .status(200)
                .has("content-range", Some("0-3/4")),
            head("/rest/v1/books?genre=eq.scifi", "count=planned")
                .says("a planned count of a filter")
                .status(200)
                .has("content-range", Some("0-2/3")),
        ],
    )
    .await;
    // Estimated: exact up to db-max-rows, planned beyond it.
    db_setting(gw, "db_max_rows", "2", async || {
        anon.get("/rest/v1/books")
            .await
            .json()
            .as_array()
            .unwrap()
            .len()
            == 2
    })
    .await;
    table::run(
        gw,
        vec![
            head("/rest/v1/books", "count=estimated")
                .says("estimated beyond db-max-rows")
                .status(206)
                .has("content-range", Some("0-1/4")),
            head("/rest/v1/books?genre=eq.fantasy", "count=estimated")
                .says("estimated within db-max-rows")
                .status(200)
                .has("content-range", Some("0-0/1")),
        ],
    )
    .await;
}

#[tokio::test]
async fn put_timezone_profiles_and_function_hints() {
    let gw = &fixture().await;
    let put = |path: &str, prefer: &str, body: &str| {
        with_json("PUT", path, body).service().prefer(prefer)
    };
    table::run(gw, vec![
        // PUT inserts (201) or replaces (200) the row its primary key names.
        put("/rest/v1/authors?id=eq.9", "return=representation", r#"{"id": 9, "name": "Kim"}"#)
            .says("PUT inserts").status(201).json(json!([{"id": 9, "name": "Kim", "mentor_id": null}])),
        put("/rest/v1/authors?id=eq.9", "return=representation", r#"{"id": 9, "name": "Kim S.", "mentor_id": 1}"#)
            .says("PUT replaces").status(200).json(json!([{"id": 9, "name": "Kim S.", "mentor_id": 1}])),
        put("/rest/v1/authors?id=eq.9", "", r#"{"id": 9, "name": "Kim"}"#).says("PUT without a body back")
            .status(204).text(""),
        // A body whose key is not the URL's writes nothing.
        put("/rest/v1/authors?id=eq.9", "", r#"{"id": 10, "name": "X"}"#).says("a key not the URL's")
            .status(400)
            .json(json!({"code": "PGRST115", "details": null, "hint": null,
                         "message": "Payload values do not match URL in primary key column(s)"})),
        get("/rest/v1/authors?id=eq.10").service().says("wrote nothing").json(json!([])),
        put("/rest/v1/authors?name=eq.Kim", "", r#"{"id": 9, "name": "Kim"}"#).says("not by the key")
            .status(405).at("/code", json!("PGRST105"))
            .at("/message", json!("Filters must include all and only primary key columns with 'eq' operators")),
        put("/rest/v1/authors?id=eq.9&limit=1", "", r#"{"id": 9, "name": "Kim"}"#).says("PUT with a limit")
            .status(400).at("/message", json!("limit/offset querystring parameters are not allowed for PUT")),
        // Functions take GET, HEAD and POST only.
        with_json("PATCH", "/rest/v1/rpc/zone", "{}").service().says("PATCH on a function")
            .status(405).at("/code", json!("PGRST101")).at("/message", json!("Cannot use the PATCH method on RPC")),
        // Prefer: timezone sets the transaction's TimeZone.
        get("/rest/v1/rpc/zone").service().prefer("timezone=America/Denver").says("a time zone")
            .status(200).json(json!("America/Denver")).has("preference-applied", Some("timezone=America/Denver")),
        get("/rest/v1/rpc/zone").service().prefer("timezone=Nowhere/Atlantis").says("no such time zone")
            .status(400).at("/code", json!("22023")),
        // A second exposed schema by profile; an unexposed one is 406.
        get("/rest/v1/notes").service().header("accept-profile", "extra").says("another exposed schema")
            .status(200).json(json!([{"id": 1, "body": "from extra"}])).has("content-profile", Some("extra")),
        get("/rest/v1/reviews").service().header("accept-profile", "private").says("an unexposed schema")
            .status(406)
            .json(json!({"code": "PGRST106", "details": null, "message": "Invalid schema: private",
                         "hint": "Only the following schemas are exposed: public, extra"})),
        // PGRST202 hints: a close function name, or the closest parameters of the overloads.
        get("/rest/v1/rpc/books_ovr?min_pages=1").service().says("a close function name")
            .status(404).at("/hint", json!("Perhaps you meant to call the function public.books_over")),
        get("/rest/v1/rpc/books_over?min=1").service().says("the closest parameters")
            .at("/hint", json!("Perhaps you meant to call the function public.books_over(min_pages)")),
        // An unnamed parameter of a type no raw body can be is not callable, as PostgREST.
        send("POST", "/rest/v1/rpc/lone").service().raw("application/json", br#"{"": 1}"#)
            .says("an unnamed parameter no body can be").status(404)
            .at("/message", json!("Could not find the function public.lone() in the schema cache")),
    ]).await;
}
