//! Every URL supagate builds — links in mail, tokens' `iss`, TUS `Location`, the OpenAPI
//! document's host — names the configured address, whatever Host a request claims.

use crate::support;
use serde_json::{Value, json};
use support::{Api, scratch_project, start_project};

/// Headers an attacker sends to have links point at a host of theirs.
const FORGED: [(&str, &str); 3] = [
    ("host", "evil.example"),
    ("x-forwarded-host", "evil.example"),
    ("forwarded", "host=evil.example;proto=https"),
];

#[tokio::test]
async fn links_in_mail_and_locations_ignore_the_requests_host() {
    let dir = scratch_project(&[(
        "supabase/config.toml",
        "[auth.email]\nenable_confirmations = false\n",
    )]);
    let gw = start_project(&dir, &[]);
    let anon = Api::anon(&gw);
    for (i, forged) in FORGED.iter().enumerate() {
        let email = format!("victim{i}@example.com");
        let body = json!({"email": email, "password": "secret123"}).to_string();
        let r = anon.send("POST", "/auth/v1/signup", &[], Some(&body)).await;
        assert_eq!(r.status, 200, "{}", r.text);
        let claims = r.json()["access_token"]
            .as_str()
            .unwrap()
            .split('.')
            .nth(1)
            .unwrap()
            .to_string();
        let iss = serde_json::from_slice::<Value>(
            &base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, claims)
                .unwrap(),
        )
        .unwrap()["iss"]
            .clone();
        assert_eq!(iss, format!("{}/auth/v1", gw.url));
        let body = json!({"email": email}).to_string();
        let r = anon
            .send("POST", "/auth/v1/recover", &[*forged], Some(&body))
            .await;
        assert_eq!(r.status, 200, "{forged:?}: {}", r.text);
        let r = anon
            .send(
                "POST",
                "/auth/v1/otp",
                &[*forged],
                Some(&json!({"email": format!("new{i}@example.com")}).to_string()),
            )
            .await;
        assert_eq!(r.status, 200, "{forged:?}: {}", r.text);
    }
    assert_eq!(
        anon.get("/rest/v1/")
            .await
            .header("strict-transport-security"),
        None,
        "no HSTS over plain http"
    );
    let mails: Vec<String> = gw.caught_mail().await.into_iter().map(|m| m.1).collect();
    assert_eq!(mails.len(), 6);
    for body in &mails {
        let found = support::links_in(body);
        assert!(
            found
                .iter()
                .any(|l| l.starts_with(&format!("{}/auth/v1/verify", gw.url))),
            "{body}"
        );
        assert!(!body.contains("evil.example"), "{body}");
    }

    // The TUS upload's Location and the OpenAPI host, with the same forged headers.
    gw.create_bucket("up", false).await;
    let service = Api::service(&gw);
    let b64 = |s: &str| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, s);
    for forged in FORGED {
        let meta = format!(
            "bucketName {},objectName {}",
            b64("up"),
            b64(&format!("f-{}.txt", uuid::Uuid::new_v4()))
        );
        let r = service
            .send(
                "POST",
                "/storage/v1/upload/resumable",
                &[
                    forged,
                    ("tus-resumable", "1.0.0"),
                    ("upload-length", "3"),
                    ("upload-metadata", &meta),
                ],
                None,
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.text);
        let location = r.header("location").unwrap();
        assert!(
            location.starts_with(&format!("{}/storage/v1/upload/resumable/", gw.url)),
            "{location}"
        );
        let r = anon.send("GET", "/rest/v1/", &[forged], None).await;
        let host = gw.url.trim_start_matches("http://");
        assert_eq!(r.json()["host"], host, "{forged:?}");
    }
}

#[tokio::test]
async fn the_external_url_names_every_link() {
    let dir = scratch_project(&[(
        "supabase/config.toml",
        "[auth.email]\nenable_confirmations = false\n",
    )]);
    // A port of the test's choosing: API_URL in the status names the external URL, not it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    let mut gw = support::start_project_env(
        &dir,
        &["--port", &port],
        &[("API_EXTERNAL_URL", "https://api.shop.example/")],
    );
    assert_eq!(gw.url, "https://api.shop.example");
    gw.url = format!("http://127.0.0.1:{port}");
    let anon = Api::anon(&gw);
    let body = json!({"email": "link@example.com"}).to_string();
    let r = anon
        .send(
            "POST",
            "/auth/v1/otp",
            &[("host", "evil.example")],
            Some(&body),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let mails: Vec<String> = gw.caught_mail().await.into_iter().map(|m| m.1).collect();
    assert_eq!(mails.len(), 1);
    assert!(
        support::links_in(&mails[0])
            .iter()
            .any(|l| l.starts_with("https://api.shop.example/auth/v1/verify")),
        "{}",
        mails[0]
    );
    let r = anon.get("/rest/v1/").await;
    assert_eq!(r.json()["host"], "api.shop.example");
    // Clients come over https (through a TLS proxy): browsers are told to stay on it.
    assert_eq!(
        r.header("strict-transport-security"),
        Some("max-age=31536000")
    );
}

#[tokio::test]
async fn the_mail_catcher_stays_on_loopback_and_answers_only_its_own_names() {
    // Listening on every address with a project's secret: the catcher still stays on loopback.
    let dir = scratch_project(&[]);
    let gw = support::start_project_env(
        &dir,
        &["--host", "0.0.0.0"],
        &[("JWT_SECRET", "a-project-secret-of-forty-characters-xx")],
    );
    let mailpit = gw.status["MAILPIT_URL"].clone();
    assert!(mailpit.starts_with("http://127.0.0.1:"), "{mailpit}");
    let client = reqwest::Client::new();
    let get = |headers: &[(&'static str, &'static str)]| {
        let mut req = client.get(format!("{mailpit}/api/v1/messages"));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.send()
    };
    let r = get(&[("origin", "https://evil.example")]).await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers().get("access-control-allow-origin").is_none(),
        "another site may read caught mail"
    );
    // DNS rebinding: evil.example resolving to 127.0.0.1.
    let r = get(&[("host", "evil.example:54324")]).await.unwrap();
    assert_eq!(r.status(), 403);
    let r = get(&[("host", "localhost:54324")]).await.unwrap();
    assert_eq!(r.status(), 200);
}
