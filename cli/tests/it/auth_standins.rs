//! Auth settings that reach other services, each against a local stand-in HTTP server: hooks at
//! `http://` URIs (Standard Webhooks signatures checked by the stand-in, GoTrue's retries and
//! errors), a third-party issuer's JWKS, and a captcha verify endpoint.

use crate::support;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use support::{Api, Gateway, scratch_project};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// One request the stand-in received.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

/// What the stand-in answers: status, extra headers, body (JSON unless a content-type is given).
type Answer = (u16, Vec<(&'static str, String)>, String);
type Handler = Arc<dyn Fn(&Seen) -> Answer + Send + Sync>;

/// A minimal HTTP/1.1 server on 127.0.0.1: records every request and answers with `handler`.
/// It runs on a thread of its own, so it answers while the test waits for a gateway to start.
async fn stand_in(handler: Handler) -> (u16, Arc<Mutex<Vec<Seen>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            while let Ok((sock, _)) = listener.accept().await {
                let (log, handler) = (log.clone(), handler.clone());
                tokio::spawn(async move {
                    let (r, mut w) = sock.into_split();
                    let mut r = BufReader::new(r);
                    loop {
                        let mut line = String::new();
                        if r.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let path = line.split(' ').nth(1).unwrap_or_default().to_string();
                        let mut headers = HashMap::new();
                        loop {
                            let mut h = String::new();
                            r.read_line(&mut h).await.unwrap();
                            let h = h.trim_end();
                            if h.is_empty() {
                                break;
                            }
                            if let Some((k, v)) = h.split_once(':') {
                                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                            }
                        }
                        let len = headers
                            .get("content-length")
                            .and_then(|l| l.parse().ok())
                            .unwrap_or(0);
                        let mut body = vec![0; len];
                        r.read_exact(&mut body).await.unwrap();
                        let req = Seen {
                            path,
                            headers,
                            body,
                        };
                        let (status, extra, text) = handler(&req);
                        log.lock().unwrap().push(req);
                        let mut head =
                            format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", text.len());
                        if !extra.iter().any(|(k, _)| *k == "content-type") {
                            head.push_str("content-type: application/json\r\n");
                        }
                        for (k, v) in extra {
                            head.push_str(&format!("{k}: {v}\r\n"));
                        }
                        head.push_str("\r\n");
                        if w.write_all(head.as_bytes()).await.is_err()
                            || w.write_all(text.as_bytes()).await.is_err()
                        {
                            return;
                        }
                    }
                });
            }
        })
    });
    (port, seen)
}

fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let pad = |b: u8| k.iter().map(|x| x ^ b).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .to_vec()
}

/// Whether the request carries a valid Standard Webhooks signature by `secret`
/// (`v1,whsec_<base64>`).
fn signed_by(req: &Seen, secret: &str) -> bool {
    let key = STANDARD
        .decode(secret.strip_prefix("v1,whsec_").unwrap())
        .unwrap();
    let (Some(id), Some(ts), Some(sigs)) = (
        req.headers.get("webhook-id"),
        req.headers.get("webhook-timestamp"),
        req.headers.get("webhook-signature"),
    ) else {
        return false;
    };
    let mut content = format!("{id}.{ts}.").into_bytes();
    content.extend_from_slice(&req.body);
    let expected = format!("v1,{}", STANDARD.encode(hmac_sha256(&key, &content)));
    sigs.split(", ").any(|s| s == expected)
}

fn claims_of(token: &str) -> Value {
    let body = token.split('.').nth(1).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap()
}

async fn post(gw: &Gateway, path: &str, body: Value) -> support::Reply {
    Api::anon(gw)
        .send("POST", path, &[], Some(&body.to_string()))
        .await
}

const SECRET_A: &str = "v1,whsec_c3VwYWdhdGUtaG9vay1zZWNyZXQtbnVtYmVyLW9uZQ==";
const SECRET_B: &str = "v1,whsec_c3VwYWdhdGUtaG9vay1zZWNyZXQtbnVtYmVyLXR3bw==";

