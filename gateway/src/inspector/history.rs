//! The request history: the inspector's events of the last requests, kept in memory per service
//! (REST, GraphQL, Auth, Storage, Realtime, Edge Functions, the workbench's API, anything else)
//! so that Studio's Logs page shows what happened before it opened. Bounded twice: a number of
//! requests per service (`--request-history`, 0: none kept) and bytes per service; each entry's
//! texts, lists and objects are cut to a size when it is shown ([`bound`]). An entry is the
//! request's [`Event`] as it happened, with a sequence number: its secrets are blanked
//! ([`super::redact`]) and its JSON written when a listing or a request's detail shows it.

use super::Event;
use parking_lot::Mutex;
use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Requests kept per service unless the command line says otherwise.
pub const DEFAULT_PER_SERVICE: usize = 2000;
/// The most `--request-history` may ask for.
pub const MAX_PER_SERVICE: usize = 50_000;
/// Bytes of entries kept per service at most (the oldest go first).
const BYTES_PER_SERVICE: usize = 8 << 20;
/// One entry's JSON at most: past it, its parameters, RLS, claims and headers are left out.
const MAX_ENTRY_BYTES: usize = 32 * 1024;
/// A text kept of an entry (the SQL: [`MAX_SQL`]).
const MAX_TEXT: usize = 2048;
const MAX_SQL: usize = 16 * 1024;
/// Items of a list, or keys of an object, kept.
const MAX_ITEMS: usize = 64;
/// Requests one listing returns at most.
pub const MAX_LIMIT: usize = 500;
const DEFAULT_LIMIT: usize = 100;
/// Longest text a filter searches for.
const MAX_NEEDLE: usize = 256;

/// The API a request went to, from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Service {
    Rest,
    Graphql,
    Auth,
    Storage,
    Realtime,
    Functions,
    Workbench,
    Other,
}

impl Service {
    pub const ALL: [Service; 8] = [
        Service::Rest,
        Service::Graphql,
        Service::Auth,
        Service::Storage,
        Service::Realtime,
        Service::Functions,
        Service::Workbench,
        Service::Other,
    ];

