//! /auth/v1 against a real gateway: token rotation and reuse, rate limits, error bodies.

mod support;
use serde_json::{Value, json};
use support::{Api, Gateway, Reply};

async fn post(gw: &Gateway, path: &str, body: Value, headers: &[(&str, &str)]) -> Reply {
    let mut h: Vec<(&str, &str)> = vec![("x-supabase-api-version", "2024-01-01")];
    h.extend_from_slice(headers);
    Api::anon(gw)
        .send("POST", path, &h, Some(&body.to_string()))
        .await
}

async fn sign_up(gw: &Gateway, email: &str) -> Value {
    let r = post(
        gw,
        "/auth/v1/signup",
        json!({"email": email, "password": "secret123"}),
        &[],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    r.json()
}

async fn refresh(gw: &Gateway, token: &str) -> Reply {
    post(
        gw,
        "/auth/v1/token?grant_type=refresh_token",
        json!({ "refresh_token": token }),
        &[],
    )
    .await
}

#[tokio::test]
async fn access_tokens_carry_gotrue_claims() {
    let gw = &support::shop().await;
    let s = sign_up(gw, "claims@example.com").await;
    let claims = auth::jwt::JwtKeys::new(gw.secret())
        .verify(s["access_token"].as_str().unwrap())
        .unwrap();
    for k in [
        "iss",
        "sub",
        "aud",
        "exp",
        "iat",
        "email",
        "phone",
        "app_metadata",
        "user_metadata",
        "role",
        "aal",
        "amr",
        "session_id",
        "is_anonymous",
    ] {
        assert!(claims.get(k).is_some(), "missing claim {k}");
    }
    assert_eq!(
        (claims["role"].clone(), claims["aud"].clone()),
        (json!("authenticated"), json!("authenticated"))
    );
    assert_eq!(
        claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        3600
    );
    assert_eq!(s["expires_in"], 3600);
    // Stored hashed: the database never holds the token itself.
    let rt = s["refresh_token"].as_str().unwrap();
    let rows = gw
        .sql(&format!(
            "SELECT count(*) FROM auth.refresh_tokens WHERE token = '{rt}'"
        ))
        .await;
    assert_eq!(rows[0][0].as_deref(), Some("0"));
    let bcrypt = gw
        .sql("SELECT encrypted_password FROM auth.users WHERE email = 'claims@example.com'")
        .await;
    assert!(bcrypt[0][0].as_deref().unwrap().starts_with("$2b$10$"));
}

#[tokio::test]
async fn rotation_reuse_window_and_family_revocation() {
    let gw = support::shop_with(&[
        "--refresh-token-reuse-interval",
        "2",
        "--rate-limit-token-refresh",
        "1000",
    ])
    .await;
    let s = sign_up(&gw, "rotate@example.com").await;
    let t1 = s["refresh_token"].as_str().unwrap().to_string();
    let r = refresh(&gw, &t1).await;
    assert_eq!(r.status, 200);
    let t2 = r.json()["refresh_token"].as_str().unwrap().to_string();
    assert_ne!(t1, t2);
    // Within the reuse interval the old token still yields a session (a racing tab).
    let again = refresh(&gw, &t1).await;
    assert_eq!(again.status, 200, "{}", again.text);
    // After the interval, reusing it revokes every token of the session. The interval passes
    // by moving the rotation back in time rather than by waiting for it.
    gw.sql("UPDATE auth.refresh_tokens SET updated_at = updated_at - interval '3 seconds' WHERE revoked")
        .await;
    let reuse = refresh(&gw, &t1).await;
    assert_eq!(
        (reuse.status, reuse.json()["code"].clone()),
        (400, json!("refresh_token_already_used"))
    );
    assert_eq!(
        reuse.json()["message"],
        "Invalid Refresh Token: Already Used"
    );
    let family = refresh(&gw, &t2).await;
    assert_eq!(
        family.json()["code"],
        "refresh_token_already_used",
        "the whole family is revoked"
    );
    let unknown = refresh(&gw, "not-a-token").await;
    assert_eq!(
        (unknown.status, unknown.json()["message"].clone()),
        (400, json!("Invalid Refresh Token: Refresh Token Not Found"))
    );
}

#[tokio::test]
async fn logout_scopes_revoke_sessions() {
    let gw = &support::shop().await;
    sign_up(gw, "scopes@example.com").await;
    let login = || {
        post(
            gw,
            "/auth/v1/token?grant_type=password",
            json!({"email":"scopes@example.com","password":"secret123"}),
            &[],
        )
    };
    let a = login().await.json();
    let b = login().await.json();
    let c = login().await.json();
    let bearer = |s: &Value| format!("Bearer {}", s["access_token"].as_str().unwrap());
    let mut api = Api::anon(gw);
    api.token = Some(a["access_token"].as_str().unwrap().to_string());
    let r = api
        .send("POST", "/auth/v1/logout?scope=others", &[], None)
        .await;
    assert_eq!(r.status, 204);
    assert_eq!(
        refresh(gw, b["refresh_token"].as_str().unwrap())
            .await
            .status,
        400
    );
    assert_eq!(
        refresh(gw, a["refresh_token"].as_str().unwrap())
            .await
            .status,
        200
    );
    let r = api
        .send(
            "POST",
            "/auth/v1/logout?scope=local",
            &[("authorization", &bearer(&a))],
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    let user = api
        .send(
            "GET",
            "/auth/v1/user",
            &[("x-supabase-api-version", "2024-01-01")],
            None,
        )
        .await;
    assert_eq!(
        (user.status, user.json()["code"].clone()),
        (403, json!("session_not_found"))
    );
    let _ = c;
    let r = reqwest::Client::new()
        .post(format!("{}/auth/v1/logout", gw.url))
        .header("apikey", &gw.anon)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401, "no bearer token");
}

#[tokio::test]
async fn error_bodies_follow_the_api_version() {
    let gw = &support::shop().await;
    let bad = json!({"email": "admin@example.com", "password": "wrong-password"});
    let new = post(gw, "/auth/v1/token?grant_type=password", bad.clone(), &[]).await;
    assert_eq!(
        new.json(),
        json!({"code":"invalid_credentials","message":"Invalid login credentials"})
    );
    assert_eq!(new.header("x-supabase-api-version"), Some("2024-01-01"));
    let legacy = Api::anon(gw)
        .send(
            "POST",
            "/auth/v1/token?grant_type=password",
            &[],
            Some(&bad.to_string()),
        )
        .await;
    assert_eq!(
        legacy.json(),
        json!({"code":400,"error_code":"invalid_credentials","msg":"Invalid login credentials"})
    );
    let weak = post(
        gw,
        "/auth/v1/signup",
        json!({"email":"weak@example.com","password":"12345"}),
        &[],
    )
    .await;
    assert_eq!(
        (weak.status, weak.json()["weak_password"].clone()),
        (422, json!({"reasons":["length"]}))
    );
    let long = post(
        gw,
        "/auth/v1/signup",
        json!({"email":"long@example.com","password":"x".repeat(73)}),
        &[],
    )
    .await;
    assert_eq!(long.status, 422);
    let grant = post(gw, "/auth/v1/token?grant_type=magic", json!({}), &[]).await;
    assert_eq!(grant.json()["message"], "unsupported_grant_type");
    let junk = Api::anon(gw)
        .send(
            "POST",
            "/auth/v1/signup",
            &[("x-supabase-api-version", "2024-01-01")],
            Some("{nope"),
        )
        .await;
    assert_eq!(
        (junk.status, junk.json()["code"].clone()),
        (400, json!("bad_json"))
    );
    let settings = Api::anon(gw).get("/auth/v1/settings").await.json();
    assert_eq!(
        (
            settings["mailer_autoconfirm"].clone(),
            settings["external"]["email"].clone()
        ),
        (json!(true), json!(true))
    );
}

#[tokio::test]
async fn sign_in_and_sign_up_are_rate_limited_per_address() {
    let gw = support::shop_with(&[
        "--rate-limit-sign-in",
        "3",
        "--rate-limit-ip-header",
        "X-Forwarded-For",
    ])
    .await;
    let from = [("x-forwarded-for", "203.0.113.9")];
    let bad = json!({"email":"nobody@example.com","password":"wrong-password"});
    for _ in 0..3 {
        assert_eq!(
            post(
                &gw,
                "/auth/v1/token?grant_type=password",
                bad.clone(),
                &from
            )
            .await
            .status,
            400
        );
    }
    let r = post(
        &gw,
        "/auth/v1/token?grant_type=password",
        bad.clone(),
        &from,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["code"].clone()),
        (429, json!("over_request_rate_limit"))
    );
    let r = post(
        &gw,
        "/auth/v1/signup",
        json!({"email":"late@example.com","password":"secret123"}),
        &from,
    )
    .await;
    assert_eq!(r.status, 429, "sign-up shares the bucket");
    // The counter lives in PostgreSQL, where every replica sees it.
    let rows = gw
        .sql("SELECT count FROM auth.rate_limits WHERE key LIKE 'signin:%'")
        .await;
    assert_eq!(rows[0][0].as_deref(), Some("5"));
    // This machine itself is not limited when no proxy header is configured (as under the CLI).
    let local = support::shop_with(&["--rate-limit-sign-in", "1"]).await;
    for _ in 0..3 {
        let r = post(
            &local,
            "/auth/v1/token?grant_type=password",
            bad.clone(),
            &[],
        )
        .await;
        assert_eq!(r.status, 400);
    }
}

#[tokio::test]
async fn sign_up_can_be_switched_off() {
    let gw = support::shop_with(&["--disable-signup"]).await;
    let r = post(
        &gw,
        "/auth/v1/signup",
        json!({"email":"a@example.com","password":"secret123"}),
        &[],
    )
    .await;
    assert_eq!(
        (r.status, r.json()["message"].clone()),
        (422, json!("Signups not allowed for this instance"))
    );
    let ok = post(
        &gw,
        "/auth/v1/token?grant_type=password",
        json!({"email":"admin@example.com","password":"bloom-admin-123"}),
        &[],
    )
    .await;
    assert_eq!(ok.status, 200, "existing users still sign in");
}
