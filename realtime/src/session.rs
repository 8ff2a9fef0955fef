//! One socket's session, whatever carries its frames: Phoenix channel messages — heartbeats,
//! joins with their config, broadcasts, presence, access-token updates and leaves — with the
//! replies and errors Supabase Realtime gives. The HTTP layer reads frames off the WebSocket,
//! hands them to [`Session::handle`] and writes out what the session's outbox receives.

use super::hub::{self, Access, Binding, Channel, Outbox};
use super::protocol::{self, Broadcast, Incoming, UserPayload, Vsn};
use super::tokens::{self, Identity, TokenError};
use super::{ChangesStatus, Realtime, authz, bus, filters::Filter, presence};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Largest broadcast payload.
pub const MAX_BROADCAST: usize = 256 * 1024;
const MAX_CHANNELS: usize = 100;
/// Sockets one gateway serves at most.
pub const MAX_SOCKETS: usize = 10_000;
/// Presence messages a channel may send per window, as Supabase Realtime allows.
const PRESENCE_CALLS: u32 = 5;
const PRESENCE_WINDOW: Duration = Duration::from_secs(30);

/// One socket's channels.
pub struct Session {
    rt: Arc<Realtime>,
    vsn: Vsn,
    out: Outbox,
    /// The socket's token (its apikey), used by joins that bring none.
    token: String,
    channels: HashMap<String, Arc<Channel>>,
    presence_calls: HashMap<String, (Instant, u32)>,
}

impl Realtime {
    /// A session for a socket whose `apikey` was accepted; its frames arrive on the inbox.
    pub fn open_session(self: &Arc<Self>, vsn: Vsn, token: String) -> (Session, hub::Inbox) {
        let (out, inbox) = hub::queue();
        self.hub.socket_opened();
        let session = Session {
            rt: self.clone(),
            vsn,
            out,
            token,
            channels: HashMap::new(),
            presence_calls: HashMap::new(),
        };
        (session, inbox)
    }
}

/// A binding's id, stable for its parameters (Supabase hashes them the same way each time).
fn binding_id(params: &Value) -> u32 {
    let h = project::sha256_hex(params.to_string().as_bytes());
    let n = u32::from_str_radix(&h[..8], 16).expect("hex") & 0x07ff_ffff;
    n.max(1)
}

fn params_to_log(p: &Value) -> String {
    let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("*").to_string();
    format!(
        "event: {}, schema: {}, table: {}, filters: [{}], select: {}",
        s("event"),
        s("schema"),
        s("table"),
        p.get("filter").and_then(Value::as_str).unwrap_or(""),
        p.get("select").map_or("nil".to_string(), Value::to_string)
    )
}

impl Session {
    /// The socket's serializer.
    pub fn vsn(&self) -> Vsn {
        self.vsn
    }

    fn reply(&self, m: &Incoming, ok: bool, response: Value) {
        self.out.send(protocol::reply(
            self.vsn,
            m.join_ref.as_deref(),
            m.msg_ref.as_deref(),
            &m.topic,
            ok,
            &response,
        ));
    }

    fn refuse_join(&self, m: &Incoming, reason: String) {
        self.reply(m, false, json!({ "reason": reason }));
    }

    /// Handles one message from the client.
    pub async fn handle(&mut self, m: Incoming) {
        if m.topic == "phoenix" && m.event == "heartbeat" {
            return self.reply(&m, true, json!({}));
        }
        if m.event == "phx_join" {
            return self.join(m).await;
        }
        let Some(ch) = self.channels.get(&m.topic).cloned() else {
            return self.reply(&m, false, json!({"reason": "unmatched topic"}));
        };
        match m.event.as_str() {
            "phx_leave" => {
                self.reply(&m, true, json!({}));
                self.leave(&m.topic).await;
            }
            "broadcast" => self.broadcast(&ch, m).await,
            "presence" => self.presence(&ch, m).await,
            "access_token" => self.access_token(&ch, &m).await,
            other => tracing::debug!("realtime: unexpected {other} message on {}", m.topic),
        }
    }

