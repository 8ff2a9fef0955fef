//! The request inspector: while someone follows it (`supagate logs --follow`, or
//! `GET /_supagate/v1/requests`), each request is published as one JSON event — its id,
//! method, path, status and time, the branch and the role it ran as, and for REST the SQL and
//! what row level security did. Nobody following: nothing is recorded. Secrets (tokens, codes,
//! passwords, keys) are never shown: [`redact`].

pub mod redact;

use crate::state::AppState;
use actix_web::HttpRequest;
use actix_web::web;
use std::sync::Arc;
use tokio::sync::broadcast;

/// Events a slow follower may fall behind by before it misses some.
const BACKLOG: usize = 1024;

pub struct Inspector {
    tx: broadcast::Sender<Arc<str>>,
}

impl Default for Inspector {
    fn default() -> Self {
        Inspector {
            tx: broadcast::channel(BACKLOG).0,
        }
    }
}

impl Inspector {
    pub fn watched(&self) -> bool {
        self.tx.receiver_count() > 0
    }

    pub fn publish(&self, event: &serde_json::Value) {
        let _ = self.tx.send(event.to_string().into());
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

/// The gateway's inspector (the project's, whichever branch serves the request), when someone
/// follows it.
pub fn watching(req: &HttpRequest) -> Option<Arc<AppState>> {
    req.app_data::<web::Data<Arc<AppState>>>()
        .map(|d| d.get_ref().clone())
        .filter(|s| s.inspector.watched())
}
