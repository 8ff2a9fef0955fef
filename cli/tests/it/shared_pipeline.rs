//! REST requests sharing one PostgreSQL connection (`SUPAGATE_REST_SHARED=1`): failing and
//! succeeding requests of different users, sent at once and so written back to back on that one
//! connection, each get their own answer — a check violation, a RAISE, a statement timeout, an
//! RLS refusal and `Prefer: tx=rollback` touch no other request — and one request's role,
//! claims and settings never reach another's statements.

use crate::support;
use futures_util::future::join_all;
use serde_json::{Value, json};
use std::time::Duration;
use support::{Api, Reply};

const SETUP: &str = r#"
CREATE TABLE public.notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text NOT NULL CHECK (length(body) < 10)
);
ALTER TABLE public.notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON public.notes FOR ALL TO authenticated
  USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
GRANT SELECT, INSERT ON public.notes TO authenticated;
CREATE FUNCTION public.fail_with(msg text) RETURNS int LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION USING MESSAGE = msg; END $$;
CREATE FUNCTION public.whoami() RETURNS json LANGUAGE sql AS
  $$ SELECT json_build_object('role', current_user, 'sub', auth.uid(),
       'timeout', current_setting('statement_timeout'), 'pid', pg_backend_pid(),
       'read_only', current_setting('transaction_read_only')) $$;
CREATE FUNCTION public.slow() RETURNS int LANGUAGE sql AS $$ SELECT 1 FROM pg_sleep(3) $$;
DO $$ BEGIN
  EXECUTE format('ALTER ROLE anon IN DATABASE %I SET statement_timeout = %L',
                 current_database(), '150ms');
END $$;
NOTIFY pgrst, 'reload schema';
"#;

const ALICE: &str = "00000000-0000-4000-8000-00000000000a";
const BOB: &str = "00000000-0000-4000-8000-00000000000b";

/// One request of the mix: who sends it, method, path, headers, body, and what it must answer.
type Call<'a> = (
    &'a Api<'a>,
    &'static str,
    &'static str,
    Vec<(&'static str, &'static str)>,
    Option<String>,
    Expect,
);

