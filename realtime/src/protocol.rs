//! The Phoenix channel protocol as realtime-js speaks it: serializer 1.0.0 (JSON objects),
//! 2.0.0 (JSON arrays, plus binary frames for broadcasts), and the frames the server sends.

use bytes::Bytes;
use serde_json::{Value, json};

/// A frame, or a serializer version, realtime-js would not send.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ProtocolError(String);

impl From<String> for ProtocolError {
    fn from(s: String) -> Self {
        ProtocolError(s)
    }
}

impl From<&str> for ProtocolError {
    fn from(s: &str) -> Self {
        ProtocolError(s.to_string())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vsn {
    V1,
    V2,
}

impl Vsn {
    pub fn parse(s: Option<&str>) -> Result<Vsn, ProtocolError> {
        match s {
            None | Some("1.0.0") => Ok(Vsn::V1),
            Some("2.0.0") => Ok(Vsn::V2),
            Some(other) => Err(format!("unsupported serializer version {other:?}").into()),
        }
    }
}

/// A message from the client.
#[derive(Debug, PartialEq)]
pub struct Incoming {
    pub join_ref: Option<String>,
    pub msg_ref: Option<String>,
    pub topic: String,
    pub event: String,
    pub payload: Value,
    /// A broadcast pushed as a binary frame (serializer 2.0.0): its user payload.
    pub user_broadcast: Option<UserPayload>,
}

/// A broadcast's own payload: JSON text, or bytes the server passes on untouched.
#[derive(Debug, Clone, PartialEq)]
pub enum UserPayload {
    Json(String),
    Binary(Bytes),
}

impl UserPayload {
    pub fn size(&self) -> usize {
        match self {
            UserPayload::Json(s) => s.len(),
            UserPayload::Binary(b) => b.len(),
        }
    }
}

fn opt_string(v: &Value) -> Result<Option<String>, ProtocolError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        Value::Number(n) => Ok(Some(n.to_string())),
        other => Err(format!("expected a string reference, got {other}").into()),
    }
}

fn string(v: &Value, what: &str) -> Result<String, ProtocolError> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| ProtocolError(format!("{what} must be a string")))
}

/// Decodes a text frame.
pub fn decode_text(vsn: Vsn, text: &str) -> Result<Incoming, ProtocolError> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let (join_ref, msg_ref, topic, event, payload) = match (vsn, v) {
        (Vsn::V2, Value::Array(mut a)) if a.len() == 5 => {
            let payload = a.pop().expect("five");
            let event = a.pop().expect("five");
            let topic = a.pop().expect("five");
            let msg_ref = a.pop().expect("five");
            let join_ref = a.pop().expect("five");
            (join_ref, msg_ref, topic, event, payload)
        }
        (Vsn::V1, Value::Object(mut o)) => (
            o.remove("join_ref").unwrap_or(Value::Null),
            o.remove("ref").unwrap_or(Value::Null),
            o.remove("topic").unwrap_or(Value::Null),
            o.remove("event").unwrap_or(Value::Null),
            o.remove("payload").unwrap_or(Value::Null),
        ),
        (Vsn::V2, _) => return Err("expected [join_ref, ref, topic, event, payload]".into()),
        (Vsn::V1, _) => return Err("expected {topic, event, payload, ref}".into()),
    };
    Ok(Incoming {
        join_ref: opt_string(&join_ref)?,
        msg_ref: opt_string(&msg_ref)?,
        topic: string(&topic, "topic")?,
        event: string(&event, "event")?,
        payload,
        user_broadcast: None,
    })
}

/// Frame kinds of serializer 2.0.0's binary frames.
const USER_BROADCAST_PUSH: u8 = 3;
const USER_BROADCAST: u8 = 4;

