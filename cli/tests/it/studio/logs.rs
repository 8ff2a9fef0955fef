//! Studio's Logs and calls as a user: the inspector's history of requests (listed with filters,
//! one request's detail with its secrets blanked), PostgreSQL's log, and the short-lived token
//! Studio's server signs for a user. Each endpoint answers only Studio's browser.

use super::{Studio, json_of, signed_in};
use crate::support;
use base64::Engine;
use serde_json::{Value, json};

/// Each new endpoint refuses a caller without Studio's cookie.
async fn refused_without_the_secret(base: &str) {
    let anyone = reqwest::Client::new();
    let calls = [
        ("GET", "/api/logs/requests"),
        ("GET", "/api/logs/requests?status=4xx"),
        ("GET", "/api/logs/requests/1"),
        ("GET", "/api/logs/postgres"),
        (
            "POST",
            "/api/users/00000000-0000-0000-0000-000000000000/token",
        ),
    ];
    for (method, path) in calls {
        let res = anyone
            .request(
                reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
                format!("{base}{path}"),
            )
            .header("x-studio", "1")
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        assert_eq!(status, 401, "{method} {path}: {text}");
        assert!(!text.contains("access_token"), "{text}");
    }
}

#[tokio::test]
async fn the_request_history_is_searched_and_each_request_opened_without_its_secrets() {
    let gw = support::shop().await;
    let s = Studio {
        base: gw.status["STUDIO_URL"].clone(),
        client: signed_in(&gw),
    };
    refused_without_the_secret(&s.base).await;
    let api = reqwest::Client::new();
    // A failing request with every kind of secret: a key, a bearer token, a cookie, a secret
    // query parameter.
    let failed = api
        .get(format!(
            "{}/rest/v1/products?select=name&code=eq.s3cret-code",
            gw.url
        ))
        .header("apikey", &gw.anon)
        .header("authorization", format!("Bearer {}", gw.anon))
        .header(
            "cookie",
            "sb-session=abcdefghijklmnopqrstuvwxyz; theme=dark",
        )
        .header("x-note", "shown")
        .send()
        .await
        .unwrap();
    assert_eq!(failed.status().as_u16(), 400);
    let failed_id = failed.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    let read = api
        .get(format!("{}/rest/v1/categories?select=name&limit=1", gw.url))
        .header("apikey", &gw.anon)
        .send()
        .await
        .unwrap();
    assert_eq!(read.status().as_u16(), 200);
    let auth = api
        .get(format!("{}/auth/v1/user", gw.url))
        .header("apikey", &gw.anon)
        .send()
        .await
        .unwrap();
    assert_eq!(auth.status().as_u16(), 401);

    // Listings: (query, paths of the requests listed, newest first).
    let listed = |q: &'static str| {
        let s = &s;
        async move {
            let (status, text) = s.call("GET", &format!("/logs/requests{q}"), None).await;
            assert_eq!(status, 200, "{q}: {text}");
            json_of(&text)
        }
    };
    let cases: &[(&str, &[&str])] = &[
        (
            "?status=4xx&path=/rest/v1/",
            &["/rest/v1/products?select=name&code=[redacted]"],
        ),
        (
            "?path=/rest/v1/",
            &[
                "/rest/v1/categories?select=name&limit=1",
                "/rest/v1/products?select=name&code=[redacted]",
            ],
        ),
        ("?service=auth", &["/auth/v1/user"]),
        (
            "?service=rest&status=200",
            &["/rest/v1/categories?select=name&limit=1"],
        ),
        (
            "?status=400&role=anon",
            &["/rest/v1/products?select=name&code=[redacted]"],
        ),
        ("?path=/rest/v1/&role=service_role", &[]),
        ("?user=00000000", &[]),
        (
            "?service=rest&limit=1",
            &["/rest/v1/categories?select=name&limit=1"],
        ),
    ];
    for (q, want) in cases {
        let got = listed(q).await;
        let paths: Vec<&str> = got["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["path"].as_str().unwrap())
            .collect();
        assert_eq!(paths, *want, "{q}");
    }
    let all = listed("").await;
    assert_eq!(all["per_service"], 2000);
    assert_eq!(all["kept"]["auth"], 1);
    // Bad filters are said to be bad.
    for (q, why) in [
        ("?status=6xx", "is not a status"),
        ("?limit=100000", "from 1 to 500"),
        ("?service=mail", "is none of"),
        ("?sort=x", "no filter"),
    ] {
        let (status, text) = s.call("GET", &format!("/logs/requests{q}"), None).await;
        assert_eq!(status, 400, "{q}: {text}");
        assert!(text.contains(why), "{q}: {text}");
    }

    // The failed request's detail: headers without their secrets, its error.
    let summary = listed("?status=400").await["requests"][0].clone();
    assert_eq!(summary["id"], failed_id.as_str());
    assert_eq!(summary["service"], "rest");
    let (status, text) = s
        .call("GET", &format!("/logs/requests/{}", summary["seq"]), None)
        .await;
    assert_eq!(status, 200, "{text}");
    assert!(!text.contains(&gw.anon), "the key is shown: {text}");
    assert!(!text.contains("s3cret-code"), "{text}");
    assert!(!text.contains("abcdefghijklmnopqrstuvwxyz"), "{text}");
    let detail = json_of(&text);
    let headers = &detail["headers"];
    assert_eq!(headers["apikey"], "[redacted]");
    assert_eq!(headers["authorization"], "Bearer [redacted]");
    assert_eq!(headers["cookie"], "sb-session=[redacted]; theme=[redacted]");
    assert_eq!(headers["x-note"], "shown");
    assert_eq!(detail["status"], 400);
    assert_eq!(detail["role"], "anon");
    assert!(detail["ms"].as_f64().is_some(), "{detail}");

    // The read's detail: its SQL, parameters, the role and claims it ran with, rows.
    let read = listed("?service=rest&status=200").await["requests"][0].clone();
    let (_, text) = s
        .call("GET", &format!("/logs/requests/{}", read["seq"]), None)
        .await;
    let detail = json_of(&text);
    assert!(
        detail["sql"].as_str().unwrap().contains("\"categories\""),
        "{detail}"
    );
    assert_eq!(detail["claims"]["role"], "anon");
    assert_eq!(detail["rows"], 1);
    // A request not kept.
    let (status, text) = s.call("GET", "/logs/requests/999999999", None).await;
    assert_eq!((status, text.contains("not kept")), (404, true), "{text}");
    let (status, _) = s.call("GET", "/logs/requests/x", None).await;
    assert_eq!(status, 400);

    // PostgreSQL's log: this gateway's database is another's (a clone on the test cluster).
    let (status, text) = s.call("GET", "/logs/postgres?lines=5", None).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(json_of(&text)["available"], false, "{text}");
    let (status, _) = s.call("GET", "/logs/postgres?lines=0", None).await;
    assert_eq!(status, 400);
}

