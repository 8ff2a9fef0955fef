//! Guessing codes: attempts are limited per e-mail address and per factor whoever makes them,
//! TOTP codes are good once, loopback clients are limited per address outside local
//! development mode (per visitor behind a same-host proxy), local development limits what the
//! CLI's GoTrue limits, and an e-mail change needs both addresses when double_confirm_changes
//! is on.

use crate::support;
use serde_json::{Value, json};
use support::{Api, Gateway, scratch_project, start_project, start_project_env};

const FEW_VERIFICATIONS: &str = "[auth.email]\nenable_confirmations = false\n\
                                 [auth.mfa.totp]\nenroll_enabled = true\nverify_enabled = true\n\
                                 [auth.rate_limit]\ntoken_verifications = 3\n";

async fn post(gw: &Gateway, path: &str, token: Option<&str>, body: Value) -> support::Reply {
    let api = match token {
        Some(t) => Api::bearer(gw, t),
        None => Api::anon(gw),
    };
    api.send("POST", path, &[], Some(&body.to_string())).await
}

/// A session for a new user signed up with a password.
async fn session(gw: &Gateway, email: &str) -> String {
    let r = post(
        gw,
        "/auth/v1/signup",
        None,
        json!({"email": email, "password": "secret123"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.json()["access_token"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn emailed_codes_are_limited_per_address_whoever_guesses() {
    let dir = scratch_project(&[("supabase/config.toml", FEW_VERIFICATIONS)]);
    let gw = start_project(&dir, &[]);
    for email in ["target@example.com", "other@example.com"] {
        let r = post(&gw, "/auth/v1/otp", None, json!({"email": email})).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let guess = |email: &'static str, n: u32| {
        let gw = &gw;
        async move {
            post(
                gw,
                "/auth/v1/verify",
                None,
                json!({"type": "email", "email": email, "token": format!("{n:06}")}),
            )
            .await
            .status
        }
    };
    // Local development mode and loopback: no per-address limit, but the address's own one.
    let mut statuses = Vec::new();
    for n in 0..5 {
        statuses.push(guess("target@example.com", n).await);
    }
    assert_eq!(statuses, [403, 403, 403, 429, 429]);
    // Another address is not locked out by them.
    assert_eq!(guess("other@example.com", 0).await, 403);
}

fn totp_code(secret: &str) -> String {
    let secret = totp_rs::Secret::try_from_base32(secret).unwrap();
    totp_rs::Builder::new()
        .with_secret(secret)
        .build()
        .unwrap()
        .generate_current()
        .to_string()
}

#[tokio::test]
async fn totp_codes_are_good_once_and_limited_per_factor() {
    let dir = scratch_project(&[("supabase/config.toml", FEW_VERIFICATIONS)]);
    let gw = start_project(&dir, &[]);
    let token = session(&gw, "mfa@example.com").await;
    let r = post(
        &gw,
        "/auth/v1/factors",
        Some(&token),
        json!({"factor_type": "totp"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let factor = r.json()["id"].as_str().unwrap().to_string();
    let secret = r.json()["totp"]["secret"].as_str().unwrap().to_string();
    let verify = |code: String| {
        let (gw, token, factor) = (&gw, &token, &factor);
        async move {
            let r = post(
                gw,
                &format!("/auth/v1/factors/{factor}/challenge"),
                Some(token),
                json!({}),
            )
            .await;
            assert_eq!(r.status, 200, "{}", r.text);
            let challenge = r.json()["id"].as_str().unwrap().to_string();
            post(
                gw,
                &format!("/auth/v1/factors/{factor}/verify"),
                Some(token),
                json!({"challenge_id": challenge, "code": code}),
            )
            .await
        }
    };
    let code = totp_code(&secret);
    let r = verify(code.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text);
    // The same code again, on a new challenge: refused as GoTrue refuses a wrong one.
    let r = verify(code).await;
    assert_eq!(
        (r.status, r.json()["error_code"].clone()),
        (422, json!("mfa_verification_failed")),
        "{}",
        r.text
    );
    let r = verify("000000".into()).await;
    assert_eq!(r.status, 422, "{}", r.text);
    // Three attempts on this factor in the window: the next is refused before it is checked.
    let r = verify(totp_code(&secret)).await;
    assert_eq!(
        (r.status, r.json()["error_code"].clone()),
        (429, json!("over_request_rate_limit")),
        "{}",
        r.text
    );
}

async fn sign_ins(gw: &Gateway) -> Vec<u16> {
    let mut statuses = Vec::new();
    for _ in 0..3 {
        let body = json!({"email": "nobody@example.com", "password": "wrong-password"});
        let r = post(gw, "/auth/v1/token?grant_type=password", None, body).await;
        statuses.push(r.status);
    }
    statuses
}

#[tokio::test]
async fn loopback_clients_are_limited_outside_local_development() {
    let config = "[auth.rate_limit]\nsign_in_sign_ups = 2\n";
    let dir = scratch_project(&[("supabase/config.toml", config)]);
    let local = start_project(&dir, &[]);
    assert_eq!(
        sign_ins(&local).await,
        [400, 400, 400],
        "the CLI's local mode"
    );
    let dir = scratch_project(&[("supabase/config.toml", config)]);
    let own = start_project_env(
        &dir,
        &[],
        &[("JWT_SECRET", "a-project-secret-of-forty-characters-xx")],
    );
    assert_eq!(
        sign_ins(&own).await,
        [400, 400, 429],
        "a project's own secret"
    );
    // The demo keys on every address (--insecure-demo-keys) are not local development either:
    // a proxy on this machine is not a way around the limits.
    let dir = scratch_project(&[("supabase/config.toml", config)]);
    let exposed = start_project(&dir, &["--host", "0.0.0.0", "--insecure-demo-keys"]);
    assert_eq!(
        sign_ins(&exposed).await,
        [400, 400, 429],
        "the demo keys off loopback"
    );
}

/// A password sign-in as `visitor`, as a proxy on this machine passes it on.
async fn sign_in_as(gw: &Gateway, visitor: &str, password: &str) -> support::Reply {
    let body = json!({"email": "owner@example.com", "password": password}).to_string();
    Api::anon(gw)
        .send(
            "POST",
            "/auth/v1/token?grant_type=password",
            &[("x-forwarded-for", visitor)],
            Some(&body),
        )
        .await
}

/// Production behind a reverse proxy on the same host: every request comes from 127.0.0.1 and
/// the proxy names the visitor in X-Forwarded-For. One visitor's guesses are refused past
/// `sign_in_sign_ups` (30 per 5 minutes), the right password then too; another visitor signs in.
#[tokio::test]
async fn password_guessing_through_a_same_host_proxy_is_limited_per_visitor() {
    let dir = scratch_project(&[]);
    let gw = support::clone_of_env(
        &dir,
        &["--rate-limit-ip-header", "X-Forwarded-For"],
        &[("JWT_SECRET", "a-project-secret-of-forty-characters-xx")],
    )
    .await;
    let r = Api::service(&gw)
        .send(
            "POST",
            "/auth/v1/admin/users",
            &[],
            Some(
                r#"{"email":"owner@example.com","password":"right-password","email_confirm":true}"#,
            ),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let mut statuses = std::collections::BTreeMap::new();
    for _ in 0..100 {
        let r = sign_in_as(&gw, "203.0.113.7", "wrong-password").await;
        *statuses.entry(r.status).or_insert(0) += 1;
    }
    assert_eq!(
        statuses,
        [(400, 30), (429, 70)].into(),
        "invalid credentials 30 times, then refused"
    );
    let r = sign_in_as(&gw, "203.0.113.7", "right-password").await;
    assert_eq!(
        (r.status, r.json()["error_code"].clone()),
        (429, json!("over_request_rate_limit")),
        "the right password after 100 guesses: {}",
        r.text
    );
    let r = sign_in_as(&gw, "198.51.100.4", "right-password").await;
    assert_eq!(r.status, 200, "another visitor: {}", r.text);
}

/// Local development (the demo keys on loopback) limits what GoTrue under the Supabase CLI
/// limits, which sets no GOTRUE_RATE_LIMIT_HEADER: a test suite signs up 40 users in a minute
/// from this machine, also with --rate-limit-ip-header set as scripts/test sets it (GoTrue does
/// not limit a request that lacks the header).
#[tokio::test]
async fn a_test_suite_signs_up_forty_users_from_one_address_in_local_development() {
    let config = "[auth.email]\nenable_confirmations = false\n";
    let dir = scratch_project(&[("supabase/config.toml", config)]);
    for args in [&[][..], &["--rate-limit-ip-header", "X-Forwarded-For"]] {
        let gw = support::clone_of(&dir, args).await;
        let t0 = std::time::Instant::now();
        let mut refused = Vec::new();
        for i in 0..40 {
            let body = json!({"email": format!("user{i}@example.com"), "password": "secret123"});
            let r = post(&gw, "/auth/v1/signup", None, body).await;
            if r.status != 200 {
                refused.push((i, r.status, r.text));
            }
        }
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "in a minute"
        );
        assert_eq!(refused, [], "{args:?}");
    }
}

#[tokio::test]
async fn an_email_change_needs_both_addresses_with_double_confirm() {
    // Confirmations off: sign-up needs none, but the change still needs both addresses.
    let config = "[auth.email]\nenable_confirmations = false\ndouble_confirm_changes = true\n";
    let dir = scratch_project(&[("supabase/config.toml", config)]);
    let gw = start_project(&dir, &[]);
    let token = session(&gw, "old@example.com").await;
    let r = Api::bearer(&gw, &token)
        .send(
            "PUT",
            "/auth/v1/user",
            &[],
            Some(r#"{"email":"new@example.com"}"#),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let link = |to: &str, mails: &[(String, String)]| {
        let (_, body) = mails
            .iter()
            .find(|(t, _)| t == to)
            .expect("a mail to each address");
        support::links_in(body)
            .into_iter()
            .find(|l| l.contains("type=email_change"))
            .unwrap()
    };
    let mails = gw.caught_mail().await;
    assert_eq!(mails.len(), 2, "{mails:?}");
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let email = async || {
        gw.sql("SELECT email FROM auth.users").await[0][0]
            .clone()
            .unwrap()
    };
    let r = no_redirects
        .get(link("new@example.com", &mails))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    assert!(location.contains("message=Confirmation"), "{location}");
    assert_eq!(
        email().await,
        "old@example.com",
        "changed on one confirmation"
    );
    let r = no_redirects
        .get(link("old@example.com", &mails))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(email().await, "new@example.com");
}
