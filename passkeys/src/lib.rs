//! Passkeys (`[auth.passkey]`), a sub-service of auth in a crate of its own: a signed-in user registers one (creation options with a
//! challenge, then the authenticator's answer), anyone signs in with one (request options with
//! no credentials listed — the passkey is discoverable — then the signed assertion), and users
//! and admins list, rename and delete them. Each challenge is good five minutes and once.
//! [`webauthn_rp`] checks the ceremonies.
//!
//! [`Passkeys`] borrows the auth service's core ([`auth::Auth`]: its settings, transactions,
//! rate limits and sessions): the gateway's `passkey_api` makes one per request.

use auth::error::{AuthError, ErrorCode, api};
use auth::service::never;
use auth::sessions;
use auth::{Caller, Request};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;
use webauthn_rp::{self as webauthn, Credential, Expected};

/// Milliseconds a browser is given for a ceremony (the challenge's life).
const TIMEOUT_MS: i64 = 300_000;

/// The body of the two `…/verify` calls.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct VerifyParams {
    pub challenge_id: Option<String>,
    pub credential: Option<Credential>,
}

/// A passkey as the list shows it.
const PASSKEY_JSON: &str = "jsonb_strip_nulls(jsonb_build_object('id', k.id,
    'friendly_name', k.friendly_name, 'created_at', k.created_at, 'last_used_at', k.last_used_at))";

fn challenge_not_found() -> AuthError {
    api(
        404,
        ErrorCode::WebauthnChallengeNotFound,
        "WebAuthn challenge not found or expired",
    )
}

fn refused(why: impl std::fmt::Display) -> AuthError {
    api(
        400,
        ErrorCode::WebauthnVerificationFailed,
        format!("WebAuthn verification failed: {why}"),
    )
}

fn passkey_not_found() -> AuthError {
    api(
        404,
        ErrorCode::WebauthnCredentialNotFound,
        "Passkey not found",
    )
}

fn passkey_id(raw: &str) -> Result<Uuid, AuthError> {
    Uuid::parse_str(raw).map_err(|_| passkey_not_found())
}

/// Uses up a challenge of `kind` (and of `user`, for a registration): its text.
async fn take_challenge(
    c: &tokio_postgres::Client,
    id: Option<&str>,
    kind: &str,
    user: Option<Uuid>,
) -> Result<String, AuthError> {
    let id = id
        .and_then(|s| Uuid::parse_str(s).ok())
        .ok_or_else(challenge_not_found)?;
    c.query_opt(
        "DELETE FROM auth.webauthn_challenges
         WHERE id = $1 AND kind = $2 AND user_id IS NOT DISTINCT FROM $3 AND expires_at > now()
         RETURNING challenge",
        &[&id, &kind, &user],
    )
    .await?
    .map(|r| r.get(0))
    .ok_or_else(challenge_not_found)
}

/// A new challenge: its id, text and expiry (Unix seconds).
async fn new_challenge(
    c: &tokio_postgres::Client,
    kind: &str,
    user: Option<Uuid>,
) -> Result<(Uuid, String, i64), AuthError> {
    c.execute(
        "DELETE FROM auth.webauthn_challenges WHERE expires_at < now()",
        &[],
    )
    .await?;
    let challenge = webauthn::challenge();
    let row = c
        .query_one(
            "INSERT INTO auth.webauthn_challenges (kind, user_id, challenge,
               expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))
             RETURNING id, extract(epoch FROM expires_at)::bigint",
            &[&kind, &user, &challenge, &((TIMEOUT_MS / 1000) as f64)],
        )
        .await?;
    Ok((row.get(0), challenge, row.get(1)))
}

/// A user's passkeys, oldest first.
async fn list(c: &tokio_postgres::Client, user: Uuid) -> Result<Value, AuthError> {
    Ok(c.query_one(
        &format!(
            "SELECT coalesce(jsonb_agg({PASSKEY_JSON} ORDER BY k.created_at), '[]')
             FROM auth.webauthn_credentials k WHERE k.user_id = $1"
        ),
        &[&user],
    )
    .await?
    .get(0))
}

/// Passkeys over the auth service they belong to.
pub struct Passkeys<'a> {
    auth: &'a auth::Auth,
}

