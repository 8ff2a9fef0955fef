//! PostgREST v14 fidelity on a fixture project of its own (`tests/fixtures/postgrest`): exact
//! status, headers and bodies as PostgREST answers them.

mod support;
use serde_json::json;
use support::Api;

fn fixture() -> support::Gateway {
    support::start_project(&support::repo_root().join("tests/fixtures/postgrest"), &[])
}

#[tokio::test]
async fn media_types_as_postgrest_builds_them() {
    let gw = &fixture();
    let anon = Api::anon(gw);
    let csv = |path: &'static str| anon.send("GET", path, &[("accept", "text/csv")], None);

    // CSV: the header from the first row's keys, then each row's PostgreSQL text form, so the
    // quoting is PostgreSQL's (spaces, commas, quotes, backslashes, empty strings) and JSON keeps
    // jsonb's own spacing.
    let r = csv("/rest/v1/people?order=id").await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(
        r.text,
        "id,name,nickname,tags,data,span\n\
         1,\"Ada Lovelace\",ada,\"{math,\"\"first, programmer\"\"}\",\"{\"\"born\"\": 1815, \"\"note\"\": \"\"say \\\\\"\"hi\\\\\"\"\"\"}\",\"[1,5)\"\n\
         2,Grace,,,,\n\
         3,\"Grace \"\"Amazing\"\" Hopper\",\"\",{},\"{\"\"navy\"\": true}\",empty"
    );
    let r = csv("/rest/v1/people?select=id,name&id=eq.99").await;
    assert_eq!(
        (r.status, r.text.as_str()),
        (200, "\n"),
        "no rows: no header either"
    );
    let r = csv("/rest/v1/rpc/all_nicknames").await;
    assert_eq!(r.text, "pgrst_scalar\nada\n\n\"\"");

    // nulls=stripped, for arrays, single objects, embedded JSON and functions.
    let stripped = "application/vnd.pgrst.array+json;nulls=stripped";
    let r = anon
        .send(
            "GET",
            "/rest/v1/people?id=eq.2",
            &[("accept", stripped)],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8")
    );
    assert_eq!(r.json(), json!([{"id": 2, "name": "Grace"}]));
    let one = "application/vnd.pgrst.object+json;nulls=stripped";
    let r = anon
        .send("GET", "/rest/v1/people?id=eq.2", &[("accept", one)], None)
        .await;
    assert_eq!(r.json(), json!({"id": 2, "name": "Grace"}));
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8")
    );
    let r = anon
        .send(
            "GET",
            "/rest/v1/people?id=in.(1,2)",
            &[("accept", one)],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (406, json!("PGRST116"))
    );
    let r = anon
        .send(
            "GET",
            "/rest/v1/rpc/person?pid=2",
            &[("accept", stripped)],
            None,
        )
        .await;
    assert_eq!(r.json(), json!({"id": 2, "name": "Grace"}));
    let r = anon
        .send(
            "GET",
            "/rest/v1/rpc/people_named?prefix=Grace&select=id,nickname",
            &[("accept", stripped)],
            None,
        )
        .await;
    assert_eq!(r.json(), json!([{"id": 2}, {"id": 3, "nickname": ""}]));
    let r = anon
        .send(
            "GET",
            "/rest/v1/rpc/nickname_of?pid=2",
            &[("accept", stripped)],
            None,
        )
        .await;
    assert_eq!(r.text, "null");
    // Without the parameter the array type is plain JSON.
    let r = anon
        .send(
            "GET",
            "/rest/v1/people?id=eq.2&select=id,nickname",
            &[("accept", "application/vnd.pgrst.array+json")],
            None,
        )
        .await;
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(r.json(), json!([{"id": 2, "nickname": null}]));
    let r = anon
        .send("GET", "/rest/v1/people", &[("accept", "image/png")], None)
        .await;
    assert_eq!(
        (r.status, r.json()),
        (
            406,
            json!({"code": "PGRST107", "details": null, "hint": null,
                   "message": "None of these media types are available: image/png"})
        )
    );
}

#[tokio::test]
async fn geojson_with_postgis() {
    let gw = &fixture();
    let has_postgis = gw
        .sql("SELECT count(*) FROM pg_extension WHERE extname = 'postgis'")
        .await[0][0]
        .as_deref()
        == Some("1");
    assert!(
        has_postgis,
        "PostGIS is installed for the tests (scripts/setup.sh ensure_postgis)"
    );
    let r = Api::anon(gw)
        .send(
            "GET",
            "/rest/v1/places?select=id,name,location",
            &[("accept", "application/geo+json")],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        r.header("content-type"),
        Some("application/geo+json; charset=utf-8")
    );
    assert_eq!(
        r.json(),
        json!({"type": "FeatureCollection", "features": [{
            "type": "Feature",
            "geometry": {"type": "Point", "coordinates": [-111.891, 40.7608]},
            "properties": {"id": 1, "name": "Shop"}
        }]})
    );
}

