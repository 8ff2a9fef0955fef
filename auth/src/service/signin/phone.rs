//! Phone numbers (`[auth.sms] enable_signup`), as GoTrue runs them: sign-up with a password
//! (confirmed by a texted code unless confirmations are off), sign-in with a texted code, a
//! number's change confirmed on the new number, codes sent again. A code is kept as GoTrue keeps
//! e-mailed ones (the hash of number and code, [`crate::otp`]) and lives 60 seconds; messages go
//! through a provider (`sms_send`) or, without one, to the SMS catcher (`supagate.sms`); never
//! twice to one number within `max_frequency`; and a number of
//! `[auth.sms.test_otp]` gets no message: its code is the configured one. A message that cannot
//! be sent undoes its flow, as in GoTrue (the send is inside the transaction).

use crate::config::AuthConfig;
use crate::error::{AuthError, ErrorCode, api, otp_expired, validation};
use crate::otp::{self, Slot};
use crate::phone::{Channel, Text};
use crate::service::{Auth, HOUR_SECS, Request, hash_password, never};
use crate::{phone, sessions, users};
use serde_json::{Value, json};
use tokio_postgres::GenericClient;
use uuid::Uuid;

/// Seconds a texted code stays valid (GoTrue's `SMS_OTP_EXP` default).
const OTP_EXPIRY_SECS: f64 = 60.0;
const OTP_LENGTH: usize = 6;

fn disabled() -> AuthError {
    api(
        422,
        ErrorCode::PhoneProviderDisabled,
        "Phone logins are disabled",
    )
}

/// Texts a new code for `slot` to `number` (or, for a test number, keeps its fixed code): the
/// message id GoTrue answers with.
async fn send_code(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    (user, slot): (Uuid, Slot),
    number: &str,
    kind: &str,
    channel: Channel,
) -> Result<String, AuthError> {
    let wait: Option<f64> = c
        .query_one(
            &format!(
                "SELECT $2 - extract(epoch FROM now() - {})::float8 FROM auth.users WHERE id = $1",
                slot.sent_at()
            ),
            &[&user, &(cfg.sms.max_frequency as f64)],
        )
        .await?
        .get(0);
    phone::too_soon(wait)?;
    let test = cfg.sms.test_otp.get(number);
    let code = test.cloned().unwrap_or_else(|| otp::generate(OTP_LENGTH));
    otp::store(c, user, slot, &otp::hash(number, &code), number).await?;
    if test.is_some() {
        return Ok("test-otp".into());
    }
    let body = phone::message(&cfg.sms.template, &code);
    let text = Text {
        number,
        body: &body,
        kind,
        channel,
    };
    crate::service::sms_send::deliver(c, cfg, (user, &code), text).await
}

/// The user with this number: id, whether the number is confirmed, whether a password is set.
async fn by_number(
    c: &impl GenericClient,
    number: &str,
) -> Result<Option<(Uuid, bool, bool)>, AuthError> {
    Ok(c.query_opt(
        "SELECT id, phone_confirmed_at IS NOT NULL, coalesce(encrypted_password, '') <> ''
             FROM auth.users WHERE phone = $1 AND deleted_at IS NULL FOR UPDATE",
        &[&number],
    )
    .await?
    .map(|r| (r.get(0), r.get(1), r.get(2))))
}

impl Auth {
    pub(in crate::service) fn phone_enabled(&self) -> Result<(), AuthError> {
        match self.cfg.sms.enable_signup {
            true => Ok(()),
            false => Err(disabled()),
        }
    }

    /// Counts a text message against `[auth.rate_limit] sms_sent` (the whole project, an hour).
    async fn limit_sms(&self) -> Result<(), AuthError> {
        let n = self.cfg.rate_limits.sms_sent;
        self.limit_key("sms-sent", n, HOUR_SECS).await.map_err(|_| {
            api(
                429,
                ErrorCode::OverSmsSendRateLimit,
                "SMS rate limit exceeded",
            )
        })
    }

