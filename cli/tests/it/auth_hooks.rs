//! Auth hooks as config.toml's `[auth.hook.*]` names them (before user created, password
//! verification attempt, send email), delivery through `[auth.email.smtp]`, and the mail apps
//! queue with `supagate.send_mail()`, on projects of their own, against a real SMTP listener.

use crate::support;

use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use support::{Api, Gateway, scratch_project, start_project};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A minimal SMTP server that records each message's DATA, and refuses recipients whose
/// address contains "refused".
async fn smtp_server() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = got.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            let sink = sink.clone();
            tokio::spawn(async move {
                let (r, mut w) = sock.into_split();
                let mut lines = BufReader::new(r).lines();
                w.write_all(b"220 test ESMTP\r\n").await.unwrap();
                let mut data: Option<String> = None;
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(d) = data.as_mut() {
                        if line == "." {
                            sink.lock().unwrap().push(data.take().unwrap());
                            w.write_all(b"250 queued\r\n").await.unwrap();
                        } else {
                            d.push_str(&line);
                            d.push('\n');
                        }
                        continue;
                    }
                    let reply: &[u8] = match line.get(..4).map(str::to_ascii_uppercase).as_deref() {
                        Some("EHLO") | Some("HELO") => b"250 test\r\n",
                        Some("RCPT") if line.contains("refused") => b"550 no such mailbox\r\n",
                        Some("DATA") => {
                            data = Some(String::new());
                            b"354 go on\r\n"
                        }
                        Some("QUIT") => {
                            let _ = w.write_all(b"221 bye\r\n").await;
                            break;
                        }
                        _ => b"250 ok\r\n",
                    };
                    w.write_all(reply).await.unwrap();
                }
            });
        }
    });
    (port, got)
}

async fn post(gw: &Gateway, path: &str, body: Value) -> support::Reply {
    Api::anon(gw)
        .send(
            "POST",
            path,
            &[("x-supabase-api-version", "2024-01-01")],
            Some(&body.to_string()),
        )
        .await
}

const HOOKS_SQL: &str = r#"
create function public.before_user_created(event jsonb) returns jsonb language plpgsql as $$
begin
  if event -> 'user' ->> 'email' like '%@blocked.example' then
    return jsonb_build_object('error', jsonb_build_object('http_code', 403, 'message', 'This domain is not allowed'));
  end if;
  return '{}';
end $$;
create table public.attempts (user_id uuid, valid boolean);
create function public.password_attempt(event jsonb) returns jsonb language plpgsql as $$
begin
  insert into public.attempts values ((event ->> 'user_id')::uuid, (event ->> 'valid')::boolean);
  if (select count(*) from public.attempts where user_id = (event ->> 'user_id')::uuid and not valid) >= 2 then
    return jsonb_build_object('decision', 'reject', 'message', 'Too many failed attempts');
  end if;
  return jsonb_build_object('decision', 'continue');
end $$;
grant usage on schema public to supabase_auth_admin;
grant all on public.attempts to supabase_auth_admin;
grant execute on function public.before_user_created, public.password_attempt to supabase_auth_admin;
"#;

#[tokio::test]
async fn hooks_decide_sign_ups_and_sign_ins_and_mail_goes_out_by_smtp() {
    let (port, mails) = smtp_server().await;
    let dir = scratch_project(&[
        (
            "supabase/config.toml",
            r#"
[auth.email]
enable_confirmations = true
[auth.email.smtp]
host = "127.0.0.1"
port = "env(TEST_SMTP_PORT)"
admin_email = "shop@example.com"
sender_name = "Bluebell"
[auth.hook.before_user_created]
enabled = true
uri = "pg-functions://postgres/public/before_user_created"
[auth.hook.password_verification_attempt]
enabled = true
uri = "pg-functions://postgres/public/password_attempt"
"#,
        ),
        ("supabase/migrations/20250101000000_hooks.sql", HOOKS_SQL),
    ]);
    let gw = {
        let port = port.to_string();
        support::start_project_env(&dir, &[], &[("TEST_SMTP_PORT", port.as_str())])
    };
    let blocked = post(
        &gw,
        "/auth/v1/signup",
        json!({"email": "eve@blocked.example", "password": "secret123"}),
    )
    .await;
    assert_eq!(blocked.status, 403, "{}", blocked.text);
    assert_eq!(blocked.json()["message"], "This domain is not allowed");

    let ok = post(
        &gw,
        "/auth/v1/signup",
        json!({"email": "ann@example.com", "password": "secret123"}),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.text);
    let mail = mails
        .lock()
        .unwrap()
        .first()
        .cloned()
        .expect("a mail by SMTP");
    assert!(mail.contains("To: ann@example.com"), "{mail}");
    assert!(mail.contains("From: Bluebell <shop@example.com>"), "{mail}");
    assert!(
        mail.contains("Subject: Confirm your email address"),
        "{mail}"
    );

    gw.sql("update auth.users set email_confirmed_at = now() where email = 'ann@example.com'")
        .await;
    let wrong = json!({"email": "ann@example.com", "password": "wrong-one"});
    for _ in 0..2 {
        let r = post(&gw, "/auth/v1/token?grant_type=password", wrong.clone()).await;
        assert_eq!(r.json()["code"], "invalid_credentials");
    }
    let right = post(
        &gw,
        "/auth/v1/token?grant_type=password",
        json!({"email": "ann@example.com", "password": "secret123"}),
    )
    .await;
    assert_eq!(right.status, 400);
    assert_eq!(right.json()["message"], "Too many failed attempts");
    // The hook saw every attempt, failed ones included.
    let n = gw.sql("select count(*) from public.attempts").await;
    assert_eq!(n[0][0].as_deref(), Some("3"));
}