#[tokio::test]
async fn writes_count_and_upserts_answer_as_postgrest() {
    let gw = &fixture();
    let svc = Api::service(gw);
    let send = async |method: &str, path: &str, prefer: &str, body: Option<&str>| {
        svc.send(method, path, &[("prefer", prefer)], body).await
    };
    let range = |r: &support::Reply| (r.status, r.header("content-range").map(str::to_string));

    // Inserts and deletes give no range, only the count; updates give 0-(n-1).
    let r = send(
        "POST",
        "/rest/v1/people",
        "count=exact",
        Some(r#"{"id":10,"name":"Ten"}"#),
    )
    .await;
    assert_eq!(range(&r), (201, Some("*/1".into())), "{}", r.text);
    let r = send(
        "POST",
        "/rest/v1/people",
        "count=exact, return=representation",
        Some(r#"[{"id":11,"name":"Eleven"},{"id":12,"name":"Twelve"}]"#),
    )
    .await;
    assert_eq!(range(&r), (201, Some("*/2".into())));
    let r = send(
        "POST",
        "/rest/v1/people",
        "",
        Some(r#"{"id":13,"name":"Thirteen"}"#),
    )
    .await;
    assert_eq!(range(&r), (201, Some("*/*".into())));
    let r = send(
        "PATCH",
        "/rest/v1/people?id=in.(11,12)",
        "count=exact",
        Some(r#"{"nickname":"twin"}"#),
    )
    .await;
    assert_eq!(range(&r), (204, Some("0-1/2".into())));
    let r = send(
        "PATCH",
        "/rest/v1/people?id=eq.99",
        "count=exact",
        Some(r#"{"nickname":"x"}"#),
    )
    .await;
    assert_eq!(range(&r), (204, Some("*/0".into())));
    let r = send("DELETE", "/rest/v1/people?id=eq.13", "count=exact", None).await;
    assert_eq!(range(&r), (204, Some("*/1".into())));
    let r = send(
        "DELETE",
        "/rest/v1/people?id=eq.12",
        "return=representation",
        None,
    )
    .await;
    assert_eq!(range(&r), (200, Some("*/*".into())));

    // An upsert that only updates answers 200; one that inserts anything, 201.
    let r = send(
        "POST",
        "/rest/v1/people",
        "resolution=merge-duplicates, return=representation, count=exact",
        Some(r#"{"id":10,"name":"Ten again"}"#),
    )
    .await;
    assert_eq!(range(&r), (200, Some("*/1".into())), "{}", r.text);
    assert_eq!(r.json()[0]["name"], "Ten again");
    let r = send(
        "POST",
        "/rest/v1/people",
        "resolution=merge-duplicates",
        Some(r#"[{"id":10,"name":"Ten"},{"id":14,"name":"Fourteen"}]"#),
    )
    .await;
    assert_eq!(r.status, 201);
    // Ignoring duplicates is an insert whatever happened.
    let r = send(
        "POST",
        "/rest/v1/people",
        "resolution=ignore-duplicates",
        Some(r#"{"id":10,"name":"ignored"}"#),
    )
    .await;
    assert_eq!(r.status, 201);
    let r = svc.get("/rest/v1/people?id=eq.10&select=name").await;
    assert_eq!(r.json(), json!([{"name": "Ten"}]));
}

#[tokio::test]
async fn strict_handling_and_max_affected() {
    let gw = &fixture();
    let svc = Api::service(gw);
    let send = async |method: &str, path: &str, prefer: &str, body: Option<&str>| {
        svc.send(method, path, &[("prefer", prefer)], body).await
    };
    // Unknown preferences: ignored, unless handling=strict.
    let r = send(
        "GET",
        "/rest/v1/people?select=id&id=eq.1",
        "bogus=1, count=exact",
        None,
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("preference-applied"), Some("count=exact"));
    let r = send(
        "GET",
        "/rest/v1/people?select=id",
        "handling=strict, bogus=1, nope",
        None,
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"code": "PGRST122", "message": "Invalid preferences given with handling=strict",
                   "details": "Invalid preferences: bogus=1, nope", "hint": null})
        )
    );
    // max-affected: an update or delete touching more rows fails and changes nothing.
    let r = send(
        "PATCH",
        "/rest/v1/people?id=in.(1,2,3)",
        "handling=strict, max-affected=2",
        Some(r#"{"nickname":"x"}"#),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"code": "PGRST124", "message": "Query result exceeds max-affected preference constraint",
                   "details": "The query affects 3 rows", "hint": null})
        )
    );
    let r = svc.get("/rest/v1/people?nickname=eq.x&select=id").await;
    assert_eq!(r.json(), json!([]), "rolled back");
    let r = send(
        "DELETE",
        "/rest/v1/people?id=in.(1,2,3)",
        "handling=strict, max-affected=1, return=representation",
        None,
    )
    .await;
    assert_eq!(r.json()["code"], "PGRST124");
    assert_eq!(
        svc.get("/rest/v1/people?select=id")
            .await
            .json()
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let r = send(
        "PATCH",
        "/rest/v1/people?id=in.(1,2)",
        "handling=strict, max-affected=2",
        Some(r#"{"nickname":"y"}"#),
    )
    .await;
    assert_eq!(r.status, 204);
    assert_eq!(
        r.header("preference-applied"),
        Some("handling=strict, max-affected=2")
    );
    // Without handling=strict, max-affected is not applied.
    let r = send(
        "DELETE",
        "/rest/v1/people?id=in.(1,2)",
        "max-affected=1",
        None,
    )
    .await;
    assert_eq!(r.status, 204);
    // Functions: a set is limited like a write; a single value cannot be.
    let r = send(
        "GET",
        "/rest/v1/rpc/all_nicknames",
        "handling=strict, max-affected=0",
        None,
    )
    .await;
    assert_eq!(
        (
            r.status,
            r.json()["code"].clone(),
            r.json()["details"].clone()
        ),
        (400, json!("PGRST124"), json!("The query affects 1 rows"))
    );
    let r = send(
        "GET",
        "/rest/v1/rpc/nickname_of?pid=3",
        "handling=strict, max-affected=1",
        None,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (400, json!("PGRST128"))
    );
}

#[tokio::test]
async fn missing_default_uses_every_kind_of_default() {
    let gw = &fixture();
    let svc = Api::service(gw);
    let r = svc
        .send(
            "POST",
            "/rest/v1/tickets?columns=id,title,status,note&select=id,title,status,note",
            &[("prefer", "missing=default, return=representation")],
            Some(r#"[{"title":"a"},{"id":100,"title":"b","status":"done","note":null}]"#),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert_eq!(
        r.json(),
        json!([
            {"id": 1, "title": "a", "status": "open", "note": "n/a"},
            {"id": 100, "title": "b", "status": "done", "note": null}
        ])
    );
    assert_eq!(
        r.header("preference-applied"),
        Some("missing=default, return=representation")
    );
    // Without it, a missing key is null (and the NOT NULL column says so).
    let r = svc
        .send(
            "POST",
            "/rest/v1/tickets?columns=title,status",
            &[],
            Some(r#"[{"title":"c"}]"#),
        )
        .await;
    assert_eq!((r.status, r.json()["code"].clone()), (400, json!("23502")));
}

#[tokio::test]
async fn function_counts_and_ranges() {
    let gw = &fixture();
    let anon = Api::anon(gw);
    let exact = [("prefer", "count=exact")];
    // A set of rows: the count is of the filtered rows, the range of the page.
    let r = anon
        .send(
            "GET",
            "/rest/v1/rpc/people_named?prefix=&select=id&limit=2",
            &exact,
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.header("content-range"), r.json()),
        (206, Some("0-1/3"), json!([{"id": 1}, {"id": 2}]))
    );
    let r = anon
        .send(
            "GET",
            "/rest/v1/rpc/people_named?prefix=Gr&select=id&id=gt.2",
            &exact,
            None,
        )
        .await;
    assert_eq!((r.status, r.header("content-range")), (200, Some("0-0/1")));
    let r = anon
        .send("HEAD", "/rest/v1/rpc/people_named?prefix=", &exact, None)
        .await;
    assert_eq!(
        (r.status, r.header("content-range"), r.text.as_str()),
        (200, Some("0-2/3"), "")
    );
    let r = anon
        .send(
            "POST",
            "/rest/v1/rpc/people_named?select=id&offset=1",
            &exact,
            Some(r#"{"prefix":""}"#),
        )
        .await;
    assert_eq!((r.status, r.header("content-range")), (206, Some("1-2/3")));
    // Scalars: a set counts its values, one value is one.
    let r = anon
        .send("GET", "/rest/v1/rpc/all_nicknames", &exact, None)
        .await;
    assert_eq!(r.header("content-range"), Some("0-2/3"));
    let r = anon
        .send("GET", "/rest/v1/rpc/nickname_of?pid=1", &exact, None)
        .await;
    assert_eq!(
        (r.header("content-range"), r.text.as_str()),
        (Some("0-0/1"), "\"ada\"")
    );
    let r = anon
        .send("GET", "/rest/v1/rpc/person?pid=1&select=name", &exact, None)
        .await;
    assert_eq!(
        (r.header("content-range"), r.json()),
        (Some("0-0/1"), json!({"name": "Ada Lovelace"}))
    );
    // Without the preference there is no total.
    let r = anon.get("/rest/v1/rpc/all_nicknames").await;
    assert_eq!(r.header("content-range"), Some("0-2/*"));
}

#[tokio::test]
async fn functions_resolve_as_postgrest_finds_them() {
    let gw = &fixture();
    let anon = Api::anon(gw);
    let post = async |path: &str, ctype: &str, body: &str| {
        anon.post_raw(path, ctype, body.as_bytes().to_vec()).await
    };
    // One unnamed parameter: the whole body, by its Content-Type.
    let r = post("/rest/v1/rpc/echo_text", "text/plain", "hello, world").await;
    assert_eq!((r.status, r.text.as_str()), (200, "\"hello, world\""));
    let r = post(
        "/rest/v1/rpc/echo_json",
        "application/json",
        "[1, {\"a\": 2}]",
    )
    .await;
    assert_eq!((r.status, r.json()), (200, json!([1, {"a": 2}])));
    let r = post("/rest/v1/rpc/echo_json", "application/json", "{\"a\": 1}").await;
    assert_eq!(r.json(), json!({"a": 1}));
    let r = post("/rest/v1/rpc/echo_xml", "text/xml", "<a>1</a>").await;
    assert_eq!(r.text, "\"<a>1</a>\"");
    let r = anon
        .post_raw(
            "/rest/v1/rpc/echo_bytes",
            "application/octet-stream",
            vec![0, 1, 2, 255],
        )
        .await;
    assert_eq!((r.status, r.text.as_str()), (200, "4"));
    // postgrest-js's rpc('f', {'': value}) names the unnamed parameter with an empty key.
    let r = post(
        "/rest/v1/rpc/echo_text",
        "application/json",
        r#"{"": "foo"}"#,
    )
    .await;
    assert_eq!((r.status, r.text.as_str()), (200, "\"foo\""), "{}", r.text);

    // Overloads that cannot be told apart: 300 PGRST203.
    let r = post("/rest/v1/rpc/twin", "application/json", r#"{"a": 1}"#).await;
    assert_eq!(
        (r.status, r.json()),
        (
            300,
            json!({"code": "PGRST203", "details": null,
                   "hint": "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
                   "message": "Could not choose the best candidate function between: public.twin(a => integer), public.twin(a => text)"})
        )
    );
    // Defaults: the overloads the keys match; both match `a` alone.
    assert_eq!(anon.get("/rest/v1/rpc/opt").await.text, "1");
    assert_eq!(anon.get("/rest/v1/rpc/opt?a=1&b=5").await.text, "6");
    let r = anon.get("/rest/v1/rpc/opt?a=4").await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (300, json!("PGRST203"))
    );

    // None: PGRST202 with PostgREST's words.
    let r = anon.get("/rest/v1/rpc/nothing_here").await;
    assert_eq!(
        (
            r.status,
            r.json()["message"].clone(),
            r.json()["details"].clone()
        ),
        (
            404,
            json!(
                "Could not find the function public.nothing_here without parameters in the schema cache"
            ),
            json!(
                "Searched for the function public.nothing_here without parameters, but no matches were found in the schema cache."
            )
        )
    );
    let r = post(
        "/rest/v1/rpc/twin",
        "application/json",
        r#"{"a": 1, "zz": 2}"#,
    )
    .await;
    assert_eq!(
        (
            r.status,
            r.json()["message"].clone(),
            r.json()["details"].clone()
        ),
        (
            404,
            json!("Could not find the function public.twin(a, zz) in the schema cache"),
            json!(
                "Searched for the function public.twin with parameters a, zz or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache."
            )
        )
    );
    let r = post("/rest/v1/rpc/twin", "text/plain", "x").await;
    assert_eq!(
        (r.json()["message"].clone(), r.json()["details"].clone()),
        (
            json!("Could not find the function public.twin in the schema cache"),
            json!(
                "Searched for the function public.twin with a single unnamed text parameter, but no matches were found in the schema cache."
            )
        )
    );
}

/// Sets in-database configuration on the login role and waits until the gateways reload it.
async fn db_config(gw: &support::Gateway, statements: &str, until: impl AsyncFn() -> bool) {
    gw.sql(&format!("{statements}; NOTIFY pgrst, 'reload config'"))
        .await;
    for _ in 0..100 {
        if until().await {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the configuration was not reloaded: {statements}");
}

#[tokio::test]
async fn in_database_configuration() {
    let gw = &fixture();
    let svc = Api::service(gw);
    let people = async || {
        svc.get("/rest/v1/people?select=id")
            .await
            .json()
            .as_array()
            .unwrap()
            .len()
    };

    // db-tx-end is commit by default: tx=rollback is ignored, as PostgREST.
    let r = svc
        .send(
            "POST",
            "/rest/v1/people",
            &[("prefer", "tx=rollback")],
            Some(r#"{"id":20,"name":"Kept"}"#),
        )
        .await;
    assert_eq!((r.status, r.header("preference-applied")), (201, None));
    assert_eq!(people().await, 4);

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
    let r = svc
        .send(
            "DELETE",
            "/rest/v1/people?id=eq.20",
            &[("prefer", "tx=rollback, return=representation")],
            None,
        )
        .await;
    assert_eq!((r.status, r.json().as_array().unwrap().len()), (200, 1));
    assert_eq!(people().await, 4, "rolled back");

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
    let r = svc
        .send("GET", "/rest/v1/people", &[("x-block", "1")], None)
        .await;
    assert_eq!(
        (
            r.status,
            r.json()["code"].clone(),
            r.json()["message"].clone()
        ),
        (400, json!("P0001"), json!("blocked by db-pre-request"))
    );
    assert_eq!(svc.get("/rest/v1/people?select=id").await.status, 200);
}

#[tokio::test]
async fn embedding_errors_as_postgrest_words_them() {
    let gw = &fixture();
    let anon = Api::anon(gw);
    let sorted = |v: serde_json::Value| {
        let mut a = v.as_array().unwrap().clone();
        a.sort_by_key(|x| x["relationship"].as_str().unwrap().to_string());
        serde_json::Value::Array(a)
    };
    // Two foreign keys: 300 PGRST201, the candidates as JSON details, a hint per constraint.
    let r = anon.get("/rest/v1/matches?select=id,teams(name)").await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (300, json!("PGRST201"))
    );
    let body = r.json();
    assert_eq!(
        body["message"],
        "Could not embed because more than one relationship was found for 'matches' and 'teams'"
    );
    assert_eq!(
        sorted(body["details"].clone()),
        json!([
            {"cardinality": "many-to-one", "embedding": "matches with teams",
             "relationship": "matches_away_fkey using matches(away) and teams(id)"},
            {"cardinality": "many-to-one", "embedding": "matches with teams",
             "relationship": "matches_home_fkey using matches(home) and teams(id)"}
        ])
    );
    let hint = body["hint"].as_str().unwrap();
    assert!(
        hint.starts_with("Try changing 'teams' to one of the following: "),
        "{hint}"
    );
    assert!(
        hint.contains("'teams!matches_home_fkey'") && hint.contains("'teams!matches_away_fkey'")
    );
    assert!(hint.ends_with(". Find the desired relationship in the 'details' key."));
    let r = anon.get("/rest/v1/teams?select=id,matches(id)").await;
    assert_eq!(
        sorted(r.json()["details"].clone())[1],
        json!({"cardinality": "one-to-many", "embedding": "teams with matches",
               "relationship": "matches_home_fkey using teams(id) and matches(home)"})
    );
    // The constraint name resolves it.
    let r = anon
        .get("/rest/v1/matches?select=id,home:teams!matches_home_fkey(name),away:teams!matches_away_fkey(name)")
        .await;
    assert_eq!(
        r.json(),
        json!([{"id": 1, "home": {"name": "Lilies"}, "away": {"name": "Roses"}}])
    );
    // No relationship: 400 PGRST200 with PostgREST's details.
    let r = anon.get("/rest/v1/matches?select=id,people(*)").await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"code": "PGRST200", "hint": null,
                   "message": "Could not find a relationship between 'matches' and 'people' in the schema cache",
                   "details": "Searched for a foreign key relationship between 'matches' and 'people' in the schema 'public', but no matches were found."})
        )
    );
    let r = anon.get("/rest/v1/matches?select=id,teams!nope(*)").await;
    assert_eq!(
        r.json()["details"],
        "Searched for a foreign key relationship between 'matches' and 'teams' using the hint 'nope' in the schema 'public', but no matches were found."
    );
}

/// A GET that must answer 200, and its JSON.
async fn ok_json(api: &Api<'_>, path: &str) -> serde_json::Value {
    let r = api.get(path).await;
    assert_eq!(r.status, 200, "{path}: {}", r.text);
    r.json()
}

#[tokio::test]
async fn relationships_of_every_kind() {
    let gw = &fixture();
    let anon = Api::anon(gw);
    let get = async |path: &str| ok_json(&anon, path).await;
    // A table referencing itself: `authors(…)` are the children, `mentor_id(…)` the parent, and
    // `authors!mentor_id(…)` the children by the referencing column.
    assert_eq!(
        get("/rest/v1/authors?select=name,mentor_id(name),authors(name)&order=id&authors.order=id")
            .await,
        json!([
            {"name": "Ursula", "mentor_id": null, "authors": [{"name": "Octavia"}, {"name": "Nnedi"}]},
            {"name": "Octavia", "mentor_id": {"name": "Ursula"}, "authors": []},
            {"name": "Nnedi", "mentor_id": {"name": "Ursula"}, "authors": []}
        ])
    );
    assert_eq!(
        get("/rest/v1/authors?select=name,pupils:authors!mentor_id(name)&id=eq.1").await,
        json!([{"name": "Ursula", "pupils": [{"name": "Octavia"}, {"name": "Nnedi"}]}])
    );
    // Computed relationships: a SETOF function embeds as an array, a single-row one as an object
    // (a composite function without a row gives a row of nulls, as in PostgREST).
    assert_eq!(
        get("/rest/v1/authors?select=name,long_books(title),mentor(name)&order=id").await,
        json!([
            {"name": "Ursula", "long_books": [{"title": "Earthsea"}, {"title": "Lathe"}], "mentor": {"name": null}},
            {"name": "Octavia", "long_books": [{"title": "Kindred"}], "mentor": {"name": "Ursula"}},
            {"name": "Nnedi", "long_books": [], "mentor": {"name": "Ursula"}}
        ])
    );
    // Through views: a renamed foreign key column, and a view of a table in an unexposed schema.
    assert_eq!(
        get("/rest/v1/book_list?select=title,writer,authors(name)&order=id&limit=2").await,
        json!([
            {"title": "Earthsea", "writer": 1, "authors": {"name": "Ursula"}},
            {"title": "Lathe", "writer": 1, "authors": {"name": "Ursula"}}
        ])
    );
    assert_eq!(
        get("/rest/v1/authors?select=name,book_list(title)&id=eq.2").await,
        json!([{"name": "Octavia", "book_list": [{"title": "Kindred"}]}])
    );
    assert_eq!(
        get("/rest/v1/books?select=title,reviews(stars)&id=in.(1,2)&order=id&reviews.order=id")
            .await,
        json!([
            {"title": "Earthsea", "reviews": [{"stars": 5}, {"stars": 4}]},
            {"title": "Lathe", "reviews": []}
        ])
    );
    // A function's rows embed like its table's.
    assert_eq!(
        get("/rest/v1/rpc/books_over?min_pages=190&select=title,authors(name)").await,
        json!([
            {"title": "Earthsea", "authors": {"name": "Ursula"}},
            {"title": "Kindred", "authors": {"name": "Octavia"}}
        ])
    );
    // PGRST200 suggests a close name, as PostgREST's fuzzy search does.
    let r = anon.get("/rest/v1/books?select=title,autors(name)").await;
    assert_eq!(
        (r.status, r.json()["code"].clone(), r.json()["hint"].clone()),
        (
            400,
            json!("PGRST200"),
            json!("Perhaps you meant 'authors' instead of 'autors'.")
        )
    );
    // Two embeds under one key: PostgreSQL's error, as PostgREST's statement gets it.
    let r = anon
        .get("/rest/v1/books?select=authors(name),authors(id)")
        .await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"code": "42712", "details": null, "hint": null,
                   "message": "table name \"books_authors_1\" specified more than once"})
        )
    );
}

#[tokio::test]
async fn aggregates_and_spreads() {
    let gw = &fixture();
    let anon = Api::anon(gw);
    // Off unless the database enables them, as PostgREST.
    let r = anon.get("/rest/v1/books?select=pages.sum()").await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"code": "PGRST123", "details": null, "hint": null,
                   "message": "Use of aggregate functions is not allowed"})
        )
    );
    db_config(
        gw,
        "ALTER ROLE authenticator SET pgrst.db_aggregates_enabled = 'true'",
        async || anon.get("/rest/v1/books?select=count()").await.status == 200,
    )
    .await;
    let get = async |path: &str| ok_json(&anon, path).await;
    // Grouped by the other columns; named after the function unless aliased; casts of the
    // column and of the result.
    assert_eq!(
        get("/rest/v1/books?select=genre,pages.sum(),count()&order=genre").await,
        json!([
            {"genre": "fantasy", "sum": 200, "count": 1},
            {"genre": "scifi", "sum": 536, "count": 3}
        ])
    );
    assert_eq!(
        get("/rest/v1/books?select=total:pages.sum()::text,longest:pages::bigint.max()").await,
        json!([{"total": "736", "longest": 260}])
    );
    // In an embed, per parent row.
    assert_eq!(
        get("/rest/v1/authors?select=name,books(count(),pages.avg()::int)&order=id").await,
        json!([
            {"name": "Ursula", "books": [{"count": 2, "avg": 190}]},
            {"name": "Octavia", "books": [{"count": 1, "avg": 260}]},
            {"name": "Nnedi", "books": [{"count": 1, "avg": 96}]}
        ])
    );
    // Spreads: a to-one relation's columns join the parent's; a to-many's become arrays.
    assert_eq!(
        get("/rest/v1/books?select=title,...authors(author:name)&order=id&limit=2").await,
        json!([
            {"title": "Earthsea", "author": "Ursula"},
            {"title": "Lathe", "author": "Ursula"}
        ])
    );
    assert_eq!(
        get("/rest/v1/authors?select=name,...books(title,pages)&id=eq.1&books.order=id").await,
        json!([{"name": "Ursula", "title": ["Earthsea", "Lathe"], "pages": [200, 180]}])
    );
    assert_eq!(
        get("/rest/v1/books?select=id,...authors(*)&id=eq.3").await,
        json!([{"id": 2, "name": "Octavia", "mentor_id": 1}]),
        "the spread's id is the author's (the later key wins in JSON)"
    );
    // An aggregate inside a to-one spread is the parent's: books' pages summed per author.
    let mut per_author = get("/rest/v1/books?select=...authors(name),pages.sum()").await;
    per_author
        .as_array_mut()
        .unwrap()
        .sort_by_key(|r| r["name"].as_str().unwrap().to_string());
    assert_eq!(
        per_author,
        json!([
            {"name": "Nnedi", "sum": 96},
            {"name": "Octavia", "sum": 260},
            {"name": "Ursula", "sum": 380}
        ])
    );
    // On a function's rows.
    assert_eq!(
        get("/rest/v1/rpc/books_over?min_pages=0&select=genre,count()&order=genre").await,
        json!([{"genre": "fantasy", "count": 1}, {"genre": "scifi", "count": 3}])
    );
}

