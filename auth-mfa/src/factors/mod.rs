//! MFA with TOTP, phone and WebAuthn factors, as GoTrue runs it: enroll (a TOTP secret, its
//! `otpauth://` URI and a QR code as SVG; a phone number; or a WebAuthn factor to be bound to a
//! credential), challenge (a phone factor's code is texted, [`phone`]; a WebAuthn
//! factor gets creation or request options, [`crate::webauthn`]), verify (the session becomes
//! aal2), unenroll.

mod phone;

use auth::config::AuthConfig;
use auth::error::{AuthError, ErrorCode};
use auth::error::{Result, api, validation};
use auth::hooks;
use serde_json::{Value, json};
use tokio_postgres::GenericClient;
use totp_rs::{Builder, Secret};
use uuid::Uuid;

/// A challenge is answered within five minutes.
const CHALLENGE_SECS: f64 = 300.0;

fn check_type(cfg: &AuthConfig, factor_type: &str, enroll: bool) -> Result<()> {
    let (on, name, code) = match (factor_type, enroll) {
        ("totp", true) => (
            cfg.mfa.totp_enroll,
            "TOTP",
            ErrorCode::MfaTotpEnrollNotEnabled,
        ),
        ("totp", false) => (
            cfg.mfa.totp_verify,
            "TOTP",
            ErrorCode::MfaTotpVerifyNotEnabled,
        ),
        ("phone", true) => (
            cfg.mfa.phone_enroll,
            "Phone",
            ErrorCode::MfaPhoneEnrollNotEnabled,
        ),
        ("phone", false) => (
            cfg.mfa.phone_verify,
            "Phone",
            ErrorCode::MfaPhoneVerifyNotEnabled,
        ),
        ("webauthn", true) => (
            cfg.mfa.web_authn_enroll,
            "WebAuthn",
            ErrorCode::MfaWebauthnEnrollNotEnabled,
        ),
        ("webauthn", false) => (
            cfg.mfa.web_authn_verify,
            "WebAuthn",
            ErrorCode::MfaWebauthnVerifyNotEnabled,
        ),
        _ => {
            return Err(validation(
                "factor_type needs to be totp, phone, or webauthn",
            ));
        }
    };
    let what = if enroll { "enroll" } else { "verification" };
    if !on {
        return Err(api(422, code, format!("MFA {what} is disabled for {name}")));
    }
    Ok(())
}

fn escape(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}

/// What `POST /factors` asks for.
pub struct Enrollment<'a> {
    pub factor_type: &'a str,
    pub friendly_name: &'a str,
    pub issuer: Option<&'a str>,
    pub phone: Option<&'a str>,
}

/// `POST /factors`.
pub async fn enroll(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user_id: Uuid,
    email: &str,
    session_aal2: bool,
    e: Enrollment<'_>,
) -> Result<Value> {
    let Enrollment {
        factor_type,
        friendly_name,
        issuer,
        phone,
    } = e;
    check_type(cfg, factor_type, true)?;
    let number = match factor_type {
        "phone" => Some(auth::phone::normalize(phone.unwrap_or(""))?),
        _ => None,
    };
    // Unverified factors older than a day are forgotten.
    c.execute(
        "DELETE FROM auth.mfa_factors WHERE user_id = $1 AND status = 'unverified'
           AND created_at < now() - interval '1 day'",
        &[&user_id],
    )
    .await?;
    let factors = c
        .query(
            "SELECT coalesce(friendly_name, ''), status = 'verified' FROM auth.mfa_factors WHERE user_id = $1",
            &[&user_id],
        )
        .await?;
    if !friendly_name.is_empty()
        && factors
            .iter()
            .any(|r| r.get::<_, String>(0) == friendly_name)
    {
        return Err(api(
            422,
            ErrorCode::MfaFactorNameConflict,
            format!(
                "A factor with the friendly name \"{friendly_name}\" for this user already exists"
            ),
        ));
    }
    let verified = factors.iter().filter(|r| r.get::<_, bool>(1)).count();
    if factors.len() >= cfg.mfa.max_enrolled_factors as usize {
        return Err(api(
            422,
            ErrorCode::TooManyEnrolledMfaFactors,
            "Maximum number of verified factors reached, unenroll to continue",
        ));
    }
    if verified > 0 && !session_aal2 {
        return Err(api(
            403,
            ErrorCode::InsufficientAal,
            "AAL2 required to enroll a new factor",
        ));
    }
    if let Some(number) = number {
        return phone::enroll(c, user_id, friendly_name, &number).await;
    }
    if factor_type == "webauthn" {
        let id = insert_factor(c, (user_id, friendly_name), "webauthn", None, None).await?;
        return Ok(json!({"id": id, "type": "webauthn", "friendly_name": friendly_name}));
    }
    let issuer = match issuer.filter(|i| !i.is_empty()) {
        Some(i) => i.to_string(),
        None => url::Url::parse(&cfg.site_url)
            .ok()
            .and_then(|u| {
                u.host_str()
                    .map(|h| u.port().map_or(h.to_string(), |p| format!("{h}:{p}")))
            })
            .unwrap_or_default(),
    };
    let secret = Secret::generate().to_base32();
    let uri = format!(
        "otpauth://totp/{}:{}?algorithm=SHA1&digits=6&issuer={}&period=30&secret={secret}",
        escape(&issuer),
        escape(email),
        escape(&issuer)
    );
    let qr = qrcode::QrCode::new(uri.as_bytes())
        .map_err(|_| {
            api(
                500,
                ErrorCode::UnexpectedFailure,
                "Error generating QR Code",
            )
        })?
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .build();
    let id = insert_factor(c, (user_id, friendly_name), "totp", Some(&secret), None).await?;
    Ok(json!({
        "id": id,
        "type": "totp",
        "friendly_name": friendly_name,
        "totp": {"qr_code": qr, "secret": secret, "uri": uri},
    }))
}