    /// The service of a path (its query string ignored).
    pub fn of(path: &str) -> Service {
        let path = path.split_once('?').map_or(path, |(p, _)| p);
        let prefixes = [
            ("/rest/v1", Service::Rest),
            ("/graphql/v1", Service::Graphql),
            ("/auth/v1", Service::Auth),
            ("/storage/v1", Service::Storage),
            ("/realtime/v1", Service::Realtime),
            ("/functions/v1", Service::Functions),
            ("/_supagate", Service::Workbench),
        ];
        prefixes
            .into_iter()
            .find(|(p, _)| {
                path.strip_prefix(p)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
            .map_or(Service::Other, |(_, s)| s)
    }

    pub fn name(self) -> &'static str {
        match self {
            Service::Rest => "rest",
            Service::Graphql => "graphql",
            Service::Auth => "auth",
            Service::Storage => "storage",
            Service::Realtime => "realtime",
            Service::Functions => "functions",
            Service::Workbench => "workbench",
            Service::Other => "other",
        }
    }

    fn parse(name: &str) -> Option<Service> {
        Service::ALL.into_iter().find(|s| s.name() == name)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// What a listing shows of a request.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    pub seq: u64,
    pub id: String,
    pub at: String,
    pub method: String,
    pub path: String,
    pub status: u16,
    pub ms: f64,
    pub service: Service,
    pub role: Option<String>,
    pub sub: Option<String>,
    /// REST's error message, if it answered one.
    pub error: Option<String>,
}

struct Entry {
    seq: u64,
    service: Service,
    event: Event,
    /// Its path and error message as shown (secrets blanked), made when first listed.
    shown: OnceLock<(String, Option<String>)>,
    bytes: usize,
}

impl Entry {
    /// Bytes an entry of `event` holds: the entry (its `Arc`'s counts, its place in the ring),
    /// less the event counted inside it, and the event's own (the path and error shown are
    /// made only when listed, and are not counted).
    fn bytes(event: &Event) -> usize {
        use std::mem::size_of;
        2 * size_of::<usize>() + size_of::<Arc<Entry>>() + size_of::<Entry>() - size_of::<Event>()
            + event.bytes()
    }

    fn shown(&self) -> &(String, Option<String>) {
        self.shown.get_or_init(|| self.event.shown())
    }

    fn summary(&self) -> Summary {
        let e = &self.event;
        let (path, error) = self.shown().clone();
        Summary {
            seq: self.seq,
            id: e.id.to_string(),
            at: e.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            method: e.method.as_str().to_string(),
            path,
            status: e.status,
            ms: (e.ms * 10.0).round() / 10.0,
            service: self.service,
            role: e.role().map(str::to_string),
            sub: e.sub().map(str::to_string),
            error,
        }
    }
}

#[derive(Default)]
struct Ring {
    entries: VecDeque<Arc<Entry>>,
    bytes: usize,
}

pub struct History {
    per_service: usize,
    rings: Mutex<Vec<Ring>>,
    next: AtomicU64,
}

impl History {
    /// Keeps the last `per_service` requests of each service (0: none).
    pub fn new(per_service: usize) -> History {
        History {
            per_service: per_service.min(MAX_PER_SERVICE),
            rings: Mutex::new(Service::ALL.iter().map(|_| Ring::default()).collect()),
            next: AtomicU64::new(1),
        }
    }

    pub fn enabled(&self) -> bool {
        self.per_service > 0
    }

    pub fn per_service(&self) -> usize {
        self.per_service
    }

    /// The next sequence number (also for events published while nothing is kept).
    pub fn next_seq(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Keeps an event under its `seq`, as it is; the service's oldest go past the bounds.
    pub fn record(&self, seq: u64, event: Event) {
        if !self.enabled() {
            return;
        }
        let entry = Arc::new(Entry {
            seq,
            service: Service::of(&event.path),
            bytes: Entry::bytes(&event),
            event,
            shown: OnceLock::new(),
        });
        // The oldest are dropped after the lock is let go (their texts are freed outside it);
        // one goes for each one kept once the ring is full: held inline, not in an allocation.
        let mut gone: smallvec::SmallVec<[Arc<Entry>; 2]> = smallvec::SmallVec::new();
        {
            let mut rings = self.rings.lock();
            let ring = &mut rings[entry.service.index()];
            ring.bytes += entry.bytes;
            ring.entries.push_back(entry);
            while ring.entries.len() > self.per_service || ring.bytes > BYTES_PER_SERVICE {
                match ring.entries.pop_front() {
                    Some(old) => {
                        ring.bytes -= old.bytes;
                        gone.push(old);
                    }
                    None => break,
                }
            }
        }
        drop(gone);
    }

    /// The requests a filter keeps, newest first.
    pub fn list(&self, f: &Filter) -> Vec<Summary> {
        let candidates: Vec<Arc<Entry>> = {
            let rings = self.rings.lock();
            Service::ALL
                .iter()
                .filter(|s| f.service.is_none_or(|want| want == **s))
                .flat_map(|s| rings[s.index()].entries.iter().rev())
                .filter(|e| f.keeps_raw(e))
                .cloned()
                .collect()
        };
        // The path is searched as shown, secrets blanked (made outside the lock).
        let mut found: Vec<Arc<Entry>> = candidates
            .into_iter()
            .filter(|e| {
                f.path
                    .as_ref()
                    .is_none_or(|p| e.shown().0.to_lowercase().contains(p.as_str()))
            })
            .collect();
        found.sort_unstable_by_key(|e| std::cmp::Reverse(e.seq));
        found.truncate(f.limit);
        found.iter().map(|e| e.summary()).collect()
    }

    /// Requests kept now, per service.
    pub fn kept(&self) -> Vec<(Service, usize)> {
        let rings = self.rings.lock();
        Service::ALL
            .iter()
            .map(|s| (*s, rings[s.index()].entries.len()))
            .collect()
    }

    /// One request's whole event as JSON (secrets blanked, cut to size), by its sequence
    /// number.
    pub fn get(&self, seq: u64) -> Option<String> {
        let entry = {
            let rings = self.rings.lock();
            rings.iter().find_map(|r| {
                let i = r.entries.binary_search_by_key(&seq, |e| e.seq).ok()?;
                Some(r.entries[i].clone())
            })?
        };
        Some(bound(&mut entry.event.json(seq)))
    }
}

/// Which statuses a filter keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    /// `404`
    Exact(u16),
    /// `4xx`: the hundreds digit.
    Class(u16),
    /// `error`: 400 and above.
    Errors,
}

/// Why a listing's query string is refused (the text is the answer's `message`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    #[error("status \"{0}\" is not a status (404), a class (4xx) or `error`")]
    Status(String),
    /// A searched text longer than [`MAX_NEEDLE`] bytes (the filter's name).
    #[error("{0} is at most {max} bytes", max = MAX_NEEDLE)]
    TooLong(String),
    #[error("service \"{0}\" is none of {names}", names = Service::ALL.map(Service::name).join(", "))]
    Service(String),
    #[error("since \"{0}\" is not a time (2026-01-31T12:00:00Z)")]
    Since(String),
    #[error("before \"{0}\" is not a request's seq")]
    Before(String),
    #[error("limit is a number from 1 to {max}", max = MAX_LIMIT)]
    Limit,
    #[error("requests have no filter \"{0}\"")]
    Unknown(String),
}

impl StatusFilter {
    fn parse(v: &str) -> Result<StatusFilter, FilterError> {
        let bad = || FilterError::Status(v.to_string());
        let v = v.trim().to_ascii_lowercase();
        if v == "error" || v == "errors" {
            return Ok(StatusFilter::Errors);
        }
        if let Some(d) = v.strip_suffix("xx") {
            return match d.parse::<u16>() {
                Ok(d @ 1..=5) => Ok(StatusFilter::Class(d)),
                _ => Err(bad()),
            };
        }
        match v.parse::<u16>() {
            Ok(n @ 100..=599) => Ok(StatusFilter::Exact(n)),
            _ => Err(bad()),
        }
    }

