//! Realtime across gateways sharing one database: broadcasts, presence and changes reach
//! sockets on any of them, and the gateway capturing changes can die without a committed
//! change being lost. (The protocol itself is tested through supabase-js in
//! tests/contract/realtime.test.mjs.)

use crate::support;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::time::Duration;
use support::{Api, Gateway, shop};
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A Phoenix 2.0.0 client, as small as the tests need.
struct Phx {
    ws: Ws,
    next: u32,
}

impl Phx {
    async fn connect(gw: &Gateway) -> Phx {
        Phx::connect_as(gw, &gw.service).await
    }

    /// Connected with this API key (its role decides what row level security shows).
    async fn connect_as(gw: &Gateway, key: &str) -> Phx {
        let url = format!(
            "{}/realtime/v1/websocket?apikey={key}&vsn=2.0.0",
            gw.url.replacen("http", "ws", 1),
        );
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("connect");
        Phx { ws, next: 0 }
    }

    async fn push(&mut self, topic: &str, event: &str, payload: Value) -> String {
        self.next += 1;
        let r = self.next.to_string();
        let frame = json!(["1", r, topic, event, payload]).to_string();
        self.ws.send(Message::text(frame)).await.expect("send");
        r
    }

    /// The payload of the next `event` on `topic` (other messages are skipped).
    async fn expect(&mut self, topic: &str, event: &str, within: Duration) -> Value {
        let wait = async {
            while let Some(m) = self.ws.next().await {
                if let Message::Text(t) = m.expect("frame") {
                    let v: Value = serde_json::from_str(&t).unwrap();
                    if v[2] == topic && v[3] == event {
                        return v[4].clone();
                    }
                }
            }
            panic!("socket closed waiting for {event}")
        };
        tokio::time::timeout(within, wait)
            .await
            .unwrap_or_else(|_| panic!("no {event} on {topic} within {within:?}"))
    }

    async fn join(&mut self, topic: &str, config: Value) {
        self.push(topic, "phx_join", json!({ "config": config }))
            .await;
        let reply = self
            .expect(topic, "phx_reply", Duration::from_secs(10))
            .await;
        assert_eq!(reply["status"], "ok", "{reply}");
    }

    /// Joins with `postgres_changes` bindings and waits for their "Subscribed" system message.
    async fn subscribe(&mut self, topic: &str, config: Value) {
        self.join(topic, config).await;
        let subscribed = self.expect(topic, "system", Duration::from_secs(5)).await;
        assert_eq!(subscribed["status"], "ok", "{subscribed}");
    }
}

async fn add_category(gw: &Gateway, name: &str) {
    let r = Api::service(gw)
        .send(
            "POST",
            "/rest/v1/categories",
            &[],
            Some(&json!({"name": name, "slug": name.to_lowercase()}).to_string()),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text);
}

fn config(key: &str) -> Value {
    json!({
        "broadcast": {"self": false},
        "presence": {"key": key, "enabled": true},
        "postgres_changes": [{"event": "INSERT", "schema": "public", "table": "categories"}],
    })
}