/// Decodes a binary frame: a user broadcast push (kind 3) is the only one clients send.
pub fn decode_binary(b: &[u8]) -> Result<Incoming, ProtocolError> {
    let short = || ProtocolError::from("binary frame is shorter than its header says");
    if b.first() != Some(&USER_BROADCAST_PUSH) {
        return Err(format!("unknown binary frame kind {:?}", b.first()).into());
    }
    if b.len() < 7 {
        return Err(short());
    }
    let sizes = [b[1], b[2], b[3], b[4], b[5]].map(usize::from);
    let encoding = b[6];
    let mut at = 7;
    let mut parts = Vec::with_capacity(5);
    for size in sizes {
        let part = b.get(at..at + size).ok_or_else(short)?;
        parts.push(
            std::str::from_utf8(part)
                .map_err(|_| ProtocolError::from("binary frame header is not UTF-8"))?
                .to_string(),
        );
        at += size;
    }
    let data = Bytes::copy_from_slice(&b[at..]);
    let user = match encoding {
        0 => UserPayload::Binary(data),
        1 => {
            let text = String::from_utf8(data.to_vec())
                .map_err(|_| ProtocolError::from("JSON payload is not UTF-8"))?;
            serde_json::from_str::<Value>(&text).map_err(|e| format!("payload: {e}"))?;
            UserPayload::Json(text)
        }
        other => return Err(format!("unknown payload encoding {other}").into()),
    };
    let [join_ref, msg_ref, topic, event, meta] = <[String; 5]>::try_from(parts).expect("five");
    let meta: Value = if meta.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&meta).map_err(|e| format!("metadata: {e}"))?
    };
    Ok(Incoming {
        join_ref: (!join_ref.is_empty()).then_some(join_ref),
        msg_ref: (!msg_ref.is_empty()).then_some(msg_ref),
        topic,
        event: "broadcast".into(),
        payload: json!({"type": "broadcast", "event": event, "meta": meta}),
        user_broadcast: Some(user),
    })
}

/// A frame for the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    Text(String),
    Binary(Bytes),
}

impl Frame {
    pub fn size(&self) -> usize {
        match self {
            Frame::Text(s) => s.len(),
            Frame::Binary(b) => b.len(),
        }
    }
}

fn js(s: Option<&str>) -> String {
    serde_json::to_string(&s).expect("strings serialize")
}

/// A message whose payload is JSON text already.
pub fn message_raw(
    vsn: Vsn,
    join_ref: Option<&str>,
    msg_ref: Option<&str>,
    topic: &str,
    event: &str,
    payload: &str,
) -> String {
    match vsn {
        Vsn::V2 => format!(
            "[{},{},{},{},{payload}]",
            js(join_ref),
            js(msg_ref),
            js(Some(topic)),
            js(Some(event))
        ),
        Vsn::V1 => format!(
            "{{\"topic\":{},\"event\":{},\"payload\":{payload},\"ref\":{},\"join_ref\":{}}}",
            js(Some(topic)),
            js(Some(event)),
            js(msg_ref),
            js(join_ref)
        ),
    }
}

pub fn message(
    vsn: Vsn,
    join_ref: Option<&str>,
    topic: &str,
    event: &str,
    payload: &Value,
) -> Frame {
    Frame::Text(message_raw(
        vsn,
        join_ref,
        None,
        topic,
        event,
        &payload.to_string(),
    ))
}

/// The reply to a client's message: `phx_reply` with a status and a response.
pub fn reply(
    vsn: Vsn,
    join_ref: Option<&str>,
    msg_ref: Option<&str>,
    topic: &str,
    ok: bool,
    response: &Value,
) -> Frame {
    let payload = json!({"status": if ok { "ok" } else { "error" }, "response": response});
    Frame::Text(message_raw(
        vsn,
        join_ref,
        msg_ref,
        topic,
        "phx_reply",
        &payload.to_string(),
    ))
}

/// A broadcast as it travels between sockets and gateways.
#[derive(Debug, Clone, PartialEq)]
pub struct Broadcast {
    pub event: String,
    pub payload: UserPayload,
    /// `meta` of the message (`{"id": …}` for stored ones, `replayed` for replays).
    pub meta: Option<Value>,
}

