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
async fn stand_in(handler: Handler) -> (u16, Arc<Mutex<Vec<Seen>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
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
