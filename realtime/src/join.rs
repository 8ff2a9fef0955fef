//! Joining a channel: the join payload read with realtime-js's names, the token checked, a
//! private channel authorised by RLS on `realtime.messages`, `postgres_changes` bindings
//! checked against the publication, presence state and stored broadcasts sent.

use super::hub::{Binding, Channel};
use super::protocol::{Broadcast, Incoming, UserPayload};
use super::session::{MAX_CHANNELS, Session, access, binding_id};
use super::{ChangesStatus, authz, filters::Filter, listening, presence, tokens};
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// What Realtime answers when the project database does not answer.
const UNREACHABLE: &str =
    "UnableToConnectToProject: Realtime was unable to connect to the project database";

/// A flag as realtime-js sends it: `true` or `"true"`; anything else is off.
fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(v == json!(true) || v == json!("true"))
}

/// A text field; anything but a string counts as absent.
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Value::deserialize(d)?.as_str().map(str::to_string))
}

/// Each object of a list; anything but a list of objects counts as none.
fn changes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ChangesParams>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(v.as_array()
        .map(|a| {
            a.iter()
                .filter(|p| p.is_object())
                .map(ChangesParams::of)
                .collect()
        })
        .unwrap_or_default())
}

/// `phx_join`'s payload.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct JoinPayload {
    pub config: JoinConfig,
    #[serde(deserialize_with = "text")]
    pub access_token: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct JoinConfig {
    #[serde(deserialize_with = "flag")]
    pub private: bool,
    pub broadcast: BroadcastConfig,
    pub presence: PresenceConfig,
    #[serde(deserialize_with = "changes")]
    pub postgres_changes: Vec<ChangesParams>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct BroadcastConfig {
    /// Receive one's own broadcasts.
    #[serde(rename = "self", deserialize_with = "flag")]
    pub self_: bool,
    /// Acknowledge each broadcast.
    #[serde(deserialize_with = "flag")]
    pub ack: bool,
    /// Say whether changes are being captured.
    #[serde(deserialize_with = "flag")]
    pub replication_ready: bool,
    /// `{since, limit}`: stored broadcasts to send on joining (private channels).
    pub replay: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct PresenceConfig {
    #[serde(deserialize_with = "flag")]
    pub enabled: bool,
    #[serde(deserialize_with = "text")]
    pub key: Option<String>,
}

/// One `postgres_changes` subscription; `raw` is what the client sent (its id is a hash of it,
/// and the join's reply echoes it).
#[derive(Debug, Default)]
pub struct ChangesParams {
    pub event: Option<String>,
    pub schema: Option<String>,
    pub table: Option<String>,
    pub filter: Option<String>,
    pub select: Option<Value>,
    pub raw: Value,
}

impl ChangesParams {
    fn of(raw: &Value) -> ChangesParams {
        let s = |k: &str| raw.get(k).and_then(Value::as_str).map(str::to_string);
        ChangesParams {
            event: s("event"),
            schema: s("schema"),
            table: s("table"),
            filter: s("filter"),
            select: raw.get("select").cloned(),
            raw: raw.clone(),
        }
    }

    /// As Supabase Realtime logs a subscription in its errors.
    fn to_log(&self) -> String {
        let or_all = |v: &Option<String>| v.clone().unwrap_or_else(|| "*".into());
        format!(
            "event: {}, schema: {}, table: {}, filters: [{}], select: {}",
            or_all(&self.event),
            or_all(&self.schema),
            or_all(&self.table),
            self.filter.as_deref().unwrap_or(""),
            self.select
                .as_ref()
                .map_or("nil".to_string(), Value::to_string)
        )
    }
}

impl JoinPayload {
    /// The payload, leniently: what cannot be read counts as absent, as realtime-js's server
    /// treats it.
    pub fn read(payload: &Value) -> JoinPayload {
        serde_json::from_value(payload.clone()).unwrap_or_default()
    }
}

/// Why a join's `postgres_changes` are refused, with Supabase's message (the parameters as
/// logged, then the exception when there is one).
#[derive(Debug, thiserror::Error)]
enum BindingError {
    #[error(
        "Unable to subscribe to changes with given parameters. Please check Realtime is \
         enabled for the given connect parameters: [{0}]"
    )]
    NotPublished(String),
    #[error(
        "Unable to subscribe to changes with given parameters. An exception happened so \
         please check your connect parameters: [{0}]. Exception: {1}"
    )]
    Exception(String, String),
}