#[tokio::test]
async fn broadcasts_presence_and_changes_reach_sockets_on_every_replica() {
    let a = shop().await;
    let b = a.replica();
    let topic = "realtime:shared";
    let mut on_a = Phx::connect(&a).await;
    let mut on_b = Phx::connect(&b).await;
    on_a.join(topic, config("ann")).await;
    // As Realtime reads it, a table named without its schema is in `public` (supabase-py sends
    // no schema unless asked).
    let mut table_only = config("ben");
    table_only["postgres_changes"] = json!([{"event": "INSERT", "table": "categories"}]);
    on_b.join(topic, table_only).await;
    let subscribed = on_b.expect(topic, "system", Duration::from_secs(5)).await;
    assert_eq!(
        subscribed["message"], "Subscribed to PostgreSQL",
        "{subscribed}"
    );

    add_category(&b, "Replicated").await;
    for c in [&mut on_a, &mut on_b] {
        let change = c
            .expect(topic, "postgres_changes", Duration::from_secs(10))
            .await;
        assert_eq!(change["data"]["record"]["name"], "Replicated");
    }

    on_a.push(
        topic,
        "broadcast",
        json!({"type": "broadcast", "event": "hello", "payload": {"from": "a"}}),
    )
    .await;
    let got = on_b
        .expect(topic, "broadcast", Duration::from_secs(5))
        .await;
    assert_eq!(got["payload"], json!({"from": "a"}));

    on_a.push(
        topic,
        "presence",
        json!({"type": "presence", "event": "track", "payload": {"mood": "sunny"}}),
    )
    .await;
    let diff = on_b
        .expect(topic, "presence_diff", Duration::from_secs(5))
        .await;
    assert_eq!(diff["joins"]["ann"]["metas"][0]["mood"], "sunny");
    // A socket joining later on the other replica sees ann in the state.
    let mut late = Phx::connect(&b).await;
    late.push(topic, "phx_join", json!({"config": config("cat")}))
        .await;
    let state = late
        .expect(topic, "presence_state", Duration::from_secs(5))
        .await;
    assert_eq!(state["ann"]["metas"][0]["mood"], "sunny");
}