impl<'a> Passkeys<'a> {
    pub fn new(auth: &'a auth::Auth) -> Passkeys<'a> {
        Passkeys { auth }
    }

    fn passkeys_on(&self) -> Result<(), AuthError> {
        match self.auth.config().webauthn.passkey {
            true => Ok(()),
            false => Err(api(
                422,
                ErrorCode::PasskeyDisabled,
                "Passkeys are disabled",
            )),
        }
    }

    fn expected<'b>(&'b self, challenge: &'b str) -> Expected<'b> {
        Expected {
            rp_id: &self.auth.config().webauthn.rp_id,
            origins: &self.auth.config().webauthn.rp_origins,
            challenge,
        }
    }

    /// `POST /passkeys/registration/options`: creation options for the signed-in user.
    pub async fn passkey_registration_options(&self, who: Caller) -> Result<Value, AuthError> {
        self.passkeys_on()?;
        let w = &self.auth.config().webauthn;
        self.auth
            .in_tx(never, async |c| {
                let user = sessions::check(c, who.id, who.session).await?;
                let name = [user.email, user.phone]
                    .into_iter()
                    .find(|s| !s.is_empty())
                    .unwrap_or_else(|| who.id.to_string());
                let exclude: Vec<Value> = c
                    .query(
                        "SELECT credential_id, transports FROM auth.webauthn_credentials
                     WHERE user_id = $1",
                        &[&who.id],
                    )
                    .await?
                    .iter()
                    .map(|r| {
                        json!({"type": "public-key", "id": webauthn::encode(r.get::<_, &[u8]>(0)),
                           "transports": r.get::<_, Value>(1)})
                    })
                    .collect();
                let (id, challenge, expires_at) =
                    new_challenge(c, "registration", Some(who.id)).await?;
                Ok(json!({
                    "challenge_id": id,
                    "expires_at": expires_at,
                    "options": {
                        "challenge": challenge,
                        "rp": {"id": w.rp_id, "name": w.rp_display_name},
                        "user": {"id": webauthn::encode(who.id.as_bytes()), "name": name,
                                 "displayName": name},
                        "pubKeyCredParams": [{"type": "public-key", "alg": webauthn::ES256}],
                        "timeout": TIMEOUT_MS,
                        "excludeCredentials": exclude,
                        "authenticatorSelection": {"residentKey": "required",
                                                   "requireResidentKey": true,
                                                   "userVerification": "preferred"},
                        "attestation": "none",
                    },
                }))
            })
            .await
    }

    /// `POST /passkeys/registration/verify`: the new passkey.
    pub async fn passkey_register(&self, who: Caller, p: VerifyParams) -> Result<Value, AuthError> {
        self.passkeys_on()?;
        let credential = p.credential.unwrap_or_default();
        self.auth
            .in_tx(never, async |c| {
                sessions::check(c, who.id, who.session).await?;
                let challenge =
                    take_challenge(c, p.challenge_id.as_deref(), "registration", Some(who.id))
                        .await?;
                let r = webauthn::verify_registration(&credential, &self.expected(&challenge))
                    .map_err(refused)?;
                let inserted = c
                    .query_one(
                        &format!(
                            "INSERT INTO auth.webauthn_credentials AS k (user_id, credential_id,
                           public_key, sign_count, transports, aaguid)
                         VALUES ($1, $2, $3, $4, $5, $6) RETURNING {PASSKEY_JSON}"
                        ),
                        &[
                            &who.id,
                            &r.credential_id,
                            &r.public_key,
                            &i64::from(r.sign_count),
                            &json!(r.transports),
                            &Uuid::from_bytes(r.aaguid),
                        ],
                    )
                    .await;
                match inserted {
                    Ok(row) => Ok(row.get(0)),
                    Err(e)
                        if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) =>
                    {
                        Err(api(
                            422,
                            ErrorCode::WebauthnCredentialExists,
                            "This passkey is already registered",
                        ))
                    }
                    Err(e) => Err(e.into()),
                }
            })
            .await
    }

    /// `POST /passkeys/authentication/options`: request options for a discoverable passkey.
    pub async fn passkey_authentication_options(&self) -> Result<Value, AuthError> {
        self.passkeys_on()?;
        let rp_id = self.auth.config().webauthn.rp_id.clone();
        self.auth
            .in_tx(never, async |c| {
                let (id, challenge, expires_at) = new_challenge(c, "authentication", None).await?;
                Ok(json!({
                    "challenge_id": id,
                    "expires_at": expires_at,
                    "options": {"challenge": challenge, "timeout": TIMEOUT_MS, "rpId": rp_id,
                                "allowCredentials": [], "userVerification": "preferred"},
                }))
            })
            .await
    }

    /// `POST /passkeys/authentication/verify`: a session for the passkey's user.
    pub async fn passkey_sign_in(&self, r: &Request, p: VerifyParams) -> Result<Value, AuthError> {
        self.passkeys_on()?;
        self.auth.limit_sign_in(r).await?;
        let credential = p.credential.unwrap_or_default();
        let cfg = self.auth.config();
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        self.auth
            .in_tx(never, async |c| {
                let challenge =
                    take_challenge(c, p.challenge_id.as_deref(), "authentication", None).await?;
                let id = webauthn::assertion_id(&credential).map_err(refused)?;
                let row = c
                    .query_opt(
                        "SELECT k.id, k.user_id, k.public_key, k.sign_count,
                            coalesce(u.banned_until > now(), false)
                     FROM auth.webauthn_credentials k JOIN auth.users u ON u.id = k.user_id
                     WHERE k.credential_id = $1 AND u.deleted_at IS NULL FOR UPDATE OF k",
                        &[&id],
                    )
                    .await?
                    .ok_or_else(|| refused("unknown credential"))?;
                let (key_id, user, public_key, count, banned): (Uuid, Uuid, Vec<u8>, i64, bool) =
                    (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
                if let Some(handle) = credential.response.user_handle.as_deref()
                    && !handle.is_empty()
                    && handle != webauthn::encode(user.as_bytes())
                {
                    return Err(refused("user handle mismatch"));
                }
                let count = webauthn::verify_assertion(
                    &credential,
                    &self.expected(&challenge),
                    &public_key,
                    count as u32,
                )
                .map_err(refused)?;
                if banned {
                    return Err(api(400, ErrorCode::UserBanned, "User is banned"));
                }
                c.execute(
                    "UPDATE auth.webauthn_credentials SET sign_count = $2, last_used_at = now(),
                   updated_at = now() WHERE id = $1",
                    &[&key_id, &i64::from(count)],
                )
                .await?;
                sessions::start(c, cfg, user, "passkey", ua, addr).await
            })
            .await
    }

    /// `GET /admin/users/{id}/passkeys`.
    pub async fn list_passkeys(&self, user: Uuid) -> Result<Value, AuthError> {
        self.auth.in_tx(never, async |c| list(c, user).await).await
    }

    /// `GET /passkeys`.
    pub async fn my_passkeys(&self, who: Caller) -> Result<Value, AuthError> {
        self.auth
            .in_tx(never, async |c| {
                sessions::check(c, who.id, who.session).await?;
                list(c, who.id).await
            })
            .await
    }

    /// `PATCH /passkeys/{id}` with `friendly_name`.
    pub async fn rename_passkey(
        &self,
        who: Caller,
        id: &str,
        name: &str,
    ) -> Result<Value, AuthError> {
        let id = passkey_id(id)?;
        self.auth
            .in_tx(never, async |c| {
                sessions::check(c, who.id, who.session).await?;
                c.query_opt(
                    &format!(
                        "UPDATE auth.webauthn_credentials k SET friendly_name = nullif($3, ''),
                       updated_at = now() WHERE k.id = $1 AND k.user_id = $2
                     RETURNING {PASSKEY_JSON}"
                    ),
                    &[&id, &who.id, &name],
                )
                .await?
                .map(|r| r.get(0))
                .ok_or_else(passkey_not_found)
            })
            .await
    }

    /// `DELETE /passkeys/{id}` and `DELETE /admin/users/{user}/passkeys/{id}`.
    pub async fn delete_passkey(&self, user: Uuid, id: &str) -> Result<(), AuthError> {
        let id = passkey_id(id)?;
        self.auth
            .in_tx(never, async |c| {
                let n = c
                    .execute(
                        "DELETE FROM auth.webauthn_credentials WHERE id = $1 AND user_id = $2",
                        &[&id, &user],
                    )
                    .await?;
                match n {
                    0 => Err(passkey_not_found()),
                    _ => Ok(()),
                }
            })
            .await
    }
}