#[tokio::test]
async fn the_send_email_hook_gets_the_code_instead_of_a_mail() {
    let dir = scratch_project(&[
        (
            "supabase/config.toml",
            r#"
[auth.hook.send_email]
enabled = true
uri = "pg-functions://postgres/public/send_email"
"#,
        ),
        (
            "supabase/migrations/20250101000000_hook.sql",
            r#"
create table public.outbox (payload jsonb);
create function public.send_email(event jsonb) returns jsonb language sql as $$
  insert into public.outbox values (event) returning '{}'::jsonb
$$;
grant usage on schema public to supabase_auth_admin;
grant all on public.outbox to supabase_auth_admin;
grant execute on function public.send_email to supabase_auth_admin;
"#,
        ),
    ]);
    let gw = start_project(&dir, &[]);
    let r = post(
        &gw,
        "/auth/v1/signup",
        json!({"email": "bo@example.com", "password": "secret123"}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let r = post(&gw, "/auth/v1/recover", json!({"email": "bo@example.com"})).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let rows = gw
        .sql("select payload -> 'email_data' ->> 'email_action_type', payload -> 'email_data' ->> 'token', payload -> 'user' ->> 'email' from public.outbox")
        .await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][0].as_deref(), Some("recovery"));
    assert_eq!(rows[0][2].as_deref(), Some("bo@example.com"));
    let token = rows[0][1].clone().unwrap();
    let v = post(
        &gw,
        "/auth/v1/verify",
        json!({"type": "recovery", "email": "bo@example.com", "token": token}),
    )
    .await;
    assert_eq!(v.status, 200, "{}", v.text);
    assert!(v.json()["access_token"].is_string());
    // Nothing reached the catcher.
    let caught = gw.sql("select count(*) from supagate.mail").await;
    assert_eq!(caught[0][0].as_deref(), Some("0"));
}

