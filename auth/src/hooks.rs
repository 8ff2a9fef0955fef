//! Auth hooks. A `pg-functions://` function gets one JSON argument and returns JSON, called as
//! the auth admin role within the flow's transaction (2 s at most); an `http(s)://` hook is
//! posted the same JSON ([`crate::hook_http`]).
//! `{"error": {"http_code": …, "message": …}}` fails the flow with that status and message.

use crate::config::HookFn;
use crate::error::ErrorCode;
use crate::error::{AuthError, Result, api};
use crate::models::hooks::{
    BeforeUserCreatedInput, CustomAccessTokenInput, EmailData, Metadata, NewUser, SendEmailInput,
    SendSmsInput, Sms,
};
use serde::Serialize;
use serde_json::Value;
use tokio_postgres::GenericClient;
use uuid::Uuid;

fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

/// Calls the hook with `input` (one of [`crate::models::hooks`]) and returns its output (or the
/// error it reports).
pub async fn call(c: &impl GenericClient, hook: &HookFn, input: &impl Serialize) -> Result<Value> {
    let input = serde_json::to_value(input).map_err(|e| {
        api(
            500,
            ErrorCode::UnexpectedFailure,
            format!("Error marshaling JSON input: {e}"),
        )
    })?;
    let input = &input;
    let out = match hook {
        HookFn::Postgres { schema, function } => call_pg(c, schema, function, input).await?,
        HookFn::Http { uri, secrets } => crate::hook_http::call(uri, secrets, input).await?,
    };
    if let Some(message) = out["error"]["message"].as_str().filter(|m| !m.is_empty()) {
        let status = out["error"]["http_code"]
            .as_u64()
            .filter(|s| (100..600).contains(s))
            .unwrap_or(500) as u16;
        return Err(AuthError::Api {
            status,
            code: if status == 500 {
                ErrorCode::UnexpectedFailure
            } else {
                ErrorCode::Unknown
            },
            message: message.to_string(),
        });
    }
    Ok(out)
}

async fn call_pg(
    c: &impl GenericClient,
    schema: &str,
    function: &str,
    input: &Value,
) -> Result<Value> {
    let before: String = c
        .query_one(
            "SELECT current_setting('statement_timeout'), set_config('statement_timeout', '2000', true)",
            &[],
        )
        .await?
        .get(0);
    let sql = format!(
        "SELECT {}.{}($1::jsonb)::text",
        quote(schema),
        quote(function)
    );
    let out: Option<String> = c
        .query_one(&sql, &[input])
        .await
        .map_err(|e| {
            api(
                500,
                ErrorCode::UnexpectedFailure,
                format!("Error running hook URI: pg-functions://postgres/{schema}/{function}: {e}"),
            )
        })?
        .get(0);
    c.execute(
        "SELECT set_config('statement_timeout', $1, true)",
        &[&before],
    )
    .await?;
    let out: Value = out
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|_| {
            api(
                500,
                ErrorCode::UnexpectedFailure,
                "Error unmarshaling JSON output.",
            )
        })?
        .unwrap_or(Value::Null);
    Ok(out)
}

/// The custom access token hook: returns the claims to sign.
pub async fn custom_access_token(
    c: &impl GenericClient,
    hook: &HookFn,
    user_id: Uuid,
    claims: Value,
    method: &str,
) -> Result<Value> {
    let input = CustomAccessTokenInput {
        metadata: Metadata::now("custom-access-token"),
        user_id,
        claims: &claims,
        authentication_method: method,
    };
    let out = call(c, hook, &input).await?;
    let claims = out.get("claims").cloned().unwrap_or(Value::Null);
    // GoTrue requires the claims a token must keep.
    for required in ["aud", "exp", "iat", "sub", "role", "aal", "session_id"] {
        if claims.get(required).is_none() {
            return Err(api(
                500,
                ErrorCode::UnexpectedFailure,
                format!(
                    "output claims do not conform to the expected schema: {required} is required"
                ),
            ));
        }
    }
    Ok(claims)
}

pub async fn before_user_created(
    c: &impl GenericClient,
    hook: &HookFn,
    user: &NewUser<'_>,
) -> Result<()> {
    let input = BeforeUserCreatedInput {
        metadata: Metadata::now("before-user-created"),
        user,
    };
    call(c, hook, &input).await.map(|_| ())
}

pub async fn send_email(
    c: &impl GenericClient,
    hook: &HookFn,
    user: &Value,
    email_data: EmailData<'_>,
) -> Result<()> {
    let input = SendEmailInput {
        metadata: Metadata::now("send-email"),
        user,
        email_data,
    };
    call(c, hook, &input).await.map(|_| ())
}

/// The send-SMS hook: it delivers the code itself (`{"user", "sms": {"otp"}}`).
pub async fn send_sms(
    c: &impl GenericClient,
    hook: &HookFn,
    user: &Value,
    otp: &str,
) -> Result<()> {
    let input = SendSmsInput {
        metadata: Metadata::now("send-sms"),
        user,
        sms: Sms { otp },
    };
    call(c, hook, &input).await.map(|_| ())
}

/// A hook's verdict on a verification attempt: Err(message) rejects it.
pub async fn verification_attempt(
    c: &impl GenericClient,
    hook: &HookFn,
    input: &impl Serialize,
) -> Result<std::result::Result<(), (String, bool)>> {
    let out = call(c, hook, input).await?;
    if out["decision"] == "reject" {
        let message = out["message"]
            .as_str()
            .unwrap_or("Verification attempt rejected")
            .to_string();
        return Ok(Err((message, out["should_logout_user"] == true)));
    }
    Ok(Ok(()))
}
