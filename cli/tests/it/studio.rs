//! Studio's API on a copy of the shop's database: the table editor's reads and writes as
//! PostgREST-style filters, the SQL editor's roles and error positions, CSV, and the refusals
//! that keep other sites out. (The pages themselves: tests/e2e/studio.spec.ts.)

use crate::support;
use serde_json::{Value, json};
use support::shop;

mod logs;
mod settings;

struct Studio {
    base: String,
    client: reqwest::Client,
}

impl Studio {
    async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, String) {
        let mut req = self
            .client
            .request(
                reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
                format!("{}/api{path}", self.base),
            )
            .header("x-studio", "1");
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req.send().await.expect("Studio answers");
        (res.status().as_u16(), res.text().await.unwrap())
    }
}

/// A client with the cookie Studio's link sets (see borrowed_powers.rs for the link itself).
fn signed_in(gw: &support::Gateway) -> reqwest::Client {
    let port = gw.status["STUDIO_URL"]
        .rsplit(':')
        .next()
        .unwrap()
        .to_string();
    let cookie = format!("supagate_studio_{port}={}", gw.status["STUDIO_TOKEN"]);
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("cookie", cookie.parse().unwrap());
    reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap()
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

#[tokio::test]
async fn studio_reads_writes_and_runs_sql_as_asked() {
    let gw = shop().await;
    let s = Studio {
        base: gw.status["STUDIO_URL"].clone(),
        client: signed_in(&gw),
    };
    assert!(s.base.starts_with("http://127.0.0.1:"), "{}", s.base);

    // Reads: (path, status, what the answer holds).
    let reads: &[(&str, u16, &str)] = &[
        (
            "/rows/public/categories?order=name.desc&limit=2",
            200,
            "\"name\":\"Sympathy\"",
        ),
        (
            "/rows/public/categories?slug=in.(memorial,plants)",
            200,
            "\"count\":2,\"exact\":true",
        ),
        (
            "/rows/public/categories?name=not.ilike.*o*&order=name",
            200,
            "\"count\":3",
        ),
        (
            "/rows/public/nope",
            404,
            "the table public.nope was not found",
        ),
        (
            "/rows/public/categories?nope=eq.1",
            400,
            "categories has no column \\\"nope\\\"",
        ),
        (
            "/rows/public/categories?order_by=gt.x",
            400,
            "invalid input syntax for type integer",
        ),
        (
            "/tables/public/product_categories",
            200,
            "\"outgoing\":true",
        ),
        ("/tables?schema=public", 200, "\"name\":\"products\""),
        (
            "/database/policies?schema=public",
            200,
            "Users read their own roles",
        ),
        ("/database/nope", 404, "the list \\\"nope\\\" was not found"),
        (
            "/database/columns?schema=public",
            200,
            "{\"schema\":\"public\",\"table\":\"categories\",\"name\":\"id\",",
        ),
        // A table's indexes with their method and key columns; a schema's enums in order;
        // the index methods the database has, btree first.
        ("/tables/public/products", 200, "\"indexes\":[{"),
        (
            "/tables/public/products",
            200,
            "\"method\":\"btree\",\"columns\":[\"id\"]",
        ),
        (
            "/database/enums?schema=public",
            200,
            "\"name\":\"request_status\",\"values\":[\"new\",\"contacted\",\"done\"]",
        ),
        (
            "/database/index_methods?schema=",
            200,
            "[{\"name\":\"btree\"}",
        ),
        ("/database/index_methods?schema=", 200, "{\"name\":\"gin\"}"),
        // The Edge Functions page's list: each function with verify_jwt.
        ("/functions", 200, "\"served\":true"),
        ("/functions", 200, "\"verify_jwt\":"),
        ("/settings", 200, "\"algorithm\":\"HS256\""),
        ("/settings", 200, "\"rest\":\"http://127.0.0.1:"),
        ("/nothing-here", 404, "Studio has no such API"),
    ];
    for (path, status, holds) in reads {
        let (got, text) = s.call("GET", path, None).await;
        assert_eq!(got, *status, "{path}: {text}");
        assert!(text.contains(holds), "{path}: {text}");
    }
    // The new lists are Studio's like the others: nothing without this start's secret.
    for path in [
        "/database/enums?schema=public",
        "/database/index_methods?schema=",
        "/functions",
    ] {
        let r = reqwest::get(format!("{}/api{path}", s.base)).await.unwrap();
        assert_eq!(r.status().as_u16(), 401, "{path}");
    }
    // A migration's name is checked before anything is diffed or written.
    let (st, text) = s
        .call("POST", "/migrations", Some(json!({"name": "../up"})))
        .await;
    assert_eq!(st, 400, "{text}");
    assert!(text.contains("is not a migration name"), "{text}");

    // Writes by primary key, through the owner (RLS is the API's, not Studio's).
    let (st, text) = s
        .call(
            "POST",
            "/rows/public/shop_closures",
            Some(json!({"values": {"day": "2032-12-25", "note": "Christmas"}})),
        )
        .await;
    assert_eq!(st, 201, "{text}");
    let key = json!({"day": "2032-12-25"});
    let (st, text) = s
        .call(
            "PATCH",
            "/rows/public/shop_closures",
            Some(json!({"key": key, "values": {"note": "Christmas Day"}})),
        )
        .await;
    assert_eq!(
        (st, json_of(&text)["note"].clone()),
        (200, json!("Christmas Day")),
        "{text}"
    );
    let (st, text) = s
        .call(
            "PATCH",
            "/rows/public/shop_closures",
            Some(json!({"key": key, "values": {"note": ""}})),
        )
        .await;
    assert_eq!(st, 400, "{text}");
    assert!(text.contains("shop_closures_note_check"), "{text}");
    let (_, csv) = s
        .call("GET", "/csv/public/shop_closures?day=eq.2032-12-25", None)
        .await;
    assert_eq!(csv, "day,note\n2032-12-25,Christmas Day\n");
    let (st, text) = s
        .call(
            "DELETE",
            "/rows/public/shop_closures",
            Some(json!({"keys": [key, {"day": "1999-01-01"}]})),
        )
        .await;
    assert_eq!(
        (st, json_of(&text)["deleted"].clone()),
        (200, json!(1)),
        "{text}"
    );

    // SQL as the owner, as a role, as a user; errors with their place.
    let admin = gw
        .sql("SELECT id::text FROM auth.users WHERE email = 'admin@example.com'")
        .await[0][0]
        .clone()
        .unwrap();
    let runs: &[(Value, u16, &str)] = &[
        (
            json!({"query": "select count(*) from user_roles"}),
            200,
            "[[\"1\"]]",
        ),
        (
            json!({"query": "select count(*) from user_roles", "role": "authenticated"}),
            200,
            "[[\"0\"]]",
        ),
        (
            json!({"query": "select count(*), auth.uid()::text from user_roles", "role": "authenticated", "user_id": admin}),
            200,
            &format!("[[\"1\",\"{admin}\"]]"),
        ),
        (
            json!({"query": "select current_user", "role": "anon"}),
            200,
            "[[\"anon\"]]",
        ),
        (
            json!({"query": "select 1;\n  selec 2"}),
            400,
            "\"line\":2,\"column\":3",
        ),
        (
            json!({"query": "insert into shop_closures values ('2033-01-01', 'x')", "rollback": true}),
            200,
            "\"row_count\":1",
        ),
        (
            json!({"query": "select count(*) from shop_closures where day = '2033-01-01'"}),
            200,
            "[[\"0\"]]",
        ),
        (
            json!({"query": "select 1", "user_id": admin}),
            400,
            "a user is chosen with a role",
        ),
        (json!({"query": "  "}), 400, "there is no SQL to run"),
        (
            json!({"query": "select 1", "role": "no_such_role"}),
            400,
            "role \\\"no_such_role\\\" does not exist",
        ),
    ];
    for (body, status, holds) in runs {
        let (got, text) = s.call("POST", "/sql", Some(body.clone())).await;
        assert_eq!(got, *status, "{body}: {text}");
        assert!(text.contains(holds), "{body}: {text}");
    }

    // Other sites: no Origin but Studio's, no write without Studio's header.
    let refused = s
        .client
        .post(format!("{}/api/sql", s.base))
        .json(&json!({"query": "select 1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    let cross = s
        .client
        .get(format!("{}/api/session", s.base))
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(cross.status().as_u16(), 403);
    // The UI: its page for any route, its files gzipped and cached for good.
    let page = s
        .client
        .get(format!("{}/tables/public/products", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains(&format!("connect-src 'self' {}", gw.url)),
        "{csp}"
    );
    let html = page.text().await.unwrap();
    let script = html
        .split("src=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let js = s
        .client
        .get(format!("{}{script}", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(
        js.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(
        js.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
}
