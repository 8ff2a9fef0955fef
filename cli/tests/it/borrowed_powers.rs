//! Hardening, round 3: nothing on the machine borrows Studio's or the workbench's powers by
//! running on loopback. The database's requests (pg_net, executable by `anon` as on Supabase)
//! cannot reach Studio, the mail catcher or the workbench; Studio's API answers only the
//! browser that opened its link; the workbench answers no page of another site.

use crate::support;
use std::time::Duration;
use support::{Api, Gateway};

/// What pg_net recorded for a request: `(status_code, error_msg, content)`.
type Answer = (Option<String>, Option<String>, Option<String>);

/// Queues one pg_net request per URL as `anon`, waits for every answer, and returns each.
async fn as_anon_through_pg_net(gw: &Gateway, requests: &[(&str, &str)]) -> Vec<Answer> {
    let db = gw.session_on(&gw.dbname).await;
    db.batch_execute("SET ROLE anon").await.unwrap();
    let mut ids = Vec::new();
    for (method, url) in requests {
        let q = match *method {
            "POST" => format!(
                "SELECT net.http_post('{url}', '{{\"query\": \"create table public.pwned ()\"}}'::jsonb, \
                 headers := '{{\"Content-Type\": \"application/json\", \"X-Studio\": \"1\"}}'::jsonb)"
            ),
            _ => {
                format!("SELECT net.http_get('{url}', headers := '{{\"X-Studio\": \"1\"}}'::jsonb)")
            }
        };
        let id: i64 = db.query_one(&q, &[]).await.unwrap().get(0);
        ids.push(id);
    }
    let mut answers = Vec::new();
    for id in ids {
        let mut row = None;
        for _ in 0..300 {
            // anon reads the answers, as on Supabase (pg_net grants its tables to PUBLIC).
            row = db
                .query_opt(
                    "SELECT status_code::text, error_msg, content FROM net._http_response WHERE id = $1",
                    &[&id],
                )
                .await
                .unwrap();
            if row.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let r = row.unwrap_or_else(|| panic!("no answer to request {id}"));
        answers.push((r.get(0), r.get(1), r.get(2)));
    }
    answers
}

async fn pwned(gw: &Gateway) -> bool {
    gw.sql("SELECT to_regclass('public.pwned') IS NOT NULL")
        .await[0][0]
        .as_deref()
        == Some("t")
}

#[tokio::test]
async fn the_database_cannot_reach_studio_the_catcher_or_the_workbench() {
    let gw = support::shop().await;
    let studio = gw.status["STUDIO_URL"].clone();
    let mail = gw.status["MAILPIT_URL"].clone();
    let api = gw.url.clone();
    let localhost_studio = studio.replace("127.0.0.1", "localhost");
    let answers = as_anon_through_pg_net(
        &gw,
        &[
            ("POST", &format!("{studio}/api/sql")),
            ("GET", &format!("{localhost_studio}/api/session")),
            ("GET", &format!("{mail}/api/v1/messages")),
            ("GET", &format!("{api}/_supagate/v1/codes?to=a@example.com")),
            ("GET", "http://169.254.169.254/latest/meta-data/"),
            (
                "GET",
                &format!("{api}/rest/v1/categories?select=slug&limit=1"),
            ),
        ],
    )
    .await;
    let refused = "Couldn't connect to server: supagate refuses requests from the database to \
                   this machine's own and link-local addresses (set SUPAGATE_NET_LOCAL=allow to \
                   permit them)";
    for (i, a) in answers[..5].iter().enumerate() {
        assert_eq!(
            (&a.0, a.1.as_deref()),
            (&None, Some(refused)),
            "request {i}"
        );
    }
    // The project's own API stays reachable: webhooks call Edge Functions there.
    assert_eq!(answers[5].0.as_deref(), Some("200"), "{:?}", answers[5]);
    assert!(!pwned(&gw).await, "Studio ran SQL for the database");
}

#[tokio::test]
async fn studio_answers_no_one_without_its_link_even_when_the_database_may_reach_it() {
    // The operator lets the database reach this machine: Studio itself must still refuse.
    let gw = support::shop_with(&["--net-local", "allow"]).await;
    let studio = gw.status["STUDIO_URL"].clone();
    let answers = as_anon_through_pg_net(
        &gw,
        &[
            ("POST", &format!("{studio}/api/sql")),
            ("GET", &format!("{studio}/api/session")),
        ],
    )
    .await;
    for a in &answers {
        assert_eq!(a.0.as_deref(), Some("401"), "{a:?}");
        let body = a.2.clone().unwrap_or_default();
        assert!(!body.contains(&gw.service), "a key left Studio: {body}");
        assert!(body.contains("supagate status"), "{body}");
    }
    assert!(!pwned(&gw).await, "Studio ran SQL for the database");
}

#[tokio::test]
async fn studio_s_link_signs_the_browser_in_with_a_strict_http_only_cookie() {
    let gw = support::shop().await;
    let studio = gw.status["STUDIO_URL"].clone();
    let token = gw.status["STUDIO_TOKEN"].clone();
    let port = studio.rsplit(':').next().unwrap();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let session = |cookie: Option<String>| {
        let mut r = http
            .get(format!("{studio}/api/session"))
            .header("x-studio", "1");
        if let Some(c) = cookie {
            r = r.header("cookie", c);
        }
        r.send()
    };
    // (cookie sent, status)
    let cases: Vec<(Option<String>, u16)> = vec![
        (None, 401),
        (Some(format!("supagate_studio_{port}=nope")), 401),
        (Some(format!("supagate_studio_1={token}")), 401),
        (Some(format!("a=b; supagate_studio_{port}={token}")), 200),
    ];
    for (cookie, status) in cases {
        let r = session(cookie.clone()).await.unwrap();
        assert_eq!(r.status().as_u16(), status, "{cookie:?}");
        let body = r.text().await.unwrap();
        assert_eq!(
            body.contains(&gw.service),
            status == 200,
            "{cookie:?}: {body}"
        );
    }
    // The page itself is no secret; an old or wrong link says what to do.
    let r = http.get(format!("{studio}/tables")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = http
        .get(format!("{studio}/tables?token=old"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("supagate status"));
    // The right link: the secret becomes the cookie, and the address loses it.
    let r = http
        .get(format!(
            "{studio}/tables/public/categories?token={token}&limit=5"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/tables/public/categories?limit=5");
    assert_eq!(
        r.headers()["set-cookie"],
        format!("supagate_studio_{port}={token}; Path=/; HttpOnly; SameSite=Strict").as_str()
    );
}

#[tokio::test]
async fn the_workbench_answers_tools_but_no_page_of_another_site() {
    let gw = support::shop_with(&["--workbench-origins", "http://localhost:5173/"]).await;
    let service = Api::service(&gw);
    let codes = "/_supagate/v1/codes?to=a@example.com";
    // (headers, status, CORS header expected)
    type Case<'a> = (&'a [(&'a str, &'a str)], u16, bool);
    let cases: &[Case] = &[
        (&[], 200, false),
        (&[("origin", "http://evil.example")], 403, false),
        (&[("origin", "null")], 403, false),
        (&[("sec-fetch-site", "cross-site")], 403, false),
        (&[("sec-fetch-site", "same-site")], 403, false),
        (&[("sec-fetch-site", "same-origin")], 200, false),
        (&[("origin", "http://localhost:5173")], 200, true),
    ];
    for (headers, status, cors) in cases {
        let r = service.send("GET", codes, headers, None).await;
        assert_eq!(r.status, *status, "{headers:?}: {}", r.text);
        assert_eq!(
            r.header("access-control-allow-origin").is_some(),
            *cors,
            "{headers:?}"
        );
        if *status == 403 {
            assert_eq!(r.json()["code"], "cross_origin");
        }
    }
    // A preflight from another site is refused too, without CORS headers.
    let r = service
        .send(
            "OPTIONS",
            "/_supagate/v1/users",
            &[
                ("origin", "http://evil.example"),
                ("access-control-request-method", "DELETE"),
            ],
            None,
        )
        .await;
    assert_eq!(r.status, 403);
    assert!(r.header("access-control-allow-origin").is_none());
    // The APIs themselves still answer every site, as Supabase's do.
    let r = Api::anon(&gw)
        .send(
            "GET",
            "/rest/v1/categories?select=slug&limit=1",
            &[("origin", "http://evil.example")],
            None,
        )
        .await;
    assert_eq!(r.status, 200);
    assert!(r.header("access-control-allow-origin").is_some());
}

#[tokio::test]
async fn pg_net_s_privileges_are_the_image_s() {
    let gw = support::shop().await;
    // (what, as the Supabase image has it for pg_net 0.12 and later)
    let cases: &[(&str, &str)] = &[
        (
            "has_function_privilege('anon', 'net.http_get(text, jsonb, jsonb, integer)', 'execute')",
            "t",
        ),
        (
            "has_function_privilege('authenticated', 'net.http_post(text, jsonb, jsonb, jsonb, integer)', 'execute')",
            "t",
        ),
        (
            "(SELECT bool_or(prosecdef) FROM pg_proc WHERE pronamespace = 'net'::regnamespace AND proname IN ('http_get', 'http_post', 'http_delete'))",
            "f",
        ),
        (
            "(SELECT count(*) FROM pg_proc WHERE pronamespace = 'net'::regnamespace AND proname IN ('http_get', 'http_post') AND proconfig IS NOT NULL)",
            "0",
        ),
        ("has_schema_privilege('anon', 'net', 'usage')", "t"),
        (
            "has_table_privilege('anon', 'net._http_response', 'select')",
            "t",
        ),
        (
            "has_table_privilege('public', 'net.http_request_queue', 'insert')",
            "t",
        ),
        (
            "(SELECT extversion FROM pg_extension WHERE extname = 'pg_net')",
            "0.19.5",
        ),
    ];
    for (what, want) in cases {
        let got = gw.sql(&format!("SELECT {what}")).await;
        assert_eq!(got[0][0].as_deref(), Some(*want), "{what}");
    }
}

/// A function with a server-side request bug: it fetches whatever URL it is given.
const FETCHER: &str = "Deno.serve(async (req) => {
  const url = new URL(req.url).searchParams.get('url')!
  try {
    const res = await fetch(url, { headers: { 'X-Studio': '1' } })
    await res.body?.cancel()
    return new Response(String(res.status))
  } catch (e) {
    return new Response((e as Error).name)
  }
})
";

#[tokio::test]
async fn an_edge_function_cannot_be_turned_against_studio_or_the_catcher() {
    let dir = support::scratch_project(&[
        ("supabase/config.toml", "project_id = \"ssrf\"\n"),
        ("supabase/functions/fetch/index.ts", FETCHER),
    ]);
    let gw = support::start_project(&dir, &[]);
    let studio = gw.status["STUDIO_URL"].clone();
    let mail = gw.status["MAILPIT_URL"].clone();
    let port = |u: &str| u.rsplit(':').next().unwrap().to_string();
    // (URL the function is made to fetch, what it gets)
    let cases = [
        (format!("{studio}/api/session"), "NotCapable"),
        (
            format!("http://localhost:{}/api/session", port(&studio)),
            "NotCapable",
        ),
        (
            format!("http://0.0.0.0:{}/api/session", port(&studio)),
            "NotCapable",
        ),
        (format!("{mail}/api/v1/messages"), "NotCapable"),
        // The project's own API stays reachable, as SUPABASE_URL.
        (format!("{}/rest/v1/", gw.url), "200"),
    ];
    let api = Api::anon(&gw);
    for (url, want) in cases {
        let q: String = url
            .bytes()
            .map(|b| match b.is_ascii_alphanumeric() {
                true => (b as char).to_string(),
                false => format!("%{b:02X}"),
            })
            .collect();
        let r = api
            .send("GET", &format!("/functions/v1/fetch?url={q}"), &[], None)
            .await;
        assert_eq!((r.status, r.text.as_str()), (200, want), "{url}");
    }
}
