//! Broadcasting over HTTP as Supabase Realtime's API does it: `POST /api/broadcast` with a
//! batch of messages, and `POST /api/broadcast/{topic}/events/{event}` with one JSON or binary
//! payload. Private topics need RLS permission to write; `persist` stores a message for replay.

use super::protocol::{Broadcast, UserPayload};
use super::tokens::Identity;
use super::{MAX_BROADCAST, Realtime, RealtimeError, authz, bus};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

const MAX_MESSAGES: usize = 100;

/// The broadcast API's answers other than 202, with Supabase Realtime's status and texts.
#[derive(Debug, thiserror::Error)]
pub enum BroadcastError {
    #[error("invalid JSON: {0}")]
    BadJson(serde_json::Error),
    /// 422 with the invalid fields.
    #[error("Invalid request")]
    Invalid(Value),
    #[error("Too many messages to broadcast, please reduce the batch size")]
    TooMany,
    #[error("Payload size exceeds tenant limit")]
    TooLarge,
    #[error("Content-Type must be application/json or application/octet-stream")]
    UnsupportedType,
    #[error("You do not have permissions to write to this Channel topic: {0}")]
    NotAllowed(String),
    /// The authorisation probe could not run (503), or storing was refused (401).
    #[error("{0}")]
    Database(RealtimeError),
    #[error("{0}")]
    Persist(RealtimeError),
}

impl BroadcastError {
    pub fn status(&self) -> u16 {
        match self {
            BroadcastError::BadJson(_) => 400,
            BroadcastError::Invalid(_) => 422,
            BroadcastError::TooMany => 429,
            BroadcastError::TooLarge => 413,
            BroadcastError::UnsupportedType => 415,
            BroadcastError::NotAllowed(_) | BroadcastError::Persist(_) => 401,
            BroadcastError::Database(_) => 503,
        }
    }

    /// The invalid fields, for a 422.
    pub fn errors(&self) -> Option<&Value> {
        match self {
            BroadcastError::Invalid(e) => Some(e),
            _ => None,
        }
    }
}

/// `POST /api/broadcast`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct BroadcastBatch {
    /// A list; anything else is "can't be blank", as Supabase Realtime answers.
    pub messages: Option<Value>,
}

/// One message of a batch: `{topic, event, payload, private?, id?}`, checked field by field as
/// Supabase Realtime's changeset does.
struct Message {
    topic: String,
    event: String,
    payload: Value,
    private: bool,
    id: Option<Value>,
}

fn message(m: &Value) -> Result<Message, Map<String, Value>> {
    let mut e = Map::new();
    for field in ["topic", "event"] {
        if !m.get(field).is_some_and(Value::is_string) {
            e.insert(field.into(), json!(["can't be blank"]));
        }
    }
    match m.get("payload") {
        Some(p) if p.is_object() => {
            if p.to_string().len() > MAX_BROADCAST {
                e.insert(
                    "payload".into(),
                    json!(["Payload size exceeds tenant limit"]),
                );
            }
        }
        Some(_) => {
            e.insert("payload".into(), json!(["is invalid"]));
        }
        None => {
            e.insert("payload".into(), json!(["can't be blank"]));
        }
    }
    if !e.is_empty() {
        return Err(e);
    }
    Ok(Message {
        topic: m["topic"].as_str().unwrap_or_default().to_string(),
        event: m["event"].as_str().unwrap_or_default().to_string(),
        payload: m["payload"].clone(),
        private: m.get("private").is_some_and(|p| p == &json!(true)),
        id: m.get("id").cloned(),
    })
}

/// `POST /api/broadcast/{topic}/events/{event}`.
pub struct OneBroadcast<'a> {
    pub topic: String,
    pub event: String,
    pub private: bool,
    pub persist: bool,
    pub content_type: &'a str,
    pub body: bytes::Bytes,
}

impl Realtime {
    /// Sends a batch (to private topics only where RLS lets the caller write).
    pub async fn broadcast_batch(&self, who: &Identity, body: &[u8]) -> Result<(), BroadcastError> {
        let batch: BroadcastBatch =
            serde_json::from_slice(body).map_err(BroadcastError::BadJson)?;
        let Some(list) = batch.messages.as_ref().and_then(Value::as_array) else {
            return Err(BroadcastError::Invalid(
                json!({"messages": ["can't be blank"]}),
            ));
        };
        if list.len() > MAX_MESSAGES {
            return Err(BroadcastError::TooMany);
        }
        let checked: Vec<_> = list.iter().map(message).collect();
        if checked.iter().any(Result::is_err) {
            let errors: Vec<Value> = checked
                .into_iter()
                .map(|r| Value::Object(r.err().unwrap_or_default()))
                .collect();
            return Err(BroadcastError::Invalid(json!({ "messages": errors })));
        }
        let mut allowed: HashMap<String, bool> = HashMap::new();
        for m in checked.into_iter().flatten() {
            if m.private {
                let ok = match allowed.get(&m.topic) {
                    Some(ok) => *ok,
                    None => {
                        let ok = authz::can_write(self, who, &m.topic, "broadcast")
                            .await
                            .map_err(BroadcastError::Database)?;
                        allowed.insert(m.topic.clone(), ok);
                        ok
                    }
                };
                if !ok {
                    continue;
                }
            }
            let msg = Broadcast {
                event: m.event,
                payload: UserPayload::Json(m.payload.to_string()),
                meta: m.id.map(|id| json!({ "id": id })),
            };
            bus::broadcast(self, &m.topic, m.private, &msg, None).await;
        }
        Ok(())
    }

    /// Sends one message, JSON or binary.
    pub async fn broadcast_one(
        &self,
        who: &Identity,
        b: OneBroadcast<'_>,
    ) -> Result<(), BroadcastError> {
        if b.body.len() > MAX_BROADCAST {
            return Err(BroadcastError::TooLarge);
        }
        let user = if b.content_type.starts_with("application/octet-stream") {
            UserPayload::Binary(b.body)
        } else if b.content_type.starts_with("application/json") {
            serde_json::from_slice::<Value>(&b.body).map_err(|e| {
                BroadcastError::Invalid(json!({"payload": [format!("is not valid JSON: {e}")]}))
            })?;
            UserPayload::Json(String::from_utf8_lossy(&b.body).into_owned())
        } else {
            return Err(BroadcastError::UnsupportedType);
        };
        if b.persist && !b.private {
            return Err(BroadcastError::Invalid(
                json!({"persist": ["is only allowed on private channels"]}),
            ));
        }
        if b.private
            && !authz::can_write(self, who, &b.topic, "broadcast")
                .await
                .map_err(BroadcastError::Database)?
        {
            return Err(BroadcastError::NotAllowed(b.topic));
        }
        let meta = if b.persist {
            let id = authz::store(self, who, &b.topic, &b.event, &user)
                .await
                .map_err(BroadcastError::Persist)?;
            Some(json!({ "id": id }))
        } else {
            None
        };
        let msg = Broadcast {
            event: b.event,
            payload: user,
            meta,
        };
        bus::broadcast(self, &b.topic, b.private, &msg, None).await;
        Ok(())
    }
}