    /// `POST /signup` with a phone number and a password.
    pub(in crate::service) async fn signup_phone(
        &self,
        r: &Request,
        number: &str,
        password: &str,
        (data, channel): (Value, Option<&str>),
    ) -> Result<Value, AuthError> {
        if !self.cfg.sms.enable_signup {
            return Err(api(
                400,
                ErrorCode::PhoneProviderDisabled,
                "Phone signups are disabled",
            ));
        }
        let number = phone::normalize(number)?;
        crate::signup::check_password(password, &self.cfg)?;
        let channel = Channel::parse(channel, &self.cfg)?;
        let autoconfirm = !self.cfg.sms.enable_confirmations;
        if !autoconfirm {
            self.limit_sms().await?;
        }
        let hash = hash_password(password.to_string()).await;
        let cfg = &self.cfg;
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        self.in_tx(never, async |c| {
            let id = match by_number(c, &number).await? {
                Some((_, true, _)) => {
                    return Err(api(
                        422,
                        ErrorCode::UserAlreadyExists,
                        "User already registered",
                    ));
                }
                // An unconfirmed sign-up is taken over by the next one, as GoTrue does.
                Some((id, false, _)) => {
                    c.execute(
                        "UPDATE auth.users SET encrypted_password = $2,
                           raw_user_meta_data = $3, updated_at = now() WHERE id = $1",
                        &[&id, &hash, &data],
                    )
                    .await?;
                    id
                }
                None => users::insert_phone_user(c, &number, &hash, &data, autoconfirm).await?,
            };
            if autoconfirm {
                return sessions::start(c, cfg, id, "password", ua, addr).await;
            }
            send_code(
                c,
                cfg,
                (id, Slot::Confirmation),
                &number,
                "confirmation",
                channel,
            )
            .await?;
            users::require(c, id).await
        })
        .await
    }

    /// `POST /otp` with a phone number: a code texted to it (the user made first, unless
    /// `create_user` is false).
    pub(in crate::service) async fn otp_phone(
        &self,
        number: &str,
        create_user: bool,
        (data, channel): (Value, Option<&str>),
    ) -> Result<Value, AuthError> {
        self.phone_enabled()?;
        let number = phone::normalize(number)?;
        let channel = Channel::parse(channel, &self.cfg)?;
        self.limit_sms().await?;
        let cfg = &self.cfg;
        let signups = !cfg.disable_signup;
        let message_id = self
            .in_tx(never, async |c| {
                let id = match by_number(c, &number).await? {
                    Some((id, ..)) => id,
                    None if create_user && signups => {
                        let hash = hash_password(otp::generate(33)).await;
                        users::insert_phone_user(c, &number, &hash, &data, false).await?
                    }
                    None => {
                        return Err(api(
                            422,
                            ErrorCode::OtpDisabled,
                            "Signups not allowed for otp",
                        ));
                    }
                };
                send_code(c, cfg, (id, Slot::Confirmation), &number, "otp", channel).await
            })
            .await?;
        Ok(json!({ "message_id": message_id }))
    }

    /// `POST /resend` with `sms` (a sign-up's code) or `phone_change` (the new number's code).
    pub(in crate::service) async fn resend_phone(
        &self,
        kind: &str,
        number: &str,
    ) -> Result<Value, AuthError> {
        self.phone_enabled()?;
        let number = phone::normalize(number)?;
        self.limit_sms().await?;
        let cfg = &self.cfg;
        let message_id = self
            .in_tx(never, async |c| {
                let user: Option<Uuid> = if kind == "sms" {
                    by_number(c, &number)
                        .await?
                        .filter(|(_, confirmed, _)| !confirmed)
                        .map(|(id, ..)| id)
                } else {
                    c.query_opt(
                        "SELECT id FROM auth.users WHERE phone_change = $1 AND deleted_at IS NULL
                         FOR UPDATE",
                        &[&number],
                    )
                    .await?
                    .map(|r| r.get(0))
                };
                // As GoTrue: nothing to resend is not an error the caller can learn from.
                let Some(id) = user else {
                    return Ok(None);
                };
                let slot = if kind == "sms" {
                    Slot::Confirmation
                } else {
                    Slot::PhoneChange
                };
                send_code(c, cfg, (id, slot), &number, kind, Channel::Sms)
                    .await
                    .map(Some)
            })
            .await?;
        Ok(match message_id {
            Some(id) => json!({ "message_id": id }),
            None => json!({}),
        })
    }

    /// `PUT /user` with a new phone number: a code texted to it, the change pending until the
    /// code is verified (`phone_change`). The user as it is then.
    pub(in crate::service) async fn request_phone_change(
        &self,
        user: Uuid,
        number: &str,
        channel: Option<&str>,
    ) -> Result<Value, AuthError> {
        self.phone_enabled()?;
        let number = phone::normalize(number)?;
        let channel = Channel::parse(channel, &self.cfg)?;
        self.limit_sms().await?;
        let cfg = &self.cfg;
        self.in_tx(never, async |c| {
            change_phone(c, cfg, (user, &number), channel).await?;
            users::require(c, user).await
        })
        .await
    }
}