/// A new unverified factor of `kind` (`totp` with its secret, `phone` with its number,
/// `webauthn`).
pub(crate) async fn insert_factor(
    c: &impl GenericClient,
    (user_id, friendly_name): (Uuid, &str),
    kind: &str,
    secret: Option<&str>,
    phone: Option<&str>,
) -> Result<Uuid> {
    Ok(c
        .query_one(
            "INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at,
                                           updated_at, secret, phone)
             VALUES (gen_random_uuid(), $1, nullif($2, ''), $3::text::auth.factor_type, 'unverified',
                     now(), now(), $4, $5)
             RETURNING id",
            &[&user_id, &friendly_name, &kind, &secret, &phone],
        )
        .await?
        .get(0))
}

/// A factor's type, status, and its TOTP secret or phone number.
async fn factor(
    c: &impl GenericClient,
    user_id: Uuid,
    id: Uuid,
) -> Result<(String, String, String)> {
    c.query_opt(
        "SELECT factor_type::text, status::text, coalesce(secret, phone, '') FROM auth.mfa_factors
         WHERE id = $1 AND user_id = $2",
        &[&id, &user_id],
    )
    .await?
    .map(|r| (r.get(0), r.get(1), r.get(2)))
    .ok_or_else(|| api(404, ErrorCode::MfaFactorNotFound, "Factor not found"))
}

/// A WebAuthn factor's credential (None until the factor is verified).
async fn webauthn_credential(c: &impl GenericClient, factor_id: Uuid) -> Result<Option<Value>> {
    Ok(c.query_one(
        "SELECT web_authn_credential FROM auth.mfa_factors WHERE id = $1",
        &[&factor_id],
    )
    .await?
    .get(0))
}

/// `POST /factors/{id}/challenge`.
pub async fn challenge(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    (user_id, factor_id): (Uuid, Uuid),
    ip: &str,
    (webauthn, channel): (&crate::webauthn::Params, Option<&str>),
) -> Result<Value> {
    let (factor_type, status, number) = factor(c, user_id, factor_id).await?;
    check_type(cfg, &factor_type, false)?;
    let (mut session, mut options) = (None, None);
    let code: Option<String> = match factor_type.as_str() {
        "phone" => {
            let channel = auth::phone::Channel::parse(channel, cfg)?;
            Some(phone::text_code(c, cfg, (factor_id, channel), &number).await?)
        }
        "webauthn" => {
            let name: String = c
                .query_one(
                    "SELECT coalesce(nullif(email, ''), nullif(phone, ''), id::text)
                     FROM auth.users WHERE id = $1",
                    &[&user_id],
                )
                .await?
                .get(0);
            let stored = match status.as_str() {
                "verified" => webauthn_credential(c, factor_id).await?,
                _ => None,
            };
            let (answer, kept) =
                crate::webauthn::challenge(cfg, (user_id, &name), stored.as_ref(), webauthn);
            (session, options) = (Some(kept), Some(answer));
            None
        }
        _ => None,
    };
    let row = c
        .query_one(
            "INSERT INTO auth.mfa_challenges (id, factor_id, created_at, ip_address, otp_code,
               web_authn_session_data)
             VALUES (gen_random_uuid(), $1, now(), $2::text::inet, $3, $4)
             RETURNING id, extract(epoch FROM created_at)::bigint",
            &[&factor_id, &ip, &code, &session],
        )
        .await?;
    c.execute(
        "UPDATE auth.mfa_factors SET last_challenged_at = now() WHERE id = $1",
        &[&factor_id],
    )
    .await?;
    let (id, at): (Uuid, i64) = (row.get(0), row.get(1));
    let mut out = json!({"id": id, "type": factor_type, "expires_at": at + CHALLENGE_SECS as i64});
    if let Some(o) = options {
        out["webauthn"] = o;
    }
    Ok(out)
}

