//! Where a texted code goes, as GoTrue sends it: the send-SMS hook when on, else the SMS catcher
//! (`supagate.sms`) when it stands in for the enabled provider ([`AuthConfig::sms_catch`]), else
//! the enabled provider's API (`[auth.sms.twilio]`, `twilio_verify`, `messagebird`, `textlocal`
//! or `vonage`, each called as GoTrue calls it, at the provider's own address or
//! `--sms-api-url`). Without any, GoTrue's 500 "Unable to get SMS provider". A provider that
//! refuses fails the flow with GoTrue's `sms_send_failed`. Twilio Verify texts a code of its own
//! and checks it ([`provider_check`]).

use crate::config::{AuthConfig, OtherProvider, Twilio};
use crate::error::{AuthError, ErrorCode, api};
use crate::phone::{Channel, Text};
use crate::users;
use serde_json::Value;
use tokio_postgres::GenericClient;
use uuid::Uuid;

/// Hands `user`'s code to the send-SMS hook, or catches the text, or sends it through the
/// enabled provider: its message id.
pub async fn deliver(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    (user, code): (Uuid, &str),
    text: Text<'_>,
) -> Result<String, AuthError> {
    let Text {
        number,
        body,
        kind,
        channel,
    } = text;
    if let Some(hook) = &cfg.hooks.send_sms {
        let user = users::require(c, user).await?;
        crate::hooks::send_sms(c, hook, &user, code).await?;
        return Ok(String::new());
    }
    if !cfg.sms_catch {
        // GoTrue's provider lookup fails without a provider or without its secret.
        if !cfg.sms.provider().is_some_and(|(_, secret)| secret) {
            return Err(api(
                500,
                ErrorCode::UnexpectedFailure,
                "Unable to get SMS provider",
            ));
        }
        if let Some(t) = &cfg.sms.twilio {
            return twilio(cfg, t, text).await;
        }
        if let Some(t) = &cfg.sms.twilio_verify {
            return twilio_verify(cfg, t, "Verifications", number, Err(channel))
                .await
                .map_err(failed);
        }
        if let Some(p) = &cfg.sms.other {
            return other(cfg, p, number, body).await.map_err(failed);
        }
    }
    let id: Uuid = c
        .query_one(
            "WITH new AS (INSERT INTO supagate.sms (recipient, body, kind, channel)
                          VALUES ($1, $2, $3, $4) RETURNING id),
                  old AS (DELETE FROM supagate.sms WHERE id IN (
                            SELECT id FROM supagate.sms ORDER BY created_at DESC OFFSET 999))
             SELECT id FROM new",
            &[&number, &body, &kind, &channel.as_str()],
        )
        .await?
        .get(0);
    tracing::info!(
        kind,
        to = number,
        channel = channel.as_str(),
        "text message caught"
    );
    Ok(id.to_string())
}