/// Records `number` as the user's pending new number and texts it a code.
async fn change_phone(
    c: &tokio_postgres::Client,
    cfg: &AuthConfig,
    (user, number): (Uuid, &str),
    channel: Channel,
) -> Result<(), AuthError> {
    {
        let taken: bool = c
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM auth.users WHERE phone = $1 AND id <> $2
                                AND deleted_at IS NULL)",
                &[&number, &user],
            )
            .await?
            .get(0);
        if taken {
            return Err(api(
                422,
                ErrorCode::PhoneExists,
                "A user with this phone number has already been registered",
            ));
        }
        c.execute(
            "UPDATE auth.users SET phone_change = $2, updated_at = now() WHERE id = $1",
            &[&user, &number],
        )
        .await?;
        send_code(
            c,
            cfg,
            (user, Slot::PhoneChange),
            number,
            "phone_change",
            channel,
        )
        .await?;
        Ok(())
    }
}

impl Auth {
    /// `POST /verify` with `sms` or `phone_change`, a number and its code: a session.
    pub(in crate::service) async fn verify_phone(
        &self,
        r: &Request,
        kind: &str,
        number: &str,
        code: &str,
    ) -> Result<Value, AuthError> {
        // As GoTrue: a number nobody has is a wrong code, whether phone sign-ins are on or not.
        // Codes are guessed per number: the limit holds whoever asks, from anywhere.
        let number = phone::normalize(number)?;
        let n = self.cfg.rate_limits.token_verifications;
        self.limit_key(
            &format!("verify-phone:{number}"),
            n,
            crate::service::WINDOW_SECS,
        )
        .await?;
        let (slot, column) = match kind {
            "sms" => (Slot::Confirmation, "phone"),
            "phone_change" => (Slot::PhoneChange, "phone_change"),
            _ => return Err(validation("Invalid verification type")),
        };
        let cfg = &self.cfg;
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        self.in_tx(never, async |c| {
            let row = c
                .query_opt(
                    &format!(
                        "SELECT id, {token}, extract(epoch FROM now() - {sent})::float8
                         FROM auth.users WHERE {column} = $1 AND deleted_at IS NULL FOR UPDATE",
                        token = slot.column(),
                        sent = slot.sent_at(),
                    ),
                    &[&number],
                )
                .await?
                .ok_or_else(otp_expired)?;
            let (id, stored, age): (Uuid, Option<String>, Option<f64>) =
                (row.get(0), row.get(1), row.get(2));
            // Twilio Verify keeps its codes and their expiry; otherwise the hash kept here.
            let valid = match crate::service::sms_send::provider_check(cfg, &number, code).await {
                Some(approved) => approved,
                None => {
                    age.is_some_and(|a| a <= OTP_EXPIRY_SECS)
                        && stored.as_deref() == Some(otp::hash(&number, code).as_str())
                }
            };
            if !valid || code.is_empty() {
                return Err(otp_expired());
            }
            otp::clear(c, id, slot).await?;
            if kind == "phone_change" {
                c.execute(
                    "UPDATE auth.users SET phone = phone_change, phone_change = '',
                       phone_confirmed_at = now(), updated_at = now() WHERE id = $1",
                    &[&id],
                )
                .await?;
                c.execute(
                    "UPDATE auth.identities SET identity_data = identity_data
                       || jsonb_build_object('phone', $2::text, 'phone_verified', true),
                       updated_at = now()
                     WHERE user_id = $1 AND provider = 'phone'",
                    &[&id, &number],
                )
                .await?;
            } else {
                c.execute(
                    "UPDATE auth.users SET phone_confirmed_at = coalesce(phone_confirmed_at, now()),
                       updated_at = now() WHERE id = $1",
                    &[&id],
                )
                .await?;
                c.execute(
                    "UPDATE auth.identities SET identity_data = identity_data
                       || '{\"phone_verified\": true}', updated_at = now()
                     WHERE user_id = $1 AND provider = 'phone'",
                    &[&id],
                )
                .await?;
            }
            sessions::start(c, cfg, id, "otp", ua, addr).await
        })
        .await
    }
}