    fn keeps(self, status: u16) -> bool {
        match self {
            StatusFilter::Exact(n) => status == n,
            StatusFilter::Class(d) => status / 100 == d,
            StatusFilter::Errors => status >= 400,
        }
    }
}

/// A listing's filters, from its query string.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub status: Option<StatusFilter>,
    /// Part of the path and query string (case-insensitive).
    pub path: Option<String>,
    /// The role, exactly.
    pub role: Option<String>,
    /// Part of the user's id (`sub`).
    pub user: Option<String>,
    pub service: Option<Service>,
    /// Milliseconds since the epoch: requests from then on.
    pub since: Option<i64>,
    /// Requests before this sequence number (the next page).
    pub before: Option<u64>,
    pub limit: usize,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            status: None,
            path: None,
            role: None,
            user: None,
            service: None,
            since: None,
            before: None,
            limit: DEFAULT_LIMIT,
        }
    }
}

impl Filter {
    /// Reads `status`, `path`, `role`, `user`, `service`, `since` (RFC 3339), `before` and
    /// `limit` (1 to [`MAX_LIMIT`]); empty values are no filter, anything else is an error.
    pub fn parse(pairs: &[(String, String)]) -> Result<Filter, FilterError> {
        let mut f = Filter::default();
        for (k, v) in pairs {
            let v = v.trim();
            if v.is_empty() {
                continue;
            }
            let needle = || {
                if v.len() > MAX_NEEDLE {
                    Err(FilterError::TooLong(k.clone()))
                } else {
                    Ok(v.to_lowercase())
                }
            };
            match k.as_str() {
                "status" => f.status = Some(StatusFilter::parse(v)?),
                "path" => f.path = Some(needle()?),
                "role" => f.role = Some(needle()?),
                "user" => f.user = Some(needle()?),
                "service" => {
                    f.service =
                        Some(Service::parse(v).ok_or_else(|| FilterError::Service(v.to_string()))?)
                }
                "since" => {
                    f.since = Some(
                        chrono::DateTime::parse_from_rfc3339(v)
                            .map_err(|_| FilterError::Since(v.to_string()))?
                            .timestamp_millis(),
                    )
                }
                "before" => {
                    f.before = Some(v.parse().map_err(|_| FilterError::Before(v.to_string()))?)
                }
                "limit" => {
                    f.limit = match v.parse::<usize>() {
                        Ok(n @ 1..=MAX_LIMIT) => n,
                        _ => return Err(FilterError::Limit),
                    }
                }
                other => return Err(FilterError::Unknown(other.to_string())),
            }
        }
        Ok(f)
    }

