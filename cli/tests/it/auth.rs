//! /auth/v1 against a real gateway, as tables of requests and GoTrue's answers: token claims,
//! rotation and reuse, logout scopes, error bodies, rate limits. Each test has its own copy of
//! the shop's database; rows that hand something on (a token) are run one by one.

use crate::support;
use serde_json::{Value, json};
use support::table::{self, Case, get, send, with_json};
use support::{Gateway, Reply};

/// A GoTrue request as supabase-js sends it (with the API version, so errors are the new shape).
fn gotrue(path: &str, body: Value) -> Case {
    with_json("POST", path, &body.to_string()).header("x-supabase-api-version", "2024-01-01")
}

fn signup(email: &str) -> Case {
    gotrue(
        "/auth/v1/signup",
        json!({"email": email, "password": "secret123"}),
    )
    .says(&format!("signing up {email}"))
    .status(200)
}

fn refresh(token: &str) -> Case {
    gotrue(
        "/auth/v1/token?grant_type=refresh_token",
        json!({ "refresh_token": token }),
    )
}

fn login(email: &str, password: &str) -> Case {
    gotrue(
        "/auth/v1/token?grant_type=password",
        json!({"email": email, "password": password}),
    )
}

fn field(r: &Reply, name: &str) -> String {
    r.json()[name].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn access_tokens_carry_gotrue_claims() {
    let gw = &support::shop().await;
    let s = table::reply(
        gw,
        signup("claims@example.com").at("/expires_in", json!(3600)),
    )
    .await;
    let claims = identity::jwt::JwtKeys::new(gw.secret())
        .verify(&field(&s, "access_token"))
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
    // Stored hashed: the database never holds the token itself.
    let rt = field(&s, "refresh_token");
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
    let gw = &support::shop_with(&[
        "--refresh-token-reuse-interval",
        "2",
        "--rate-limit-token-refresh",
        "1000",
    ])
    .await;
    let t1 = field(
        &table::reply(gw, signup("rotate@example.com")).await,
        "refresh_token",
    );
    let next = table::reply(gw, refresh(&t1).says("the first refresh").status(200)).await;
    let t2 = field(&next, "refresh_token");
    assert_ne!(t1, t2);
    // Within the reuse interval the old token still yields a session (a racing tab).
    table::run(
        gw,
        vec![
            refresh(&t1)
                .says("the old token within the interval")
                .status(200),
        ],
    )
    .await;
    // After the interval, reusing it revokes every token of the session. The interval passes
    // by moving the rotation back in time rather than by waiting for it.
    gw.sql("UPDATE auth.refresh_tokens SET updated_at = updated_at - interval '3 seconds' WHERE revoked")
        .await;
    table::run(
        gw,
        vec![
            refresh(&t1)
                .says("the old token after the interval")
                .status(400)
                .at("/code", json!("refresh_token_already_used"))
                .at("/message", json!("Invalid Refresh Token: Already Used")),
            refresh(&t2)
                .says("the whole family is revoked")
                .at("/code", json!("refresh_token_already_used")),
            refresh("not-a-token")
                .says("an unknown token")
                .status(400)
                .at(
                    "/message",
                    json!("Invalid Refresh Token: Refresh Token Not Found"),
                ),
        ],
    )
    .await;
}

#[tokio::test]
async fn logout_scopes_revoke_sessions() {
    let gw = &support::shop().await;
    table::reply(gw, signup("scopes@example.com")).await;
    let mut sessions = Vec::new();
    for which in ["a", "b", "c"] {
        let s = table::reply(
            gw,
            login("scopes@example.com", "secret123")
                .says(which)
                .status(200),
        )
        .await;
        sessions.push((field(&s, "access_token"), field(&s, "refresh_token")));
    }
    let [(a_access, a_refresh), (_, b_refresh), _] = &sessions[..] else {
        unreachable!()
    };
    table::run(
        gw,
        vec![
            send("POST", "/auth/v1/logout?scope=others")
                .token(a_access)
                .says("others signed out")
                .status(204),
            refresh(b_refresh)
                .says("another session's token")
                .status(400),
            refresh(a_refresh).says("this session's token").status(200),
            send("POST", "/auth/v1/logout?scope=local")
                .token(a_access)
                .says("this session signed out")
                .status(204),
            get("/auth/v1/user")
                .token(a_access)
                .header("x-supabase-api-version", "2024-01-01")
                .says("its access token names a session that is gone")
                .status(403)
                .at("/code", json!("session_not_found")),
            send("POST", "/auth/v1/logout")
                .token(a_access)
                .says("signing out a session that is gone")
                .status(403)
                .at("/error_code", json!("session_not_found"))
                .at(
                    "/msg",
                    json!("Session from session_id claim in JWT does not exist"),
                ),
            get("/auth/v1/user/identities/authorize?provider=github&skip_http_redirect=true")
                .token(a_access)
                .says("linking an identity from a session that is gone")
                .status(403)
                .at("/error_code", json!("session_not_found")),
            refresh("")
                .says("no refresh token: GoTrue's OAuth error")
                .status(400)
                .json(json!({"error": "invalid_request", "error_description": "refresh_token required"})),
        ],
    )
    .await;
    // No bearer token at all (only the apikey).
    let r = reqwest::Client::new()
        .post(format!("{}/auth/v1/logout", gw.url))
        .header("apikey", &gw.anon)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401, "no bearer token");
}

