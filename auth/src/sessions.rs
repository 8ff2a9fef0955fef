//! Sessions: started by a sign-in of some method (recorded, with later MFA steps, in
//! `auth.mfa_amr_claims`), continued by refresh-token rotation, ended by logout. Access tokens
//! carry GoTrue's claims — `aal` and `amr` from the session — and pass through the custom access
//! token hook when one is configured.

use crate::config::AuthConfig;
use crate::error::ErrorCode;
use crate::error::{Result, api, invalid_credentials};
use crate::models::{AccessTokenClaims, AccessTokenResponse, User};
use crate::{hooks, users};
use base64::Engine;
use rand::RngCore;
use serde_json::Value;
use tokio_postgres::GenericClient;
use uuid::Uuid;

/// The SHA-256 of a text in lower-case hex (how GoTrue keeps tokens' hashes).
pub fn sha256_hex(s: &str) -> String {
    project::sha256_hex(s.as_bytes())
}

/// An opaque refresh token (or code): 32 random bytes, URL-safe.
pub fn new_refresh_token() -> String {
    let mut b = [0u8; 32];
    rand::rng().fill_bytes(&mut b);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

/// The session's assurance level and methods (newest first), as the token's `aal` and `amr`,
/// and the OAuth client it was issued to (the token's `client_id`).
async fn aal_amr(
    c: &impl GenericClient,
    session_id: Uuid,
) -> Result<(String, Value, Option<Uuid>)> {
    let row = c
        .query_one(
            "SELECT coalesce(s.aal::text, 'aal1'), coalesce((SELECT jsonb_agg(jsonb_build_object(
                 'method', a.authentication_method, 'timestamp', extract(epoch FROM a.updated_at)::bigint)
                 ORDER BY a.updated_at DESC)
               FROM auth.mfa_amr_claims a WHERE a.session_id = s.id), '[]'), s.oauth_client_id
             FROM auth.sessions s WHERE s.id = $1",
            &[&session_id],
        )
        .await?;
    Ok((row.get(0), row.get(1), row.get(2)))
}

/// The token response of a session: access token (through the hook), refresh token, user.
async fn respond(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user: User,
    session_id: Uuid,
    refresh: &str,
    method: &str,
) -> Result<Value> {
    let now = identity::clock::now();
    let (aal, amr, client) = aal_amr(c, session_id).await?;
    let claims = AccessTokenClaims {
        iss: &cfg.jwt_issuer,
        sub: user.id,
        aud: &user.aud,
        exp: now + cfg.jwt_expiry,
        iat: now,
        email: &user.email,
        phone: &user.phone,
        app_metadata: &user.app_metadata,
        user_metadata: &user.user_metadata,
        role: &user.role,
        aal,
        amr,
        session_id,
        is_anonymous: user.is_anonymous,
        client_id: client,
    };
    let mut claims = serde_json::to_value(claims).expect("access token claims serialize");
    if let Some(hook) = &cfg.hooks.custom_access_token {
        claims = hooks::custom_access_token(c, hook, user.id, claims, method).await?;
    }
    let exp = claims["exp"].as_i64().unwrap_or(now + cfg.jwt_expiry);
    let response = AccessTokenResponse {
        access_token: cfg.keys.sign(&claims),
        token_type: "bearer",
        expires_in: exp - now,
        expires_at: exp,
        refresh_token: refresh.to_string(),
        user,
    };
    Ok(serde_json::to_value(response).expect("a token response serializes"))
}

/// Records that the session was authenticated (again) by `method`.
pub async fn add_method(c: &impl GenericClient, session_id: Uuid, method: &str) -> Result<()> {
    c.execute(
        "INSERT INTO auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
         VALUES (gen_random_uuid(), $1, now(), now(), $2)
         ON CONFLICT (session_id, authentication_method) DO UPDATE SET updated_at = now()",
        &[&session_id, &method],
    )
    .await?;
    Ok(())
}

