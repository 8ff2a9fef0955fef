//! What a hostile or careless client can send, and what the gateway answers: bounded input,
//! no write wider than asked, fair shares of the pool and a reserve for newcomers, timeouts
//! from role settings, cancelled abandoned statements, a bounded statement cache, trustworthy
//! client addresses and the headers that keep browsers safe.

use crate::support;
use serde_json::{Value, json};
use std::time::Duration;
use support::{Api, Reply};

const OBJ: (&str, &str) = ("accept", "application/vnd.pgrst.object+json");

async fn nap_function(gw: &support::Gateway) {
    gw.sql(
        "CREATE FUNCTION public.nap(secs float8) RETURNS int LANGUAGE sql \
         AS 'SELECT 1 FROM pg_sleep(secs)'",
    )
    .await;
    // The schema cache reloads after DDL.
    for _ in 0..50 {
        let r = Api::service(gw)
            .send("POST", "/rest/v1/rpc/nap", &[], Some(r#"{"secs":0}"#))
            .await;
        if r.status == 200 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("nap() never appeared");
}

#[tokio::test]
async fn deep_nesting_and_long_uris_are_refused_and_the_gateway_lives_on() {
    let gw = support::shop().await;
    let anon = Api::anon(&gw);
    let deep_or = format!("({}id.is.null{})", "or(".repeat(2500), ")".repeat(2501));
    let r = anon.get(&format!("/rest/v1/products?or={deep_or}")).await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (400, json!("PGRST100"))
    );
    assert_eq!(
        r.json()["details"],
        "nesting deeper than 20 levels is not supported"
    );
    let deep_select = format!("{}id{}", "categories(".repeat(1000), ")".repeat(1000));
    let r = anon
        .get(&format!("/rest/v1/products?select={deep_select}"))
        .await;
    assert_eq!(r.status, 400);
    let r = anon
        .get(&format!("/rest/v1/products?name=eq.{}", "a".repeat(20_000)))
        .await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (414, json!("PGRST414"))
    );
    let r = anon.get("/rest/v1/categories?select=slug&limit=1").await;
    assert_eq!(r.status, 200, "still serving");
}

#[tokio::test]
async fn writes_are_never_wider_than_asked() {
    let gw = support::shop().await;
    let svc = Api::service(&gw);
    let count = |r: &Reply| {
        r.header("content-range")
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_string()
    };
    let before = svc
        .send(
            "HEAD",
            "/rest/v1/product_categories",
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    for (method, query) in [
        ("DELETE", "limit=1&order=product_id"),
        ("DELETE", "offset=1"),
        ("PATCH", "limit=1"),
    ] {
        let r = svc
            .send(
                method,
                &format!("/rest/v1/product_categories?{query}"),
                &[],
                Some(r#"{"created_at":"2020-01-01T00:00:00Z"}"#),
            )
            .await;
        assert_eq!(
            (r.status, r.json()["code"].clone()),
            (400, json!("PGRST114")),
            "{method} ?{query}: {}",
            r.text
        );
    }
    let after = svc
        .send(
            "HEAD",
            "/rest/v1/product_categories",
            &[("prefer", "count=exact")],
            None,
        )
        .await;
    assert_eq!(
        count(&before),
        count(&after),
        "nothing was deleted or changed"
    );
    // `order` shapes the returned rows of a write, as in PostgREST.
    let links = svc
        .get("/rest/v1/product_categories?select=product_id&limit=1")
        .await
        .json();
    let product = links[0]["product_id"].as_str().unwrap();
    let r = svc
        .send(
            "DELETE",
            &format!("/rest/v1/product_categories?select=category_id&order=category_id.desc&product_id=eq.{product}"),
            &[("prefer", "return=representation")],
            None,
        )
        .await;
    let ids: Vec<String> = r
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["category_id"].as_str().unwrap().to_string())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(ids, sorted);
    let r = svc.get("/rest/v1/products?on_conflict=id").await;
    assert_eq!(r.status, 400);
}

#[tokio::test]
async fn planned_counts_never_estimate_rows_rls_hides() {
    let gw = support::shop().await;
    gw.sql("ANALYZE public.products").await;
    let r = Api::anon(&gw)
        .send(
            "HEAD",
            "/rest/v1/products",
            &[("prefer", "count=planned")],
            None,
        )
        .await;
    // 21 products are available to the public; 24 exist.
    assert_eq!(r.header("content-range"), Some("0-20/21"));
}

#[tokio::test]
async fn role_settings_time_requests_out_and_abandoned_statements_are_cancelled() {
    let gw = support::shop().await;
    nap_function(&gw).await;
    // anon has statement_timeout 3s (a Supabase role setting), authenticated 8s.
    let anon = Api::anon(&gw);
    let user_id = gw.create_user("napper@example.com", false).await;
    let user = Api::user(&gw, &user_id);
    let (a, u) = tokio::join!(
        anon.send("POST", "/rest/v1/rpc/nap", &[], Some(r#"{"secs":3.5}"#)),
        user.send("POST", "/rest/v1/rpc/nap", &[], Some(r#"{"secs":3.5}"#)),
    );
    assert_eq!((a.status, a.json()["code"].clone()), (500, json!("57014")));
    assert_eq!(u.status, 200, "{}", u.text);
    // A client that gives up: its statement does not run on for nobody.
    let impatient = reqwest::Client::builder()
        .timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    let gone = impatient
        .post(format!("{}/rest/v1/rpc/nap", gw.url))
        .header("apikey", &gw.service)
        .header("authorization", format!("Bearer {}", gw.service))
        .header("content-type", "application/json")
        .body(r#"{"secs":30}"#)
        .send()
        .await;
    assert!(gone.is_err(), "the client timed out");
    let mut cancelled = false;
    for _ in 0..50 {
        let rows = gw
            .sql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%nap%' AND state = 'active' AND pid <> pg_backend_pid()")
            .await;
        if rows[0][0].as_deref() == Some("0") {
            cancelled = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(cancelled, "the abandoned statement was cancelled");
}

/// Four addresses, one after the other, each send all they may to a function that waits on a
/// lock the test holds. The first gets half the pool, the others one connection each, and a
/// fifth address is served while they wait. (Before, each address got half the pool: two held
/// every connection.)
#[tokio::test]
async fn a_few_addresses_cannot_hold_every_connection() {
    let gw = support::shop_with(&["--db-pool", "10", "--workers", "2"]).await;
    gw.sql(
        "CREATE FUNCTION public.held() RETURNS int LANGUAGE sql \
         AS 'SELECT 1 FROM pg_advisory_xact_lock_shared(42)'",
    )
    .await;
    let from = |ip: &str| {
        reqwest::Client::builder()
            .local_address(ip.parse::<std::net::IpAddr>().unwrap())
            .build()
            .unwrap()
    };
    // The schema cache reloads after DDL.
    let svc = Api::service(&gw);
    while svc.get("/rest/v1/rpc/held").await.status == 404 {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let lock = gw.session_on(&gw.dbname).await;
    lock.simple_query("SELECT pg_advisory_lock(42)")
        .await
        .unwrap();
    let waiting = "SELECT count(*)::text FROM pg_locks WHERE locktype = 'advisory' AND NOT granted";
    let mut attacks = Vec::new();
    for (i, running) in [(1, "5"), (2, "6"), (3, "7"), (4, "8")] {
        let client = from(&format!("127.0.0.{i}"));
        for _ in 0..6 {
            attacks.push(tokio::spawn(
                client
                    .post(format!("{}/rest/v1/rpc/held", gw.url))
                    .header("apikey", &gw.service)
                    .header("authorization", format!("Bearer {}", gw.service))
                    .send(),
            ));
        }
        let t0 = std::time::Instant::now();
        loop {
            let n = gw.sql(waiting).await[0][0].clone();
            if n.as_deref() == Some(running) {
                break;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "address {i}: {n:?} running, not {running}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let other = from("127.0.0.9")
        .get(format!("{}/rest/v1/categories?select=slug&limit=1", gw.url))
        .header("apikey", &gw.anon)
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 200);
    assert_eq!(gw.sql(waiting).await[0][0].as_deref(), Some("8"));
    drop(lock);
    for r in attacks {
        let r = r.await.unwrap().unwrap();
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
}

/// Ten addresses one after the other each send three requests to a function that waits on a
/// lock the test holds: the pool's ten connections fill up from the seventh address on, and
/// each further address's first request runs on the reserve. A newcomer (an eleventh address,
/// nothing running) reads while all thirty still wait. (Before, the eighth address on and the
/// newcomer waited for one of theirs to end: here, the pool timeout, then 504.)
#[tokio::test]
async fn ten_addresses_cannot_stall_a_newcomer() {
    let gw = support::shop_with(&["--db-pool", "10", "--workers", "2"]).await;
    gw.sql(
        "CREATE FUNCTION public.held() RETURNS int LANGUAGE sql \
         AS 'SELECT 1 FROM pg_advisory_xact_lock_shared(42)'",
    )
    .await;
    let from = |ip: &str| {
        reqwest::Client::builder()
            .local_address(ip.parse::<std::net::IpAddr>().unwrap())
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap()
    };
    // The schema cache reloads after DDL.
    let svc = Api::service(&gw);
    let t0 = std::time::Instant::now();
    while svc.get("/rest/v1/rpc/held").await.status == 404 {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "held() never appeared"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let lock = gw.session_on(&gw.dbname).await;
    lock.simple_query("SELECT pg_advisory_lock(42)")
        .await
        .unwrap();
    let waiting = async || {
        gw.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
            .await[0][0]
            .as_deref()
            .unwrap()
            .parse::<usize>()
            .unwrap()
    };
    let mut attacks = Vec::new();
    for i in 1..=10 {
        let client = from(&format!("127.0.0.{i}"));
        for _ in 0..3 {
            attacks.push(tokio::spawn(
                client
                    .post(format!("{}/rest/v1/rpc/held", gw.url))
                    .header("apikey", &gw.service)
                    .header("authorization", format!("Bearer {}", gw.service))
                    .send(),
            ));
        }
        // The first address runs three, the second two (while half the pool is free), each
        // further one one: the pool is full from the seventh on, then the reserve takes one
        // request of each address.
        let t0 = std::time::Instant::now();
        let want = if i == 1 { 3 } else { i + 3 };
        while waiting().await < want {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "address {i}: not {want} running"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let t0 = std::time::Instant::now();
    let read = from("127.0.0.11")
        .get(format!("{}/rest/v1/categories?select=slug&limit=1", gw.url))
        .header("apikey", &gw.anon)
        .timeout(Duration::from_secs(5))
        .send()
        .await;
    let took = t0.elapsed();
    eprintln!("the newcomer's read took {took:?}");
    let read = read.expect("the newcomer is answered");
    assert_eq!(read.status(), 200, "{}", read.text().await.unwrap());
    assert!(
        attacks.iter().all(|a| !a.is_finished()) && waiting().await == 13,
        "answered while every slow request still runs"
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
    drop(lock);
    for r in attacks {
        let r = r.await.unwrap().unwrap();
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }
}

#[tokio::test]
async fn each_connection_keeps_a_bounded_number_of_prepared_statements() {
    let gw =
        support::shop_with(&["--db-pool", "1", "--workers", "1", "--statement-cache", "8"]).await;
    gw.sql(
        "CREATE FUNCTION public.prepared_count() RETURNS bigint LANGUAGE sql \
         AS 'SELECT count(*) FROM pg_prepared_statements'",
    )
    .await;
    let anon = Api::anon(&gw);
    for i in 0..40 {
        let r = anon
            .get(&format!("/rest/v1/categories?select=u{i}:name&limit=1"))
            .await;
        assert_eq!(r.status, 200);
    }
    let mut count = Value::Null;
    for _ in 0..50 {
        let r = anon
            .send("POST", "/rest/v1/rpc/prepared_count", &[], Some("{}"))
            .await;
        if r.status == 200 {
            count = r.json();
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let n = count.as_i64().expect("prepared_count() answered");
    assert!(n <= 8, "{n} prepared statements on the connection");
}

#[tokio::test]
async fn small_things_that_used_to_break() {
    let gw = support::shop().await;
    let anon = Api::anon(&gw);
    // A Range reaching u64::MAX is "everything", not an overflow.
    let r = anon
        .send(
            "GET",
            "/rest/v1/categories?select=slug",
            &[("range", "0-18446744073709551615")],
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json().as_array().unwrap().len(), 8);
    let r = anon
        .send(
            "GET",
            "/rest/v1/categories?select=slug&slug=eq.seasonal",
            &[OBJ],
            None,
        )
        .await;
    assert_eq!(r.status, 200);

    let svc = Api::service(&gw);
    let png = [0x89u8, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0];
    let up = reqwest::Client::new()
        .post(format!("{}/storage/v1/object/product-images/a.png", gw.url))
        .header("apikey", &gw.service)
        .header("authorization", format!("Bearer {}", gw.service))
        .header("content-type", "image/png")
        .body(png.to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(up.status(), 200);
    // CR/LF in ?download= cannot inject a header.
    let r = anon
        .get("/storage/v1/object/public/product-images/a.png?download=x%0d%0aSet-Cookie:%20a=1")
        .await;
    assert_eq!(r.status, 200);
    assert!(r.header("set-cookie").is_none());
    let cd = r.header("content-disposition").unwrap();
    assert!(
        cd.starts_with("attachment; filename=x%0D%0ASet-Cookie%3A%20a%3D1;"),
        "{cd}"
    );
    let r = anon
        .send(
            "GET",
            "/storage/v1/object/public/product-images/a.png",
            &[("range", "bytes=0-18446744073709551615")],
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.header("content-range")),
        (206, Some("bytes 0-11/12"))
    );
    // A signed URL's lifetime is bounded, never wrapped into the past.
    let r = svc
        .send(
            "POST",
            "/storage/v1/object/sign/product-images/a.png",
            &[],
            Some(r#"{"expiresIn": 9223372036854775807}"#),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert!(r.json()["message"].as_str().unwrap().contains("expiresIn"));
    let r = svc
        .send(
            "POST",
            "/storage/v1/object/sign/product-images/a.png",
            &[],
            Some(r#"{"expiresIn": 3153600000}"#),
        )
        .await;
    let url = r.json()["signedURL"].as_str().unwrap().to_string();
    assert_eq!(anon.get(&format!("/storage/v1{url}")).await.status, 200);

    // Passwords bcrypt cannot hold never sign in, whatever their first 72 bytes.
    let client = reqwest::Client::new();
    let auth = |path: &str, body: Value| {
        client
            .post(format!("{}/auth/v1/{path}", gw.url))
            .header("apikey", &gw.anon)
            .json(&body)
            .send()
    };
    let pw = "p".repeat(72);
    let r = auth(
        "signup",
        json!({"email": "long@example.com", "password": pw}),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers().get("cache-control").unwrap(), "no-store");
    let r = auth(
        "token?grant_type=password",
        json!({"email": "long@example.com", "password": format!("{pw}tail")}),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 400);
    let r = auth(
        "token?grant_type=password",
        json!({"email": "long@example.com", "password": pw}),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers().get("cache-control").unwrap(), "no-store");

    // Stale rate-limit windows are pruned.
    gw.sql("INSERT INTO auth.rate_limits VALUES ('old:1.2.3.4', now() - interval '2 hours', 5)")
        .await;
    let mut cfg = tokio_postgres::Config::new();
    cfg.host_path(&gw.socket_dir)
        .port(5432)
        .user("postgres")
        .dbname(&gw.dbname);
    let (c, conn) = cfg.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    assert!(auth::limits::prune(&c).await.unwrap() >= 1);
}

#[tokio::test]
async fn every_response_carries_an_id_and_safe_defaults() {
    let gw = support::shop().await;
    let r = Api::anon(&gw)
        .get("/rest/v1/categories?select=slug&limit=1")
        .await;
    assert!(r.header("x-request-id").is_some_and(|v| !v.is_empty()));
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(
        r.header("referrer-policy"),
        Some("strict-origin-when-cross-origin")
    );
    let r = Api::anon(&gw)
        .send(
            "GET",
            "/rest/v1/categories?limit=1",
            &[("x-request-id", "trace-42")],
            None,
        )
        .await;
    assert_eq!(r.header("x-request-id"), Some("trace-42"));
}

#[tokio::test]
async fn stored_documents_cannot_run_as_the_api_origin() {
    let gw = support::shop().await;
    let svc = Api::service(&gw);
    for (bucket, types) in [
        ("anything", Value::Null),
        ("drawings", json!(["image/svg+xml"])),
    ] {
        let r = svc
            .send("POST", "/storage/v1/bucket", &[], Some(&json!({"id": bucket, "name": bucket, "public": true, "allowed_mime_types": types}).to_string()))
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let svg = r#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
    for bucket in ["anything", "drawings"] {
        let r = reqwest::Client::new()
            .post(format!("{}/storage/v1/object/{bucket}/x.svg", gw.url))
            .header("apikey", &gw.service)
            .header("authorization", format!("Bearer {}", gw.service))
            .header("content-type", "image/svg+xml")
            .body(svg)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }
    let r = Api::anon(&gw)
        .get("/storage/v1/object/public/anything/x.svg")
        .await;
    assert!(
        r.header("content-disposition")
            .unwrap()
            .starts_with("attachment")
    );
    assert!(
        r.header("content-security-policy")
            .unwrap()
            .contains("sandbox")
    );
    let r = Api::anon(&gw)
        .get("/storage/v1/object/public/drawings/x.svg")
        .await;
    assert!(
        r.header("content-disposition").is_none(),
        "the bucket lists SVG: inline"
    );
    assert!(
        r.header("content-security-policy")
            .unwrap()
            .contains("sandbox")
    );
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    // Active types a list of documents misses: every type not known to be inert is sandboxed
    // and downloaded from a bucket without a MIME list; inert ones stay inline.
    for (name, ctype, active) in [
        ("feed.xml", "application/atom+xml", true),
        ("style.xsl", "text/xsl", true),
        ("stream", "multipart/x-mixed-replace; boundary=x", true),
        ("odd", "application/x-never-heard-of", true),
        ("photo.png", "image/png", false),
        ("notes.txt", "text/plain", false),
    ] {
        let body: &[u8] = if ctype == "image/png" {
            &[
                0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R',
            ]
        } else {
            b"--x\r\n<?xml-stylesheet href='#'?><x/>"
        };
        let r = svc
            .request(
                "POST",
                &format!("/storage/v1/object/anything/{name}"),
                &[("content-type", ctype)],
                Some(body.to_vec()),
            )
            .await;
        assert_eq!(r.status, 200, "{ctype}: {}", r.text);
        let r = Api::anon(&gw)
            .get(&format!("/storage/v1/object/public/anything/{name}"))
            .await;
        let attachment = r
            .header("content-disposition")
            .is_some_and(|d| d.starts_with("attachment"));
        let sandboxed = r
            .header("content-security-policy")
            .is_some_and(|c| c.contains("sandbox"));
        assert_eq!((attachment, sandboxed), (active, active), "{ctype}");
    }
}

#[tokio::test]
async fn a_sites_own_headers_apply_and_its_config_is_a_script() {
    let site = support::scratch_dir("site");
    std::fs::write(
        site.join("index.html"),
        "<html><head></head><body>shop</body></html>",
    )
    .unwrap();
    std::fs::write(
        site.join("_headers"),
        "/*\n  Content-Security-Policy: default-src 'self'\n/admin*\n  X-Frame-Options: DENY\n  Content-Security-Policy: frame-ancestors 'none'\n",
    )
    .unwrap();
    let gw = support::shop_with(&["--site-dir", site.to_str().unwrap()]).await;
    let anon = Api::anon(&gw);
    let r = anon.get("/").await;
    assert_eq!(
        r.header("content-security-policy"),
        Some("default-src 'self'")
    );
    assert!(
        r.text
            .contains("<script src=\"/__supagate/config.js\"></script></head>")
    );
    assert!(
        !r.text.contains("<script>"),
        "no inline script for a CSP to allow"
    );
    let r = anon.get("/admin/products").await;
    assert_eq!(r.header("x-frame-options"), Some("DENY"));
    assert_eq!(
        r.header("content-security-policy"),
        Some("frame-ancestors 'none'")
    );
    let r = anon.get("/__supagate/config.js").await;
    assert!(r.text.starts_with("window.__SUPAGATE__={") && r.text.contains(&gw.anon));
    assert_eq!(anon.get("/_headers").await.status, 404);
}

#[tokio::test]
async fn the_client_address_is_the_one_the_proxy_saw() {
    let gw = support::shop_with(&[
        "--rate-limit-ip-header",
        "X-Forwarded-For",
        "--rate-limit-sign-in",
        "3",
    ])
    .await;
    let client = reqwest::Client::new();
    let attempt = |forwarded: String| {
        client
            .post(format!("{}/auth/v1/token?grant_type=password", gw.url))
            .header("apikey", &gw.anon)
            .header("x-forwarded-for", forwarded)
            .json(&json!({"email": "nobody@example.com", "password": "wrong-password"}))
            .send()
    };
    // The client rotates the first entry; the proxy's own (last) entry stays: limited.
    let mut statuses = Vec::new();
    for i in 0..5 {
        statuses.push(
            attempt(format!("10.0.0.{i}, 198.51.100.7"))
                .await
                .unwrap()
                .status()
                .as_u16(),
        );
    }
    assert_eq!(statuses, [400, 400, 400, 429, 429]);
    // Another real client (another last entry) is not.
    assert_eq!(attempt("198.51.100.8".into()).await.unwrap().status(), 400);
}

#[tokio::test]
async fn demo_keys_stay_on_loopback() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_supagate"))
            .args([
                "--workdir",
                support::repo_root().to_str().unwrap(),
                "--data-dir",
                "/nonexistent/never-created",
            ])
            .args(args)
            .arg("start")
            .env_remove("JWT_SECRET")
            .env("RUST_LOG", "error")
            .output()
            .unwrap()
    };
    let out = run(&["--host", "0.0.0.0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to listen on 0.0.0.0 with the public demo JWT secret"),
        "{err}"
    );
    assert!(!std::path::Path::new("/nonexistent/never-created").exists());
}
