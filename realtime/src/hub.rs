//! The channels joined on this gateway, and delivery to them. A socket's frames go through a
//! bounded queue: a client that does not read is disconnected rather than buffered for.

use super::filters::Filter;
use super::protocol::{Broadcast, Frame, Vsn};
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use tokio::sync::{Notify, mpsc};

/// Frames and bytes a socket may have waiting before it counts as not reading.
pub const QUEUE_FRAMES: usize = 1024;
pub const QUEUE_BYTES: usize = 8 << 20;

/// The sending side of one socket's queue.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Frame>,
    queued: Arc<AtomicUsize>,
    overflow: Arc<(AtomicBool, Notify)>,
}

/// The socket's side: frames to write, and the signal that it fell too far behind.
pub struct Inbox {
    pub rx: mpsc::Receiver<Frame>,
    pub queued: Arc<AtomicUsize>,
    pub overflow: Arc<(AtomicBool, Notify)>,
}

pub fn queue() -> (Outbox, Inbox) {
    let (tx, rx) = mpsc::channel(QUEUE_FRAMES);
    let queued = Arc::new(AtomicUsize::new(0));
    let overflow = Arc::new((AtomicBool::new(false), Notify::new()));
    (
        Outbox {
            tx,
            queued: queued.clone(),
            overflow: overflow.clone(),
        },
        Inbox {
            rx,
            queued,
            overflow,
        },
    )
}

impl Outbox {
    /// Queues a frame; false when the socket is gone or too far behind (then it is closed).
    pub fn send(&self, frame: Frame) -> bool {
        let size = frame.size();
        if self.queued.fetch_add(size, Ordering::Relaxed) + size > QUEUE_BYTES
            || self.tx.try_send(frame).is_err()
        {
            self.queued.fetch_sub(size, Ordering::Relaxed);
            if !self.tx.is_closed() && !self.overflow.0.swap(true, Ordering::Relaxed) {
                self.overflow.1.notify_one();
            }
            return false;
        }
        true
    }
}

/// One `postgres_changes` binding of a channel.
#[derive(Debug, Clone)]
pub struct Binding {
    pub id: u32,
    pub event: String,
    pub schema: String,
    pub table: Option<String>,
    pub filter: Filter,
    pub select: Option<Vec<String>>,
}

impl Binding {
    /// Whether the binding is on this table, whatever the event.
    pub fn watches(&self, schema: &str, table: &str) -> bool {
        (self.schema == schema || self.schema == "*")
            && self.table.as_deref().is_none_or(|t| t == table || t == "*")
    }

    pub fn wants(&self, schema: &str, table: &str, kind: &str) -> bool {
        (self.schema == schema || self.schema == "*")
            && self.table.as_deref().is_none_or(|t| t == table || t == "*")
            && (self.event == "*" || self.event.eq_ignore_ascii_case(kind))
    }
}

/// Who a channel acts as, and what RLS on `realtime.messages` lets it do (private channels).
#[derive(Debug, Clone)]
pub struct Access {
    pub role: String,
    /// The JWT claims, as JSON text.
    pub claims: String,
    pub exp: Option<i64>,
    pub broadcast_read: bool,
    pub presence_read: bool,
    /// Checked on first use.
    pub broadcast_write: Option<bool>,
    pub presence_write: Option<bool>,
}

pub struct Channel {
    pub id: u64,
    /// `realtime:<sub_topic>`.
    pub topic: String,
    pub sub_topic: String,
    pub private: bool,
    pub join_ref: Option<String>,
    pub vsn: Vsn,
    pub out: Outbox,
    pub self_broadcast: bool,
    pub ack_broadcast: bool,
    pub presence_key: String,
    pub presence_enabled: AtomicBool,
    /// The presence this channel tracks: its ref and payload.
    pub tracked: Mutex<Option<(String, serde_json::Value)>>,
    pub bindings: Vec<Binding>,
    pub access: RwLock<Access>,
}

impl Channel {
    pub fn access(&self) -> Access {
        self.access.read().clone()
    }

    pub fn push(&self, event: &str, payload: &serde_json::Value) -> bool {
        self.out.send(super::protocol::message(
            self.vsn,
            self.join_ref.as_deref(),
            &self.topic,
            event,
            payload,
        ))
    }
}

type TopicKey = (String, bool);

/// One topic's channels on this gateway: how many joined, how many track a presence, the roles
/// they act as and the changes they listen to (`event schema.table`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ChannelSummary {
    pub topic: String,
    pub private: bool,
    pub joined: usize,
    pub presences: usize,
    pub roles: Vec<String>,
    pub changes: Vec<String>,
}

#[derive(Default)]
pub struct Hub {
    topics: RwLock<HashMap<TopicKey, Vec<Arc<Channel>>>>,
    changes: RwLock<Vec<Arc<Channel>>>,
    next_id: AtomicU64,
    sockets: AtomicUsize,
}

impl Hub {
    pub fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    pub fn socket_opened(&self) {
        self.sockets.fetch_add(1, Ordering::Relaxed);
    }

