//! What a joined channel sends: broadcasts (written under RLS for private channels, stored for
//! replay when asked), presence (tracked and untracked, rate limited as Supabase Realtime
//! limits it) and access-token updates.

use super::hub::Channel;
use super::protocol::{Broadcast, Incoming, UserPayload, Vsn};
use super::session::{MAX_BROADCAST, PRESENCE_CALLS, PRESENCE_WINDOW, Session, access, identity};
use super::{authz, bus, presence, tokens};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

impl Session {
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
        let mut w = ch.access.write();
        if extension == "broadcast" {
            w.broadcast_write = Some(allowed);
        } else {
            w.presence_write = Some(allowed);
        }
        allowed
    }

    pub(super) async fn broadcast(&mut self, ch: &Arc<Channel>, m: Incoming) {
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
                Err(e) => return self.reply(&m, false, json!({ "error": e.to_string() })),
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

    pub(super) async fn presence(&mut self, ch: &Arc<Channel>, m: Incoming) {
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
            _ => {
                tracing::debug!("realtime: unknown presence event {event:?}");
                return self.reply(&m, false, json!({}));
            }
        };
        match result {
            Ok(()) => self.reply(&m, true, json!({})),
            Err(e) => {
                tracing::warn!("realtime: presence on {}: {e}", ch.sub_topic);
                self.reply(&m, false, json!({}));
            }
        }
    }

    pub(super) async fn access_token(&mut self, ch: &Arc<Channel>, m: &Incoming) {
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
        *ch.access.write() = access(&who, b, p);
    }
}