#[tokio::test]
async fn a_banned_user_keeps_no_access() {
    let gw = &support::shop().await;
    let user = table::reply(gw, signup("banned@example.com")).await;
    let s = table::reply(
        gw,
        login("banned@example.com", "secret123")
            .says("signing in before the ban")
            .status(200),
    )
    .await;
    let id = user.json()["user"]["id"]
        .as_str()
        .or(user.json()["id"].as_str())
        .unwrap_or_default()
        .to_string();
    let (access, refresh_token) = (field(&s, "access_token"), field(&s, "refresh_token"));
    table::run(
        gw,
        vec![
            with_json(
                "PUT",
                &format!("/auth/v1/admin/users/{id}"),
                &json!({"ban_duration": "24h"}).to_string(),
            )
            .service()
            .says("the admin bans the user")
            .status(200),
            get("/auth/v1/user")
                .token(&access)
                .header("x-supabase-api-version", "2024-01-01")
                .says("an access token from before the ban")
                .status(403)
                .json(json!({"code": "user_banned", "message": "User is banned"})),
            refresh(&refresh_token)
                .says("its refresh token")
                .status(400)
                .json(
                    json!({"code": "user_banned", "message": "Invalid Refresh Token: User Banned"}),
                ),
        ],
    )
    .await;
}

#[tokio::test]
async fn error_bodies_follow_the_api_version() {
    let gw = &support::shop().await;
    let bad = json!({"email": "admin@example.com", "password": "wrong-password"});
    table::run(gw, vec![
        gotrue("/auth/v1/token?grant_type=password", bad.clone()).says("the new shape")
            .json(json!({"code":"invalid_credentials","message":"Invalid login credentials"}))
            .has("x-supabase-api-version", Some("2024-01-01")),
        with_json("POST", "/auth/v1/token?grant_type=password", &bad.to_string())
            .says("the legacy shape without an API version")
            .json(json!({"code":400,"error_code":"invalid_credentials","msg":"Invalid login credentials"})),
        gotrue("/auth/v1/signup", json!({"email":"weak@example.com","password":"12345"}))
            .says("a weak password").status(422).at("/weak_password", json!({"reasons":["length"]})),
        gotrue("/auth/v1/signup", json!({"email":"long@example.com","password":"x".repeat(73)}))
            .says("a password bcrypt would cut").status(422),
        gotrue("/auth/v1/token?grant_type=magic", json!({})).says("an unknown grant")
            .at("/message", json!("unsupported_grant_type")),
        send("POST", "/auth/v1/signup").raw("application/json", b"{nope")
            .header("x-supabase-api-version", "2024-01-01").says("a body that is not JSON")
            .status(400).at("/code", json!("bad_json")),
        get("/auth/v1/settings").says("the settings clients read")
            .at("/mailer_autoconfirm", json!(true)).at("/external/email", json!(true)),
    ]).await;
}

#[tokio::test]
async fn sign_in_and_sign_up_are_rate_limited_per_address() {
    let gw = &support::shop_with(&[
        "--rate-limit-sign-in",
        "3",
        "--rate-limit-ip-header",
        "X-Forwarded-For",
    ])
    .await;
    let bad =
        || login("nobody@example.com", "wrong-password").header("x-forwarded-for", "203.0.113.9");
    table::run(
        gw,
        vec![
            bad().says("attempt 1").status(400),
            bad().says("attempt 2").status(400),
            bad().says("attempt 3").status(400),
            bad()
                .says("attempt 4, past the limit")
                .status(429)
                .at("/code", json!("over_request_rate_limit")),
            gotrue(
                "/auth/v1/signup",
                json!({"email":"late@example.com","password":"secret123"}),
            )
            .header("x-forwarded-for", "203.0.113.9")
            .says("sign-up shares the bucket")
            .status(429),
        ],
    )
    .await;
    // The counter lives in PostgreSQL, where every replica sees it.
    let rows = gw
        .sql("SELECT count FROM auth.rate_limits WHERE key LIKE 'signin:%'")
        .await;
    assert_eq!(rows[0][0].as_deref(), Some("5"));
    // This machine itself is not limited when no proxy header is configured (as under the CLI).
    let local = &support::shop_with(&["--rate-limit-sign-in", "1"]).await;
    let bad = || login("nobody@example.com", "wrong-password");
    table::run(
        local,
        vec![
            bad().says("from this machine, 1").status(400),
            bad().says("from this machine, 2").status(400),
            bad().says("from this machine, 3").status(400),
        ],
    )
    .await;
}

#[tokio::test]
async fn sign_up_can_be_switched_off() {
    let gw: &Gateway = &support::shop_with(&["--disable-signup"]).await;
    table::run(
        gw,
        vec![
            gotrue(
                "/auth/v1/signup",
                json!({"email":"a@example.com","password":"secret123"}),
            )
            .says("sign-up refused")
            .status(422)
            .at("/message", json!("Signups not allowed for this instance")),
            login("admin@example.com", "bloom-admin-123")
                .says("existing users still sign in")
                .status(200),
        ],
    )
    .await;
}
