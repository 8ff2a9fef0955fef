//! Phone MFA factors (`[auth.mfa.phone]`): a number enrolled, and on each challenge a code
//! texted to it with the factor's own template, length and `max_frequency` (a test number's code
//! is its configured one, and nothing is sent).

use auth::config::AuthConfig;
use auth::error::{ErrorCode, Result, api};
use serde_json::{Value, json};
use tokio_postgres::GenericClient;
use uuid::Uuid;

/// A phone factor: the number its codes are texted to.
pub async fn enroll(
    c: &impl GenericClient,
    user_id: Uuid,
    friendly_name: &str,
    number: &str,
) -> Result<Value> {
    let taken = c
        .query_opt(
            "SELECT 1 FROM auth.mfa_factors WHERE user_id = $1 AND factor_type = 'phone'
               AND phone = $2",
            &[&user_id, &number],
        )
        .await?
        .is_some();
    if taken {
        return Err(api(
            422,
            ErrorCode::PhoneExists,
            "A factor with this phone number already exists",
        ));
    }
    let id = super::insert_factor(c, (user_id, friendly_name), "phone", None, Some(number)).await?;
    Ok(json!({"id": id, "type": "phone", "friendly_name": friendly_name, "phone": number}))
}

/// Texts a phone factor a new code (a test number's is its configured one, and nothing is sent),
/// not within `[auth.mfa.phone] max_frequency` of the last: the hash the challenge keeps.
pub async fn text_code(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    (factor_id, channel): (Uuid, auth::phone::Channel),
    number: &str,
) -> Result<String> {
    let wait: Option<f64> = c
        .query_one(
            "SELECT $2 - extract(epoch FROM now() - max(created_at))::float8
             FROM auth.mfa_challenges WHERE factor_id = $1",
            &[&factor_id, &(cfg.mfa.phone_max_frequency as f64)],
        )
        .await?
        .get(0);
    auth::phone::too_soon(wait)?;
    let code = match cfg.sms.test_otp.get(number) {
        Some(fixed) => fixed.clone(),
        None => {
            let code = auth::otp::generate(cfg.mfa.phone_otp_length);
            let body = auth::phone::message(&cfg.mfa.phone_template, &code);
            let user: Uuid = c
                .query_one(
                    "SELECT user_id FROM auth.mfa_factors WHERE id = $1",
                    &[&factor_id],
                )
                .await?
                .get(0);
            let text = auth::phone::Text {
                number,
                body: &body,
                kind: "mfa",
                channel,
            };
            auth::service::sms_send::deliver(c, cfg, (user, &code), text).await?;
            code
        }
    };
    Ok(auth::otp::hash(number, &code))
}
