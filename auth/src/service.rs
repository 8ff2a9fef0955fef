//! GoTrue's flows over the `auth` schema: sign-up, sessions, refresh-token rotation, logout,
//! user updates, admin user management and rate limits. Callers hash and verify passwords (slow
//! on purpose) outside the transaction and pass the results in.

use crate::jwt::JwtKeys;
use crate::password;
use base64::Engine;
use rand::RngCore;
use serde_json::{Value, json};
use sha2::Digest;
use tokio_postgres::GenericClient;
use uuid::Uuid;

#[derive(Clone)]
pub struct AuthConfig {
    pub keys: JwtKeys,
    /// Access token lifetime in seconds.
    pub jwt_expiry: i64,
    /// `iss` of access tokens: the auth URL.
    pub issuer: String,
    pub password: password::Policy,
    pub disable_signup: bool,
    /// `[auth.email] enable_signup`: e-mail sign-ups and sign-ins are allowed.
    pub email_enabled: bool,
    /// A refresh token reused after the reuse interval revokes its whole family.
    pub rotation: bool,
    /// Seconds during which a just-rotated refresh token may be presented again.
    pub refresh_reuse_interval: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("{message}")]
    Api {
        status: u16,
        code: &'static str,
        message: String,
    },
    /// 422 weak_password, with GoTrue's `weak_password.reasons`.
    #[error("{message}")]
    WeakPassword {
        message: String,
        reasons: Vec<&'static str>,
    },
    #[error("database error: {0}")]
    Db(#[from] tokio_postgres::Error),
}

pub fn api(status: u16, code: &'static str, message: impl Into<String>) -> AuthError {
    AuthError::Api {
        status,
        code,
        message: message.into(),
    }
}

pub fn invalid_credentials() -> AuthError {
    api(400, "invalid_credentials", "Invalid login credentials")
}