#[tokio::test]
async fn http_hooks_are_signed_retried_and_their_errors_reported() {
    // The stand-in: signatures by both secrets required; the token hook adds a claim, answers
    // its first call 503 with retry-after, and refuses with 401 once `refuse` is set.
    let refuse = Arc::new(Mutex::new(false));
    let calls = Arc::new(Mutex::new(0u32));
    let handler: Handler = {
        let (refuse, calls) = (refuse.clone(), calls.clone());
        Arc::new(move |req: &Seen| {
            if !(signed_by(req, SECRET_A) && signed_by(req, SECRET_B)) {
                return (400, vec![], "{}".into());
            }
            let input: Value = serde_json::from_slice(&req.body).unwrap();
            match req.path.as_str() {
                "/functions/v1/token-hook" => {
                    let mut n = calls.lock().unwrap();
                    *n += 1;
                    if *n == 1 {
                        return (503, vec![("retry-after", "1".into())], "{}".into());
                    }
                    if *refuse.lock().unwrap() {
                        return (401, vec![], "{}".into());
                    }
                    let mut claims = input["claims"].clone();
                    claims["plan"] = json!("gold");
                    (200, vec![], json!({ "claims": claims }).to_string())
                }
                "/functions/v1/mail-hook" => {
                    if input["user"]["email"] == "blocked@example.com" {
                        let e = json!({"error": {"http_code": 403, "message": "No mail for you"}});
                        return (200, vec![], e.to_string());
                    }
                    (200, vec![], "{}".into())
                }
                _ => (404, vec![], "{}".into()),
            }
        })
    };
    let (port, seen) = stand_in(handler).await;
    let dir = scratch_project(&[(
        "supabase/config.toml",
        r#"
[auth.email]
enable_confirmations = true
[auth.hook.custom_access_token]
enabled = true
uri = "env(TOKEN_HOOK_URI)"
secrets = "env(HOOK_SECRETS)"
[auth.hook.send_email]
enabled = true
uri = "env(MAIL_HOOK_URI)"
secrets = "env(HOOK_SECRETS)"
"#,
    )]);
    let secrets = format!("{SECRET_A}|{SECRET_B}");
    let token_uri = format!("http://host.docker.internal:{port}/functions/v1/token-hook");
    let mail_uri = format!("http://127.0.0.1:{port}/functions/v1/mail-hook");
    let gw = support::start_project_env(
        &dir,
        &[],
        &[
            ("TOKEN_HOOK_URI", &token_uri),
            ("MAIL_HOOK_URI", &mail_uri),
            ("HOOK_SECRETS", &secrets),
        ],
    );

    let r = post(
        &gw,
        "/auth/v1/signup",
        json!({"email": "ann@example.com", "password": "secret123"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let mail = seen.lock().unwrap().last().cloned().expect("the mail hook");
    assert_eq!(mail.path, "/functions/v1/mail-hook");
    assert_eq!(mail.headers["content-type"], "application/json");
    let input: Value = serde_json::from_slice(&mail.body).unwrap();
    assert_eq!(input["email_data"]["email_action_type"], "signup");
    assert_eq!(input["user"]["email"], "ann@example.com");
    assert_eq!(mail.headers["webhook-signature"].matches("v1,").count(), 2);

    let r = post(
        &gw,
        "/auth/v1/signup",
        json!({"email": "blocked@example.com", "password": "secret123"}),
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.text);
    assert_eq!(r.json()["msg"], "No mail for you", "{}", r.text);

    gw.sql("update auth.users set email_confirmed_at = now() where email = 'ann@example.com'")
        .await;
    let sign_in = json!({"email": "ann@example.com", "password": "secret123"});
    let r = post(&gw, "/auth/v1/token?grant_type=password", sign_in.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let claims = claims_of(r.json()["access_token"].as_str().unwrap());
    assert_eq!(claims["plan"], "gold", "{claims}");
    // The 503 with retry-after was tried again, as a new message.
    let token_calls: Vec<Seen> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|s| s.path == "/functions/v1/token-hook")
        .cloned()
        .collect();
    assert_eq!(token_calls.len(), 2);
    assert_ne!(
        token_calls[0].headers["webhook-id"],
        token_calls[1].headers["webhook-id"]
    );

    *refuse.lock().unwrap() = true;
    let r = post(&gw, "/auth/v1/token?grant_type=password", sign_in).await;
    assert_eq!(r.status, 500, "{}", r.text);
    assert_eq!(r.json()["msg"], "Hook requires authorization token");
}

/// The stand-in issuer's signing key (RSA, with a kid) as a private JWK set.
fn issuer_keys(kid: &str) -> identity::jwt::JwtKeys {
    let mut jwk: Value =
        serde_json::from_str(include_str!("../../../identity/src/test-rsa-key.json")).unwrap();
    jwk["kid"] = json!(kid);
    identity::jwt::JwtKeys::with_signing_keys(
        "an-unrelated-secret-of-at-least-32-chars",
        &json!([jwk]).to_string(),
    )
    .unwrap()
}

#[tokio::test]
async fn a_third_party_issuers_tokens_read_rows_under_rls() {
    let keys = issuer_keys("standin-1");
    let jwks = keys.jwks().to_string();
    let issuer = Arc::new(Mutex::new(String::new()));
    let handler: Handler = {
        let issuer = issuer.clone();
        Arc::new(move |req: &Seen| {
            let iss = issuer.lock().unwrap().clone();
            match req.path.as_str() {
                "/.well-known/openid-configuration" => (
                    200,
                    vec![],
                    json!({"issuer": iss, "jwks_uri": format!("{iss}/jwks")}).to_string(),
                ),
                "/jwks" => (200, vec![], jwks.clone()),
                _ => (404, vec![], "{}".into()),
            }
        })
    };
    let (port, _) = stand_in(handler).await;
    let iss = format!("http://127.0.0.1:{port}");
    *issuer.lock().unwrap() = iss.clone();
    let dir = scratch_project(&[
        (
            "supabase/config.toml",
            r#"
[auth.third_party.workos]
enabled = true
issuer_url = "env(ISSUER_URL)"
"#,
        ),
        (
            "supabase/migrations/20250101000000_notes.sql",
            r#"
create table public.notes (owner text not null, body text not null);
alter table public.notes enable row level security;
create policy own_notes on public.notes for select to authenticated
  using (owner = auth.jwt() ->> 'sub');
grant select on public.notes to authenticated;
insert into public.notes values ('user_ann', 'ann''s note'), ('user_bo', 'bo''s note');
"#,
        ),
    ]);
    let gw = support::start_project_env(&dir, &[], &[("ISSUER_URL", &iss)]);
    let now = chrono::Utc::now().timestamp();
    let token = |claims: Value| keys.sign(&claims);
    let read = |t: String| {
        let gw = &gw;
        async move { Api::bearer(gw, &t).get("/rest/v1/notes?select=body").await }
    };

    let ann = token(
        json!({"iss": iss, "sub": "user_ann", "role": "authenticated",
                            "iat": now, "exp": now + 600}),
    );
    let r = read(ann.clone()).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json(), json!([{"body": "ann's note"}]));
    // Storage and functions take the same keys: the token is a valid caller there too.
    let r = Api::bearer(&gw, &ann).get("/storage/v1/bucket").await;
    assert_eq!(r.status, 200, "{}", r.text);

    // No role claim: the anon role, which the policy does not let read.
    let r = read(token(
        json!({"iss": iss, "sub": "user_ann", "exp": now + 600}),
    ))
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json(), json!([]));

    for (claims, why) in [
        (
            json!({"iss": "https://elsewhere.example", "sub": "user_ann", "role": "authenticated", "exp": now + 600}),
            "another issuer",
        ),
        (
            json!({"iss": iss, "sub": "user_ann", "role": "service_role", "exp": now + 600}),
            "the service role",
        ),
        (
            json!({"iss": iss, "sub": "user_ann", "role": "authenticated", "exp": now - 600}),
            "expired",
        ),
    ] {
        let r = read(token(claims)).await;
        assert_eq!(r.status, 401, "{why}: {}", r.text);
    }
    // A key the issuer does not publish.
    let stranger = issuer_keys("standin-2").sign(&json!({"iss": iss, "sub": "user_ann",
        "role": "authenticated", "exp": now + 600}));
    let forged = format!(
        "{}.{}",
        stranger.rsplit_once('.').unwrap().0,
        ann.rsplit_once('.').unwrap().1
    );
    let r = read(forged).await;
    assert_eq!(r.status, 401, "{}", r.text);
}

#[tokio::test]
async fn captcha_refuses_then_passes_and_sessions_end_by_their_limits() {
    let handler: Handler = Arc::new(|req: &Seen| {
        let form: HashMap<String, String> = String::from_utf8_lossy(&req.body)
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.replace("%2C", ",")))
            .collect();
        let ok = form.get("secret").map(String::as_str) == Some("captcha-secret")
            && form.get("response").map(String::as_str) == Some("good-token");
        let answer = if ok {
            json!({"success": true})
        } else {
            json!({"success": false, "error-codes": ["invalid-input-response"]})
        };
        (200, vec![], answer.to_string())
    });
    let (port, seen) = stand_in(handler).await;
    let dir = scratch_project(&[(
        "supabase/config.toml",
        r#"
[auth]
jwt_issuer = "https://id.shop.example"
[auth.captcha]
enabled = true
provider = "hcaptcha"
secret = "env(CAPTCHA_SECRET)"
[auth.sessions]
timebox = "10m"
inactivity_timeout = "5m"
"#,
    )]);
    let verify_url = format!("http://127.0.0.1:{port}/siteverify");
    let gw = support::start_project_env(
        &dir,
        &[],
        &[
            ("CAPTCHA_SECRET", "captcha-secret"),
            ("SUPAGATE_CAPTCHA_VERIFY_URL", &verify_url),
        ],
    );
    let creds = json!({"email": "cat@example.com", "password": "secret123"});
    let with = |token: &str| {
        let mut b = creds.clone();
        b["gotrue_meta_security"] = json!({"captcha_token": token});
        b
    };
    let r = post(&gw, "/auth/v1/signup", creds.clone()).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(r.json()["error_code"], "captcha_failed");
    assert_eq!(
        r.json()["msg"],
        "captcha protection: request disallowed (no captcha_token found)"
    );
    let r = post(&gw, "/auth/v1/signup", with("bad-token")).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(
        r.json()["msg"],
        "captcha protection: request disallowed (invalid-input-response)"
    );
    let r = post(&gw, "/auth/v1/signup", with("good-token")).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(seen.lock().unwrap().len(), 2, "a missing token is not sent");

    // Password sign-in asks for one too; refreshing does not.
    let r = post(&gw, "/auth/v1/token?grant_type=password", creds.clone()).await;
    assert_eq!(r.json()["error_code"], "captcha_failed", "{}", r.text);
    let signed_in = || async {
        let r = post(
            &gw,
            "/auth/v1/token?grant_type=password",
            with("good-token"),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.text);
        let s = r.json();
        (
            s["refresh_token"].as_str().unwrap().to_string(),
            claims_of(s["access_token"].as_str().unwrap())["session_id"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    };
    let refresh = |token: String| {
        let gw = &gw;
        async move {
            post(
                gw,
                "/auth/v1/token?grant_type=refresh_token",
                json!({ "refresh_token": token }),
            )
            .await
        }
    };
    let (rt, _) = signed_in().await;
    let r = refresh(rt).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let access = r.json()["access_token"].as_str().unwrap().to_string();
    assert_eq!(claims_of(&access)["iss"], "https://id.shop.example");

    // Idle past inactivity_timeout, then begun before the timebox.
    let (rt, sid) = signed_in().await;
    gw.sql(&format!("update auth.sessions set refreshed_at = now() - interval '6 minutes', created_at = now() - interval '7 minutes' where id = '{sid}'"))
        .await;
    gw.sql(&format!("update auth.refresh_tokens set updated_at = now() - interval '7 minutes' where session_id = '{sid}'"))
        .await;
    let r = refresh(rt).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(r.json()["error_code"], "session_expired");
    assert_eq!(
        r.json()["msg"],
        "Invalid Refresh Token: Session Expired (Inactivity)"
    );

    let (rt, sid) = signed_in().await;
    gw.sql(&format!(
        "update auth.sessions set created_at = now() - interval '11 minutes' where id = '{sid}'"
    ))
    .await;
    let r = refresh(rt).await;
    assert_eq!(r.status, 400, "{}", r.text);
    assert_eq!(r.json()["error_code"], "session_expired");
    assert_eq!(r.json()["msg"], "Invalid Refresh Token: Session Expired");
}