/// `POST /factors/{id}/verify`: the factor's type when the code is right (the factor is then
/// verified; the caller raises the session to aal2).
pub async fn verify(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    (user_id, factor_id, challenge_id): (Uuid, Uuid, Uuid),
    code: &str,
    webauthn: Option<&crate::webauthn::Params>,
) -> Result<String> {
    let (factor_type, status, secret) = factor(c, user_id, factor_id).await?;
    check_type(cfg, &factor_type, false)?;
    let row = c
        .query_opt(
            "DELETE FROM auth.mfa_challenges WHERE id = $1 AND factor_id = $2
             RETURNING extract(epoch FROM now() - created_at)::float8, otp_code,
                       web_authn_session_data",
            &[&challenge_id, &factor_id],
        )
        .await?
        .ok_or_else(challenge_not_found)?;
    if row.get::<_, f64>(0) > CHALLENGE_SECS {
        return Err(api(
            422,
            ErrorCode::MfaChallengeExpired,
            format!(
                "MFA challenge {challenge_id} has expired, verify against another challenge or create a new challenge."
            ),
        ));
    }
    let texted: Option<String> = row.get(1);
    let valid = match factor_type.as_str() {
        // A texted code: this challenge's, once (the challenge is gone now).
        "phone" => match auth::service::sms_send::provider_check(cfg, &secret, code.trim()).await {
            Some(approved) => approved,
            None => texted.is_some_and(|h| h == auth::otp::hash(&secret, code.trim())),
        },
        "webauthn" => {
            let session: Value = row.get::<_, Option<Value>>(2).unwrap_or_default();
            let stored = match status.as_str() {
                "verified" => webauthn_credential(c, factor_id).await?,
                _ => None,
            };
            let credential = crate::webauthn::verify(
                &session,
                stored.as_ref(),
                webauthn.unwrap_or(&Default::default()),
            )?;
            c.execute(
                "UPDATE auth.mfa_factors SET web_authn_credential = $2::jsonb,
                   web_authn_aaguid = ($2::jsonb->>'aaguid')::uuid WHERE id = $1",
                &[&factor_id, &credential],
            )
            .await?;
            true
        }
        _ => totp_step_is_new(c, factor_id, &secret, code).await?,
    };
    if let Some(hook) = &cfg.hooks.mfa_verification_attempt {
        let input = auth::models::hooks::MfaVerificationAttemptInput {
            user_id,
            factor_id,
            factor_type: &factor_type,
            valid,
        };
        if let Err((message, _)) = hooks::verification_attempt(c, hook, &input).await? {
            return Err(api(403, ErrorCode::MfaVerificationRejected, message));
        }
    }
    if !valid {
        let what = if factor_type == "phone" {
            "OTP"
        } else {
            "TOTP"
        };
        return Err(api(
            422,
            ErrorCode::MfaVerificationFailed,
            format!("Invalid {what} code entered"),
        ));
    }
    c.execute(
        "UPDATE auth.mfa_factors SET status = 'verified', updated_at = now() WHERE id = $1",
        &[&factor_id],
    )
    .await?;
    Ok(factor_type)
}

/// Whether `code` is the TOTP of `secret` now, at a time step after the last this factor
/// accepted (a code is good once).
async fn totp_step_is_new(
    c: &impl GenericClient,
    factor_id: Uuid,
    secret: &str,
    code: &str,
) -> Result<bool> {
    let totp = Secret::try_from_base32(secret)
        .ok()
        .and_then(|s| Builder::new().with_secret(s).build().ok())
        .ok_or_else(|| {
            api(
                500,
                ErrorCode::UnexpectedFailure,
                "Database error verifying MFA TOTP secret",
            )
        })?;
    Ok(match totp.check_current(code.trim()) {
        Some(step) => c
            .query_opt(
                "INSERT INTO auth.mfa_totp_steps AS s (factor_id, last_step) VALUES ($1, $2)
                 ON CONFLICT (factor_id) DO UPDATE SET last_step = EXCLUDED.last_step
                 WHERE s.last_step < EXCLUDED.last_step
                 RETURNING 1",
                &[&factor_id, &(step as i64)],
            )
            .await?
            .is_some(),
        None => false,
    })
}

/// `DELETE /factors/{id}`: a verified factor only from an aal2 session.
pub async fn unenroll(
    c: &impl GenericClient,
    user_id: Uuid,
    factor_id: Uuid,
    session_aal2: bool,
) -> Result<(String, bool)> {
    let (factor_type, status, _) = factor(c, user_id, factor_id).await?;
    let verified = status == "verified";
    if verified && !session_aal2 {
        return Err(api(
            422,
            ErrorCode::InsufficientAal,
            "AAL2 required to unenroll verified factor",
        ));
    }
    c.execute("DELETE FROM auth.mfa_factors WHERE id = $1", &[&factor_id])
        .await?;
    if verified {
        // Sessions raised by this factor fall back to aal1.
        c.execute(
            "UPDATE auth.sessions SET aal = 'aal1', factor_id = NULL WHERE factor_id = $1",
            &[&factor_id],
        )
        .await?;
    }
    Ok((factor_type, verified))
}

/// GoTrue's answer to a challenge id that names no challenge of the factor (or is not an id).
pub fn challenge_not_found() -> AuthError {
    api(
        422,
        ErrorCode::MfaFactorNotFound,
        "MFA factor with the provided challenge ID not found",
    )
}