    /// Whether the filters but the path's keep an entry (those read its parts as they are).
    fn keeps_raw(&self, e: &Entry) -> bool {
        let s = &e.event;
        self.status.is_none_or(|st| st.keeps(s.status))
            && self
                .role
                .as_ref()
                .is_none_or(|r| s.role().is_some_and(|x| x.to_lowercase() == *r))
            && self.user.as_ref().is_none_or(|u| {
                s.sub()
                    .is_some_and(|x| x.to_lowercase().contains(u.as_str()))
            })
            && self.since.is_none_or(|t| s.at.timestamp_millis() >= t)
            && self.before.is_none_or(|b| e.seq < b)
    }
}

/// Cuts an event to size: long texts (the SQL has more room), long lists and large objects,
/// then, if the whole is still too large, its parameters, RLS, claims and headers (`truncated`
/// says which went).
/// Returns the event's JSON text.
pub fn bound(event: &mut Value) -> String {
    cut(event, "");
    let mut text = event.to_string();
    let mut dropped = Vec::new();
    for key in ["params", "rls", "claims", "headers"] {
        if text.len() <= MAX_ENTRY_BYTES {
            break;
        }
        if let Some(map) = event.as_object_mut()
            && map.remove(key).is_some()
        {
            dropped.push(key);
            text = event.to_string();
        }
    }
    if !dropped.is_empty()
        && let Some(map) = event.as_object_mut()
    {
        map.insert("truncated".into(), dropped.into());
        text = event.to_string();
    }
    text
}