impl Session {
    pub(super) async fn join(&mut self, m: Incoming) {
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
        let join = JoinPayload::read(&m.payload);
        let config = &join.config;
        let private = config.private;
        let presence_enabled = config.presence.enabled;
        let token = match join.access_token.as_deref() {
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
                    return self.refuse_join(&m, UNREACHABLE.into());
                }
            }
        } else {
            (true, true)
        };
        let replay = config.broadcast.replay.clone();
        if replay.is_some() && !private {
            return self.refuse_join(
                &m,
                "UnableToReplayMessages: Replay is not allowed for public channels".into(),
            );
        }
        let params = &config.postgres_changes;
        let (mut bindings, mut changes_error) = self.bindings(params).await;
        // Capture records these tables' changes from before the subscription is confirmed; a
        // subscription it would not record is refused (the channel stays joined for broadcast
        // and presence), not confirmed and left silent.
        if !bindings.is_empty()
            && let Err(e) = listening::announce(&self.rt, &bindings).await
        {
            tracing::warn!("realtime: the tables subscribers listen to were not saved: {e}");
            bindings.clear();
            changes_error = Some(UNREACHABLE.into());
        }
        let presence_key = config
            .presence
            .key
            .clone()
            .filter(|k| !k.is_empty())
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let ch = Arc::new(Channel {
            id: self.rt.hub.next_id(),
            topic: m.topic.clone(),
            sub_topic: sub_topic.clone(),
            private,
            join_ref: m.join_ref.clone(),
            vsn: self.vsn,
            out: self.out.clone(),
            self_broadcast: config.broadcast.self_,
            ack_broadcast: config.broadcast.ack,
            presence_key,
            presence_enabled: AtomicBool::new(presence_enabled),
            tracked: Default::default(),
            bindings,
            access: parking_lot::RwLock::new(access(&who, broadcast_read, presence_read)),
        });
        self.rt.hub.add(ch.clone());
        self.channels.insert(m.topic.clone(), ch.clone());
        let echoed: Vec<Value> = params
            .iter()
            .map(|p| {
                let id = binding_id(&p.raw);
                let mut p = p.raw.clone();
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
        if config.broadcast.replication_ready {
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
    async fn bindings(&self, params: &[ChangesParams]) -> (Vec<Binding>, Option<String>) {
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
                Err(e) => return (Vec::new(), Some(e.to_string())),
            }
        }
        (out, None)
    }

    async fn binding(&self, p: &ChangesParams) -> Result<Binding, BindingError> {
        let unable = |detail: Option<String>| match detail {
            None => BindingError::NotPublished(p.to_log()),
            Some(e) => BindingError::Exception(p.to_log(), e),
        };
        let event = p.event.clone().unwrap_or_else(|| "*".into());
        if !["*", "INSERT", "UPDATE", "DELETE"].contains(&event.to_ascii_uppercase().as_str()) {
            return Err(unable(Some(format!("invalid event {event}"))));
        }
        // As Realtime reads them: a table alone is in `public`; a schema alone means all its
        // tables; a filter needs both.
        let schema = match (&p.schema, &p.table, &p.filter) {
            (Some(s), _, _) => s.clone(),
            (None, Some(_), None) => "public".to_string(),
            _ => {
                return Err(unable(Some(
                    "No subscription params provided. Please provide at least a `schema` or \
                     `table` to subscribe to"
                        .into(),
                )));
            }
        };
        let table = p.table.clone();
        let filter = Filter::parse(p.filter.as_deref().unwrap_or(""))
            .map_err(|e| unable(Some(e.to_string())))?;
        let select = match &p.select {
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
            id: binding_id(&p.raw),
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
}
