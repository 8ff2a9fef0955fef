//! The request inspector: each request becomes one JSON event — its sequence number, id,
//! method, path, status and time, the branch, the role and user it ran as, its headers, and for
//! REST the SQL and its parameters — kept in the [`history`] (the last requests of each
//! service) and published to whoever follows (`supagate logs --follow`,
//! `GET /_supagate/v1/requests`, Studio's Logs page). What row level security did (a query of
//! its own) is found while someone follows. Secrets (tokens, codes, passwords, keys) are never
//! shown: [`redact`].

pub mod history;
pub mod redact;

use std::sync::Arc;
use tokio::sync::broadcast;

/// Events a slow follower may fall behind by before it misses some.
const BACKLOG: usize = 1024;

pub struct Inspector {
    tx: broadcast::Sender<Arc<str>>,
    pub history: history::History,
}

impl Default for Inspector {
    fn default() -> Self {
        Inspector::new(history::DEFAULT_PER_SERVICE)
    }
}

impl Inspector {
    /// Keeps the last `per_service` requests of each service (0: none, events only published).
    pub fn new(per_service: usize) -> Inspector {
        Inspector {
            tx: broadcast::channel(BACKLOG).0,
            history: history::History::new(per_service),
        }
    }

    /// Someone follows the events.
    pub fn watched(&self) -> bool {
        self.tx.receiver_count() > 0
    }

    /// Requests are made into events: they are kept, or someone follows.
    pub fn recording(&self) -> bool {
        self.history.enabled() || self.watched()
    }

    /// Numbers an event (`seq`), keeps it and publishes it to the followers.
    pub fn publish(&self, mut event: serde_json::Value) {
        if let Some(map) = event.as_object_mut() {
            map.insert("seq".into(), self.history.next_seq().into());
        }
        if self.watched() {
            let _ = self.tx.send(event.to_string().into());
        }
        self.history.record(event);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<str>> {
        self.tx.subscribe()
    }

    /// The events from now on as `text/event-stream`, one `data:` line each (`lagged` when a
    /// slow follower missed some).
    pub fn follow(&self) -> actix_web::HttpResponse {
        let rx = self.subscribe();
        let events = futures_util::stream::unfold(rx, |mut rx| async move {
            use tokio::sync::broadcast::error::RecvError;
            let chunk = match rx.recv().await {
                Ok(e) => format!("data: {e}\n\n"),
                Err(RecvError::Lagged(n)) => {
                    format!("event: lagged\ndata: {{\"missed\":{n}}}\n\n")
                }
                Err(RecvError::Closed) => return None,
            };
            Some((Ok::<_, actix_web::Error>(bytes::Bytes::from(chunk)), rx))
        });
        // A first comment, so that the follower knows it is connected.
        let hello = futures_util::stream::once(async {
            Ok::<_, actix_web::Error>(bytes::Bytes::from_static(b": following\n\n"))
        });
        actix_web::HttpResponse::Ok()
            .content_type("text/event-stream")
            .insert_header(("cache-control", "no-cache"))
            .streaming(futures_util::StreamExt::chain(hello, events))
    }
}

/// What a handler adds to its request for the inspector (role, claims, SQL, RLS).
pub struct Inspected(pub serde_json::Value);