fn sha256_hex(s: &str) -> String {
    sha2::Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An opaque refresh token: 32 random bytes, URL-safe.
fn new_refresh_token() -> String {
    let mut b = [0u8; 32];
    rand::rng().fill_bytes(&mut b);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

/// Checks the e-mail and password of a sign-up or an update, as GoTrue words it.
pub fn validate_credentials(
    email: Option<&str>,
    pw: Option<&str>,
    policy: &password::Policy,
) -> Result<(String, String), AuthError> {
    let email = email.filter(|e| !e.trim().is_empty()).ok_or_else(|| {
        api(
            400,
            "validation_failed",
            "To signup, please provide your email",
        )
    })?;
    let email = crate::users::normalize_email(email)
        .map_err(|e| api(400, "validation_failed", e.to_string()))?;
    let pw = pw
        .filter(|p| !p.is_empty())
        .ok_or_else(|| api(400, "validation_failed", "Signup requires a valid password"))?;
    check_password(pw, policy)?;
    Ok((email, pw.to_string()))
}

pub fn check_password(pw: &str, policy: &password::Policy) -> Result<(), AuthError> {
    policy.check(pw).map_err(|e| match e {
        password::PasswordError::Weak { message, reasons } => {
            AuthError::WeakPassword { message, reasons }
        }
        password::PasswordError::TooLong => api(422, "validation_failed", e.to_string()),
    })
}

const USER_JSON: &str = "SELECT json_build_object(
   'id', u.id, 'aud', coalesce(u.aud, ''), 'role', coalesce(u.role, ''), 'email', coalesce(u.email, ''),
   'email_confirmed_at', u.email_confirmed_at, 'phone', coalesce(u.phone, ''),
   'confirmed_at', u.confirmed_at, 'last_sign_in_at', u.last_sign_in_at,
   'app_metadata', coalesce(u.raw_app_meta_data, '{}'), 'user_metadata', coalesce(u.raw_user_meta_data, '{}'),
   'identities', coalesce((SELECT json_agg(json_build_object(
        'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id, 'identity_data', i.identity_data,
        'provider', i.provider, 'last_sign_in_at', i.last_sign_in_at, 'created_at', i.created_at,
        'updated_at', i.updated_at, 'email', i.email) ORDER BY i.created_at)
      FROM auth.identities i WHERE i.user_id = u.id), '[]'),
   'created_at', u.created_at, 'updated_at', u.updated_at, 'banned_until', u.banned_until,
   'is_anonymous', u.is_anonymous)::text
 FROM auth.users u WHERE u.id = $1 AND u.deleted_at IS NULL";

/// The user object GoTrue returns, or None when the user does not exist.
pub async fn user_json(c: &impl GenericClient, id: Uuid) -> Result<Option<Value>, AuthError> {
    let row = c.query_opt(USER_JSON, &[&id]).await?;
    Ok(row.map(|r| serde_json::from_str(&r.get::<_, String>(0)).expect("user JSON from Postgres")))
}

/// Id, password hash and ban of the user with this (normalised) e-mail.
pub async fn login_lookup(
    c: &impl GenericClient,
    email: &str,
) -> Result<Option<(Uuid, String, bool)>, AuthError> {
    Ok(c.query_opt(
        "SELECT id, coalesce(encrypted_password, ''), coalesce(banned_until > now(), false)
             FROM auth.users WHERE lower(email) = lower($1) AND deleted_at IS NULL",
        &[&email],
    )
    .await?
    .map(|r| (r.get(0), r.get(1), r.get(2))))
}

/// Signs an access token for a user and session, with GoTrue's claims.
fn access_token(
    cfg: &AuthConfig,
    user: &Value,
    session_id: Uuid,
    method: &str,
    now: i64,
) -> String {
    cfg.keys.sign(&json!({
        "iss": cfg.issuer,
        "sub": user["id"],
        "aud": "authenticated",
        "exp": now + cfg.jwt_expiry,
        "iat": now,
        "email": user["email"],
        "phone": user["phone"],
        "app_metadata": user["app_metadata"],
        "user_metadata": user["user_metadata"],
        "role": "authenticated",
        "aal": "aal1",
        "amr": [{"method": method, "timestamp": now}],
        "session_id": session_id,
        "is_anonymous": user["is_anonymous"],
    }))
}

fn token_response(
    cfg: &AuthConfig,
    user: Value,
    session_id: Uuid,
    refresh: &str,
    method: &str,
) -> Value {
    let now = chrono::Utc::now().timestamp();
    json!({
        "access_token": access_token(cfg, &user, session_id, method, now),
        "token_type": "bearer",
        "expires_in": cfg.jwt_expiry,
        "expires_at": now + cfg.jwt_expiry,
        "refresh_token": refresh,
        "user": user,
    })
}

/// Starts a session for a user who just proved who they are.
pub async fn start_session(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user_id: Uuid,
    method: &str,
    user_agent: Option<&str>,
    ip: Option<&str>,
) -> Result<Value, AuthError> {
    let session: Uuid = c
        .query_one(
            "INSERT INTO auth.sessions (user_id, user_agent, ip) VALUES ($1, $2, $3::text::inet) RETURNING id",
            &[&user_id, &user_agent, &ip],
        )
        .await?
        .get(0);
    let refresh = new_refresh_token();
    c.execute(
        "INSERT INTO auth.refresh_tokens (token, user_id, session_id) VALUES ($1, $2, $3)",
        &[&sha256_hex(&refresh), &user_id, &session],
    )
    .await?;
    c.execute(
        "WITH u AS (UPDATE auth.users SET last_sign_in_at = now() WHERE id = $1 RETURNING id)
         UPDATE auth.identities SET last_sign_in_at = now() WHERE user_id IN (SELECT id FROM u)",
        &[&user_id],
    )
    .await?;
    let user = user_json(c, user_id)
        .await?
        .ok_or_else(invalid_credentials)?;
    Ok(token_response(cfg, user, session, &refresh, method))
}

/// Creates a confirmed user (e-mail autoconfirm, as the Supabase CLI runs GoTrue) and signs in.
pub async fn signup(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    email: &str,
    password_hash: &str,
    data: &Value,
    user_agent: Option<&str>,
    ip: Option<&str>,
) -> Result<Value, AuthError> {
    if cfg.disable_signup {
        return Err(api(
            422,
            "signup_disabled",
            "Signups not allowed for this instance",
        ));
    }
    if crate::users::find_id_by_email(c, email).await?.is_some() {
        return Err(api(422, "user_already_exists", "User already registered"));
    }
    let meta = if data.is_object() {
        data.clone()
    } else {
        json!({})
    };
    let id = match crate::users::insert_user(c, email, password_hash, &meta, true).await {
        Ok(id) => id,
        // Two sign-ups of one address at the same moment: the unique index decides.
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => {
            return Err(api(422, "user_already_exists", "User already registered"));
        }
        Err(e) => return Err(e.into()),
    };
    start_session(c, cfg, id, "password", user_agent, ip).await
}

/// Rotates a refresh token with GoTrue's reuse rules: a token revoked less than the reuse
/// interval ago yields the session's current token; any later reuse revokes the whole family.
pub async fn refresh(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    token: &str,
) -> Result<Value, AuthError> {
    let not_found = || {
        api(
            400,
            "refresh_token_not_found",
            "Invalid Refresh Token: Refresh Token Not Found",
        )
    };
    if token.is_empty() {
        return Err(not_found());
    }
    let hash = sha256_hex(token);
    let row = c
        .query_opt(
            "SELECT rt.id, rt.user_id, rt.session_id, rt.revoked,
                    extract(epoch FROM now() - rt.updated_at)::float8,
                    s.not_after IS NOT NULL AND s.not_after < now()
             FROM auth.refresh_tokens rt JOIN auth.sessions s ON s.id = rt.session_id
             WHERE rt.token = $1 FOR UPDATE OF rt, s",
            &[&hash],
        )
        .await?
        .ok_or_else(not_found)?;
    let (id, user_id, session_id, revoked, age, expired): (i64, Uuid, Uuid, bool, f64, bool) = (
        row.get(0),
        row.get(1),
        row.get(2),
        row.get(3),
        row.get(4),
        row.get(5),
    );
    if expired {
        return Err(api(
            400,
            "session_expired",
            "Invalid Refresh Token: Session Expired",
        ));
    }
    if revoked {
        if age <= cfg.refresh_reuse_interval as f64 {
            // Two tabs refreshing at once, or a client that lost the rotation's response: within
            // the reuse interval the old token yields a sibling of the session's current token
            // (we store only hashes, so the current one cannot be handed out again).
            let sibling = new_refresh_token();
            let inserted = c
                .execute(
                    "INSERT INTO auth.refresh_tokens (token, user_id, session_id, parent)
                     SELECT $1::varchar, $2::uuid, $3::uuid, $4::varchar
                     WHERE EXISTS (SELECT 1 FROM auth.refresh_tokens WHERE session_id = $3 AND NOT revoked AND parent = $4)",
                    &[&sha256_hex(&sibling), &user_id, &session_id, &hash],
                )
                .await?;
            if inserted == 1 {
                let user = user_json(c, user_id).await?.ok_or_else(not_found)?;
                return Ok(token_response(
                    cfg,
                    user,
                    session_id,
                    &sibling,
                    "token_refresh",
                ));
            }
        }
        if cfg.rotation {
            c.execute("UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE session_id = $1 AND NOT revoked", &[&session_id])
                .await?;
        }
        return Err(api(
            400,
            "refresh_token_already_used",
            "Invalid Refresh Token: Already Used",
        ));
    }
    let next = new_refresh_token();
    c.execute(
        "UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE id = $1",
        &[&id],
    )
    .await?;
    c.execute(
        "INSERT INTO auth.refresh_tokens (token, user_id, session_id, parent) VALUES ($1, $2, $3, $4)",
        &[&sha256_hex(&next), &user_id, &session_id, &hash],
    )
    .await?;
    c.execute(
        "UPDATE auth.sessions SET refreshed_at = now(), updated_at = now() WHERE id = $1",
        &[&session_id],
    )
    .await?;
    let user = user_json(c, user_id).await?.ok_or_else(not_found)?;
    Ok(token_response(
        cfg,
        user,
        session_id,
        &next,
        "token_refresh",
    ))
}

/// The user and session named by a verified access token must still exist.
pub async fn check_session(
    c: &impl GenericClient,
    user_id: Uuid,
    session_id: Option<Uuid>,
) -> Result<Value, AuthError> {
    let user = user_json(c, user_id).await?.ok_or_else(|| {
        api(
            403,
            "user_not_found",
            "User from sub claim in JWT does not exist",
        )
    })?;
    if let Some(sid) = session_id
        && c.query_opt("SELECT 1 FROM auth.sessions WHERE id = $1", &[&sid])
            .await?
            .is_none()
    {
        return Err(api(
            403,
            "session_not_found",
            "Session from session_id claim in JWT does not exist",
        ));
    }
    Ok(user)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogoutScope {
    Global,
    Local,
    Others,
}

pub async fn logout(
    c: &impl GenericClient,
    user_id: Uuid,
    session_id: Option<Uuid>,
    scope: LogoutScope,
) -> Result<(), AuthError> {
    match (scope, session_id) {
        (LogoutScope::Global, _) | (LogoutScope::Local, None) => {
            c.execute("DELETE FROM auth.sessions WHERE user_id = $1", &[&user_id])
                .await?;
        }
        (LogoutScope::Local, Some(s)) => {
            c.execute("DELETE FROM auth.sessions WHERE id = $1", &[&s])
                .await?;
        }
        (LogoutScope::Others, s) => {
            c.execute(
                "DELETE FROM auth.sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2",
                &[&user_id, &s],
            )
            .await?;
        }
    }
    Ok(())
}

/// Updates e-mail, password hash and/or user metadata (merged, as GoTrue merges `data`).
pub async fn update_user(
    c: &impl GenericClient,
    id: Uuid,
    email: Option<&str>,
    password_hash: Option<&str>,
    data: Option<&Value>,
    app_data: Option<&Value>,
) -> Result<Value, AuthError> {
    let result = c
        .execute(
            "UPDATE auth.users SET
               email = coalesce($2, email),
               encrypted_password = coalesce($3, encrypted_password),
               raw_user_meta_data = CASE WHEN $4::jsonb IS NULL THEN raw_user_meta_data ELSE raw_user_meta_data || $4::jsonb END,
               raw_app_meta_data = CASE WHEN $5::jsonb IS NULL THEN raw_app_meta_data ELSE raw_app_meta_data || $5::jsonb END,
               updated_at = now()
             WHERE id = $1",
            &[&id, &email, &password_hash, &data, &app_data],
        )
        .await;
    match result {
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => {
            return Err(api(
                422,
                "email_exists",
                "A user with this email address has already been registered",
            ));
        }
        Err(e) => return Err(e.into()),
        Ok(_) => {}
    }
    if let Some(e) = email {
        c.execute(
            "UPDATE auth.identities SET identity_data = identity_data || jsonb_build_object('email', $2::text), updated_at = now()
             WHERE user_id = $1 AND provider = 'email'",
            &[&id, &e],
        )
        .await?;
    }
    user_json(c, id)
        .await?
        .ok_or_else(|| api(404, "user_not_found", "User not found"))
}

pub async fn list_users(
    c: &impl GenericClient,
    page: i64,
    per_page: i64,
) -> Result<(Vec<Value>, i64), AuthError> {
    let total: i64 = c
        .query_one(
            "SELECT count(*) FROM auth.users WHERE deleted_at IS NULL",
            &[],
        )
        .await?
        .get(0);
    let ids: Vec<Uuid> = c
        .query(
            "SELECT id FROM auth.users WHERE deleted_at IS NULL ORDER BY created_at DESC, id LIMIT $1 OFFSET $2",
            &[&per_page, &((page - 1) * per_page)],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut users = Vec::with_capacity(ids.len());
    for id in ids {
        if let Some(u) = user_json(c, id).await? {
            users.push(u);
        }
    }
    Ok((users, total))
}

pub async fn delete_user(c: &impl GenericClient, id: Uuid) -> Result<bool, AuthError> {
    Ok(c.execute("DELETE FROM auth.users WHERE id = $1", &[&id])
        .await?
        > 0)
}

/// Counts a request against a fixed window shared by every gateway replica (the row lives in
/// PostgreSQL). Returns false when the limit is exceeded.
pub async fn rate_limit(
    c: &impl GenericClient,
    key: &str,
    limit: i32,
    window_secs: i32,
) -> Result<bool, AuthError> {
    let count: i32 = c
        .query_one(
            "INSERT INTO auth.rate_limits AS r (key, window_start, count) VALUES ($1, now(), 1)
             ON CONFLICT (key) DO UPDATE SET
               count = CASE WHEN r.window_start < now() - make_interval(secs => $2) THEN 1 ELSE r.count + 1 END,
               window_start = CASE WHEN r.window_start < now() - make_interval(secs => $2) THEN now() ELSE r.window_start END
             RETURNING count",
            &[&key, &(window_secs as f64)],
        )
        .await?
        .get(0);
    Ok(count <= limit)
}

/// Deletes counters whose windows ended long ago (an hour covers every window in use).
pub async fn prune_rate_limits(c: &impl GenericClient) -> Result<u64, AuthError> {
    Ok(c.execute(
        "DELETE FROM auth.rate_limits WHERE window_start < now() - interval '1 hour'",
        &[],
    )
    .await?)
}