impl Broadcast {
    /// The frame a socket of `vsn` joined to `topic` receives; None when it cannot carry it
    /// (binary payloads to serializer 1.0.0).
    pub fn frame(&self, vsn: Vsn, topic: &str) -> Option<Frame> {
        match (&self.payload, vsn) {
            (UserPayload::Json(p), _) => {
                let meta = match &self.meta {
                    Some(m) => format!(",\"meta\":{m}"),
                    None => String::new(),
                };
                let payload = format!(
                    "{{\"type\":\"broadcast\",\"event\":{},\"payload\":{p}{meta}}}",
                    js(Some(&self.event))
                );
                Some(Frame::Text(message_raw(
                    vsn,
                    None,
                    None,
                    topic,
                    "broadcast",
                    &payload,
                )))
            }
            (UserPayload::Binary(_), Vsn::V1) => None,
            (UserPayload::Binary(data), Vsn::V2) => {
                let meta = self.meta.as_ref().map(Value::to_string).unwrap_or_default();
                if topic.len() > 255 || self.event.len() > 255 || meta.len() > 255 {
                    return None;
                }
                let mut b = Vec::with_capacity(5 + topic.len() + self.event.len() + data.len());
                b.extend_from_slice(&[
                    USER_BROADCAST,
                    topic.len() as u8,
                    self.event.len() as u8,
                    meta.len() as u8,
                    0,
                ]);
                b.extend_from_slice(topic.as_bytes());
                b.extend_from_slice(self.event.as_bytes());
                b.extend_from_slice(meta.as_bytes());
                b.extend_from_slice(data);
                Some(Frame::Binary(b.into()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_serializers() {
        let v2 = decode_text(
            Vsn::V2,
            r#"["1","2","realtime:room","phx_join",{"config":{}}]"#,
        )
        .unwrap();
        assert_eq!(v2.join_ref.as_deref(), Some("1"));
        assert_eq!(v2.msg_ref.as_deref(), Some("2"));
        assert_eq!(v2.topic, "realtime:room");
        let v1 = decode_text(
            Vsn::V1,
            r#"{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"7"}"#,
        )
        .unwrap();
        assert_eq!(v1.msg_ref.as_deref(), Some("7"));
        assert_eq!(v1.join_ref, None);
        assert!(decode_text(Vsn::V2, r#"{"topic":"x"}"#).is_err());
        assert!(decode_text(Vsn::V2, r#"[1,2,3,"e",{}]"#).is_err());
    }

    fn push(kind: u8, parts: [&str; 5], encoding: u8, data: &[u8]) -> Vec<u8> {
        let mut b = vec![kind];
        b.extend(parts.iter().map(|p| p.len() as u8));
        b.push(encoding);
        for p in parts {
            b.extend_from_slice(p.as_bytes());
        }
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn decodes_binary_broadcast_pushes() {
        let b = push(3, ["1", "5", "realtime:r", "café", ""], 1, br#"{"a":1}"#);
        let m = decode_binary(&b).unwrap();
        assert_eq!(m.topic, "realtime:r");
        assert_eq!(m.payload["event"], "café");
        assert_eq!(
            m.user_broadcast,
            Some(UserPayload::Json(r#"{"a":1}"#.into()))
        );
        let b = push(
            3,
            ["1", "", "realtime:r", "bin", r#"{"persist":true}"#],
            0,
            &[1, 2],
        );
        let m = decode_binary(&b).unwrap();
        assert_eq!(m.msg_ref, None);
        assert_eq!(m.payload["meta"]["persist"], true);
        assert!(decode_binary(&b[..9]).is_err());
        assert!(decode_binary(&push(3, ["", "", "t", "e", ""], 1, b"{nope")).is_err());
        assert!(decode_binary(&[9]).is_err());
    }

    #[test]
    fn encodes_replies_and_broadcasts() {
        let Frame::Text(t) = reply(Vsn::V2, Some("1"), Some("2"), "t", true, &json!({})) else {
            panic!()
        };
        assert_eq!(
            t,
            r#"["1","2","t","phx_reply",{"status":"ok","response":{}}]"#
        );
        let Frame::Text(t) = reply(Vsn::V1, None, Some("3"), "phoenix", true, &json!({})) else {
            panic!()
        };
        let v: Value = serde_json::from_str(&t).unwrap();
        assert_eq!(v["ref"], "3");
        assert_eq!(v["payload"]["status"], "ok");
        let b = Broadcast {
            event: "e".into(),
            payload: UserPayload::Json(r#"{"x":1}"#.into()),
            meta: Some(json!({"id": "u"})),
        };
        let Some(Frame::Text(t)) = b.frame(Vsn::V2, "realtime:r") else {
            panic!()
        };
        assert_eq!(
            t,
            r#"[null,null,"realtime:r","broadcast",{"type":"broadcast","event":"e","payload":{"x":1},"meta":{"id":"u"}}]"#
        );
        let bin = Broadcast {
            event: "e".into(),
            payload: UserPayload::Binary(Bytes::from_static(&[7, 8])),
            meta: None,
        };
        assert_eq!(bin.frame(Vsn::V1, "realtime:r"), None);
        let Some(Frame::Binary(f)) = bin.frame(Vsn::V2, "realtime:r") else {
            panic!()
        };
        assert_eq!(&f[..5], &[4, 10, 1, 0, 0]);
        assert_eq!(&f[f.len() - 2..], &[7, 8]);
    }
}
