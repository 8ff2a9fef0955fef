//! `/realtime/v1` routes: the socket, and broadcasting over HTTP (`POST /api/broadcast` with a
//! batch, `POST /api/broadcast/{topic}/events/{event}` with one JSON or binary payload), as
//! Supabase Realtime serves them.

mod socket;

use crate::error::GatewayError;
use crate::http_util::{BodyError, header, query_pairs, read_body};
use crate::request_auth::identify;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use realtime::api::{BroadcastError, OneBroadcast};
use realtime::tokens::Identity;
use serde_json::{Value, json};
use std::sync::Arc;

type Data = crate::branches::State;
type Reply = Result<HttpResponse, GatewayError>;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/realtime/v1")
            .route("/websocket", web::get().to(socket::websocket))
            .route("/api/broadcast", web::post().to(broadcast_batch))
            .route(
                "/api/broadcast/{topic}/events/{event}",
                web::post().to(broadcast_one),
            )
            .default_service(web::to(|| async {
                HttpResponse::NotFound().json(json!({"message": "Not Found"}))
            })),
    );
}

fn error(status: u16, message: impl Into<String>) -> GatewayError {
    GatewayError::Realtime {
        status,
        message: message.into(),
        errors: None,
    }
}

impl From<BroadcastError> for GatewayError {
    fn from(e: BroadcastError) -> Self {
        GatewayError::Realtime {
            status: e.status(),
            errors: e.errors().cloned(),
            message: e.to_string(),
        }
    }
}

/// The caller, as a REST request would be identified.
fn caller(req: &HttpRequest, state: &AppState) -> Result<Identity, GatewayError> {
    let who =
        identify(req, &state.keys, state.local_keys()).map_err(|e| error(e.status, e.message))?;
    let exp = who
        .claims
        .value
        .get("exp")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    Ok(Identity {
        role: who.role().to_string(),
        claims: who.claims.value.clone(),
        exp,
    })
}

fn realtime(state: &AppState) -> Result<&Arc<realtime::Realtime>, GatewayError> {
    state
        .realtime
        .as_ref()
        .ok_or_else(|| error(404, "Realtime is not enabled"))
}

async fn body(payload: web::Payload, state: &AppState) -> Result<bytes::Bytes, GatewayError> {
    read_body(payload, state.config.max_body_bytes)
        .await
        .map_err(|e| match e {
            BodyError::TooLarge => error(413, "Payload too large"),
            BodyError::TimedOut => error(408, "Request timed out"),
            BodyError::Broken => error(400, "Request body could not be read"),
        })
}

/// `{"messages": [{"topic", "event", "payload", "private"?, "id"?}]}` → 202.
async fn broadcast_batch(req: HttpRequest, payload: web::Payload, state: Data) -> Reply {
    let rt = realtime(&state)?;
    let who = caller(&req, &state)?;
    let bytes = body(payload, &state).await?;
    rt.broadcast_batch(&who, &bytes).await?;
    Ok(HttpResponse::Accepted().finish())
}

/// One message to `topic`, JSON or binary (`application/octet-stream`); `?private=true` for a
/// private topic, `persist` to store it for replay (private topics only).
async fn broadcast_one(
    req: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
    state: Data,
) -> Reply {
    let rt = realtime(&state)?;
    let who = caller(&req, &state)?;
    let (topic, event) = path.into_inner();
    let query = query_pairs(req.query_string());
    let param = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let one = OneBroadcast {
        topic,
        event,
        private: param("private") == Some("true"),
        persist: param("persist") == Some("true") || param("persist[ttl]").is_some(),
        content_type: header(&req, "content-type").unwrap_or("application/json"),
        body: body(payload, &state).await?,
    };
    rt.broadcast_one(&who, one).await?;
    Ok(HttpResponse::Accepted().finish())
}