#[tokio::test]
async fn explain_and_planned_counts() {
    let gw = &fixture();
    let anon = Api::anon(gw);
    let plan_json = "application/vnd.pgrst.plan+json";
    // Off unless the database enables it.
    let r = anon
        .send("GET", "/rest/v1/books", &[("accept", plan_json)], None)
        .await;
    assert_eq!(
        (
            r.status,
            r.json()["code"].clone(),
            r.json()["message"].clone()
        ),
        (
            406,
            json!("PGRST107"),
            json!("None of these media types are available: application/vnd.pgrst.plan+json")
        )
    );
    db_config(
        gw,
        "ALTER ROLE authenticator SET pgrst.db_plan_enabled = 'true'",
        async || {
            anon.send("GET", "/rest/v1/books", &[("accept", plan_json)], None)
                .await
                .status
                == 200
        },
    )
    .await;
    let r = anon
        .send(
            "GET",
            "/rest/v1/books?genre=eq.scifi",
            &[("accept", plan_json)],
            None,
        )
        .await;
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.pgrst.plan+json; for=\"application/json\"; charset=utf-8")
    );
    let plan = r.json();
    assert_eq!(plan[0]["Plan"]["Node Type"], "Aggregate", "{plan}");
    let r = anon
        .send(
            "GET",
            "/rest/v1/books",
            &[("accept", "application/vnd.pgrst.plan")],
            None,
        )
        .await;
    assert!(r.text.starts_with("Aggregate  (cost="), "{}", r.text);
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.pgrst.plan+text; for=\"application/json\"; charset=utf-8")
    );
    let r = anon
        .send(
            "GET",
            "/rest/v1/books",
            &[(
                "accept",
                "application/vnd.pgrst.plan+json; for=\"text/csv\"; options=verbose|settings",
            )],
            None,
        )
        .await;
    assert_eq!(
        r.header("content-type"),
        Some(
            "application/vnd.pgrst.plan+json; for=\"text/csv\"; options=verbose|settings; charset=utf-8"
        )
    );
    let plan = r.json();
    assert!(plan[0]["Query Identifier"].is_number(), "{plan}");
    assert_eq!(plan[0]["Settings"]["effective_cache_size"], "128MB");
    // An explained write changes nothing.
    let r = anon
        .send(
            "DELETE",
            "/rest/v1/authors?id=eq.3",
            &[("accept", plan_json)],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        anon.get("/rest/v1/authors?id=eq.3").await.json()[0]["id"],
        3
    );

    // Planned counts are the planner's estimate for the filtered rows.
    gw.sql("ANALYZE public.books").await;
    let head = async |path: &str, prefer: &str| {
        let r = anon.send("HEAD", path, &[("prefer", prefer)], None).await;
        (r.status, r.header("content-range").map(str::to_string))
    };
    assert_eq!(
        head("/rest/v1/books", "count=planned").await,
        (200, Some("0-3/4".into()))
    );
    assert_eq!(
        head("/rest/v1/books?genre=eq.scifi", "count=planned").await,
        (200, Some("0-2/3".into()))
    );
    // Estimated: exact up to db-max-rows, planned beyond it.
    db_config(
        gw,
        "ALTER ROLE authenticator SET pgrst.db_max_rows = '2'",
        async || {
            anon.get("/rest/v1/books")
                .await
                .json()
                .as_array()
                .unwrap()
                .len()
                == 2
        },
    )
    .await;
    assert_eq!(
        head("/rest/v1/books", "count=estimated").await,
        (206, Some("0-1/4".into()))
    );
    assert_eq!(
        head("/rest/v1/books?genre=eq.fantasy", "count=estimated").await,
        (200, Some("0-0/1".into()))
    );
}