fn claims_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).unwrap();
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn studio_signs_a_short_lived_token_for_a_user() {
    let gw = support::shop().await;
    let s = Studio {
        base: gw.status["STUDIO_URL"].clone(),
        client: signed_in(&gw),
    };
    let admin = gw
        .sql("SELECT id::text FROM auth.users WHERE email = 'admin@example.com'")
        .await[0][0]
        .clone()
        .unwrap();
    let (status, text) = s.call("POST", &format!("/users/{admin}/token"), None).await;
    assert_eq!(status, 200, "{text}");
    let answer = json_of(&text);
    let token = answer["access_token"].as_str().unwrap();
    let claims = claims_of(token);
    assert_eq!(claims["sub"], admin.as_str());
    assert_eq!(claims["role"], "authenticated");
    assert_eq!(claims["email"], "admin@example.com");
    assert_eq!(claims["aal"], "aal1");
    assert!(claims.get("session_id").is_none(), "{claims}");
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        300
    );
    assert_eq!(answer["expires_at"], claims["exp"]);

    // The API takes it as the user: RLS shows the admin their own role row, anon none.
    let api = reqwest::Client::new();
    let rows = |bearer: String| {
        let api = &api;
        let url = format!("{}/rest/v1/user_roles?select=user_id", gw.url);
        let anon = gw.anon.clone();
        async move {
            let res = api
                .get(url)
                .header("apikey", anon)
                .header("authorization", format!("Bearer {bearer}"))
                .send()
                .await
                .unwrap();
            assert_eq!(res.status().as_u16(), 200);
            res.json::<Value>().await.unwrap()
        }
    };
    assert_eq!(rows(token.to_string()).await, json!([{"user_id": admin}]));
    assert_eq!(rows(gw.anon.clone()).await, json!([]));

    // The policies' "test as" preview (SQL as authenticated with the user) runs with the same
    // claims, and sees the same rows the API shows the token.
    let (status, text) = s
        .call(
            "POST",
            "/sql",
            Some(json!({
                "query": "select auth.jwt()::text; select user_id from user_roles",
                "role": "authenticated", "user_id": admin, "rollback": true,
            })),
        )
        .await;
    assert_eq!(status, 200, "{text}");
    let ran = json_of(&text);
    let seen: Value = serde_json::from_str(ran["results"][0]["rows"][0][0].as_str().unwrap())
        .expect("auth.jwt() is JSON");
    let without_times = |mut c: Value| {
        let m = c.as_object_mut().unwrap();
        m.remove("iat");
        m.remove("exp");
        c
    };
    assert_eq!(without_times(seen), without_times(claims.clone()));
    assert_eq!(ran["results"][1]["rows"], json!([[admin]]));

    // A user who is not there; an id too long.
    let (status, text) = s
        .call(
            "POST",
            "/users/00000000-0000-0000-0000-000000000000/token",
            None,
        )
        .await;
    assert_eq!(status, 404, "{text}");
    let (status, _) = s
        .call("POST", &format!("/users/{}/token", "a".repeat(65)), None)
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn postgres_log_lines_of_the_embedded_cluster() {
    let dir = support::scratch_project(&[("supabase/config.toml", "project_id = \"pg-log\"\n")]);
    let gw = support::start_project(&dir, &[]);
    let s = Studio {
        base: gw.status["STUDIO_URL"].clone(),
        client: signed_in(&gw),
    };
    // Something PostgreSQL logs: an error.
    let (status, _) = s
        .call(
            "POST",
            "/sql",
            Some(json!({"query": "select no_such_column_for_the_log"})),
        )
        .await;
    assert_eq!(status, 400);
    let (status, text) = s.call("GET", "/logs/postgres?lines=2000", None).await;
    assert_eq!(status, 200, "{text}");
    let got = json_of(&text);
    assert_eq!(got["available"], true, "{text}");
    let lines = got["lines"].as_array().unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l.as_str().unwrap().contains("no_such_column_for_the_log")),
        "{text}"
    );
    let (_, text) = s.call("GET", "/logs/postgres?lines=1", None).await;
    assert_eq!(json_of(&text)["lines"].as_array().unwrap().len(), 1);
}