/// Starts a session for a user who just proved who they are by `method`.
pub async fn start(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user_id: Uuid,
    method: &str,
    user_agent: Option<&str>,
    ip: Option<&str>,
) -> Result<Value> {
    start_for(c, cfg, user_id, method, (user_agent, ip), None).await
}

/// Starts a session, for the OAuth client `client` when given (its tokens carry `client_id`).
pub async fn start_for(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user_id: Uuid,
    method: &str,
    (user_agent, ip): (Option<&str>, Option<&str>),
    client: Option<Uuid>,
) -> Result<Value> {
    let session: Uuid = c
        .query_one(
            "INSERT INTO auth.sessions (user_id, user_agent, ip, oauth_client_id)
             VALUES ($1, $2, $3::text::inet, $4) RETURNING id",
            &[&user_id, &user_agent, &ip, &client],
        )
        .await?
        .get(0);
    add_method(c, session, method).await?;
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
    let user = users::load(c, user_id)
        .await?
        .ok_or_else(invalid_credentials)?;
    respond(c, cfg, user, session, &refresh, method).await
}

/// Raises a session to aal2 after a second factor, and answers with a new token pair.
pub async fn upgrade(
    c: &impl GenericClient,
    cfg: &AuthConfig,
    user_id: Uuid,
    session_id: Uuid,
    factor_id: Uuid,
    method: &str,
) -> Result<Value> {
    c.execute(
        "UPDATE auth.sessions SET aal = 'aal2', factor_id = $2, updated_at = now() WHERE id = $1",
        &[&session_id, &factor_id],
    )
    .await?;
    add_method(c, session_id, method).await?;
    c.execute(
        "UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE session_id = $1 AND NOT revoked",
        &[&session_id],
    )
    .await?;
    let refresh = new_refresh_token();
    c.execute(
        "INSERT INTO auth.refresh_tokens (token, user_id, session_id) VALUES ($1, $2, $3)",
        &[&sha256_hex(&refresh), &user_id, &session_id],
    )
    .await?;
    let user = users::load(c, user_id)
        .await?
        .ok_or_else(crate::error::user_not_found)?;
    respond(c, cfg, user, session_id, &refresh, method).await
}