#[tokio::test]
async fn the_capturing_gateway_dying_loses_no_committed_change() {
    // The first gateway on a database captures changes; the second takes over when it dies.
    let a = shop().await;
    let b = a.replica();
    let topic = "realtime:failover";
    let mut on_b = Phx::connect(&b).await;
    on_b.subscribe(topic, config("watcher")).await;
    add_category(&b, "Before").await;
    let first = on_b
        .expect(topic, "postgres_changes", Duration::from_secs(10))
        .await;
    assert_eq!(first["data"]["record"]["name"], "Before");

    a.kill9();
    let names: Vec<String> = (0..20).map(|i| format!("During{i}")).collect();
    for n in &names {
        add_category(&b, n).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut seen = Vec::new();
    while seen.len() < names.len() {
        let change = on_b
            .expect(topic, "postgres_changes", Duration::from_secs(15))
            .await;
        seen.push(
            change["data"]["record"]["name"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert_eq!(seen, names, "every change, once, in commit order");
}

#[tokio::test]
async fn only_the_tables_someone_listens_to_are_recorded() {
    // No grace after the start: capture leaves out unheard tables at once.
    let gw = &support::shop_with(&["--realtime-resume-grace-ms", "0"]).await;
    let recorded = |table: &'static str| async move {
        gw.sql(&format!(
            "select count(*) from realtime.supagate_changes where payload->>'table' = '{table}'"
        ))
        .await[0][0]
            .clone()
            .unwrap()
    };
    let topic = "realtime:products";
    let mut ws = Phx::connect(gw).await;
    ws.subscribe(
        topic,
        json!({"postgres_changes": [{"event": "*", "schema": "public", "table": "products"}]}),
    )
    .await;
    // Both tables are published; only products is listened to.
    add_category(gw, "Unheard").await;
    gw.sql("update public.products set name = name || ' (heard)' where id = (select id from public.products limit 1)")
        .await;
    let heard = ws
        .expect(topic, "postgres_changes", Duration::from_secs(15))
        .await;
    assert_eq!(heard["data"]["table"], "products", "{heard}");
    // Capture reads changes in commit order: the category's was decoded before the product's.
    assert_eq!(recorded("categories").await, "0");
    assert_eq!(recorded("products").await, "1");
    drop(ws);
}

#[tokio::test]
async fn a_subscription_capture_would_not_record_is_refused_not_confirmed() {
    let gw = &support::shop_with(&["--realtime-resume-grace-ms", "0"]).await;
    let changes =
        json!({"postgres_changes": [{"event": "*", "schema": "public", "table": "products"}]});
    // The table naming what subscribers listen to is out of reach: capture would skip products.
    gw.sql("alter table realtime.supagate_listening rename to listening_away")
        .await;
    let mut ws = Phx::connect(gw).await;
    ws.join("realtime:refused", changes.clone()).await;
    let refused = ws
        .expect("realtime:refused", "system", Duration::from_secs(5))
        .await;
    assert_eq!(refused["status"], "error", "{refused}");
    assert_eq!(refused["extension"], "postgres_changes", "{refused}");
    // Back in reach: the next subscription is confirmed and hears its change.
    gw.sql("alter table realtime.listening_away rename to supagate_listening")
        .await;
    ws.subscribe("realtime:heard", changes).await;
    gw.sql("update public.products set name = name || '.' where id = (select id from public.products limit 1)")
        .await;
    let heard = ws
        .expect(
            "realtime:heard",
            "postgres_changes",
            Duration::from_secs(15),
        )
        .await;
    assert_eq!(heard["data"]["table"], "products", "{heard}");
}

/// A published table for the tests below (on the gateway's own database).
async fn published(gw: &Gateway, ddl: &str, table: &str) {
    gw.sql(&format!(
        "{ddl}; alter publication supabase_realtime add table public.{table}"
    ))
    .await;
}

#[tokio::test]
async fn transactions_of_any_size_keep_changes_flowing() {
    let gw = &support::shop_with(&["--realtime-max-transaction-changes", "1000"]).await;
    published(
        gw,
        "create table public.bulk (id bigint generated always as identity primary key, n int)",
        "bulk",
    )
    .await;
    let topic = "realtime:bulk";
    let mut ws = Phx::connect(gw).await;
    ws.subscribe(
        topic,
        json!({"postgres_changes": [{"event": "*", "schema": "public", "table": "bulk"}]}),
    )
    .await;
    // 300 rows in one transaction (this stalled capture for good), each delivered.
    gw.sql("insert into public.bulk (n) select g from generate_series(1, 300) g")
        .await;
    for n in 1..=300 {
        let change = ws
            .expect(topic, "postgres_changes", Duration::from_secs(30))
            .await;
        assert_eq!(change["data"]["record"]["n"], n);
    }
    // A million: one overflow message instead, then changes flow again.
    gw.sql("insert into public.bulk (n) select g from generate_series(1, 1000000) g")
        .await;
    let overflow = ws.expect(topic, "system", Duration::from_secs(120)).await;
    assert_eq!(overflow["status"], "error", "{overflow}");
    assert!(
        overflow["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("1000000 changes to public.bulk")),
        "{overflow}"
    );
    // Where the WAL ends now: past the million's commit.
    let past_million = gw.sql("select pg_current_wal_lsn()::text").await[0][0]
        .clone()
        .expect("lsn");
    for n in [-1, -2] {
        gw.sql(&format!("insert into public.bulk (n) values ({n})"))
            .await;
        let after = ws
            .expect(topic, "postgres_changes", Duration::from_secs(30))
            .await;
        assert_eq!(after["data"]["record"]["n"], n);
    }
    // The slot kept up: capture advances the slot past a change before it reads the next one,
    // so with -2 delivered the slot is past -1 and so past the million: nothing held behind it.
    let slots = gw
        .sql(&format!(
            "select slot_name, confirmed_flush_lsn::text, confirmed_flush_lsn >= '{past_million}'::pg_lsn \
             from pg_replication_slots where database = current_database()"
        ))
        .await;
    assert!(!slots.is_empty());
    assert!(
        slots.iter().all(|r| r[2].as_deref() == Some("t")),
        "slots behind {past_million}: {slots:?}"
    );
}

#[tokio::test]
async fn row_level_security_is_decided_on_the_committed_row() {
    let gw = &support::shop().await;
    published(
        gw,
        "create table public.posts (id bigint primary key, body text not null, published boolean not null);
         alter table public.posts replica identity full;
         alter table public.posts enable row level security;
         create policy \"Published posts\" on public.posts for select using (published);
         grant select on public.posts to anon",
        "posts",
    )
    .await;
    let topic = "realtime:posts";
    let mut ws = Phx::connect_as(gw, &gw.anon).await;
    ws.subscribe(
        topic,
        json!({"postgres_changes": [{"event": "*", "schema": "public", "table": "posts"}]}),
    )
    .await;
    // A draft published at once: its insert (the draft) must not reach anon, whenever it is
    // delivered; the update that published it does.
    gw.sql("insert into public.posts values (1, 'draft: secret plans', false)")
        .await;
    gw.sql("update public.posts set body = 'spring opening', published = true where id = 1")
        .await;
    // Deleting a hidden post says nothing; deleting a published one is heard.
    gw.sql("insert into public.posts values (2, 'hidden', false)")
        .await;
    gw.sql("delete from public.posts where id = 2").await;
    gw.sql("delete from public.posts where id = 1").await;
    let mut heard = Vec::new();
    while heard.len() < 2 {
        let c = ws
            .expect(topic, "postgres_changes", Duration::from_secs(15))
            .await;
        let d = &c["data"];
        heard.push(format!(
            "{} {} {}",
            d["type"].as_str().unwrap(),
            d["record"]["id"]
                .as_i64()
                .or(d["old_record"]["id"].as_i64())
                .unwrap(),
            d["record"]["body"].as_str().unwrap_or("-")
        ));
    }
    assert_eq!(heard, ["UPDATE 1 spring opening", "DELETE 1 -"]);
}

/// Which identities may see a change is decided for all of them in one call, by role, and
/// each gets what its own policies say: `(select auth.uid())` evaluated with its own claims, a
/// restrictive policy, roles with no policy or bypassing RLS, and a policy that fails for one
/// identity (it sees nothing; the others after it are still decided).
#[tokio::test]
async fn row_level_security_is_decided_for_many_identities_at_once() {
    let gw = &support::shop().await;
    gw.sql(
        "create table public.feed (id bigint primary key, owner uuid, public boolean not null, org int);
         alter table public.feed enable row level security;
         create policy own_or_public on public.feed for select to authenticated
           using (public or owner = (select auth.uid()));
         create policy org_members on public.feed for select to authenticated
           using (org = ((select auth.jwt()) ->> 'org')::int);
         create policy not_banned on public.feed as restrictive for select to authenticated
           using (coalesce(((select auth.jwt()) ->> 'banned')::boolean, false) = false);
         grant select on public.feed to anon, authenticated",
    )
    .await;
    let (u1, u2) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    // (role, claims, sees the private row of u1 in org 7, sees a public row; None: either,
    // as PostgreSQL may or may not evaluate the failing cast once `public` is true)
    let cases = [
        ("anon", json!({"role": "anon"}), false, Some(false)),
        ("authenticated", json!({"sub": u1}), true, Some(true)),
        ("authenticated", json!({"sub": u2}), false, Some(true)),
        (
            "authenticated",
            json!({"sub": u2, "org": "7"}),
            true,
            Some(true),
        ),
        (
            "authenticated",
            json!({"sub": u1, "banned": true}),
            false,
            Some(false),
        ),
        (
            "authenticated",
            json!({"sub": u2, "org": "seven"}),
            false,
            None,
        ),
        (
            "service_role",
            json!({"role": "service_role"}),
            true,
            Some(true),
        ),
        ("authenticated", json!({"sub": u1}), true, Some(true)),
        ("authenticated", json!({}), false, Some(true)),
    ];
    let identities = Value::Array(
        cases
            .iter()
            .map(|(role, claims, ..)| json!({"role": role, "claims": claims}))
            .collect(),
    )
    .to_string();
    for (row, public) in [
        (
            json!({"id": "1", "owner": u1, "public": "f", "org": "7"}),
            false,
        ),
        (
            json!({"id": "2", "owner": u1, "public": "t", "org": null}),
            true,
        ),
    ] {
        let rows = gw
            .sql(&format!(
                "select array_to_string(realtime.supagate_visible('public.feed', 'INSERT', '{row}', '{identities}'), ',');
                 select count(*) from pg_prepared_statements"
            ))
            .await;
        let visible: Vec<usize> = rows[0][0]
            .as_deref()
            .unwrap()
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        for (i, (role, claims, private_seen, public_seen)) in cases.iter().enumerate() {
            let expected = if public {
                *public_seen
            } else {
                Some(*private_seen)
            };
            if let Some(e) = expected {
                assert_eq!(visible.contains(&i), e, "{row}: #{i} {role} {claims}");
            }
        }
        assert_eq!(
            rows[1][0].as_deref(),
            Some("0"),
            "no statement left prepared"
        );
    }
}

/// Realtime's RLS decision for many identities (one statement per role where the policies read
/// the caller only through auth's claim functions, per identity otherwise) against the truth:
/// what a SELECT of the committed row returns to each identity, under each kind of policy.
#[tokio::test]
async fn row_level_security_for_many_identities_agrees_with_a_select_as_each() {
    let gw = &support::shop().await;
    gw.sql(
        "create table public.members (user_id uuid, team int);
         alter table public.members enable row level security;
         create policy own on public.members for select using (user_id = auth.uid());
         create function public.is_me(u uuid) returns boolean language sql stable
           as $$ select u = auth.uid() $$;
         create function public.claims_sub() returns text language sql stable
           as $$ select current_setting('request.jwt.claims', true)::jsonb ->> 'sub' $$;
         create table public.t (id int primary key, owner uuid, team int, label text, email text);
         alter table public.t enable row level security;
         grant select on public.t, public.members to anon, authenticated;
         -- The truth: the row as a SELECT shows it to an identity; null where the SELECT fails
         -- (then either answer is right: PostgreSQL may fold the other side of an OR first).
         create function public.sees(claims text, r text, row_id int) returns boolean
           language plpgsql as $$
         begin
           perform set_config('request.jwt.claims', claims, true), set_config('role', r, true);
           return (select count(*) = 1 from public.t where t.id = row_id);
         exception when others then
           return null;
         end $$;",
    )
    .await;
    let (u1, u2, u3) = (
        uuid::Uuid::new_v4(),
        uuid::Uuid::new_v4(),
        uuid::Uuid::new_v4(),
    );
    gw.sql(&format!(
        "insert into public.members values ('{u1}', 1), ('{u2}', 2);
         insert into public.t values
           (1, '{u1}', 1, 'plain', 'a@x.org'),
           (2, '{u2}', 2, 'auth.uid()', 'b@x.org'),
           (3, null, 2, 'it''s', 'c@x.org');"
    ))
    .await;
    let identities = [
        ("anon", json!({"role": "anon"})),
        (
            "authenticated",
            json!({"sub": u1, "role": "authenticated", "email": "a@x.org"}),
        ),
        (
            "authenticated",
            json!({"sub": u2, "role": "authenticated", "email": "b@x.org", "team": 2}),
        ),
        (
            "authenticated",
            json!({"sub": u3, "role": "authenticated", "email": "c@x.org"}),
        ),
        ("authenticated", json!({"role": "authenticated"})),
        ("authenticated", json!({"sub": "not-a-uuid"})),
        ("service_role", json!({"role": "service_role"})),
    ];
    let as_json = Value::Array(
        identities
            .iter()
            .map(|(role, claims)| json!({"role": role, "claims": claims}))
            .collect(),
    )
    .to_string();
    // Each kind of policy: the claim functions only (one statement per role), a literal that
    // spells a claim function, a function of the project's, another table under RLS, the
    // session's settings read directly, a restrictive policy beside a permissive one.
    let policies = [
        "create policy p on public.t for select using (owner = (select auth.uid()))",
        "create policy p on public.t for select to authenticated using (label <> 'auth.uid()' and owner = auth.uid() or label = 'it''s')",
        "create policy p on public.t for select using (public.is_me(owner))",
        "create policy p on public.t for select using (team in (select m.team from public.members m))",
        "create policy p on public.t for select using (owner::text = public.claims_sub() or (current_setting('request.jwt.claims', true)::jsonb ->> 'team')::int = team)",
        "create policy p on public.t for select using (auth.role() = 'authenticated' and email = auth.email());
         create policy r on public.t as restrictive for select using ((auth.jwt() ->> 'team') is null or team = (auth.jwt() ->> 'team')::int)",
    ];
    for policy in policies {
        gw.sql(&format!(
            "drop policy if exists p on public.t; drop policy if exists r on public.t; {policy}"
        ))
        .await;
        for id in 1..=3 {
            let row = gw
                .sql(&format!(
                    "select to_jsonb(t)::text from public.t where id = {id}"
                ))
                .await[0][0]
                .clone()
                .unwrap();
            let got = gw
                .sql(&format!(
                    "select array_to_string(realtime.supagate_visible('public.t', 'UPDATE', $r${row}$r$, $i${as_json}$i$), ',')"
                ))
                .await[0][0]
                .clone()
                .unwrap_or_default();
            for (i, (role, claims)) in identities.iter().enumerate() {
                let seen = gw
                    .sql(&format!(
                        "begin; select public.sees($c${claims}$c$, '{role}', {id}); rollback;"
                    ))
                    .await[0][0]
                    .clone();
                let decided = got.split(',').any(|v| v == i.to_string());
                if let Some(seen) = seen {
                    assert_eq!(
                        decided,
                        seen == "t",
                        "{policy}\nrow {id}, identity #{i} {role} {claims}: the SELECT said {seen}"
                    );
                }
            }
        }
    }
}

/// A socket subscribed to category inserts on `topic`, which has heard one ("Before").
async fn watching(gw: &Gateway, topic: &str) -> Phx {
    let mut ws = Phx::connect(gw).await;
    ws.subscribe(topic, config("watcher")).await;
    add_category(gw, "Before").await;
    let first = ws
        .expect(topic, "postgres_changes", Duration::from_secs(10))
        .await;
    assert_eq!(first["data"]["record"]["name"], "Before");
    ws
}

async fn next_change_id(gw: &Gateway) -> i64 {
    let rows = gw
        .sql("SELECT nextval('realtime.supagate_changes_id_seq')::text")
        .await;
    rows[0][0].as_deref().unwrap().parse().unwrap()
}

#[tokio::test]
async fn postgres_killed_under_subscribers_changes_flow_again() {
    // A cluster of its own: this test kills it.
    let gw = support::start(&[]);
    let topic = "realtime:outage";
    let mut ws = watching(&gw, topic).await;
    let id_before = next_change_id(&gw).await;

    let pid = gw.postmaster_pid();
    std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    // The first write the database takes once it is back must be heard.
    let body = json!({"name": "After", "slug": "after"}).to_string();
    let started = std::time::Instant::now();
    loop {
        let r = Api::service(&gw)
            .send("POST", "/rest/v1/categories", &[], Some(&body))
            .await;
        if r.status == 201 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the database did not come back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The crash emptied the changes' table; their ids go on past those delivered (a gateway
    // that had delivered change 1 would take a new change 1 for it).
    let id_after = next_change_id(&gw).await;
    assert!(
        id_after > id_before,
        "change ids started over: {id_after} after {id_before}"
    );
    let after = ws
        .expect(topic, "postgres_changes", Duration::from_secs(30))
        .await;
    assert_eq!(after["data"]["record"]["name"], "After");
}

/// The only gateway killed with a subscriber connected: a change committed while it is down
/// (PostgreSQL keeps running) reaches the subscriber once it has reconnected to the restarted
/// gateway, as supabase-js reconnects; and changes flow on after it.
#[tokio::test]
async fn the_gateway_killed_under_subscribers_delivers_the_outage_change() {
    let gw = support::start(&[]);
    let topic = "realtime:restart";
    let mut ws = watching(&gw, topic).await;

    gw.kill9();
    assert!(
        matches!(
            tokio::time::timeout(Duration::from_secs(5), ws.ws.next()).await,
            Ok(None | Some(Err(_)) | Some(Ok(Message::Close(_))))
        ),
        "the socket closed with the gateway"
    );
    gw.sql("INSERT INTO public.categories (name, slug) VALUES ('During', 'during')")
        .await;

    let again = support::start_on(&support::repo_root(), &gw.data_dir, &[]);
    let mut ws = Phx::connect(&again).await;
    ws.join(topic, config("watcher")).await;
    let during = ws
        .expect(topic, "postgres_changes", Duration::from_secs(15))
        .await;
    assert_eq!(during["data"]["record"]["name"], "During");
    add_category(&again, "After").await;
    let after = ws
        .expect(topic, "postgres_changes", Duration::from_secs(10))
        .await;
    assert_eq!(after["data"]["record"]["name"], "After");
}
