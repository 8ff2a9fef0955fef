//! The request inspector: each request becomes one [`Event`] — its sequence number, id,
//! method, path, status and time, the branch, the role and user it ran as, its headers, and for
//! REST the SQL and its parameters — kept in the [`history`] (the last requests of each
//! service) and published to whoever follows (`supagate logs --follow`,
//! `GET /_supagate/v1/requests`, Studio's Logs page). What row level security did (a query of
//! its own) is found while someone follows. Secrets (tokens, codes, passwords, keys) are never
//! shown: [`redact`].
//!
//! An event is kept as the request left it (its parts, not text): blanking its secrets and
//! writing its JSON cost more than serving a by-id read, so they are done only when someone
//! looks ([`Event::json`]), never on a request's path.

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
    pub fn publish(&self, event: Event) {
        let seq = self.history.next_seq();
        if self.watched() {
            let _ = self.tx.send(event.json(seq).to_string().into());
        }
        self.history.record(seq, event);
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

/// What a REST request leaves on itself for its [`Event`]: its part, and its headers as the
/// transaction's `request.headers` (written for the statement anyway: the event keeps that
/// text rather than copying the headers again).
pub struct RestPart {
    pub inspected: Inspected,
    pub headers: Headers,
}

/// What a REST request adds to its event: the statement it ran (its text shared with the plan
/// cache, not copied), its parameters, the rows, how it failed, and (while someone follows)
/// what row level security did (the claims it ran with are its [`Event`]'s). Only what is
/// shown is kept: the transaction's settings, search path… are left with the request.
#[derive(Debug)]
pub struct Inspected {
    pub sql: Arc<str>,
    pub params: Box<[Box<str>]>,
    /// Rows returned or written (this page).
    pub rows: Option<i64>,
    /// The error's code and message.
    pub error: Option<(Box<str>, Box<str>)>,
    pub rls: Option<Box<rest::inspect::Rls>>,
}

impl RestPart {
    /// What to keep of a request's trace.
    pub fn of(
        trace: rest::inspect::Trace,
        error: Option<(&str, &str)>,
        rls: Option<rest::inspect::Rls>,
    ) -> RestPart {
        let inspected = Inspected {
            sql: trace.sql,
            params: trace
                .params
                .into_iter()
                .map(String::into_boxed_str)
                .collect(),
            rows: trace.rows,
            error: error.map(|(code, message)| (code.into(), message.into())),
            rls: rls.map(Box::new),
        };
        RestPart {
            inspected,
            headers: Headers::Json(trace.headers.into_boxed_str()),
        }
    }
}

impl Inspected {
    /// Bytes it holds (its own heap; the statement's text counted as if it were its own, as it
    /// is once the plan cache lets go of it).
    fn bytes(&self) -> usize {
        use std::mem::size_of;
        let params: usize = self
            .params
            .iter()
            .map(|p| p.len() + size_of::<Box<str>>())
            .sum();
        let error = self.error.as_ref().map_or(0, |(c, m)| c.len() + m.len());
        let rls = self.rls.as_ref().map_or(0, |r| {
            let policies: usize = r
                .policies
                .iter()
                .map(|p| {
                    size_of::<rest::inspect::Policy>()
                        + p.name.len()
                        + p.command.len()
                        + p.roles
                            .iter()
                            .map(|r| r.len() + size_of::<String>())
                            .sum::<usize>()
                })
                .sum();
            size_of::<rest::inspect::Rls>()
                + r.table.len()
                + r.denied.as_ref().map_or(0, String::len)
                + policies
        });
        size_of::<Inspected>() + self.sql.len() + params + error + rls
    }
}

/// One request as it happened: its parts as they were, secrets included (never shown as such:
/// [`Event::json`] blanks them). Texts are boxed (no spare capacity); REST's part is boxed, so
/// that the other services' entries do not carry its room.
#[derive(Debug)]
pub struct Event {
    pub id: Box<str>,
    pub at: chrono::DateTime<chrono::Utc>,
    pub method: actix_web::http::Method,
    pub path: Box<str>,
    /// The query string as sent ("" for none).
    pub query: Box<str>,
    pub status: u16,
    pub ms: f64,
    pub branch: Option<Box<str>>,
    /// Who its credentials name, when they verified: its role and user (`sub`) are read from
    /// it when shown (the claims are shared with the cache of verified tokens, not copied).
    pub who: Option<identity::Identity>,
    pub headers: Headers,
    pub rest: Option<Box<Inspected>>,
}

/// A request's headers in a buffer of their own (a header value as the request holds it
/// shares the connection's read buffer, which an entry kept for minutes would pin): copied
/// (`name\0value\0`…), or for REST as its transaction's `request.headers` JSON (each name
/// with its last value; `x-real-ip` the client address the gateway determined).
#[derive(Debug)]
pub enum Headers {
    Copied(Box<[u8]>),
    Json(Box<str>),
}

impl Headers {
    pub fn of(map: &actix_web::http::header::HeaderMap) -> Headers {
        // One pass, into room for a request with two tokens (apikey, authorization) and the
        // usual headers; the buffer is cut to its length once written.
        let mut buf = Vec::with_capacity(1024);
        for (name, value) in map {
            // Neither a name nor a value holds a NUL byte.
            buf.extend_from_slice(name.as_str().as_bytes());
            buf.push(0);
            buf.extend_from_slice(value.as_bytes());
            buf.push(0);
        }
        Headers::Copied(buf.into_boxed_slice())
    }

    /// The headers as a map again.
    pub fn map(&self) -> actix_web::http::header::HeaderMap {
        use actix_web::http::header::{HeaderName, HeaderValue};
        let mut map = actix_web::http::header::HeaderMap::new();
        let mut add = |name: &[u8], value: &[u8]| {
            if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name), HeaderValue::from_bytes(value)) {
                map.append(n, v);
            }
        };
        match self {
            Headers::Copied(buf) => {
                let mut parts = buf.split(|b| *b == 0);
                while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
                    add(name, value);
                }
            }
            Headers::Json(text) => {
                let object: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(text).unwrap_or_default();
                for (name, value) in &object {
                    if let Some(value) = value.as_str() {
                        add(name.as_bytes(), value.as_bytes());
                    }
                }
            }
        }
        map
    }

    fn len(&self) -> usize {
        match self {
            Headers::Copied(buf) => buf.len(),
            Headers::Json(text) => text.len(),
        }
    }
}

