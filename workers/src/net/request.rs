//! A pg_net request as `net.http_request_queue` holds it, and its answer as pg_net records it in
//! `net._http_response`: the worker's pure part.

use serde_json::{Map, Value};
use std::time::Duration;

/// The longest a request may take, whatever its `timeout_milliseconds` says.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);
/// The largest response body recorded; a larger one is recorded as an error.
pub const MAX_BODY: usize = 16 * 1024 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Delete,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub id: i64,
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
    pub timeout: Duration,
}

/// Why a queued row is not a request that can be made (recorded as its error).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    #[error("Unsupported request method {0}")]
    Method(String),
    #[error("Unsupported protocol")]
    Protocol,
}

impl Request {
    /// A queued row: its method, URL, headers (a JSON object; non-string values as their JSON
    /// text), body and timeout.
    pub fn from_row(
        id: i64,
        method: &str,
        url: String,
        headers: Option<&Value>,
        body: Option<Vec<u8>>,
        timeout_ms: i32,
    ) -> Result<Request, RequestError> {
        let method = match method.to_ascii_uppercase().as_str() {
            "GET" => Method::Get,
            "POST" => Method::Post,
            "DELETE" => Method::Delete,
            other => return Err(RequestError::Method(other.to_string())),
        };
        let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
        if !matches!(scheme.as_deref(), Some("http" | "https")) {
            return Err(RequestError::Protocol);
        }
        let headers = headers
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| {
                        let v = match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        (k.clone(), v)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let timeout = match u64::try_from(timeout_ms) {
            Ok(ms) if ms > 0 => Duration::from_millis(ms).min(MAX_TIMEOUT),
            _ => MAX_TIMEOUT,
        };
        Ok(Request {
            id,
            method,
            url,
            headers,
            body,
            timeout,
        })
    }
}

/// What is recorded for a request: a response, or why there is none.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Answer {
    pub status_code: Option<i32>,
    pub content: Option<String>,
    pub headers: Option<Value>,
    pub content_type: Option<String>,
    pub timed_out: bool,
    pub error_msg: Option<String>,
}

impl Answer {
    /// A response: its headers as a JSON object (a repeated header keeps its last value, as
    /// pg_net's jsonb does), its body as text (empty: none).
    pub fn response(status: u16, headers: &[(String, String)], body: &[u8]) -> Answer {
        let mut object = Map::new();
        let mut content_type = None;
        for (k, v) in headers {
            if k.eq_ignore_ascii_case("content-type") {
                content_type = Some(v.clone());
            }
            object.insert(k.clone(), Value::String(v.clone()));
        }
        Answer {
            status_code: Some(i32::from(status)),
            content: (!body.is_empty()).then(|| String::from_utf8_lossy(body).into_owned()),
            headers: Some(Value::Object(object)),
            content_type,
            timed_out: false,
            error_msg: None,
        }
    }

    /// No answer within the request's timeout.
    pub fn timed_out(timeout: Duration) -> Answer {
        Answer {
            timed_out: true,
            error_msg: Some(format!("Timeout of {} ms reached", timeout.as_millis())),
            ..Answer::default()
        }
    }

    /// No response, for `reason` (worded as pg_net's curl words it).
    pub fn failed(reason: impl Into<String>) -> Answer {
        Answer {
            error_msg: Some(reason.into()),
            ..Answer::default()
        }
    }
}

/// How curl (and so pg_net) words a failure, from what failed.
pub fn failure(connect: bool, dns: bool, redirects: bool) -> &'static str {
    if dns {
        "Couldn't resolve host name"
    } else if connect {
        "Couldn't connect to server"
    } else if redirects {
        "Number of redirects hit maximum amount"
    } else {
        "Failure when receiving data from the peer"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn queued_rows_become_requests_or_say_why_not() {
        let h = json!({"Content-Type": "application/json", "X-Count": 3});
        let r =
            Request::from_row(7, "post", "https://x.test/a".into(), Some(&h), None, 1500).unwrap();
        assert_eq!(r.method, Method::Post);
        assert_eq!(r.timeout, Duration::from_millis(1500));
        assert_eq!(
            r.headers,
            [
                ("Content-Type".to_string(), "application/json".to_string()),
                ("X-Count".to_string(), "3".to_string())
            ]
        );
        let cases = [
            (
                "PUT",
                "http://x.test",
                Err(RequestError::Method("PUT".into())),
            ),
            ("GET", "ftp://x.test/f", Err(RequestError::Protocol)),
            ("GET", "x.test", Err(RequestError::Protocol)),
        ];
        for (method, url, want) in cases {
            let got = Request::from_row(1, method, url.into(), None, None, 0).map(|_| ());
            assert_eq!(got, want, "{method} {url}");
        }
        let forever = Request::from_row(1, "GET", "http://x.test".into(), None, None, 0).unwrap();
        assert_eq!(forever.timeout, MAX_TIMEOUT);
    }

    #[test]
    fn answers_are_recorded_as_pg_net_records_them() {
        let a = Answer::response(
            201,
            &[
                ("content-type".into(), "text/plain".into()),
                ("x-a".into(), "1".into()),
                ("x-a".into(), "2".into()),
            ],
            b"ok",
        );
        assert_eq!(a.status_code, Some(201));
        assert_eq!(a.content.as_deref(), Some("ok"));
        assert_eq!(a.content_type.as_deref(), Some("text/plain"));
        assert_eq!(
            a.headers,
            Some(json!({"content-type": "text/plain", "x-a": "2"}))
        );
        assert_eq!(Answer::response(204, &[], b"").content, None);
        let t = Answer::timed_out(Duration::from_millis(800));
        assert!(t.timed_out && t.status_code.is_none());
        assert_eq!(t.error_msg.as_deref(), Some("Timeout of 800 ms reached"));
        assert_eq!(failure(true, true, false), "Couldn't resolve host name");
        assert_eq!(failure(true, false, false), "Couldn't connect to server");
    }
}
