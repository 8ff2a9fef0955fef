//! The WebSocket under a realtime session: the handshake (its `apikey`, serializer version and
//! header size checked as Supabase Realtime checks them), then frames read into the session and
//! the session's outbox written out, heartbeats timed, slow readers cut off.

use actix_web::{HttpRequest, HttpResponse, web};
use actix_ws::AggregatedMessage;
use realtime::hub::Inbox;
use realtime::protocol::{self, Frame, Vsn};
use realtime::{MAX_SOCKETS, Session};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// A client that sends nothing (not even heartbeats) for this long is gone.
const IDLE: Duration = Duration::from_secs(60);
const MAX_FRAME: usize = 1 << 20;
/// A write to a client that does not take it within this long ends the connection.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

fn refuse(status: u16, message: &str) -> HttpResponse {
    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).expect("status"))
        .json(json!({ "error": message }))
}

/// `GET /realtime/v1/websocket?apikey=…&vsn=…`.
pub async fn websocket(
    req: HttpRequest,
    body: web::Payload,
    state: crate::branches::State,
) -> Result<HttpResponse, actix_web::Error> {
    let Some(rt) = state.realtime.clone() else {
        return Ok(refuse(404, "Realtime is not enabled"));
    };
    let head: usize = req.uri().to_string().len()
        + req
            .headers()
            .iter()
            .map(|(k, v)| k.as_str().len() + v.len() + 4)
            .sum::<usize>();
    if head > state.config.realtime_max_header_length {
        return Ok(refuse(431, "Request header fields too large"));
    }
    let query: HashMap<String, String> =
        web::Query::<HashMap<String, String>>::from_query(req.query_string())
            .map(|q| q.into_inner())
            .unwrap_or_default();
    let vsn = match Vsn::parse(query.get("vsn").map(String::as_str)) {
        Ok(v) => v,
        Err(e) => return Ok(refuse(400, &e.to_string())),
    };
    let token = query.get("apikey").cloned().or_else(|| {
        req.headers()
            .get("apikey")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    });
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        return Ok(refuse(401, "API key is missing"));
    };
    if let Err(e) = rt.verify(&token) {
        return Ok(refuse(401, &e.http_message()));
    }
    if rt.sockets() >= MAX_SOCKETS {
        return Ok(refuse(429, "Too many connected users"));
    }
    let (response, session, stream) = actix_ws::handle(&req, body)?;
    let stream = stream
        .max_frame_size(MAX_FRAME)
        .aggregate_continuations()
        .max_continuation_size(MAX_FRAME);
    let shutdown = rt.shutting_down();
    let (conn, inbox) = rt.open_session(vsn, token);
    actix_web::rt::spawn(run(conn, shutdown, session, stream, inbox));
    Ok(response)
}

enum Step {
    Client(Option<Result<AggregatedMessage, actix_ws::ProtocolError>>),
    Out(Option<Frame>),
    Tick,
    TooSlow,
    Shutdown,
}

async fn write(session: &mut actix_ws::Session, frame: Frame) -> bool {
    let sent = match frame {
        Frame::Text(t) => tokio::time::timeout(WRITE_TIMEOUT, session.text(t)).await,
        Frame::Binary(b) => tokio::time::timeout(WRITE_TIMEOUT, session.binary(b)).await,
    };
    matches!(sent, Ok(Ok(())))
}

async fn run(
    mut conn: Session,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
    mut session: actix_ws::Session,
    mut stream: actix_ws::AggregatedMessageStream,
    mut inbox: Inbox,
) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut last_seen = Instant::now();
    let overflow = inbox.overflow.clone();
    let close = loop {
        let step = tokio::select! {
            biased;
            _ = shutdown.changed() => Step::Shutdown,
            _ = overflow.1.notified() => Step::TooSlow,
            f = inbox.rx.recv() => Step::Out(f),
            m = stream.recv() => Step::Client(m),
            _ = tick.tick() => Step::Tick,
        };
        match step {
            Step::Shutdown => {
                break Some(actix_ws::CloseReason {
                    code: actix_ws::CloseCode::Away,
                    description: Some("server restarting".into()),
                });
            }
            Step::TooSlow => {
                tracing::warn!("realtime: closing a socket that does not read its messages");
                break Some(actix_ws::CloseReason {
                    code: actix_ws::CloseCode::Policy,
                    description: Some("too many pending messages".into()),
                });
            }
            Step::Out(None) => break None,
            Step::Out(Some(frame)) => {
                inbox.queued.fetch_sub(frame.size(), Ordering::Relaxed);
                if !write(&mut session, frame).await {
                    break None;
                }
            }
            Step::Tick => {
                if last_seen.elapsed() > IDLE {
                    break Some(actix_ws::CloseReason {
                        code: actix_ws::CloseCode::Normal,
                        description: Some("heartbeat timeout".into()),
                    });
                }
                conn.check_tokens().await;
            }
            Step::Client(None | Some(Err(_)) | Some(Ok(AggregatedMessage::Close(_)))) => {
                break None;
            }
            Step::Client(Some(Ok(m))) => {
                last_seen = Instant::now();
                let decoded = match m {
                    AggregatedMessage::Text(t) => protocol::decode_text(conn.vsn(), &t),
                    AggregatedMessage::Binary(b) => protocol::decode_binary(&b),
                    AggregatedMessage::Ping(p) => {
                        if session.pong(&p).await.is_err() {
                            break None;
                        }
                        continue;
                    }
                    AggregatedMessage::Pong(_) | AggregatedMessage::Close(_) => continue,
                };
                match decoded {
                    Ok(m) => conn.handle(m).await,
                    Err(e) => tracing::debug!("realtime: unreadable message: {e}"),
                }
            }
        }
    };
    conn.close().await;
    // What is already queued (replies, the last messages) goes out before the close.
    while let Ok(frame) = inbox.rx.try_recv() {
        if !write(&mut session, frame).await {
            return;
        }
    }
    let _ = session.close(close).await;
}