#[tokio::test]
async fn put_timezone_profiles_and_function_hints() {
    let gw = &fixture();
    let svc = Api::service(gw);
    let put = async |path: &str, prefer: &str, body: &str| {
        svc.send("PUT", path, &[("prefer", prefer)], Some(body))
            .await
    };
    // PUT inserts (201) or replaces (200) the row its primary key names.
    let r = put(
        "/rest/v1/authors?id=eq.9",
        "return=representation",
        r#"{"id": 9, "name": "Kim"}"#,
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (201, json!([{"id": 9, "name": "Kim", "mentor_id": null}]))
    );
    let r = put(
        "/rest/v1/authors?id=eq.9",
        "return=representation",
        r#"{"id": 9, "name": "Kim S.", "mentor_id": 1}"#,
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (200, json!([{"id": 9, "name": "Kim S.", "mentor_id": 1}]))
    );
    let r = put(
        "/rest/v1/authors?id=eq.9",
        "",
        r#"{"id": 9, "name": "Kim"}"#,
    )
    .await;
    assert_eq!((r.status, r.text.as_str()), (204, ""));
    // A body whose key is not the URL's writes nothing.
    let r = put("/rest/v1/authors?id=eq.9", "", r#"{"id": 10, "name": "X"}"#).await;
    assert_eq!(
        (r.status, r.json()),
        (
            400,
            json!({"code": "PGRST115", "details": null, "hint": null,
                   "message": "Payload values do not match URL in primary key column(s)"})
        )
    );
    assert_eq!(svc.get("/rest/v1/authors?id=eq.10").await.json(), json!([]));
    let r = put(
        "/rest/v1/authors?name=eq.Kim",
        "",
        r#"{"id": 9, "name": "Kim"}"#,
    )
    .await;
    assert_eq!(
        (
            r.status,
            r.json()["code"].clone(),
            r.json()["message"].clone()
        ),
        (
            405,
            json!("PGRST105"),
            json!("Filters must include all and only primary key columns with 'eq' operators")
        )
    );
    let r = put(
        "/rest/v1/authors?id=eq.9&limit=1",
        "",
        r#"{"id": 9, "name": "Kim"}"#,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["message"].clone()),
        (
            400,
            json!("limit/offset querystring parameters are not allowed for PUT")
        )
    );
    // Functions take GET, HEAD and POST only.
    let r = svc
        .send("PATCH", "/rest/v1/rpc/zone", &[], Some("{}"))
        .await;
    assert_eq!(
        (
            r.status,
            r.json()["code"].clone(),
            r.json()["message"].clone()
        ),
        (
            405,
            json!("PGRST101"),
            json!("Cannot use the PATCH method on RPC")
        )
    );

    // Prefer: timezone sets the transaction's TimeZone.
    let r = svc
        .send(
            "GET",
            "/rest/v1/rpc/zone",
            &[("prefer", "timezone=America/Denver")],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json(), r.header("preference-applied")),
        (
            200,
            json!("America/Denver"),
            Some("timezone=America/Denver")
        )
    );
    let r = svc
        .send(
            "GET",
            "/rest/v1/rpc/zone",
            &[("prefer", "timezone=Nowhere/Atlantis")],
            None,
        )
        .await;
    assert_eq!((r.status, r.json()["code"].clone()), (400, json!("22023")));

    // A second exposed schema by profile; an unexposed one is 406.
    let r = svc
        .send(
            "GET",
            "/rest/v1/notes",
            &[("accept-profile", "extra")],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json(), r.header("content-profile")),
        (200, json!([{"id": 1, "body": "from extra"}]), Some("extra"))
    );
    let r = svc
        .send(
            "GET",
            "/rest/v1/reviews",
            &[("accept-profile", "private")],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (
            406,
            json!({"code": "PGRST106", "details": null, "message": "Invalid schema: private",
                   "hint": "Only the following schemas are exposed: public, extra"})
        )
    );

    // PGRST202 hints: a close function name, or the closest parameters of the overloads.
    let r = svc.get("/rest/v1/rpc/books_ovr?min_pages=1").await;
    assert_eq!(
        (r.status, r.json()["hint"].clone()),
        (
            404,
            json!("Perhaps you meant to call the function public.books_over")
        )
    );
    let r = svc.get("/rest/v1/rpc/books_over?min=1").await;
    assert_eq!(
        r.json()["hint"],
        json!("Perhaps you meant to call the function public.books_over(min_pages)")
    );
    // An unnamed parameter of a type no raw body can be is not callable, as PostgREST.
    let r = svc
        .post_raw(
            "/rest/v1/rpc/lone",
            "application/json",
            br#"{"": 1}"#.to_vec(),
        )
        .await;
    assert_eq!(
        (r.status, r.json()["message"].clone()),
        (
            404,
            json!("Could not find the function public.lone() in the schema cache")
        )
    );
}
