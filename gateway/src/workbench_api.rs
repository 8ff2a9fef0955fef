//! `/_supagate/v1`: the testing workbench over HTTP (service role, from loopback only).
//!
//! - `POST /branches` `{"name"?}`, `GET /branches`, `DELETE /branches/{name}`: a database per
//!   test worker (requests with `x-supagate-branch: NAME` are served by it).
//! - `GET /codes?to=ADDRESS`: codes and links the auth API sent by mail and text;
//!   `GET /mail?to=ADDRESS`: the mail caught.
//! - `DELETE /users`: every user goes. `POST /tables/truncate` `{"tables", "cascade"?}`.
//! - `GET /clock`, `PUT /clock` `{"offset_seconds"}`: the clock tokens are issued and
//!   checked by.
//! - `GET /requests`: the request inspector, as server-sent events.
//!
//! Everything but the branch routes acts on the database of the branch the request names.
//!
//! Web pages cannot drive it: the public demo service key is no secret, so a page any
//! developer opens could otherwise call these endpoints from their browser. A request that
//! carries an `Origin` not listed in `--workbench-origins`, or that a browser marks as sent
//! from another site (`Sec-Fetch-Site`), is refused before CORS is considered, so its answer
//! carries no CORS headers either (see [`cross_origin`]).

use crate::branches::{BranchError, State};
use crate::request_auth::resolved;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use serde::Deserialize;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum WorkbenchError {
    #[error("the workbench API needs the service_role key")]
    Unauthorized,
    #[error("the workbench API answers loopback clients only")]
    NotLoopback,
    #[error(
        "the workbench API does not answer web pages of other sites (list an origin in \
         --workbench-origins to allow one)"
    )]
    CrossOrigin,
    #[error("{0}")]
    Branch(#[from] BranchError),
    #[error("{0}")]
    Invalid(String),
    #[error("the request body is larger than {BODY_LIMIT} bytes")]
    TooLarge,
    #[error("{0}")]
    Failed(String),
}

/// Largest workbench request body (names and lists of tables: a few hundred bytes).
const BODY_LIMIT: usize = 64 * 1024;

impl ResponseError for WorkbenchError {
    fn status_code(&self) -> actix_web::http::StatusCode {
        use actix_web::http::StatusCode;
        match self {
            WorkbenchError::Unauthorized => StatusCode::UNAUTHORIZED,
            WorkbenchError::NotLoopback | WorkbenchError::CrossOrigin => StatusCode::FORBIDDEN,
            WorkbenchError::Branch(b) => b.status_code(),
            WorkbenchError::Invalid(_) => StatusCode::BAD_REQUEST,
            WorkbenchError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            WorkbenchError::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let code = match self {
            WorkbenchError::Unauthorized => "no_authorization",
            WorkbenchError::NotLoopback => "not_loopback",
            WorkbenchError::CrossOrigin => "cross_origin",
            WorkbenchError::Branch(b) => return b.error_response(),
            WorkbenchError::Invalid(_) => "validation_failed",
            WorkbenchError::TooLarge => "request_too_large",
            WorkbenchError::Failed(_) => "unexpected_failure",
        };
        HttpResponse::build(self.status_code())
            .json(serde_json::json!({"code": code, "message": self.to_string()}))
    }
}

impl From<workbench::emulator::EmulatorError> for WorkbenchError {
    fn from(e: workbench::emulator::EmulatorError) -> Self {
        match e {
            workbench::emulator::EmulatorError::Database(d) => {
                WorkbenchError::Failed(d.to_string())
            }
            other => WorkbenchError::Invalid(other.to_string()),
        }
    }
}

type Result<T> = std::result::Result<T, WorkbenchError>;

/// Service role, from loopback.
fn allowed(req: &HttpRequest, state: &AppState) -> Result<()> {
    if !req.peer_addr().is_some_and(|a| a.ip().is_loopback()) {
        return Err(WorkbenchError::NotLoopback);
    }
    match resolved(req, &state.keys, state.local_keys()) {
        Ok(i) if i.role() == "service_role" => Ok(()),
        _ => Err(WorkbenchError::Unauthorized),
    }
}

/// The project's own state: branches are made from it, whatever branch a request names.
type Main = web::Data<Arc<AppState>>;

fn branches(req: &HttpRequest) -> Result<Arc<crate::branches::Branches>> {
    crate::branches::registered(req).ok_or(BranchError::Off.into())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct NewBranch {
    name: Option<String>,
}

async fn create_branch(req: HttpRequest, state: Main, body: web::Payload) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    let body = crate::http_util::read_body(body, BODY_LIMIT)
        .await
        .map_err(|e| match e {
            crate::http_util::BodyError::TooLarge => WorkbenchError::TooLarge,
            crate::http_util::BodyError::TimedOut => {
                WorkbenchError::Invalid("the request body did not arrive in time".into())
            }
            crate::http_util::BodyError::Broken => {
                WorkbenchError::Invalid("the request body could not be read".into())
            }
        })?;
    let body: NewBranch = if body.iter().all(u8::is_ascii_whitespace) {
        NewBranch::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| WorkbenchError::Invalid(format!("the body is not a branch: {e}")))?
    };
    let name = body
        .name
        .unwrap_or_else(|| format!("b{}", &uuid::Uuid::new_v4().simple().to_string()[..12]));
    let took = branches(&req)?.create(&name).await?;
    Ok(HttpResponse::Created().json(serde_json::json!({
        "name": name,
        "header": crate::branches::HEADER,
        "ms": took.as_secs_f64() * 1000.0,
    })))
}