/// Why a provider did not take a text: the `{why}` of GoTrue's "Error sending sms OTP: {why}",
/// each worded as GoTrue words it.
#[derive(Debug, thiserror::Error)]
enum SmsSendError {
    /// The provider could not be reached (or did not answer in time).
    #[error(transparent)]
    Request(#[from] reqwest::Error),
    /// Twilio answered a status other than 2xx: its message.
    #[error("{status} {message}")]
    Status { status: u16, message: String },
    /// Twilio took the message, and it failed or was not delivered.
    #[error("twilio error: {message} {code} for message {sid}")]
    Twilio {
        message: String,
        code: String,
        sid: String,
    },
    /// Twilio Verify did not approve the code.
    #[error("twilio verification error: {message} {status}")]
    TwilioVerify { message: String, status: String },
    /// MessageBird refused the request: its first error's description.
    #[error("{0}")]
    Messagebird(String),
    /// MessageBird sent the text to nobody.
    #[error("messagebird error: total sent count is 0")]
    MessagebirdSentNone,
    /// Textlocal answered with errors.
    #[error("textlocal error: Internal Error")]
    TextlocalErrors,
    /// Textlocal's status was not `success` (the status as JSON).
    #[error("textlocal error: status {status} message {id}")]
    Textlocal { status: String, id: String },
    /// Vonage's answer held no message.
    #[error("vonage error: Internal Error")]
    VonageNoMessage,
    /// Vonage's first message has a status other than "0".
    #[error("vonage error: {error} (status: {status}) for message {id}")]
    Vonage {
        error: String,
        status: String,
        id: String,
    },
}

fn failed(why: SmsSendError) -> AuthError {
    api(
        500,
        ErrorCode::SmsSendFailed,
        format!("Error sending sms OTP: {why}"),
    )
}

/// The provider's API base: `--sms-api-url`, else its own.
fn base<'a>(cfg: &'a AuthConfig, own: &'a str) -> &'a str {
    cfg.sms_api_url.as_deref().unwrap_or(own)
}

/// POSTs a form; the status and the JSON answer (Null when it is not JSON).
async fn post_form(
    url: String,
    form: &[(&str, &str)],
    auth: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
) -> Result<(u16, Value), SmsSendError> {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let req = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .timeout(std::time::Duration::from_secs(10));
    let res = auth(req).send().await?;
    let status = res.status().as_u16();
    let bytes = res.bytes().await.unwrap_or_default();
    Ok((
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    ))
}

/// Sends a text through Twilio's Messages API: its message SID. On WhatsApp, as GoTrue: both
/// addresses with the `whatsapp:` prefix (the sender's when it is a number, not a messaging
/// service SID).
async fn twilio(cfg: &AuthConfig, t: &Twilio, text: Text<'_>) -> Result<String, AuthError> {
    let url = format!(
        "{}/2010-04-01/Accounts/{}/Messages.json",
        base(cfg, "https://api.twilio.com"),
        t.account_sid
    );
    let channel = text.channel.as_str();
    let (to, from) = twilio_addresses(text.channel, text.number, &t.message_service_sid);
    let form = [
        ("To", to.as_str()),
        ("Channel", channel),
        ("From", from.as_str()),
        ("Body", text.body),
    ];
    let (status, answer) = post_form(url, &form, |r| {
        r.basic_auth(&t.account_sid, Some(&t.auth_token))
    })
    .await
    .map_err(failed)?;
    twilio_answer(status, &answer).map_err(failed)
}

/// Twilio's `To` and `From`: on WhatsApp with the `whatsapp:` prefix, the sender's only when it
/// is a number (not a messaging service SID).
fn twilio_addresses(channel: Channel, number: &str, sender: &str) -> (String, String) {
    let to = format!("+{number}");
    if channel == Channel::Sms {
        return (to, sender.to_string());
    }
    let c = channel.as_str();
    let sender_is_number = crate::phone::normalize(sender).is_ok();
    let from = match sender_is_number {
        true => format!("{c}:{sender}"),
        false => sender.to_string(),
    };
    (format!("{c}:{to}"), from)
}

/// Twilio's answer: its message on a status other than 2xx, its error when the message failed
/// or was not delivered, else the message SID.
fn twilio_answer(status: u16, answer: &Value) -> Result<String, SmsSendError> {
    if !(200..300).contains(&status) {
        let message = answer["message"].as_str().unwrap_or("").to_string();
        return Err(SmsSendError::Status { status, message });
    }
    let sid = answer["sid"].as_str().unwrap_or_default();
    if matches!(answer["status"].as_str(), Some("failed" | "undelivered")) {
        let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
        return Err(SmsSendError::Twilio {
            message: text(&answer["error_message"]),
            code: text(&answer["error_code"]),
            sid: sid.to_string(),
        });
    }
    Ok(sid.to_string())
}

/// Twilio Verify's `Verifications` (it sends a code of its own on the channel: the
/// verification's SID) or `VerificationCheck` (`Ok(code)`: approved and valid, or an error).
async fn twilio_verify(
    cfg: &AuthConfig,
    t: &Twilio,
    endpoint: &str,
    number: &str,
    code: Result<&str, Channel>,
) -> Result<String, SmsSendError> {
    let url = format!(
        "{}/v2/Services/{}/{endpoint}",
        base(cfg, "https://verify.twilio.com"),
        t.message_service_sid
    );
    let to = format!("+{number}");
    let mut form = vec![("To", to.as_str())];
    match code {
        Ok(code) => form.push(("Code", code)),
        Err(channel) => form.push(("Channel", channel.as_str())),
    }
    let (status, answer) = post_form(url, &form, |r| {
        r.basic_auth(&t.account_sid, Some(&t.auth_token))
    })
    .await?;
    let sid = twilio_answer(status, &answer)?;
    if code.is_ok() && (answer["status"] != "approved" || answer["valid"] != true) {
        let text = |k: &str| answer[k].as_str().unwrap_or_default().to_string();
        return Err(SmsSendError::TwilioVerify {
            message: text("error_message"),
            status: text("status"),
        });
    }
    Ok(sid)
}

/// Whether `code` is `number`'s, when the provider keeps the codes (Twilio Verify, for numbers
/// not in `[auth.sms.test_otp]`); None when supagate checks it against the hash it keeps.
pub async fn provider_check(cfg: &AuthConfig, number: &str, code: &str) -> Option<bool> {
    let t = cfg.sms.twilio_verify.as_ref().filter(|_| !cfg.sms_catch)?;
    if cfg.sms.test_otp.contains_key(number) {
        return None;
    }
    match twilio_verify(cfg, t, "VerificationCheck", number, Ok(code)).await {
        Ok(_) => Some(true),
        Err(e) => {
            tracing::info!("twilio verify refused a code: {e}");
            Some(false)
        }
    }
}

/// Sends a text through MessageBird, Textlocal or Vonage: the provider's message id.
async fn other(
    cfg: &AuthConfig,
    p: &OtherProvider,
    number: &str,
    body: &str,
) -> Result<String, SmsSendError> {
    match p {
        OtherProvider::Messagebird {
            originator,
            access_key,
        } => {
            let url = format!("{}/messages", base(cfg, "https://rest.messagebird.com"));
            let form = [
                ("originator", originator.as_str()),
                ("body", body),
                ("recipients", number),
                ("type", "sms"),
                ("datacoding", "unicode"),
            ];
            let key = format!("AccessKey {access_key}");
            let (status, answer) =
                post_form(url, &form, |r| r.header("authorization", key)).await?;
            messagebird_answer(status, &answer)
        }
        OtherProvider::Textlocal { sender, api_key } => {
            let url = format!("{}/send", base(cfg, "https://api.textlocal.in"));
            let form = [
                ("sender", sender.as_str()),
                ("apikey", api_key.as_str()),
                ("message", body),
                ("numbers", number),
            ];
            let (_, answer) = post_form(url, &form, |r| r).await?;
            textlocal_answer(&answer)
        }
        OtherProvider::Vonage {
            from,
            api_key,
            api_secret,
        } => {
            let url = format!("{}/sms/json", base(cfg, "https://rest.nexmo.com"));
            let mut form = vec![
                ("from", from.as_str()),
                ("to", number),
                ("text", body),
                ("api_key", api_key.as_str()),
                ("api_secret", api_secret.as_str()),
            ];
            if !body.is_ascii() {
                form.push(("type", "unicode"));
            }
            let (_, answer) = post_form(url, &form, |r| r).await?;
            vonage_answer(&answer)
        }
    }
}

/// MessageBird's answer: its errors' first description on 400/401/403/422, else the message id
/// unless nothing was sent.
fn messagebird_answer(status: u16, answer: &Value) -> Result<String, SmsSendError> {
    if matches!(status, 400 | 401 | 403 | 422) {
        return Err(SmsSendError::Messagebird(
            answer["errors"][0]["description"]
                .as_str()
                .unwrap_or("messagebird error")
                .to_string(),
        ));
    }
    if answer["recipients"]["totalSentCount"].as_i64().unwrap_or(0) == 0 {
        return Err(SmsSendError::MessagebirdSentNone);
    }
    Ok(answer["id"].as_str().unwrap_or_default().to_string())
}

/// Textlocal's answer: any error fails the send, as does a status other than `success`.
fn textlocal_answer(answer: &Value) -> Result<String, SmsSendError> {
    let errors = answer["errors"].as_array().map_or(0, Vec::len);
    if errors > 0 {
        return Err(SmsSendError::TextlocalErrors);
    }
    let id = answer["messages"][0]["id"]
        .as_str()
        .map(str::to_string)
        .or_else(|| answer["messages"][0]["id"].as_i64().map(|i| i.to_string()))
        .unwrap_or_default();
    if answer["status"] != "success" {
        return Err(SmsSendError::Textlocal {
            status: answer["status"].to_string(),
            id,
        });
    }
    Ok(id)
}

/// Vonage's answer: the first message's status "0" is success.
fn vonage_answer(answer: &Value) -> Result<String, SmsSendError> {
    let Some(m) = answer["messages"].as_array().and_then(|m| m.first()) else {
        return Err(SmsSendError::VonageNoMessage);
    };
    let text = |k: &str| m[k].as_str().unwrap_or_default();
    if text("status") != "0" {
        return Err(SmsSendError::Vonage {
            error: text("error-text").to_string(),
            status: text("status").to_string(),
            id: text("message-id").to_string(),
        });
    }
    Ok(text("message-id").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whatsapp_addresses_as_gotrue_writes_them() {
        // (channel, sender, To, From)
        let cases = [
            (Channel::Sms, "MG1", "+15550001", "MG1"),
            (Channel::Whatsapp, "MG1", "whatsapp:+15550001", "MG1"),
            (
                Channel::Whatsapp,
                "+1 555 0009",
                "whatsapp:+15550001",
                "whatsapp:+1 555 0009",
            ),
            (
                Channel::Whatsapp,
                "15550009",
                "whatsapp:+15550001",
                "whatsapp:15550009",
            ),
        ];
        for (channel, sender, to, from) in cases {
            assert_eq!(
                twilio_addresses(channel, "15550001", sender),
                (to.to_string(), from.to_string())
            );
        }
    }

    #[test]
    fn providers_answers_read_as_gotrue_reads_them() {
        let ok = |r: Result<String, SmsSendError>| r.unwrap();
        let err = |r: Result<String, SmsSendError>| r.unwrap_err().to_string();
        assert_eq!(
            ok(twilio_answer(
                201,
                &json!({"sid": "SM1", "status": "queued"})
            )),
            "SM1"
        );
        assert_eq!(
            err(twilio_answer(
                400,
                &json!({"code": 21211, "message": "Invalid To number"})
            )),
            "400 Invalid To number"
        );
        assert_eq!(
            err(twilio_answer(
                201,
                &json!({"sid": "SM2", "status": "undelivered", "error_message": "Unreachable", "error_code": 30003})
            )),
            "twilio error: Unreachable 30003 for message SM2"
        );
        assert_eq!(
            ok(messagebird_answer(
                201,
                &json!({"id": "m1", "recipients": {"totalSentCount": 1}})
            )),
            "m1"
        );
        assert_eq!(
            err(messagebird_answer(
                201,
                &json!({"id": "m1", "recipients": {"totalSentCount": 0}})
            )),
            "messagebird error: total sent count is 0"
        );
        assert_eq!(
            err(messagebird_answer(
                401,
                &json!({"errors": [{"code": 2, "description": "Request not allowed"}]})
            )),
            "Request not allowed"
        );
        assert_eq!(
            ok(textlocal_answer(
                &json!({"status": "success", "messages": [{"id": "t1"}]})
            )),
            "t1"
        );
        assert_eq!(
            err(textlocal_answer(
                &json!({"status": "failure", "errors": [{"code": 3, "message": "Invalid login"}]})
            )),
            "textlocal error: Internal Error"
        );
        assert_eq!(
            err(textlocal_answer(
                &json!({"status": "failure", "messages": [{"id": 5}]})
            )),
            "textlocal error: status \"failure\" message 5"
        );
        assert_eq!(
            ok(vonage_answer(
                &json!({"messages": [{"status": "0", "message-id": "v1"}]})
            )),
            "v1"
        );
        assert_eq!(
            err(vonage_answer(
                &json!({"messages": [{"status": "4", "error-text": "Bad Credentials", "message-id": ""}]})
            )),
            "vonage error: Bad Credentials (status: 4) for message "
        );
        assert_eq!(
            err(vonage_answer(&json!({"messages": []}))),
            "vonage error: Internal Error"
        );
    }
}
