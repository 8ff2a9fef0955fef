//! Auth hooks at `http://` / `https://` URIs, called as GoTrue calls them: a JSON POST signed
//! with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`: one
//! `v1,<base64 HMAC-SHA256>` per secret), 5 s for the whole call, 3 attempts (a connection
//! failure waits 2 s before the next; a 429 or 503 with `retry-after` is tried again at once),
//! and GoTrue's answers for every other outcome.

use crate::error::{AuthError, ErrorCode, Result, api};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;
use std::time::Duration;
use uuid::Uuid;

/// GoTrue's `defaultHTTPHookTimeout`: the whole call, attempts and waits included.
const TIMEOUT: Duration = Duration::from_secs(5);
const ATTEMPTS: usize = 3;
/// Wait after a connection failure before the next attempt.
const BACKOFF: Duration = Duration::from_secs(2);
/// Largest answer read (GoTrue's `payloadLimit`, 200 KiB).
const PAYLOAD_LIMIT: usize = 200 * 1024;

/// The Standard Webhooks signature of `payload` with one `v1,whsec_<base64>` secret.
pub fn sign(secret: &str, id: &str, timestamp: i64, payload: &[u8]) -> Result<String> {
    let key = secret
        .strip_prefix("v1,")
        .map(|s| s.strip_prefix("whsec_").unwrap_or(s))
        .and_then(|b| STANDARD.decode(b).ok())
        .ok_or_else(|| {
            api(
                500,
                ErrorCode::UnexpectedFailure,
                "Error generating signatures: invalid signature format",
            )
        })?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key length");
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(payload);
    Ok(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

fn internal(message: impl Into<String>) -> AuthError {
    api(500, ErrorCode::UnexpectedFailure, message)
}

fn timed_out() -> AuthError {
    api(
        422,
        ErrorCode::HookTimeout,
        format!(
            "Failed to reach hook within maximum time of {:.6} seconds",
            TIMEOUT.as_secs_f64()
        ),
    )
}

/// The endpoint as this machine reaches it: `host.docker.internal` (how the CLI's GoTrue
/// container reaches the host's functions) is the loopback here.
fn reachable(uri: &str) -> String {
    match uri.split_once("://") {
        Some((scheme, rest)) if rest.starts_with("host.docker.internal") => {
            format!(
                "{scheme}://127.0.0.1{}",
                &rest["host.docker.internal".len()..]
            )
        }
        _ => uri.to_string(),
    }
}

/// Posts `input` to the hook; returns its JSON answer (Null for a 204), or the error the hook
/// reports (`{"error": {"http_code", "message"}}`), or GoTrue's error for a failed call.
pub async fn call(uri: &str, secrets: &[String], input: &Value) -> Result<Value> {
    tokio::time::timeout(TIMEOUT, attempts(uri, secrets, input))
        .await
        .unwrap_or_else(|_| Err(timed_out()))
}

async fn attempts(uri: &str, secrets: &[String], input: &Value) -> Result<Value> {
    let payload =
        serde_json::to_vec(input).map_err(|_| internal("Error marshaling JSON input."))?;
    let client = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|_| internal("Hook failed to make request object"))?;
    let url = reachable(uri);
    for attempt in 0..ATTEMPTS {
        let id = Uuid::new_v4().to_string();
        let timestamp = chrono::Utc::now().timestamp();
        let signatures = secrets
            .iter()
            .map(|s| sign(s, &id, timestamp, &payload))
            .collect::<Result<Vec<_>>>()?;
        let sent = client
            .post(&url)
            .header("content-type", "application/json")
            .header("webhook-id", &id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signatures.join(", "))
            .header("accept-encoding", "identity")
            .body(payload.clone())
            .send()
            .await;
        let mut res = match sent {
            Ok(r) => r,
            Err(e) if e.is_timeout() => return Err(timed_out()),
            Err(e) => {
                tracing::warn!(hook = uri, attempt, "auth hook unreachable: {e}");
                if attempt + 1 < ATTEMPTS {
                    tokio::time::sleep(BACKOFF).await;
                    continue;
                }
                return Err(api(
                    422,
                    ErrorCode::HookTimeoutAfterRetry,
                    "Failed to reach hook after maximum retries",
                ));
            }
        };
        match res.status().as_u16() {
            204 => return Ok(Value::Null),
            200 | 202 => {
                let content_type = res
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_string();
                if content_type.is_empty() {
                    return Err(api(
                        400,
                        ErrorCode::HookPayloadInvalidContentType,
                        "Invalid Content-Type: Missing Content-Type header",
                    ));
                }
                let media = content_type.split(';').next().unwrap_or_default().trim();
                if !media.eq_ignore_ascii_case("application/json") {
                    return Err(api(
                        400,
                        ErrorCode::HookPayloadInvalidContentType,
                        format!("Invalid JSON response. Received content-type: {content_type}"),
                    ));
                }
                let mut body = Vec::new();
                while let Some(chunk) = res.chunk().await.map_err(|_| timed_out())? {
                    body.extend_from_slice(&chunk);
                    if body.len() > PAYLOAD_LIMIT {
                        return Err(api(
                            422,
                            ErrorCode::HookPayloadOverSizeLimit,
                            format!("Payload size exceeded size limit of {PAYLOAD_LIMIT} bytes"),
                        ));
                    }
                }
                return serde_json::from_slice(&body)
                    .map_err(|_| internal("Error unmarshaling JSON output."));
            }
            429 | 503 => {
                if res.headers().contains_key("retry-after") {
                    continue;
                }
                return Err(internal("Service currently unavailable due to hook"));
            }
            400 => return Err(internal("Invalid payload sent to hook")),
            401 => return Err(internal("Hook requires authorization token")),
            status => {
                return Err(internal(format!(
                    "Unexpected status code returned from hook: {status}"
                )));
            }
        }
    }
    Err(internal("Service currently unavailable due to hook"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Standard Webhooks specification's own example: secret, id, timestamp, payload and
    /// the signature its reference libraries compute.
    #[test]
    fn signs_as_the_standard_webhooks_example() {
        let sig = sign(
            "v1,whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
        )
        .unwrap();
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(sign("whsec_x", "id", 1, b"").is_err());
    }

    #[test]
    fn host_docker_internal_is_the_loopback() {
        assert_eq!(
            reachable("http://host.docker.internal:54321/functions/v1/hook"),
            "http://127.0.0.1:54321/functions/v1/hook"
        );
        assert_eq!(reachable("https://x.example/h"), "https://x.example/h");
    }
}