#[tokio::test]
async fn mail_an_app_queues_goes_out_after_commit_and_refusals_are_retried_later() {
    let (port, mails) = smtp_server().await;
    let dir = scratch_project(&[(
        "supabase/config.toml",
        r#"
[auth.email.smtp]
host = "127.0.0.1"
port = "env(TEST_SMTP_PORT)"
admin_email = "shop@example.com"
sender_name = "Bluebell"
"#,
    )]);
    let gw = {
        let port = port.to_string();
        support::start_project_env(&dir, &[], &[("TEST_SMTP_PORT", port.as_str())])
    };
    // Rolled back: never sent.
    gw.sql(
        "BEGIN; SELECT supagate.send_mail('gone@example.com', 'Never', 'rolled back'); ROLLBACK;",
    )
    .await;
    gw.sql(
        "SELECT supagate.send_mail('florist@example.com', 'New request', 'Call Ann <back> & soon')",
    )
    .await;
    gw.sql("SELECT supagate.send_mail('refused@example.com', 'Bounce', 'x')")
        .await;
    let mut sent = None;
    for _ in 0..100 {
        sent = mails.lock().unwrap().first().cloned();
        if sent.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mail = sent.expect("the queued mail by SMTP");
    assert!(mail.contains("To: florist@example.com"), "{mail}");
    assert!(mail.contains("Subject: New request"), "{mail}");
    assert!(mail.contains("Call Ann <back> & soon"), "{mail}");
    // The HTML part (quoted-printable, so lines may be folded) has the text escaped.
    assert!(mail.contains("Call Ann &lt;bac"), "{mail}");
    // The refused one waits for a later attempt, with the reason; the sent one is gone.
    let mut left = Vec::new();
    for _ in 0..100 {
        left = gw
            .sql("SELECT recipient, attempts, last_error IS NOT NULL, next_attempt_at > now() FROM supagate.outbox")
            .await;
        if left.len() == 1 && left[0][1].as_deref() == Some("1") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        left,
        vec![vec![
            Some("refused@example.com".to_string()),
            Some("1".into()),
            Some("t".into()),
            Some("t".into())
        ]]
    );
    assert_eq!(mails.lock().unwrap().len(), 1);
    // The API roles cannot queue mail themselves.
    let r = support::Api::service(&gw)
        .send(
            "POST",
            "/rest/v1/rpc/send_mail",
            &[("content-profile", "supagate")],
            Some(r#"{"recipient":"x@example.com","subject":"s","body":"b"}"#),
        )
        .await;
    assert!(r.status >= 400, "{}", r.text);
    let queued = gw.sql("SELECT has_function_privilege('service_role', 'supagate.send_mail(text, text, text)', 'execute'), has_function_privilege('anon', 'supagate.send_mail(text, text, text)', 'execute')").await;
    assert_eq!(queued, vec![vec![Some("f".into()), Some("f".into())]]);
}

/// Sign-ups with confirmations on: the mailed confirmation counts against the hourly e-mail
/// limit. `[auth.rate_limit] email_sent` is 2 by default.
async fn three_sign_ups(gw: &Gateway) -> Vec<support::Reply> {
    let mut out = Vec::new();
    for who in ["ada", "bea", "cy"] {
        let body = json!({"email": format!("{who}@example.com"), "password": "secret123"});
        out.push(post(gw, "/auth/v1/signup", body).await);
    }
    out
}

#[tokio::test]
async fn caught_mail_passes_at_the_local_rate_and_smtp_mail_at_the_configured_one() {
    const CONFIRM: &str = "[auth.email]\nenable_confirmations = true\n";
    // Caught: as the CLI's local stack, no hourly limit a test suite would meet.
    let dir = scratch_project(&[("supabase/config.toml", CONFIRM)]);
    let gw = start_project(&dir, &[]);
    for r in three_sign_ups(&gw).await {
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let mailpit = &gw.status["MAILPIT_URL"];
    let listed: Value = reqwest::get(format!("{mailpit}/api/v1/messages"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["total"], 3, "{listed}");

    // Sent by SMTP: the configured limit holds.
    let (port, mails) = smtp_server().await;
    let smtp = format!(
        "{CONFIRM}[auth.email.smtp]\nhost = \"127.0.0.1\"\nport = {port}\nadmin_email = \"shop@example.com\"\n"
    );
    let dir = scratch_project(&[("supabase/config.toml", smtp.as_str())]);
    let gw = start_project(&dir, &[]);
    let replies = three_sign_ups(&gw).await;
    assert_eq!(replies[0].status, 200, "{}", replies[0].text);
    assert_eq!(replies[1].status, 200, "{}", replies[1].text);
    assert_eq!(replies[2].status, 429, "{}", replies[2].text);
    assert_eq!(replies[2].json()["code"], "over_email_send_rate_limit");
    assert_eq!(mails.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn the_hourly_smtp_cap_counts_every_mail_with_confirmations_off() {
    let (port, mails) = smtp_server().await;
    let config = format!(
        "[auth.email]\nenable_confirmations = false\n[auth.email.smtp]\nhost = \"127.0.0.1\"\nport = {port}\nadmin_email = \"shop@example.com\"\n"
    );
    let dir = scratch_project(&[("supabase/config.toml", config.as_str())]);
    let gw = start_project(&dir, &[]);
    let mut statuses = Vec::new();
    for who in ["ada", "bea", "cy"] {
        let r = post(
            &gw,
            "/auth/v1/otp",
            json!({"email": format!("{who}@example.com")}),
        )
        .await;
        statuses.push((r.status, r.json()["code"].clone()));
    }
    assert_eq!(
        statuses,
        [
            (200, Value::Null),
            (200, Value::Null),
            (429, json!("over_email_send_rate_limit"))
        ]
    );
    assert_eq!(mails.lock().unwrap().len(), 2);
}