async fn list_branches(req: HttpRequest, state: Main) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    Ok(HttpResponse::Ok().json(branches(&req)?.list().await?))
}

async fn delete_branch(
    req: HttpRequest,
    state: Main,
    name: web::Path<String>,
) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    branches(&req)?.remove(&name).await?;
    Ok(HttpResponse::NoContent().finish())
}

async fn owner(state: &State) -> Result<tokio_postgres::Client> {
    pg::connect(&state.admin)
        .await
        .map_err(|e| WorkbenchError::Failed(e.to_string()))
}

#[derive(Deserialize)]
struct To {
    to: Option<String>,
}

async fn codes(req: HttpRequest, state: State, q: web::Query<To>) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    let c = owner(&state).await?;
    let sent = workbench::emulator::sent(&c, q.to.as_deref()).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "codes": sent })))
}

async fn mail(req: HttpRequest, state: State, q: web::Query<To>) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    let c = owner(&state).await?;
    let messages = workbench::emulator::mail(&c, q.to.as_deref()).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "messages": messages })))
}

async fn delete_users(req: HttpRequest, state: State) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    let n = workbench::emulator::delete_users(&owner(&state).await?).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "deleted": n })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Truncate {
    tables: Vec<String>,
    #[serde(default)]
    cascade: bool,
}

async fn truncate(
    req: HttpRequest,
    state: State,
    body: web::Json<Truncate>,
) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    workbench::emulator::truncate(&owner(&state).await?, &body.tables, body.cascade).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Clock {
    offset_seconds: i64,
}

/// A year either way is plenty to see any token expire.
const MAX_OFFSET: i64 = 366 * 24 * 3600;

fn clock_body() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({
        "offset_seconds": identity::clock::clock_offset(),
        "now": identity::clock::now(),
    }))
}

async fn get_clock(req: HttpRequest, state: State) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    Ok(clock_body())
}

async fn set_clock(req: HttpRequest, state: State, body: web::Json<Clock>) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    if body.offset_seconds.abs() > MAX_OFFSET {
        return Err(WorkbenchError::Invalid(format!(
            "offset_seconds is at most {MAX_OFFSET} either way"
        )));
    }
    identity::clock::set_clock_offset(body.offset_seconds);
    Ok(clock_body())
}

/// The inspector's events as they happen (`text/event-stream`, one `data:` line each).
async fn requests(req: HttpRequest, state: Main) -> Result<HttpResponse> {
    allowed(&req, &state)?;
    Ok(state.inspector.follow())
}

/// Where the workbench's routes are.
const PREFIX: &str = "/_supagate/";

/// The refusal of a request to the workbench from a web page of a site not listed, or None.
/// Called by the guard in front of CORS: a refused request gets no CORS headers.
pub(crate) fn cross_origin(req: &actix_web::dev::ServiceRequest) -> Option<HttpResponse> {
    if !req.path().starts_with(PREFIX) {
        return None;
    }
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok());
    let listed = |origin: &str| {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        req.app_data::<Main>()
            .is_some_and(|s| s.config.workbench_origins.contains(&origin))
    };
    let refused = match header("origin") {
        Some(origin) => !listed(origin),
        // No Origin (a GET from a page sends none): the browser's own word on where it came
        // from. Tools (curl, Node, test runners) send neither header.
        None => matches!(header("sec-fetch-site"), Some("cross-site" | "same-site")),
    };
    refused.then(|| WorkbenchError::CrossOrigin.error_response())
}

pub fn routes(c: &mut web::ServiceConfig) {
    c.service(
        web::scope("/_supagate/v1")
            // JSON bodies bounded, their errors in the workbench's shape (413 past the limit,
            // announced or not).
            .app_data(
                web::JsonConfig::default()
                    .limit(BODY_LIMIT)
                    .error_handler(|e, _| match e {
                        actix_web::error::JsonPayloadError::Overflow { .. }
                        | actix_web::error::JsonPayloadError::OverflowKnownLength { .. } => {
                            WorkbenchError::TooLarge.into()
                        }
                        other => WorkbenchError::Invalid(other.to_string()).into(),
                    }),
            )
            .route("/branches", web::post().to(create_branch))
            .route("/branches", web::get().to(list_branches))
            .route("/branches/{name}", web::delete().to(delete_branch))
            .route("/codes", web::get().to(codes))
            .route("/mail", web::get().to(mail))
            .route("/users", web::delete().to(delete_users))
            .route("/tables/truncate", web::post().to(truncate))
            .route("/clock", web::get().to(get_clock))
            .route("/clock", web::put().to(set_clock))
            .route("/requests", web::get().to(requests)),
    );
}