/// What one request of the mix must answer.
enum Expect {
    /// Status and the rows' bodies, in order.
    Rows(u16, Value),
    /// Status, SQLSTATE and (when given) the message.
    Error(u16, &'static str, Option<String>),
    /// whoami as this user (None: anon) with this statement_timeout, read-only or not.
    Me(Option<&'static str>, &'static str, bool),
}

#[tokio::test]
async fn interleaved_requests_on_one_shared_connection_keep_to_themselves() {
    let gw = support::clone_of_env(
        &support::repo_root(),
        &["--db-pool", "16", "--max-client-queries", "0"],
        &[
            ("SUPAGATE_REST_SHARED", "1"),
            ("PGRST_DB_TX_END", "commit-allow-override"),
        ],
    )
    .await;
    gw.sql(SETUP).await;
    gw.sql(&format!(
        "INSERT INTO public.notes (owner, body) VALUES ('{ALICE}', 'a-0'), ('{BOB}', 'b-0')"
    ))
    .await;
    let anon = Api::anon(&gw);
    let alice = Api::user(&gw, ALICE);
    let bob = Api::user(&gw, BOB);
    // Served once the schema cache has reloaded.
    for _ in 0..200 {
        if alice
            .send("POST", "/rest/v1/rpc/whoami", &[], Some("{}"))
            .await
            .status
            == 200
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let rounds = 12;
    let mut calls = Vec::new();
    let mut expects = Vec::new();
    for i in 0..rounds {
        let msg = format!("boom-{i}");
        let body = format!(r#"{{"msg":"{msg}"}}"#);
        let mine = format!(r#"{{"body":"a-{}"}}"#, i + 1);
        let wide = r#"{"body":"far too long for the check"}"#.to_string();
        let stolen = format!(r#"{{"body":"x","owner":"{BOB}"}}"#);
        let kept = r#"{"body":"rolled"}"#.to_string();
        let mix: Vec<Call> = vec![
            (
                &alice,
                "GET",
                "/rest/v1/notes?select=body&body=like.a-0",
                vec![],
                None,
                Expect::Rows(200, json!([{"body": "a-0"}])),
            ),
            (
                &bob,
                "GET",
                "/rest/v1/notes?select=body&order=body",
                vec![],
                None,
                Expect::Rows(200, json!([{"body": "b-0"}])),
            ),
            (
                &anon,
                "POST",
                "/rest/v1/rpc/fail_with",
                vec![],
                Some(body),
                Expect::Error(400, "P0001", Some(msg)),
            ),
            (
                &alice,
                "POST",
                "/rest/v1/notes",
                vec![],
                Some(wide),
                Expect::Error(400, "23514", None),
            ),
            (
                &alice,
                "POST",
                "/rest/v1/notes",
                vec![],
                Some(stolen),
                Expect::Error(403, "42501", None),
            ),
            (
                &anon,
                "POST",
                "/rest/v1/rpc/slow",
                vec![],
                Some("{}".into()),
                Expect::Error(500, "57014", None),
            ),
            (
                &bob,
                "POST",
                "/rest/v1/notes?select=body",
                vec![("prefer", "return=representation, tx=rollback")],
                Some(kept),
                Expect::Rows(201, json!([{"body": "rolled"}])),
            ),
            (
                &alice,
                "POST",
                "/rest/v1/notes",
                vec![],
                Some(mine),
                Expect::Rows(201, Value::Null),
            ),
            (
                &alice,
                "POST",
                "/rest/v1/rpc/whoami",
                vec![],
                Some("{}".into()),
                Expect::Me(Some(ALICE), "8s", false),
            ),
            (
                &anon,
                "GET",
                "/rest/v1/rpc/whoami",
                vec![],
                None,
                Expect::Me(None, "150ms", true),
            ),
            (
                &bob,
                "GET",
                "/rest/v1/rpc/whoami",
                vec![],
                None,
                Expect::Me(Some(BOB), "8s", true),
            ),
        ];
        for (api, method, path, headers, body, expect) in mix {
            calls.push(async move { api.send(method, path, &headers, body.as_deref()).await });
            expects.push(expect);
        }
    }
    let replies: Vec<Reply> = join_all(calls).await;

    let mut pids = std::collections::BTreeSet::new();
    for (n, (r, expect)) in replies.iter().zip(&expects).enumerate() {
        match expect {
            Expect::Rows(status, rows) => {
                assert_eq!(r.status, *status, "request {n}: {}", r.text);
                if !rows.is_null() {
                    assert_eq!(&r.json(), rows, "request {n}");
                }
            }
            Expect::Error(status, code, message) => {
                assert_eq!(r.status, *status, "request {n}: {}", r.text);
                assert_eq!(r.json()["code"], json!(code), "request {n}");
                if let Some(m) = message {
                    assert_eq!(r.json()["message"], json!(m), "request {n}");
                }
            }
            Expect::Me(sub, timeout, read) => {
                assert_eq!(r.status, 200, "request {n}: {}", r.text);
                let me = r.json();
                let role = if sub.is_some() {
                    "authenticated"
                } else {
                    "anon"
                };
                assert_eq!(me["role"], json!(role), "request {n}");
                assert_eq!(me["sub"], json!(sub), "request {n}");
                assert_eq!(me["timeout"], json!(timeout), "request {n}");
                // A GET is a read, run read-only; a POST to a volatile function is not.
                let read_only = if *read { "on" } else { "off" };
                assert_eq!(me["read_only"], json!(read_only), "request {n}");
                pids.insert(me["pid"].to_string());
            }
        }
    }
    assert_eq!(
        pids.len(),
        1,
        "every request ran on the one shared connection"
    );

    // What committed is exactly the succeeding inserts; the rolled back and failed ones left
    // nothing.
    let rows = gw
        .sql("SELECT owner::text, count(*)::text FROM public.notes GROUP BY 1 ORDER BY 1")
        .await;
    let counts: Vec<(String, String)> = rows
        .into_iter()
        .map(|r| (r[0].clone().unwrap(), r[1].clone().unwrap()))
        .collect();
    assert_eq!(
        counts,
        vec![
            (ALICE.to_string(), (rounds + 1).to_string()),
            (BOB.to_string(), "1".to_string())
        ]
    );
}