    pub fn socket_closed(&self) {
        self.sockets.fetch_sub(1, Ordering::Relaxed);
    }

    pub fn socket_count(&self) -> usize {
        self.sockets.load(Ordering::Relaxed)
    }

    pub fn add(&self, ch: Arc<Channel>) {
        if !ch.bindings.is_empty() {
            self.changes.write().push(ch.clone());
        }
        self.topics
            .write()
            .entry((ch.sub_topic.clone(), ch.private))
            .or_default()
            .push(ch);
    }

    pub fn remove(&self, ch: &Channel) {
        if !ch.bindings.is_empty() {
            self.changes.write().retain(|c| c.id != ch.id);
        }
        let mut topics = self.topics.write();
        let key = (ch.sub_topic.clone(), ch.private);
        if let Some(list) = topics.get_mut(&key) {
            list.retain(|c| c.id != ch.id);
            if list.is_empty() {
                topics.remove(&key);
            }
        }
    }

    fn on_topic(&self, sub_topic: &str, private: bool) -> Vec<Arc<Channel>> {
        self.topics
            .read()
            .get(&(sub_topic.to_string(), private))
            .cloned()
            .unwrap_or_default()
    }

    /// The channels joined on this gateway, by topic (Studio's live view).
    pub fn channels(&self) -> Vec<ChannelSummary> {
        let topics = self.topics.read();
        let mut list: Vec<ChannelSummary> = topics
            .iter()
            .map(|((topic, private), chans)| ChannelSummary {
                topic: topic.clone(),
                private: *private,
                joined: chans.len(),
                presences: chans.iter().filter(|c| c.tracked.lock().is_some()).count(),
                roles: {
                    let mut r: Vec<String> = chans.iter().map(|c| c.access().role).collect();
                    r.sort();
                    r.dedup();
                    r
                },
                changes: {
                    let mut b: Vec<String> = chans
                        .iter()
                        .flat_map(|c| c.bindings.iter())
                        .map(|b| {
                            format!(
                                "{} {}.{}",
                                b.event,
                                b.schema,
                                b.table.as_deref().unwrap_or("*")
                            )
                        })
                        .collect();
                    b.sort();
                    b.dedup();
                    b
                },
            })
            .collect();
        list.sort_by(|a, b| a.topic.cmp(&b.topic));
        list
    }

    /// Channels with `postgres_changes` bindings.
    pub fn has_change_listeners(&self) -> bool {
        !self.changes.read().is_empty()
    }

    pub fn change_listeners(&self) -> Vec<Arc<Channel>> {
        self.changes.read().clone()
    }

    /// Delivers a broadcast to this gateway's channels on the topic (not to `except`).
    pub fn broadcast(&self, sub_topic: &str, private: bool, msg: &Broadcast, except: Option<u64>) {
        let mut frames: [Option<Option<Frame>>; 2] = [None, None];
        for ch in self.on_topic(sub_topic, private) {
            if Some(ch.id) == except || (ch.private && !ch.access().broadcast_read) {
                continue;
            }
            let slot = &mut frames[(ch.vsn == Vsn::V2) as usize];
            if let Some(frame) = slot.get_or_insert_with(|| msg.frame(ch.vsn, &ch.topic)) {
                ch.out.send(frame.clone());
            }
        }
    }

    /// Delivers a presence diff (JSON text) to the channels on the topic that use presence.
    pub fn presence_diff(&self, sub_topic: &str, private: bool, diff: &str) {
        let topic = format!("realtime:{sub_topic}");
        let mut frames: [Option<Frame>; 2] = [None, None];
        for ch in self.on_topic(sub_topic, private) {
            if !ch.presence_enabled.load(Ordering::Relaxed)
                || (ch.private && !ch.access().presence_read)
            {
                continue;
            }
            let frame = frames[(ch.vsn == Vsn::V2) as usize].get_or_insert_with(|| {
                Frame::Text(super::protocol::message_raw(
                    ch.vsn,
                    None,
                    None,
                    &topic,
                    "presence_diff",
                    diff,
                ))
            });
            ch.out.send(frame.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_socket_that_does_not_read_is_cut_off() {
        let (out, mut inbox) = queue();
        let big = Frame::Text("x".repeat(QUEUE_BYTES / 2 + 1));
        assert!(out.send(big.clone()));
        assert!(!out.send(big));
        assert!(inbox.overflow.0.load(Ordering::Relaxed));
        assert!(inbox.rx.recv().await.is_some());
    }

    #[test]
    fn bindings_match_schema_table_and_event() {
        let b = Binding {
            id: 1,
            event: "insert".into(),
            schema: "public".into(),
            table: Some("todos".into()),
            filter: Filter::default(),
            select: None,
        };
        assert!(b.wants("public", "todos", "INSERT"));
        assert!(!b.wants("public", "todos", "DELETE"));
        assert!(!b.wants("public", "notes", "INSERT"));
        let all = Binding {
            event: "*".into(),
            table: None,
            ..b
        };
        assert!(all.wants("public", "notes", "DELETE"));
    }
}
