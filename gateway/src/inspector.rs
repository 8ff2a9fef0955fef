//! The request inspector: while someone follows it (`supagate logs --follow`, or
//! `GET /_supagate/v1/requests`), each request is published as one JSON event — its id,
//! method, path, status and time, the branch and the role it ran as, and for REST the SQL and
//! what row level security did. Nobody following: nothing is recorded.

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