impl Event {
    /// The role its credentials name.
    pub fn role(&self) -> Option<&str> {
        self.who.as_ref().map(identity::Identity::role)
    }

    /// The user (`sub`) its credentials name.
    pub fn sub(&self) -> Option<&str> {
        self.who.as_ref()?.claims.value.get("sub")?.as_str()
    }

    /// The blanker of this request's secrets (its query string's, its headers', and once
    /// [`redact::Redactor::params`] has read them, its body's).
    fn redactor(&self, headers: &actix_web::http::header::HeaderMap) -> redact::Redactor {
        redact::Redactor::of(&self.query, headers)
    }

    /// The path and query string, secrets blanked.
    fn shown_path(&self, redactor: &redact::Redactor) -> String {
        match &*self.query {
            "" => self.path.to_string(),
            q => redactor.url(&format!("{}?{q}", self.path)),
        }
    }

    /// What a listing shows: the path and REST's error message, secrets blanked.
    pub fn shown(&self) -> (String, Option<String>) {
        let mut redactor = self.redactor(&self.headers.map());
        let error = self.rest.as_ref().and_then(|x| {
            let (_, message) = x.error.as_ref()?;
            // The body's secrets are found in the statement's parameters.
            redactor.params(&x.sql, &x.params);
            Some(redactor.text(message))
        });
        (self.shown_path(&redactor), error)
    }

    /// The event as followers and Studio see it, secrets blanked (not yet cut to size:
    /// [`history::bound`]).
    pub fn json(&self, seq: u64) -> serde_json::Value {
        let headers = self.headers.map();
        let mut redactor = self.redactor(&headers);
        let mut event = serde_json::json!({
            "seq": seq,
            "id": self.id,
            "service": history::Service::of(&self.path).name(),
            "at": self.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "method": self.method.as_str(),
            "path": self.shown_path(&redactor),
            "status": self.status,
            "ms": (self.ms * 10.0).round() / 10.0,
            "branch": self.branch,
            "role": self.role(),
            "sub": self.sub(),
            "headers": redactor.headers(&headers),
        });
        if let Some(x) = &self.rest
            && let Some(map) = event.as_object_mut()
        {
            let params = redactor.params(&x.sql, &x.params);
            let mut rls = serde_json::to_value(&x.rls).unwrap_or_default();
            if let Some(denied) = rls.get_mut("denied")
                && let Some(text) = denied.as_str()
            {
                *denied = redactor.text(text).into();
            }
            let claims = self.who.as_ref().map(|w| w.claims.value.clone());
            map.insert("claims".into(), claims.into());
            map.insert("sql".into(), x.sql.to_string().into());
            map.insert("params".into(), params.into());
            map.insert("rows".into(), x.rows.into());
            map.insert("rls".into(), rls);
            let error = x.error.as_ref().map(|(code, message)| {
                serde_json::json!({"code": code, "message": redactor.text(message)})
            });
            map.insert("error".into(), error.into());
        }
        event
    }

    /// Bytes it holds: its own size and its texts' (what bounds a service's history; the
    /// history adds its entry's).
    pub fn bytes(&self) -> usize {
        let text = |t: &Option<Box<str>>| t.as_ref().map_or(0, |t| t.len());
        std::mem::size_of::<Event>()
            + self.id.len()
            + self.path.len()
            + self.query.len()
            + text(&self.branch)
            + self.who.as_ref().map_or(0, |w| w.claims.text.len())
            + self.headers.len()
            + self.rest.as_ref().map_or(0, |x| x.bytes())
    }
}
