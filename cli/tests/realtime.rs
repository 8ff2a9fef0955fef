//! Realtime across gateways sharing one database: broadcasts, presence and changes reach
//! sockets on any of them, and the gateway capturing changes can die without a committed
//! change being lost. (The protocol itself is tested through supabase-js in
//! tests/contract/realtime.test.mjs.)

mod support;

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
        let url = format!(
            "{}/realtime/v1/websocket?apikey={}&vsn=2.0.0",
            gw.url.replacen("http", "ws", 1),
            gw.service
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
    on_b.join(topic, config("ben")).await;

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
    on_b.join(topic, config("watcher")).await;
    let subscribed = on_b.expect(topic, "system", Duration::from_secs(5)).await;
    assert_eq!(subscribed["status"], "ok", "{subscribed}");
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