    async fn join(&mut self, m: Incoming) {
        let Some(sub_topic) = m.topic.strip_prefix("realtime:").map(str::to_string) else {
            return self.reply(&m, false, json!({"reason": "unmatched topic"}));
        };
        if sub_topic.is_empty() {
            return self.refuse_join(
                &m,
                "TopicNameRequired: You must provide a topic name".into(),
            );
        }
        // Joining a topic again replaces the earlier join.
        if self.channels.contains_key(&m.topic) {
            self.leave(&m.topic).await;
        } else if self.channels.len() >= MAX_CHANNELS {
            return self.refuse_join(&m, "ChannelRateLimitReached: Too many channels".into());
        }
        if *self.rt.shutdown.borrow() {
            return self.refuse_join(
                &m,
                "RealtimeRestarting: Realtime is restarting, please standby".into(),
            );
        }
        let config = m.payload.get("config").cloned().unwrap_or(json!({}));
        let flag = |path: &[&str]| {
            path.iter()
                .try_fold(&config, |v, k| v.get(k))
                .is_some_and(|v| v == &json!(true) || v == &json!("true"))
        };
        let private = flag(&["private"]);
        let presence_enabled = flag(&["presence", "enabled"]);
        let token = match m.payload.get("access_token").and_then(Value::as_str) {
            Some(t) if !t.starts_with("sb_") => t.to_string(),
            _ => self.token.clone(),
        };
        let who = match tokens::verify(&self.rt.keys, self.rt.local_keys, &token) {
            Ok(w) => w,
            Err(e) => return self.refuse_join(&m, e.reason()),
        };
        let (broadcast_read, presence_read) = if private {
            match authz::can_read(&self.rt, &who, &sub_topic).await {
                Ok((false, false)) => {
                    return self.refuse_join(
                        &m,
                        format!(
                            "Unauthorized: You do not have permissions to read from this Channel topic: {sub_topic}"
                        ),
                    );
                }
                Ok(rw) => rw,
                Err(e) => {
                    tracing::warn!("realtime: authorising {sub_topic}: {e}");
                    return self.refuse_join(
                        &m,
                        "UnableToConnectToProject: Realtime was unable to connect to the project database"
                            .into(),
                    );
                }
            }
        } else {
            (true, true)
        };
        let replay = config.pointer("/broadcast/replay").cloned();
        if replay.is_some() && !private {
            return self.refuse_join(
                &m,
                "UnableToReplayMessages: Replay is not allowed for public channels".into(),
            );
        }
        let params: Vec<Value> = config
            .get("postgres_changes")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter(|p| p.is_object()).cloned().collect())
            .unwrap_or_default();
        let (bindings, changes_error) = self.bindings(&params).await;
        let presence_key = config
            .pointer("/presence/key")
            .and_then(Value::as_str)
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let ch = Arc::new(Channel {
            id: self.rt.hub.next_id(),
            topic: m.topic.clone(),
            sub_topic: sub_topic.clone(),
            private,
            join_ref: m.join_ref.clone(),
            vsn: self.vsn,
            out: self.out.clone(),
            self_broadcast: flag(&["broadcast", "self"]),
            ack_broadcast: flag(&["broadcast", "ack"]),
            presence_key,
            presence_enabled: AtomicBool::new(presence_enabled),
            tracked: Default::default(),
            bindings,
            access: std::sync::RwLock::new(access(&who, broadcast_read, presence_read)),
        });
        self.rt.hub.add(ch.clone());
        self.channels.insert(m.topic.clone(), ch.clone());
        let echoed: Vec<Value> = params
            .iter()
            .map(|p| {
                let id = binding_id(p);
                let mut p = p.clone();
                p["id"] = json!(id);
                p
            })
            .collect();
        self.reply(&m, true, json!({ "postgres_changes": echoed }));
        if presence_enabled && (!private || presence_read) {
            match presence::state(&self.rt, &sub_topic, private).await {
                Ok(state) => {
                    ch.push("presence_state", &state);
                }
                Err(e) => tracing::warn!("realtime: presence state of {sub_topic}: {e}"),
            }
        }
        if !params.is_empty() {
            let (status, message) = match changes_error {
                Some(e) => ("error", e),
                None => {
                    self.rt.note_changes_join();
                    ("ok", "Subscribed to PostgreSQL".to_string())
                }
            };
            ch.push(
                "system",
                &json!({"extension": "postgres_changes", "status": status, "message": message, "channel": sub_topic}),
            );
        }
        if flag(&["broadcast", "replication_ready"]) {
            let (status, message) = match self.rt.changes_status() {
                ChangesStatus::Unavailable(why) => ("error", why),
                _ => ("ok", "Replication connection established".to_string()),
            };
            ch.push(
                "system",
                &json!({"extension": "system", "status": status, "message": message, "channel": sub_topic}),
            );
        }
        if let Some(replay) = replay
            && broadcast_read
        {
            self.replay(&ch, &replay).await;
        }
    }

    /// Parses and checks the `postgres_changes` of a join. Any invalid one refuses them all
    /// (the channel still joins), with Supabase's message.
    async fn bindings(&self, params: &[Value]) -> (Vec<Binding>, Option<String>) {
        if params.is_empty() {
            return (Vec::new(), None);
        }
        if let ChangesStatus::Unavailable(why) = self.rt.changes_status() {
            return (Vec::new(), Some(why));
        }
        let mut out = Vec::new();
        for p in params {
            match self.binding(p).await {
                Ok(b) => out.push(b),
                Err(e) => return (Vec::new(), Some(e)),
            }
        }
        (out, None)
    }

    async fn binding(&self, p: &Value) -> Result<Binding, String> {
        let s = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
        let unable = |detail: Option<String>| match detail {
            None => format!(
                "Unable to subscribe to changes with given parameters. Please check Realtime is \
                 enabled for the given connect parameters: [{}]",
                params_to_log(p)
            ),
            Some(e) => format!(
                "Unable to subscribe to changes with given parameters. An exception happened so \
                 please check your connect parameters: [{}]. Exception: {e}",
                params_to_log(p)
            ),
        };
        let event = s("event").unwrap_or_else(|| "*".into());
        if !["*", "INSERT", "UPDATE", "DELETE"].contains(&event.to_ascii_uppercase().as_str()) {
            return Err(unable(Some(format!("invalid event {event}"))));
        }
        let schema = s("schema").ok_or_else(|| unable(Some("schema is required".into())))?;
        let table = s("table");
        let filter = Filter::parse(p.get("filter").and_then(Value::as_str).unwrap_or(""))
            .map_err(|e| unable(Some(e)))?;
        let select = match p.get("select") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => Some(
                a.iter()
                    .map(|c| c.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| unable(Some("select must list column names".into())))?,
            ),
            Some(_) => return Err(unable(Some("select must list column names".into()))),
        };
        let pattern = |v: Option<&str>| match v {
            None | Some("*") => "%".to_string(),
            Some(v) => v
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_"),
        };
        let c = self
            .rt
            .db
            .get()
            .await
            .map_err(|e| unable(Some(e.to_string())))?;
        let rows = c
            .query(
                "SELECT a.attname::text FROM pg_publication_tables p \
                 JOIN pg_attribute a ON a.attrelid = format('%I.%I', p.schemaname, p.tablename)::regclass \
                 WHERE p.pubname = 'supabase_realtime' AND p.schemaname LIKE $1 \
                   AND p.tablename LIKE $2 AND a.attnum > 0 AND NOT a.attisdropped",
                &[&pattern(Some(&schema)), &pattern(table.as_deref())],
            )
            .await
            .map_err(|e| unable(Some(e.to_string())))?;
        if rows.is_empty() {
            return Err(unable(None));
        }
        if table.as_deref().is_some_and(|t| t != "*") {
            let names: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
            let wanted = filter
                .columns()
                .map(str::to_string)
                .chain(select.iter().flatten().cloned());
            for col in wanted {
                if !names.contains(&col) {
                    return Err(unable(Some(format!("invalid column for filter {col}"))));
                }
            }
        }
        Ok(Binding {
            id: binding_id(p),
            event,
            schema,
            table,
            filter,
            select,
        })
    }

    async fn replay(&self, ch: &Channel, replay: &Value) {
        let since = replay.get("since").and_then(Value::as_i64).unwrap_or(0);
        let limit = replay
            .get("limit")
            .and_then(Value::as_i64)
            .unwrap_or(25)
            .clamp(1, 25);
        let rows = match self.rt.db.get().await {
            Ok(c) => c
                .query(
                    "SELECT id::text, event, payload::text, binary_payload FROM ( \
                       SELECT * FROM realtime.messages WHERE topic = $1 AND private IS TRUE \
                         AND extension = 'broadcast' \
                         AND inserted_at >= to_timestamp($2::bigint / 1000.0) AT TIME ZONE 'UTC' \
                       ORDER BY inserted_at DESC LIMIT $3) m ORDER BY inserted_at",
                    &[&ch.sub_topic, &since, &limit],
                )
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match rows {
            Ok(rows) => {
                for r in rows {
                    let payload = match (
                        r.get::<_, Option<String>>(2),
                        r.get::<_, Option<Vec<u8>>>(3),
                    ) {
                        (Some(j), _) => UserPayload::Json(j),
                        (None, Some(b)) => UserPayload::Binary(b.into()),
                        (None, None) => UserPayload::Json("{}".into()),
                    };
                    let id: String = r.get(0);
                    let msg = Broadcast {
                        event: r.get::<_, Option<String>>(1).unwrap_or_default(),
                        payload,
                        meta: Some(json!({"replayed": true, "id": id})),
                    };
                    if let Some(f) = msg.frame(ch.vsn, &ch.topic) {
                        ch.out.send(f);
                    }
                }
            }
            Err(e) => tracing::warn!("realtime: replaying {}: {e}", ch.sub_topic),
        }
    }

    /// Whether the channel may write `extension` messages (asked once per token).
    async fn may_write(&self, ch: &Channel, extension: &str) -> bool {
        if !ch.private {
            return true;
        }
        let a = ch.access();
        let cached = if extension == "broadcast" {
            a.broadcast_write
        } else {
            a.presence_write
        };
        if let Some(v) = cached {
            return v;
        }
        let allowed = authz::can_write(&self.rt, &identity(&a), &ch.sub_topic, extension)
            .await
            .unwrap_or(false);
        let mut w = ch.access.write().expect("access lock");
        if extension == "broadcast" {
            w.broadcast_write = Some(allowed);
        } else {
            w.presence_write = Some(allowed);
        }
        allowed
    }

    async fn broadcast(&mut self, ch: &Arc<Channel>, m: Incoming) {
        let event = m
            .payload
            .get("event")
            .and_then(Value::as_str)
            .map(str::to_string);
        let Some(event) = event else {
            return;
        };
        let payload = match m.user_broadcast.clone() {
            Some(p) => p,
            None => UserPayload::Json(
                m.payload
                    .get("payload")
                    .cloned()
                    .unwrap_or(json!({}))
                    .to_string(),
            ),
        };
        if !self.may_write(ch, "broadcast").await {
            return;
        }
        if payload.size() > MAX_BROADCAST {
            if ch.ack_broadcast {
                self.reply(&m, false, json!({"reason": "Payload size exceeded"}));
            }
            return;
        }
        let persist = m
            .payload
            .pointer("/meta/persist")
            .is_some_and(|p| p == &json!(true));
        let mut meta = None;
        if persist && ch.private && self.vsn == Vsn::V2 {
            match authz::store(
                &self.rt,
                &identity(&ch.access()),
                &ch.sub_topic,
                &event,
                &payload,
            )
            .await
            {
                Ok(id) => meta = Some(json!({ "id": id })),
                Err(e) => return self.reply(&m, false, json!({ "error": e })),
            }
        }
        let msg = Broadcast {
            event,
            payload,
            meta,
        };
        let except = (!ch.self_broadcast).then_some(ch.id);
        bus::broadcast(&self.rt, &ch.sub_topic, ch.private, &msg, except).await;
        if ch.ack_broadcast {
            self.reply(&m, true, json!({}));
        }
    }

    async fn presence(&mut self, ch: &Arc<Channel>, m: Incoming) {
        let now = Instant::now();
        let calls = self
            .presence_calls
            .entry(ch.topic.clone())
            .or_insert((now, 0));
        if now.duration_since(calls.0) > PRESENCE_WINDOW {
            *calls = (now, 0);
        }
        calls.1 += 1;
        if calls.1 > PRESENCE_CALLS {
            return self
                .shutdown_channel(&ch.topic, "Client presence rate limit exceeded")
                .await;
        }
        let event = m
            .payload
            .get("event")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_ascii_lowercase();
        let result = match event.as_str() {
            "track" => {
                let payload = m.payload.get("payload").cloned().unwrap_or(json!({}));
                if !payload.is_object() {
                    return self.reply(
                        &m,
                        false,
                        json!({"reason": "Presence track payload must be a map"}),
                    );
                }
                if payload.to_string().len() > presence::MAX_META_BYTES {
                    return self
                        .shutdown_channel(&ch.topic, "Track message size exceeded")
                        .await;
                }
                if !self.may_write(ch, "presence").await {
                    return self.reply(&m, false, json!({}));
                }
                ch.presence_enabled.store(true, Ordering::Relaxed);
                presence::track(&self.rt, ch, payload).await
            }
            "untrack" => presence::untrack(&self.rt, ch).await,
            _ => Err(format!("unknown presence event {event:?}")),
        };
        match result {
            Ok(()) => self.reply(&m, true, json!({})),
            Err(e) => {
                tracing::warn!("realtime: presence on {}: {e}", ch.sub_topic);
                self.reply(&m, false, json!({}));
            }
        }
    }

    async fn access_token(&mut self, ch: &Arc<Channel>, m: &Incoming) {
        let Some(token) = m.payload.get("access_token").and_then(Value::as_str) else {
            return;
        };
        if token.starts_with("sb_") {
            return;
        }
        let who = match tokens::verify(&self.rt.keys, self.rt.local_keys, token) {
            Ok(w) => w,
            Err(e) => return self.shutdown_channel(&ch.topic, &e.message()).await,
        };
        let before = ch.access();
        let (b, p) = if ch.private {
            match authz::can_read(&self.rt, &who, &ch.sub_topic).await {
                Ok(rw) => rw,
                Err(_) => {
                    return self
                        .shutdown_channel(
                            &ch.topic,
                            "Realtime was unable to connect to the project database",
                        )
                        .await;
                }
            }
        } else {
            (true, true)
        };
        if (before.broadcast_read && !b) || (before.presence_read && !p) {
            let msg = format!(
                "You no longer have permission to read from this Channel topic: {}",
                ch.sub_topic
            );
            return self.shutdown_channel(&ch.topic, &msg).await;
        }
        *ch.access.write().expect("access lock") = access(&who, b, p);
    }

    /// Ends a channel from the server: a system error, then `phx_close`.
    async fn shutdown_channel(&mut self, topic: &str, message: &str) {
        let Some(ch) = self.channels.get(topic).cloned() else {
            return;
        };
        ch.push(
            "system",
            &json!({"extension": "system", "status": "error", "message": message, "channel": ch.sub_topic}),
        );
        ch.push("phx_close", &json!({}));
        self.leave(topic).await;
    }

    /// Channels whose token expired are ended (the socket calls this every second).
    pub async fn check_tokens(&mut self) {
        let now = chrono::Utc::now().timestamp();
        let expired: Vec<(String, i64)> = self
            .channels
            .values()
            .filter_map(|c| {
                c.access()
                    .exp
                    .filter(|e| *e <= now)
                    .map(|e| (c.topic.clone(), now - e))
            })
            .collect();
        for (topic, ago) in expired {
            self.shutdown_channel(&topic, &TokenError::Expired(ago).message())
                .await;
        }
    }

    async fn leave(&mut self, topic: &str) {
        if let Some(ch) = self.channels.remove(topic) {
            self.rt.hub.remove(&ch);
            self.presence_calls.remove(topic);
            if let Err(e) = presence::untrack(&self.rt, &ch).await {
                tracing::warn!("realtime: untracking {}: {e}", ch.sub_topic);
            }
        }
    }

    /// The socket closed: every channel leaves.
    pub async fn close(mut self) {
        let topics: Vec<String> = self.channels.keys().cloned().collect();
        for t in topics {
            self.leave(&t).await;
        }
        self.rt.hub.socket_closed();
    }
}

fn identity(a: &Access) -> Identity {
    Identity {
        role: a.role.clone(),
        claims: serde_json::from_str(&a.claims).unwrap_or(json!({})),
        exp: a.exp.unwrap_or(0),
    }
}

fn access(who: &Identity, broadcast_read: bool, presence_read: bool) -> Access {
    Access {
        role: who.role.clone(),
        claims: who.claims.to_string(),
        exp: Some(who.exp),
        broadcast_read,
        presence_read,
        broadcast_write: None,
        presence_write: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_ids_are_stable_and_nonzero() {
        let p = json!({"event": "*", "schema": "public", "table": "todos"});
        assert_eq!(binding_id(&p), binding_id(&p.clone()));
        assert_ne!(
            binding_id(&p),
            binding_id(&json!({"event": "INSERT", "schema": "public"}))
        );
        assert!(binding_id(&p) > 0 && binding_id(&p) < 1 << 27);
    }
}