/// Rotates a refresh token with GoTrue's reuse rules: a token revoked less than the reuse
/// interval ago yields a sibling of the session's current token; any later reuse revokes the
/// whole family.
pub async fn refresh(c: &impl GenericClient, cfg: &AuthConfig, token: &str) -> Result<Value> {
    let not_found = || {
        api(
            400,
            ErrorCode::RefreshTokenNotFound,
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
                    s.not_after IS NOT NULL AND s.not_after < now(),
                    coalesce(u.banned_until > now(), false),
                    coalesce(now() > s.created_at + make_interval(secs => $2), false),
                    coalesce(now() > coalesce(s.refreshed_at, greatest(rt.updated_at, s.created_at))
                                     + make_interval(secs => $3), false)
             FROM auth.refresh_tokens rt JOIN auth.sessions s ON s.id = rt.session_id
                  JOIN auth.users u ON u.id = rt.user_id
             WHERE rt.token = $1 FOR UPDATE OF rt, s",
            &[
                &hash,
                &cfg.session_timebox.map(|s| s as f64),
                &cfg.session_inactivity_timeout.map(|s| s as f64),
            ],
        )
        .await?
        .ok_or_else(not_found)?;
    let (id, user_id, session_id, revoked, age, expired, banned): (
        i64,
        Uuid,
        Uuid,
        bool,
        f64,
        bool,
        bool,
    ) = (
        row.get(0),
        row.get(1),
        row.get(2),
        row.get(3),
        row.get(4),
        row.get(5),
        row.get(6),
    );
    // GoTrue's order: a banned user, then past not_after or the timebox, then inactive.
    let (past_timebox, inactive): (bool, bool) = (row.get(7), row.get(8));
    if banned {
        return Err(api(
            400,
            ErrorCode::UserBanned,
            "Invalid Refresh Token: User Banned",
        ));
    }
    if expired || past_timebox {
        return Err(api(
            400,
            ErrorCode::SessionExpired,
            "Invalid Refresh Token: Session Expired",
        ));
    }
    if inactive {
        return Err(api(
            400,
            ErrorCode::SessionExpired,
            "Invalid Refresh Token: Session Expired (Inactivity)",
        ));
    }
    let next = if revoked {
        // Two tabs refreshing at once, or a client that lost the rotation's response: within
        // the reuse interval the old token yields a sibling of the session's current token
        // (only hashes are stored, so the current one cannot be handed out again).
        let sibling = new_refresh_token();
        let inserted = if age <= cfg.refresh_reuse_interval as f64 {
            c.execute(
                "INSERT INTO auth.refresh_tokens (token, user_id, session_id, parent)
                 SELECT $1::varchar, $2::uuid, $3::uuid, $4::varchar
                 WHERE EXISTS (SELECT 1 FROM auth.refresh_tokens WHERE session_id = $3 AND NOT revoked AND parent = $4)",
                &[&sha256_hex(&sibling), &user_id, &session_id, &hash],
            )
            .await?
        } else {
            0
        };
        if inserted != 1 {
            if cfg.rotation {
                c.execute("UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE session_id = $1 AND NOT revoked", &[&session_id])
                    .await?;
            }
            return Err(api(
                400,
                ErrorCode::RefreshTokenAlreadyUsed,
                "Invalid Refresh Token: Already Used",
            ));
        }
        sibling
    } else {
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
        next
    };
    let user = users::load(c, user_id).await?.ok_or_else(not_found)?;
    respond(c, cfg, user, session_id, &next, "token_refresh").await
}

/// The user and session named by a verified access token must still exist, and the user must
/// not be banned (GoTrue's checks of every endpoint that needs a signed-in user, in its order).
pub async fn check(
    c: &impl GenericClient,
    user_id: Uuid,
    session_id: Option<Uuid>,
) -> Result<User> {
    let user = users::load(c, user_id).await?.ok_or_else(|| {
        api(
            403,
            ErrorCode::UserNotFound,
            "User from sub claim in JWT does not exist",
        )
    })?;
    let row = c
        .query_one(
            "SELECT $2::uuid IS NULL OR EXISTS (SELECT 1 FROM auth.sessions WHERE id = $2),
                    coalesce((SELECT banned_until > now() FROM auth.users WHERE id = $1), false)",
            &[&user_id, &session_id],
        )
        .await?;
    let (session_exists, banned): (bool, bool) = (row.get(0), row.get(1));
    if !session_exists {
        return Err(api(
            403,
            ErrorCode::SessionNotFound,
            "Session from session_id claim in JWT does not exist",
        ));
    }
    if banned {
        return Err(api(403, ErrorCode::UserBanned, "User is banned"));
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
) -> Result<()> {
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

/// Whether the user has a verified factor (then e-mail and password changes need aal2).
pub async fn has_verified(c: &impl GenericClient, user_id: Uuid) -> Result<bool> {
    Ok(c.query_opt(
        "SELECT 1 FROM auth.mfa_factors WHERE user_id = $1 AND status = 'verified' LIMIT 1",
        &[&user_id],
    )
    .await?
    .is_some())
}

/// Whether the session is aal2.
pub async fn session_aal2(c: &impl GenericClient, session_id: Option<Uuid>) -> Result<bool> {
    let Some(sid) = session_id else {
        return Ok(false);
    };
    Ok(c.query_opt(
        "SELECT 1 FROM auth.sessions WHERE id = $1 AND aal = 'aal2'",
        &[&sid],
    )
    .await?
    .is_some())
}
