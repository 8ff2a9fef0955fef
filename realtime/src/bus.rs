//! Between gateways: notifications on `supagate_realtime`. A broadcast or presence diff is
//! delivered on its own gateway at once and announced to the others; one too large for a
//! notification (8000 bytes) travels through `realtime.supagate_relay`.

use super::Realtime;
use super::protocol::{Broadcast, UserPayload};
use crate::error::RealtimeError;
use base64::Engine;
use pg::listen::Event;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

pub const CHANNEL: &str = "supagate_realtime";
/// Notifications carry at most 8000 bytes; larger notes go through the relay table.
const INLINE_MAX: usize = 7900;

#[derive(Serialize, Deserialize)]
#[serde(tag = "k")]
enum Note {
    /// A broadcast: replica, topic, private, event, JSON payload or base64 bytes, meta.
    #[serde(rename = "b")]
    Broadcast {
        r: String,
        t: String,
        p: bool,
        e: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        j: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        x: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        m: Option<Value>,
    },
    /// A presence diff (JSON text) on a topic.
    #[serde(rename = "p")]
    Presence {
        r: String,
        t: String,
        p: bool,
        d: String,
    },
    /// A note stored in the relay table.
    #[serde(rename = "r")]
    Relay { id: i64 },
    /// A row of realtime.messages (realtime.send).
    #[serde(rename = "m")]
    Message { id: String, at: String },
    /// Decoded changes were recorded.
    #[serde(rename = "c")]
    Changes,
}

/// Sends a note to every gateway (this one included: it ignores its own).
async fn announce(rt: &Realtime, note: &Note) {
    let text = serde_json::to_string(note).expect("notes serialize");
    let result = async {
        let c = rt.db.get().await?;
        let text = if text.len() <= INLINE_MAX {
            text
        } else {
            let id: i64 = c
                .query_one(
                    "INSERT INTO realtime.supagate_relay (body) VALUES ($1) RETURNING id",
                    &[&text],
                )
                .await?
                .get(0);
            serde_json::to_string(&Note::Relay { id }).expect("notes serialize")
        };
        c.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &text])
            .await?;
        Ok::<_, RealtimeError>(())
    }
    .await;
    if let Err(e) = result {
        tracing::warn!("realtime: could not reach the other gateways: {e}");
    }
}

/// Delivers a broadcast here (not to `except`) and on every other gateway.
pub async fn broadcast(
    rt: &Realtime,
    sub_topic: &str,
    private: bool,
    msg: &Broadcast,
    except: Option<u64>,
) {
    rt.hub.broadcast(sub_topic, private, msg, except);
    let (j, x) = match &msg.payload {
        UserPayload::Json(j) => (Some(j.clone()), None),
        UserPayload::Binary(b) => (
            None,
            Some(base64::engine::general_purpose::STANDARD.encode(b)),
        ),
    };
    announce(
        rt,
        &Note::Broadcast {
            r: rt.replica.clone(),
            t: sub_topic.to_string(),
            p: private,
            e: msg.event.clone(),
            j,
            x,
            m: msg.meta.clone(),
        },
    )
    .await;
}

/// Delivers a presence diff here and on every other gateway.
pub async fn presence_diff(
    rt: &Realtime,
    replica: &str,
    sub_topic: &str,
    private: bool,
    diff: &str,
) {
    rt.hub.presence_diff(sub_topic, private, diff);
    announce(
        rt,
        &Note::Presence {
            r: replica.to_string(),
            t: sub_topic.to_string(),
            p: private,
            d: diff.to_string(),
        },
    )
    .await;
}

/// Tells every gateway that changes were recorded.
pub async fn changes_recorded(c: &tokio_postgres::Client) -> Result<(), tokio_postgres::Error> {
    let note = serde_json::to_string(&Note::Changes).expect("notes serialize");
    c.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &note])
        .await
        .map(|_| ())
}

async fn handle(rt: &Realtime, note: Note) -> Result<(), RealtimeError> {
    match note {
        Note::Broadcast { r, .. } | Note::Presence { r, .. } if r == rt.replica => {}
        Note::Broadcast {
            t, p, e, j, x, m, ..
        } => {
            let payload = match (j, x) {
                (Some(j), _) => UserPayload::Json(j),
                (None, Some(x)) => {
                    UserPayload::Binary(base64::engine::general_purpose::STANDARD.decode(x)?.into())
                }
                (None, None) => {
                    return Err(RealtimeError::Note("broadcast without a payload".into()));
                }
            };
            let msg = Broadcast {
                event: e,
                payload,
                meta: m,
            };
            rt.hub.broadcast(&t, p, &msg, None);
        }
        Note::Presence { t, p, d, .. } => rt.hub.presence_diff(&t, p, &d),
        Note::Relay { id } => {
            let c = rt.db.get().await?;
            let row = c
                .query_opt(
                    "SELECT body FROM realtime.supagate_relay WHERE id = $1",
                    &[&id],
                )
                .await?;
            if let Some(row) = row {
                let note: Note = serde_json::from_str(row.get(0))?;
                if !matches!(note, Note::Relay { .. }) {
                    Box::pin(handle(rt, note)).await?;
                }
            }
        }
        Note::Message { id, at } => {
            let c = rt.db.get().await?;
            let row = c
                .query_opt(
                    "SELECT topic, event, payload::text, binary_payload, coalesce(private, false) \
                     FROM realtime.messages WHERE id = $1::text::uuid AND inserted_at = $2::text::timestamp",
                    &[&id, &at],
                )
                .await
                ?;
            if let Some(row) = row {
                let payload = match (
                    row.get::<_, Option<String>>(2),
                    row.get::<_, Option<Vec<u8>>>(3),
                ) {
                    (Some(j), _) => UserPayload::Json(j),
                    (None, Some(b)) => UserPayload::Binary(b.into()),
                    (None, None) => UserPayload::Json("{}".into()),
                };
                let msg = Broadcast {
                    event: row.get::<_, Option<String>>(1).unwrap_or_default(),
                    payload,
                    meta: Some(serde_json::json!({ "id": id })),
                };
                rt.hub.broadcast(row.get(0), row.get(4), &msg, None);
            }
        }
        Note::Changes => rt.wake_delivery.notify_one(),
    }
    Ok(())
}

pub fn spawn_listener(rt: Arc<Realtime>) {
    let mut events = pg::listen::listen(rt.admin.clone(), CHANNEL);
    crate::spawn_until_shutdown(&rt.clone(), async move {
        while let Some(event) = events.recv().await {
            match event {
                // Changes recorded while not listening are read now.
                Event::Connected => rt.wake_delivery.notify_one(),
                Event::Notification(text) => match serde_json::from_str::<Note>(&text) {
                    Ok(note) => {
                        if let Err(e) = handle(&rt, note).await {
                            tracing::warn!("realtime: dropped a note from another gateway: {e}");
                        }
                    }
                    Err(e) => tracing::warn!("realtime: unreadable note ({e}): {text}"),
                },
            }
        }
    });
}