fn cut(v: &mut Value, key: &str) {
    match v {
        Value::String(s) => {
            let max = if key == "sql" { MAX_SQL } else { MAX_TEXT };
            if s.len() > max {
                let mut end = max;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                let more = s.len() - end;
                s.truncate(end);
                s.push_str(&format!("… ({more} bytes more)"));
            }
        }
        Value::Array(items) => {
            if items.len() > MAX_ITEMS {
                let more = items.len() - MAX_ITEMS;
                items.truncate(MAX_ITEMS);
                items.push(format!("… ({more} more)").into());
            }
            items.iter_mut().for_each(|i| cut(i, ""));
        }
        Value::Object(map) => {
            if map.len() > MAX_ITEMS {
                let extra: Vec<String> = map.keys().skip(MAX_ITEMS).cloned().collect();
                for k in &extra {
                    map.remove(k);
                }
                map.insert("…".into(), format!("{} more", extra.len()).into());
            }
            for (k, item) in map.iter_mut() {
                cut(item, k);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(seq: u64, path: &str, status: u16, role: &str, sub: Option<&str>) -> Event {
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let mut headers = actix_web::http::header::HeaderMap::new();
        headers.insert(
            actix_web::http::header::ACCEPT,
            actix_web::http::header::HeaderValue::from_static("*/*"),
        );
        let headers = crate::inspector::Headers::of(&headers);
        Event {
            id: format!("r{seq}").into(),
            at: "2026-11-28T12:00:00.000Z".parse().unwrap(),
            method: actix_web::http::Method::GET,
            path: path.into(),
            query: query.into(),
            status,
            ms: 1.54,
            branch: None,
            who: Some(identity::Identity {
                claims: std::sync::Arc::new(identity::jwt::Claims::new(match sub {
                    Some(sub) => json!({"role": role, "sub": sub}),
                    None => json!({"role": role}),
                })),
            }),
            headers,
            rest: None,
        }
    }

    fn pairs(q: &[(&str, &str)]) -> Vec<(String, String)> {
        q.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn paths_name_their_service() {
        let cases = [
            ("/rest/v1/todos?select=*", Service::Rest),
            ("/rest/v1", Service::Rest),
            ("/rest/v10/x", Service::Other),
            ("/graphql/v1", Service::Graphql),
            ("/auth/v1/token?grant_type=password", Service::Auth),
            ("/storage/v1/object/b/f", Service::Storage),
            (
                "/realtime/v1/websocket?apikey=[redacted]",
                Service::Realtime,
            ),
            ("/functions/v1/hello", Service::Functions),
            ("/_supagate/v1/requests", Service::Workbench),
            ("/", Service::Other),
            ("/index.html", Service::Other),
        ];
        for (path, want) in cases {
            assert_eq!(Service::of(path), want, "{path}");
        }
    }

    #[test]
    fn each_service_keeps_its_last_requests() {
        let h = History::new(3);
        for i in 1..=10 {
            h.record(i, event(i, "/rest/v1/t", 200, "anon", None));
        }
        h.record(11, event(11, "/auth/v1/user", 401, "anon", None));
        let kept: Vec<(Service, usize)> = h.kept().into_iter().filter(|(_, n)| *n > 0).collect();
        assert_eq!(kept, [(Service::Rest, 3), (Service::Auth, 1)]);
        let seqs: Vec<u64> = h.list(&Filter::default()).iter().map(|s| s.seq).collect();
        assert_eq!(seqs, [11, 10, 9, 8]);
        assert!(h.get(7).is_none());
        let nine: Value = serde_json::from_str(&h.get(9).unwrap()).unwrap();
        assert_eq!(
            (&nine["seq"], &nine["id"], &nine["ms"]),
            (&json!(9), &json!("r9"), &json!(1.5))
        );
        assert_eq!(nine["at"], json!("2026-11-28T12:00:00.000Z"));
        // Nothing kept at 0.
        let off = History::new(0);
        off.record(1, event(1, "/rest/v1/t", 200, "anon", None));
        assert!(off.list(&Filter::default()).is_empty());
    }

    #[test]
    fn a_service_keeps_a_bounded_number_of_bytes() {
        let h = History::new(MAX_PER_SERVICE);
        let big = "x".repeat(MAX_TEXT);
        for i in 1..=1000 {
            h.record(
                i,
                event(
                    i,
                    &format!("/rest/v1/t?q={}", big.repeat(8)),
                    200,
                    "anon",
                    None,
                ),
            );
        }
        let rings = h.rings.lock();
        let ring = &rings[Service::Rest.index()];
        assert!(ring.bytes <= BYTES_PER_SERVICE, "{}", ring.bytes);
        assert!(ring.entries.len() < 1000);
        assert_eq!(ring.entries.back().unwrap().seq, 1000);
        let measured: usize = ring.entries.iter().map(|e| Entry::bytes(&e.event)).sum();
        assert_eq!(measured, ring.bytes);
    }

    #[test]
    fn an_entry_is_cut_to_size() {
        let mut e = json!({
            "seq": 1, "id": "r1", "method": "GET", "status": 200,
            "path": format!("/rest/v1/t?x={}", "p".repeat(10_000)),
            "sql": "s".repeat(20_000),
            "params": vec!["v".repeat(3000); 200],
            "headers": (0..100)
                .map(|i| (format!("h{i:03}"), json!("x".repeat(100))))
                .collect::<serde_json::Map<_, _>>(),
        });
        let text = bound(&mut e);
        assert_eq!(text, e.to_string());
        assert!(text.len() <= MAX_ENTRY_BYTES, "{}", text.len());
        assert!(e["path"].as_str().unwrap().ends_with("bytes more)"));
        assert!(e["sql"].as_str().unwrap().starts_with(&"s".repeat(MAX_SQL)));
        assert_eq!(e["truncated"], json!(["params"]));
        assert_eq!(e["headers"].as_object().unwrap().len(), MAX_ITEMS + 1);
        // Multi-byte text is cut at a character.
        let mut e = json!({"path": "é".repeat(MAX_TEXT)});
        bound(&mut e);
        assert!(e["path"].as_str().unwrap().starts_with("éé"));
    }

    #[test]
    fn filters_are_read_from_the_query_string() {
        let ok = |q: &[(&str, &str)]| Filter::parse(&pairs(q)).unwrap();
        assert_eq!(ok(&[]), Filter::default());
        let f = ok(&[
            ("status", "4xx"),
            ("path", "Todos"),
            ("role", "anon"),
            ("user", "ABC"),
            ("service", "rest"),
            ("since", "2026-11-28T12:00:00Z"),
            ("before", "42"),
            ("limit", "10"),
            ("ignored-when-empty", ""),
        ]);
        assert_eq!(f.status, Some(StatusFilter::Class(4)));
        assert_eq!(f.path.as_deref(), Some("todos"));
        assert_eq!(f.user.as_deref(), Some("abc"));
        assert_eq!(f.service, Some(Service::Rest));
        assert_eq!(f.since, Some(1_795_867_200_000));
        assert_eq!((f.before, f.limit), (Some(42), 10));
        assert_eq!(
            ok(&[("status", "404")]).status,
            Some(StatusFilter::Exact(404))
        );
        assert_eq!(
            ok(&[("status", "error")]).status,
            Some(StatusFilter::Errors)
        );
        let long = "x".repeat(MAX_NEEDLE + 1);
        let bad: &[(&str, &str, &str)] = &[
            ("status", "4x", "is not a status"),
            ("status", "6xx", "is not a status"),
            ("status", "99", "is not a status"),
            ("service", "mail", "is none of rest"),
            ("since", "yesterday", "is not a time"),
            ("before", "-1", "is not a request's seq"),
            ("limit", "0", "from 1 to 500"),
            ("limit", "501", "from 1 to 500"),
            ("path", &long, "at most 256 bytes"),
            ("order", "x", "no filter \"order\""),
        ];
        for (k, v, why) in bad {
            let e = Filter::parse(&pairs(&[(k, v)])).unwrap_err();
            assert!(e.to_string().contains(why), "{k}={v}: {e}");
        }
    }

    #[test]
    fn a_listing_keeps_what_its_filters_ask() {
        let h = History::new(100);
        h.record(1, event(1, "/rest/v1/todos?id=eq.1", 200, "anon", None));
        h.record(
            2,
            event(2, "/rest/v1/todos", 404, "authenticated", Some("u-1")),
        );
        h.record(3, event(3, "/auth/v1/token", 400, "anon", None));
        h.record(
            4,
            event(4, "/rest/v1/notes", 500, "authenticated", Some("u-2")),
        );
        let mut late = event(5, "/storage/v1/object/b", 200, "service_role", None);
        late.at = "2026-11-28T13:00:00.000Z".parse().unwrap();
        h.record(5, late);
        let seqs = |q: &[(&str, &str)]| -> Vec<u64> {
            h.list(&Filter::parse(&pairs(q)).unwrap())
                .iter()
                .map(|s| s.seq)
                .collect()
        };
        type Query<'a> = &'a [(&'a str, &'a str)];
        let cases: &[(Query, &[u64])] = &[
            (&[], &[5, 4, 3, 2, 1]),
            (&[("status", "4xx")], &[3, 2]),
            (&[("status", "error")], &[4, 3, 2]),
            (&[("status", "404")], &[2]),
            (&[("path", "TODOS")], &[2, 1]),
            (&[("role", "authenticated")], &[4, 2]),
            (&[("user", "u-")], &[4, 2]),
            (&[("user", "u-2")], &[4]),
            (&[("service", "auth")], &[3]),
            (&[("service", "rest"), ("status", "2xx")], &[1]),
            (&[("since", "2026-11-28T12:30:00Z")], &[5]),
            (&[("before", "4"), ("limit", "2")], &[3, 2]),
        ];
        for (q, want) in cases {
            assert_eq!(seqs(q), *want, "{q:?}");
        }
        let first = &h.list(&Filter::default())[4];
        assert_eq!(first.service, Service::Rest);
        assert_eq!(first.id, "r1");
    }

    #[test]
    fn secrets_are_blanked_where_shown_and_never_searched() {
        let h = History::new(10);
        let mut e = event(
            1,
            "/auth/v1/verify?token=s3cr3t-t0ken&type=signup",
            400,
            "anon",
            None,
        );
        let mut headers = e.headers.map();
        headers.insert(
            actix_web::http::header::AUTHORIZATION,
            actix_web::http::header::HeaderValue::from_static("Bearer eyJ.s3cr3t.sig"),
        );
        headers.append(
            actix_web::http::header::ACCEPT,
            actix_web::http::header::HeaderValue::from_static("text/html"),
        );
        e.headers = crate::inspector::Headers::of(&headers);
        h.record(1, e);
        let listed = h.list(&Filter::default());
        assert_eq!(
            listed[0].path,
            "/auth/v1/verify?token=[redacted]&type=signup"
        );
        let detail = h.get(1).unwrap();
        assert!(!detail.contains("s3cr3t"), "{detail}");
        let detail: Value = serde_json::from_str(&detail).unwrap();
        assert_eq!(
            detail["headers"]["authorization"],
            json!("Bearer [redacted]")
        );
        assert_eq!(detail["headers"]["accept"], json!("*/*, text/html"));
        let found = |p: &str| {
            h.list(&Filter::parse(&pairs(&[("path", p)])).unwrap())
                .len()
        };
        assert_eq!((found("s3cr3t"), found("type=signup")), (0, 1));
    }

    #[test]
    fn a_rest_request_s_headers_are_shown_from_its_transaction_s_text() {
        let h = History::new(10);
        let mut e = event(
            1,
            "/rest/v1/notes?select=*",
            200,
            "authenticated",
            Some("u-1"),
        );
        e.headers = crate::inspector::Headers::Json(
            r#"{"apikey":"sb_secret_k3y","authorization":"Bearer eyJ.s3cr3t.sig","accept":"*/*","x-real-ip":"10.0.0.7"}"#
                .into(),
        );
        h.record(1, e);
        let detail = h.get(1).unwrap();
        assert!(
            !detail.contains("s3cr3t") && !detail.contains("k3y"),
            "{detail}"
        );
        let detail: Value = serde_json::from_str(&detail).unwrap();
        assert_eq!(
            detail["headers"]["authorization"],
            json!("Bearer [redacted]")
        );
        assert_eq!(detail["headers"]["accept"], json!("*/*"));
        assert_eq!(detail["headers"]["x-real-ip"], json!("10.0.0.7"));
        assert_eq!(detail["claims"], Value::Null, "not a REST part: no claims");
        assert_eq!(
            (detail["role"].clone(), detail["sub"].clone()),
            (json!("authenticated"), json!("u-1"))
        );
    }
}
