//! One socket's session, whatever carries its frames: Phoenix channel messages — heartbeats,
//! joins with their config, broadcasts, presence, access-token updates and leaves — with the
//! replies and errors Supabase Realtime gives. The HTTP layer reads frames off the WebSocket,
//! hands them to [`Session::handle`] and writes out what the session's outbox receives.

use super::hub::{self, Access, Channel, Outbox};
use super::protocol::{self, Incoming, Vsn};
use super::tokens::{Identity, TokenError};
use super::{Realtime, presence};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Largest broadcast payload.
pub const MAX_BROADCAST: usize = 256 * 1024;
pub(crate) const MAX_CHANNELS: usize = 100;
/// Sockets one gateway serves at most.
pub const MAX_SOCKETS: usize = 10_000;
/// Presence messages a channel may send per window, as Supabase Realtime allows.
pub(crate) const PRESENCE_CALLS: u32 = 5;
pub(crate) const PRESENCE_WINDOW: Duration = Duration::from_secs(30);

/// One socket's channels.
pub struct Session {
    pub(crate) rt: Arc<Realtime>,
    pub(crate) vsn: Vsn,
    pub(crate) out: Outbox,
    /// The socket's token (its apikey), used by joins that bring none.
    pub(crate) token: String,
    pub(crate) channels: HashMap<String, Arc<Channel>>,
    pub(crate) presence_calls: HashMap<String, (Instant, u32)>,
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
pub(crate) fn binding_id(params: &Value) -> u32 {
    let h = project::sha256_hex(params.to_string().as_bytes());
    let n = u32::from_str_radix(&h[..8], 16).expect("hex") & 0x07ff_ffff;
    n.max(1)
}

impl Session {
    /// The socket's serializer.
    pub fn vsn(&self) -> Vsn {
        self.vsn
    }

    pub(crate) fn reply(&self, m: &Incoming, ok: bool, response: Value) {
        self.out.send(protocol::reply(
            self.vsn,
            m.join_ref.as_deref(),
            m.msg_ref.as_deref(),
            &m.topic,
            ok,
            &response,
        ));
    }

    pub(crate) fn refuse_join(&self, m: &Incoming, reason: String) {
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

    /// Ends a channel from the server: a system error, then `phx_close`.
    pub(crate) async fn shutdown_channel(&mut self, topic: &str, message: &str) {
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
        let now = identity::clock::now();
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

    pub(crate) async fn leave(&mut self, topic: &str) {
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

pub(crate) fn identity(a: &Access) -> Identity {
    Identity {
        role: a.role.clone(),
        claims: serde_json::from_str(&a.claims).unwrap_or(json!({})),
        exp: a.exp.unwrap_or(0),
    }
}

pub(crate) fn access(who: &Identity, broadcast_read: bool, presence_read: bool) -> Access {
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
