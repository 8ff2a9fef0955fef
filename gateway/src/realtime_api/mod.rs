//! `/realtime/v1` routes: the socket, and broadcasting over HTTP as Supabase Realtime's API
//! does it (`POST /api/broadcast` with a batch, `POST /api/broadcast/{topic}/events/{event}`
//! with one JSON or binary payload). Private topics need RLS permission to write.

mod socket;

use crate::error::GatewayError;
use crate::http_util::{BodyError, header, read_body};
use crate::request_auth::identify;
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use realtime::protocol::{Broadcast, UserPayload};
use realtime::tokens::Identity;
use realtime::{MAX_BROADCAST, authz, bus};
use serde_json::{Value, json};
use std::sync::Arc;

type Data = web::Data<Arc<AppState>>;
type Reply = Result<HttpResponse, GatewayError>;

const MAX_MESSAGES: usize = 100;

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

fn invalid(errors: Value) -> GatewayError {
    GatewayError::Realtime {
        status: 422,
        message: "Invalid request".into(),
        errors: Some(errors),
    }
}

/// The caller, as a REST request would be identified.
fn caller(req: &HttpRequest, state: &AppState) -> Result<Identity, GatewayError> {
    let who =
        identify(req, &state.keys, state.local_keys()).map_err(|e| error(e.status, e.message))?;
    let exp = who.claims.get("exp").and_then(Value::as_i64).unwrap_or(0);
    Ok(Identity {
        role: who.role,
        claims: who.claims,
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
    let doc: Value =
        serde_json::from_slice(&bytes).map_err(|e| error(400, format!("invalid JSON: {e}")))?;
    let Some(list) = doc.get("messages").and_then(Value::as_array) else {
        return Err(invalid(json!({"messages": ["can't be blank"]})));
    };
    if list.len() > MAX_MESSAGES {
        return Err(error(
            429,
            "Too many messages to broadcast, please reduce the batch size",
        ));
    }
    let mut messages = Vec::with_capacity(list.len());
    let mut errors = Vec::new();
    for m in list {
        let mut e = serde_json::Map::new();
        for field in ["topic", "event"] {
            if !m.get(field).is_some_and(Value::is_string) {
                e.insert(field.into(), json!(["can't be blank"]));
            }
        }
        match m.get("payload") {
            Some(p) if p.is_object() => {
                if p.to_string().len() > MAX_BROADCAST {
                    e.insert(
                        "payload".into(),
                        json!(["Payload size exceeds tenant limit"]),
                    );
                }
            }
            Some(_) => {
                e.insert("payload".into(), json!(["is invalid"]));
            }
            None => {
                e.insert("payload".into(), json!(["can't be blank"]));
            }
        }
        errors.push(Value::Object(e.clone()));
        if e.is_empty() {
            messages.push(m);
        }
    }
    if messages.len() != list.len() {
        return Err(invalid(json!({ "messages": errors })));
    }
    let mut allowed: std::collections::HashMap<String, bool> = Default::default();
    for m in messages {
        let topic = m["topic"].as_str().expect("checked");
        let private = m.get("private").is_some_and(|p| p == &json!(true));
        if private {
            let ok = match allowed.get(topic) {
                Some(ok) => *ok,
                None => {
                    let ok = authz::can_write(rt, &who, topic, "broadcast")
                        .await
                        .map_err(|e| error(503, e))?;
                    allowed.insert(topic.to_string(), ok);
                    ok
                }
            };
            if !ok {
                continue;
            }
        }
        let msg = Broadcast {
            event: m["event"].as_str().expect("checked").to_string(),
            payload: UserPayload::Json(m["payload"].to_string()),
            meta: m.get("id").map(|id| json!({ "id": id })),
        };
        bus::broadcast(rt, topic, private, &msg, None).await;
    }
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
    let query = crate::http_util::query_pairs(req.query_string());
    let param = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let private = param("private") == Some("true");
    let persist = param("persist") == Some("true") || param("persist[ttl]").is_some();
    let content_type = header(&req, "content-type").unwrap_or("application/json");
    let bytes = body(payload, &state).await?;
    if bytes.len() > MAX_BROADCAST {
        return Err(error(413, "Payload size exceeds tenant limit"));
    }
    let user = if content_type.starts_with("application/octet-stream") {
        UserPayload::Binary(bytes)
    } else if content_type.starts_with("application/json") {
        serde_json::from_slice::<Value>(&bytes)
            .map_err(|e| invalid(json!({"payload": [format!("is not valid JSON: {e}")]})))?;
        UserPayload::Json(String::from_utf8_lossy(&bytes).into_owned())
    } else {
        return Err(error(
            415,
            "Content-Type must be application/json or application/octet-stream",
        ));
    };
    if persist && !private {
        return Err(invalid(
            json!({"persist": ["is only allowed on private channels"]}),
        ));
    }
    if private
        && !authz::can_write(rt, &who, &topic, "broadcast")
            .await
            .map_err(|e| error(503, e))?
    {
        return Err(error(
            401,
            format!("You do not have permissions to write to this Channel topic: {topic}"),
        ));
    }
    let meta = if persist {
        let id = authz::store(rt, &who, &topic, &event, &user)
            .await
            .map_err(|e| error(401, e))?;
        Some(json!({ "id": id }))
    } else {
        None
    };
    let msg = Broadcast {
        event,
        payload: user,
        meta,
    };
    bus::broadcast(rt, &topic, private, &msg, None).await;
    Ok(HttpResponse::Accepted().finish())
}
