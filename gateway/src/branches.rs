//! Branches (a database per test worker): requests that carry `x-supagate-branch: NAME` (or,
//! for a WebSocket, the query parameter of that name, which supabase-js' `realtime.params`
//! sets) are served by services of their own on branch NAME's database. The branches are
//! databases in the cluster (see `workbench::branch`): a gateway that has not served a branch
//! yet builds its services when a request first names it.

use crate::state::AppState;
use actix_web::{FromRequest, HttpRequest, HttpResponse, ResponseError, web};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use workbench::branch::Cluster;

/// The header (and query parameter) naming a branch.
pub const HEADER: &str = "x-supagate-branch";

/// Why a [`Factory`] could not build a branch's services (the builder's own error).
pub type BuildError = Box<dyn std::error::Error + Send + Sync>;

/// Builds the services of a branch from its database's name.
pub type Factory = Arc<
    dyn Fn(String) -> Pin<Box<dyn Future<Output = Result<Served, BuildError>> + Send>>
        + Send
        + Sync,
>;

/// One branch's services and their background work (stopped with them).
pub struct Served {
    pub state: Arc<AppState>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Served {
    pub fn new(state: Arc<AppState>, tasks: Vec<tokio::task::JoinHandle<()>>) -> Self {
        Served { state, tasks }
    }

    async fn stop(&self) {
        if let Some(rt) = &self.state.realtime {
            rt.shutdown().await;
        }
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BranchError {
    #[error("no branch named {0:?} (POST /_supagate/v1/branches makes one)")]
    NotFound(String),
    #[error("branches are served to loopback clients only")]
    Off,
    #[error("{0}")]
    Invalid(String),
    #[error("branch {0:?}: {1}")]
    Failed(String, String),
    /// The factory failed (the branch's name, its error).
    #[error("branch {0:?}: {1}")]
    Build(String, #[source] BuildError),
}

impl ResponseError for BranchError {
    fn status_code(&self) -> actix_web::http::StatusCode {
        use actix_web::http::StatusCode;
        match self {
            BranchError::NotFound(_) | BranchError::Off => StatusCode::NOT_FOUND,
            BranchError::Invalid(_) => StatusCode::BAD_REQUEST,
            BranchError::Failed(..) | BranchError::Build(..) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let code = match self {
            BranchError::NotFound(_) => "branch_not_found",
            BranchError::Off => "branches_off",
            BranchError::Invalid(_) => "validation_failed",
            BranchError::Failed(..) | BranchError::Build(..) => "branch_failed",
        };
        HttpResponse::build(self.status_code())
            .json(serde_json::json!({"code": code, "message": self.to_string()}))
    }
}

impl From<workbench::snapshot::SnapshotError> for BranchError {
    fn from(e: workbench::snapshot::SnapshotError) -> Self {
        match e {
            workbench::snapshot::SnapshotError::BadName(_) => BranchError::Invalid(e.to_string()),
            other => BranchError::Failed(String::new(), other.to_string()),
        }
    }
}

pub struct Branches {
    factory: Factory,
    cluster: Cluster,
    served: tokio::sync::Mutex<HashMap<String, Arc<Served>>>,
    /// Made by this gateway: dropped when it stops.
    made_here: parking_lot::Mutex<HashSet<String>>,
}

impl Branches {
    pub fn new(factory: Factory, cluster: Cluster) -> Arc<Branches> {
        Arc::new(Branches {
            factory,
            cluster,
            served: Default::default(),
            made_here: Default::default(),
        })
    }

    /// Makes branch `name` (a copy of the served database as it is now), replacing one of that
    /// name. Returns how long the copy took.
    pub async fn create(&self, name: &str) -> Result<Duration, BranchError> {
        self.stop_serving(name).await;
        let took = self
            .cluster
            .create(name)
            .await
            .map_err(|e| with_name(name, e))?;
        self.made_here.lock().insert(name.to_string());
        Ok(took)
    }

    /// The services of branch `name`, built on first use.
    pub async fn state(&self, name: &str) -> Result<Arc<AppState>, BranchError> {
        let mut served = self.served.lock().await;
        if let Some(s) = served.get(name) {
            return Ok(s.state.clone());
        }
        self.ensure_exists(name).await?;
        let s = (self.factory)(Cluster::database(name))
            .await
            .map_err(|e| BranchError::Build(name.to_string(), e))?;
        let state = s.state.clone();
        served.insert(name.to_string(), Arc::new(s));
        Ok(state)
    }

    async fn ensure_exists(&self, name: &str) -> Result<(), BranchError> {
        match self.cluster.exists(name).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(BranchError::NotFound(name.to_string())),
            Err(e) => Err(with_name(name, e)),
        }
    }

    async fn stop_serving(&self, name: &str) {
        let gone = self.served.lock().await.remove(name);
        if let Some(s) = gone {
            s.stop().await;
        }
    }

    /// Drops branch `name`: its services stop, its database goes.
    pub async fn remove(&self, name: &str) -> Result<(), BranchError> {
        self.ensure_exists(name).await?;
        self.stop_serving(name).await;
        self.made_here.lock().remove(name);
        self.cluster
            .remove(name)
            .await
            .map_err(|e| with_name(name, e))
    }

    pub async fn list(&self) -> Result<Vec<workbench::snapshot::Listed>, BranchError> {
        Ok(self.cluster.list().await?)
    }

    /// Drops every branch of the cluster: those a gateway that ended without stopping left
    /// behind (called by the gateway that owns the embedded cluster, as it starts).
    pub async fn drop_left_behind(&self) {
        match self.cluster.list().await {
            Ok(all) => {
                for b in all {
                    match self.cluster.remove(&b.name).await {
                        Ok(()) => tracing::info!("dropped branch {} left behind", b.name),
                        Err(e) => tracing::warn!("cannot drop branch {}: {e}", b.name),
                    }
                }
            }
            Err(e) => tracing::warn!("cannot list branches: {e}"),
        }
    }

    /// Drops the branches this gateway made (as it stops).
    pub async fn drop_all(&self) {
        let names: Vec<String> = self.made_here.lock().drain().collect();
        for name in names {
            self.stop_serving(&name).await;
            if let Err(e) = self.cluster.remove(&name).await {
                tracing::warn!("cannot drop branch {name}: {e}");
            }
        }
    }
}

fn with_name(name: &str, e: workbench::snapshot::SnapshotError) -> BranchError {
    match BranchError::from(e) {
        BranchError::Failed(_, m) => BranchError::Failed(name.to_string(), m),
        other => other,
    }
}

/// The branch a request names, if any.
pub fn requested(req: &HttpRequest) -> Option<String> {
    const NAME: actix_web::http::header::HeaderName =
        actix_web::http::header::HeaderName::from_static(HEADER);
    if let Some(v) = req.headers().get(NAME) {
        return Some(v.to_str().unwrap_or_default().to_string());
    }
    let query = req.query_string();
    if !may_name_a_branch(query) {
        return None;
    }
    // The last one, as a map of the pairs keeps it. Only a key spelled out or encoded can be
    // the name: the others are not decoded.
    query
        .split('&')
        .filter(|pair| {
            let key = pair.split('=').next().unwrap_or_default();
            key == HEADER || key.bytes().any(|b| b == b'%' || b == b'+')
        })
        .flat_map(|pair| form_urlencoded::parse(pair.as_bytes()))
        .filter(|(k, _)| k == HEADER)
        .last()
        .map(|(_, v)| v.into_owned())
}

/// Whether a query string may have a pair naming the branch: a key that starts with the name,
/// or an escape anywhere. Every request without a branch (nearly all) stops here: a vectorised
/// search for the escapes, and the name compared only where a key starts.
fn may_name_a_branch(query: &str) -> bool {
    let bytes = query.as_bytes();
    let name = HEADER.as_bytes();
    memchr::memchr2(b'%', b'+', bytes).is_some()
        || bytes.starts_with(name)
        || memchr::memchr_iter(b'&', bytes).any(|i| bytes[i + 1..].starts_with(name))
}

/// The project's branches, as the server registers them beside the state (none for a gateway
/// without them).
pub fn registered(req: &HttpRequest) -> Option<Arc<Branches>> {
    req.app_data::<web::Data<Option<Arc<Branches>>>>()
        .and_then(|d| d.get_ref().clone())
}

/// What handlers take instead of the application's state: the state of the branch the request
/// names, or the project's.
#[derive(Clone)]
pub struct State(pub Arc<AppState>);

impl std::ops::Deref for State {
    type Target = Arc<AppState>;
    fn deref(&self) -> &Arc<AppState> {
        &self.0
    }
}

impl FromRequest for State {
    type Error = BranchError;
    type Future = futures_util::future::Either<
        std::future::Ready<Result<State, BranchError>>,
        Pin<Box<dyn Future<Output = Result<State, BranchError>>>>,
    >;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let main = req
            .app_data::<web::Data<Arc<AppState>>>()
            .expect("the application's state")
            .get_ref()
            .clone();
        let branches = registered(req);
        let Some(name) = requested(req) else {
            return futures_util::future::Either::Left(std::future::ready(Ok(State(main))));
        };
        // Branches are a local testing tool: only loopback clients reach them.
        let local = req.peer_addr().is_some_and(|a| a.ip().is_loopback());
        futures_util::future::Either::Right(Box::pin(async move {
            match branches {
                Some(b) if local => b.state(&name).await.map(State),
                _ => Err(BranchError::Off),
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_branch_is_named_by_header_or_query() {
        // (header, query string, branch)
        let cases = [
            (Some("one"), "x-supagate-branch=two", Some("one")),
            (None, "apikey=k&x-supagate-branch=two", Some("two")),
            (
                None,
                "x-supagate-branch=a&x-supagate-branch=b%20c",
                Some("b c"),
            ),
            (None, "x%2Dsupagate%2Dbranch=encoded", Some("encoded")),
            (None, "select=*&id=eq.1", None),
            (None, "select=x-supagate-branch&&x-supagate-branchy=z", None),
            (
                None,
                "&&x-supagate-branch=after-empty-pairs",
                Some("after-empty-pairs"),
            ),
            (None, "a=1&x-supagate-branch", Some("")),
            (None, "x+supagate-branch=plus", None),
            (None, "", None),
        ];
        for (header, query, want) in cases {
            let mut r = actix_web::test::TestRequest::with_uri(&format!("/rest/v1/t?{query}"));
            if let Some(h) = header {
                r = r.insert_header((HEADER, h));
            }
            assert_eq!(requested(&r.to_http_request()).as_deref(), want, "{query}");
        }
    }
}
