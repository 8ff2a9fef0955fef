//! The OAuth 2.1 server's authorization code flow, as GoTrue runs it: `/oauth/authorize` stores
//! the client's request and sends the browser to the app's consent page (`[auth.oauth_server]
//! authorization_url_path` under the site URL) with an `authorization_id`; the signed-in user's
//! app reads the request and approves or denies it (a consent given before is applied without
//! asking); the approval is a one-time code, valid three minutes, that the client exchanges at
//! `/oauth/token` with its PKCE verifier (and its secret, when confidential) for a session of
//! its own. Refresh tokens of that session are rotated there too.

use crate::OAuthServer;
use crate::checks::hash_secret;
use auth::error::{AuthError, ErrorCode, api, oauth, validation};
use auth::service::never;
use auth::sessions::{self, new_refresh_token};
use auth::{Caller, Request};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

/// The query of `GET /oauth/authorize`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct AuthorizeQuery {
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub response_type: Option<String>,
    pub scope: Option<String>,
    pub state: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    pub resource: Option<String>,
}

/// The body of `POST /oauth/token` (form or JSON); the client's credentials may come in a
/// Basic `Authorization` header instead.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TokenParams {
    pub grant_type: Option<String>,
    pub code: Option<String>,
    pub refresh_token: Option<String>,
    pub redirect_uri: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub code_verifier: Option<String>,
    pub resource: Option<String>,
}

/// Scopes a request asks for when it names none.
const DEFAULT_SCOPE: &str = "email";

fn not_found() -> AuthError {
    api(
        404,
        ErrorCode::OAuthAuthorizationNotFound,
        "authorization not found",
    )
}

fn some(v: &Option<String>) -> Option<&str> {
    v.as_deref().filter(|v| !v.is_empty())
}

/// `redirect_uri` with `pairs` added to its query.
fn with_query(redirect_uri: &str, pairs: &[(&str, Option<&str>)]) -> String {
    match url::Url::parse(redirect_uri) {
        Ok(mut u) => {
            for (k, v) in pairs {
                if let Some(v) = v.filter(|v| !v.is_empty()) {
                    u.query_pairs_mut().append_pair(k, v);
                }
            }
            u.to_string()
        }
        Err(_) => redirect_uri.to_string(),
    }
}

/// Where an approved authorization sends the browser: its code (and the client's state).
fn approved(redirect_uri: &str, code: &str, state: Option<&str>) -> Value {
    let url = with_query(redirect_uri, &[("code", Some(code)), ("state", state)]);
    json!({ "redirect_url": url })
}

impl OAuthServer<'_> {
    /// `GET /oauth/authorize`: the URL of the app's consent page for the stored request.
    pub async fn oauth_authorize(&self, q: AuthorizeQuery) -> Result<String, AuthError> {
        let client = some(&q.client_id).ok_or_else(|| validation("client_id is required"))?;
        let redirect_uri =
            some(&q.redirect_uri).ok_or_else(|| validation("redirect_uri is required"))?;
        if some(&q.response_type).is_some_and(|t| t != "code") {
            return Err(validation("Only response_type=code is supported"));
        }
        let (challenge, method) = match (some(&q.code_challenge), some(&q.code_challenge_method)) {
            (Some(c), Some(m)) => (c, m.to_ascii_lowercase()),
            _ => {
                return Err(validation(
                    "PKCE flow requires both code_challenge and code_challenge_method",
                ));
            }
        };
        if method != "s256" && method != "plain" {
            return Err(validation(
                "code_challenge_method must be 'S256' or 'plain'",
            ));
        }
        if !(43..=128).contains(&challenge.len()) {
            return Err(validation(
                "code_challenge must be between 43 and 128 characters",
            ));
        }
        let invalid_client = || api(400, ErrorCode::OAuthClientNotFound, "invalid client_id");
        let client = Uuid::parse_str(client).map_err(|_| invalid_client())?;
        let scope = some(&q.scope).unwrap_or(DEFAULT_SCOPE);
        let id = new_refresh_token();
        self.auth
            .in_tx(never, async |c| {
                let uris: String = c
                    .query_opt(
                        "SELECT redirect_uris FROM auth.oauth_clients
                     WHERE id = $1 AND deleted_at IS NULL",
                        &[&client],
                    )
                    .await?
                    .map(|r| r.get(0))
                    .ok_or_else(invalid_client)?;
                if !uris.split(',').any(|u| u == redirect_uri) {
                    return Err(validation("invalid redirect_uri"));
                }
                c.execute(
                "INSERT INTO auth.oauth_authorizations (authorization_id, client_id, redirect_uri,
                   scope, state, resource, code_challenge, code_challenge_method)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                &[
                    &id,
                    &client,
                    &redirect_uri,
                    &scope,
                    &some(&q.state),
                    &some(&q.resource),
                    &challenge,
                    &method,
                ],
            )
            .await?;
                Ok(())
            })
            .await?;
        let site = self.auth.config().site_url.trim_end_matches('/');
        let path = &self.auth.config().oauth_server.authorization_url_path;
        let slash = if path.starts_with('/') { "" } else { "/" };
        Ok(format!("{site}{slash}{path}?authorization_id={id}"))
    }

    /// `GET /oauth/authorizations/{id}`: what the consent page shows the signed-in user; the
    /// first reading binds the request to them. A consent given before that covers the scopes
    /// approves it at once (the answer is then the redirect, as after a consent).
    pub async fn oauth_authorization(&self, who: Caller, id: &str) -> Result<Value, AuthError> {
        self.auth.in_tx(never, async |c| {
            sessions::check(c, who.id, who.session).await?;
            let row = c
                .query_opt(
                    "SELECT a.user_id, a.scope, a.redirect_uri, a.state, a.client_id,
                            c.client_name, c.client_uri, c.logo_uri, u.email,
                            (SELECT string_to_array(k.scopes, ' ') @> string_to_array(a.scope, ' ')
                             FROM auth.oauth_consents k
                             WHERE k.user_id = $2 AND k.client_id = a.client_id
                               AND k.revoked_at IS NULL)
                     FROM auth.oauth_authorizations a
                     JOIN auth.oauth_clients c ON c.id = a.client_id AND c.deleted_at IS NULL
                     JOIN auth.users u ON u.id = $2
                     WHERE a.authorization_id = $1 AND a.status = 'pending'
                       AND a.expires_at > now()
                     FOR UPDATE OF a",
                    &[&id, &who.id],
                )
                .await?
                .ok_or_else(not_found)?;
            let owner: Option<Uuid> = row.get(0);
            if owner.is_some_and(|o| o != who.id) {
                return Err(not_found());
            }
            let covered = owner.is_none() && row.get::<_, Option<bool>>(9) == Some(true);
            if covered {
                let code = new_refresh_token();
                c.execute(
                    "UPDATE auth.oauth_authorizations SET user_id = $2, status = 'approved',
                       authorization_code = $3, approved_at = now()
                     WHERE authorization_id = $1",
                    &[&id, &who.id, &code],
                )
                .await?;
                let state: Option<String> = row.get(3);
                return Ok(approved(row.get(2), &code, state.as_deref()));
            }
            c.execute(
                "UPDATE auth.oauth_authorizations SET user_id = $2 WHERE authorization_id = $1",
                &[&id, &who.id],
            )
            .await?;
            let client: Uuid = row.get(4);
            Ok(json!({
                "authorization_id": id,
                "redirect_uri": row.get::<_, String>(2),
                "client": {
                    "id": client,
                    "name": row.get::<_, Option<String>>(5).unwrap_or_default(),
                    "uri": row.get::<_, Option<String>>(6).unwrap_or_default(),
                    "logo_uri": row.get::<_, Option<String>>(7).unwrap_or_default(),
                },
                "user": {"id": who.id, "email": row.get::<_, Option<String>>(8).unwrap_or_default()},
                "scope": row.get::<_, String>(1),
            }))
        })
        .await
    }

    /// `POST /oauth/authorizations/{id}/consent` with `action` `approve` or `deny`: where the
    /// browser goes next (the client's redirect URI with a code, or with `access_denied`).
    pub async fn oauth_consent(
        &self,
        who: Caller,
        id: &str,
        action: &str,
    ) -> Result<Value, AuthError> {
        if action != "approve" && action != "deny" {
            return Err(validation("action must be 'approve' or 'deny'"));
        }
        self.auth
            .in_tx(never, async |c| {
                sessions::check(c, who.id, who.session).await?;
                let row = c
                .query_opt(
                    "SELECT user_id, status, expires_at <= now(), redirect_uri, state, client_id,
                            scope
                     FROM auth.oauth_authorizations WHERE authorization_id = $1 FOR UPDATE",
                    &[&id],
                )
                .await?
                .ok_or_else(not_found)?;
                let owner: Option<Uuid> = row.get(0);
                if owner != Some(who.id) || row.get::<_, bool>(2) {
                    return Err(not_found());
                }
                if row.get::<_, String>(1) != "pending" {
                    return Err(validation("authorization request is no longer pending"));
                }
                let (redirect_uri, state): (String, Option<String>) = (row.get(3), row.get(4));
                if action == "deny" {
                    c.execute(
                        "UPDATE auth.oauth_authorizations SET status = 'denied'
                     WHERE authorization_id = $1",
                        &[&id],
                    )
                    .await?;
                    let url = with_query(
                        &redirect_uri,
                        &[
                            ("error", Some("access_denied")),
                            ("error_description", Some("User denied the request")),
                            ("state", state.as_deref()),
                        ],
                    );
                    return Ok(json!({ "redirect_url": url }));
                }
                let code = new_refresh_token();
                c.execute(
                    "UPDATE auth.oauth_authorizations SET status = 'approved',
                   authorization_code = $2, approved_at = now()
                 WHERE authorization_id = $1",
                    &[&id, &code],
                )
                .await?;
                let (client, scope): (Uuid, String) = (row.get(5), row.get(6));
                c.execute(
                "INSERT INTO auth.oauth_consents (user_id, client_id, scopes) VALUES ($1, $2, $3)
                 ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = EXCLUDED.scopes,
                   granted_at = now(), revoked_at = NULL",
                &[&who.id, &client, &scope],
            )
            .await?;
                Ok(approved(&redirect_uri, &code, state.as_deref()))
            })
            .await
    }

    /// `GET /user/oauth/grants`: the clients the user consented to, and to what.
    pub async fn oauth_grants(&self, who: Caller) -> Result<Value, AuthError> {
        self.auth
            .in_tx(never, async |c| {
                sessions::check(c, who.id, who.session).await?;
                let row = c
                    .query_one(
                        "SELECT coalesce(jsonb_agg(jsonb_build_object(
                       'client', jsonb_build_object('id', c.id, 'name', coalesce(c.client_name, ''),
                         'uri', coalesce(c.client_uri, ''), 'logo_uri', coalesce(c.logo_uri, '')),
                       'scopes', to_jsonb(string_to_array(k.scopes, ' ')),
                       'granted_at', k.granted_at) ORDER BY k.granted_at DESC), '[]')
                     FROM auth.oauth_consents k
                     JOIN auth.oauth_clients c ON c.id = k.client_id AND c.deleted_at IS NULL
                     WHERE k.user_id = $1 AND k.revoked_at IS NULL",
                        &[&who.id],
                    )
                    .await?;
                Ok(row.get(0))
            })
            .await
    }

    /// `DELETE /user/oauth/grants?client_id=`: the consent withdrawn and the client's sessions
    /// for the user ended (their refresh tokens stop working).
    pub async fn revoke_oauth_grant(&self, who: Caller, client: &str) -> Result<(), AuthError> {
        if client.is_empty() {
            return Err(validation("client_id is required"));
        }
        let client = Uuid::parse_str(client).map_err(|_| validation("invalid client_id format"))?;
        self.auth
            .in_tx(never, async |c| {
                sessions::check(c, who.id, who.session).await?;
                let n = c
                    .execute(
                        "UPDATE auth.oauth_consents SET revoked_at = now()
                     WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL",
                        &[&who.id, &client],
                    )
                    .await?;
                if n == 0 {
                    return Err(api(
                        404,
                        ErrorCode::OAuthConsentNotFound,
                        "No active grant found for this client",
                    ));
                }
                c.execute(
                    "DELETE FROM auth.sessions WHERE user_id = $1 AND oauth_client_id = $2",
                    &[&who.id, &client],
                )
                .await?;
                Ok(())
            })
            .await
    }

    /// `POST /oauth/token`: an approved code (with its PKCE verifier) or a refresh token of the
    /// client's session, for tokens. `basic` is the client's Basic credentials, if sent.
    pub async fn oauth_token(
        &self,
        r: &Request,
        p: TokenParams,
        basic: Option<(String, String)>,
    ) -> Result<Value, AuthError> {
        let grant = some(&p.grant_type)
            .ok_or_else(|| oauth("invalid_request", "grant_type is required"))?
            .to_string();
        let (client_id, secret) = match basic {
            Some((id, secret)) => (Some(id), Some(secret)),
            None => (p.client_id.clone(), p.client_secret.clone()),
        };
        let client_id = client_id
            .filter(|c| !c.is_empty())
            .ok_or_else(|| oauth("invalid_client", "Client authentication required"))?;
        let secret = secret.filter(|s| !s.is_empty());
        let cfg = self.auth.config();
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        self.auth
            .in_tx(never, async |c| {
                let bad_client = || oauth("invalid_client", "Invalid client credentials");
                let client = Uuid::parse_str(&client_id).map_err(|_| bad_client())?;
                let row = c
                .query_opt(
                    "SELECT client_type, client_secret_hash, grant_types FROM auth.oauth_clients
                     WHERE id = $1 AND deleted_at IS NULL",
                    &[&client],
                )
                .await?
                .ok_or_else(bad_client)?;
                let (kind, hash, grants): (String, Option<String>, String) =
                    (row.get(0), row.get(1), row.get(2));
                match (kind.as_str(), &secret) {
                    ("public", Some(_)) => {
                        return Err(oauth(
                            "invalid_client",
                            "public clients must not provide client_secret",
                        ));
                    }
                    ("public", None) => {}
                    (_, None) => {
                        return Err(oauth(
                            "invalid_client",
                            "confidential clients must provide client_secret",
                        ));
                    }
                    (_, Some(s)) => {
                        if hash.as_deref() != Some(hash_secret(s).as_str()) {
                            return Err(bad_client());
                        }
                    }
                }
                if !grants.split(',').any(|g| g == grant) {
                    return Err(oauth(
                        "unsupported_grant_type",
                        format!("Client is not allowed to use grant type: {grant}"),
                    ));
                }
                let session = match grant.as_str() {
                    "authorization_code" => {
                        let user = redeem(c, client, &p).await?;
                        sessions::start_for(
                            c,
                            cfg,
                            user,
                            "oauth_provider/authorization_code",
                            (ua, addr),
                            Some(client),
                        )
                        .await?
                    }
                    "refresh_token" => {
                        let token = some(&p.refresh_token).ok_or_else(|| {
                            oauth(
                                "invalid_request",
                                "refresh_token is required for refresh_token grant",
                            )
                        })?;
                        let owner: Option<Uuid> = c
                            .query_opt(
                                "SELECT s.oauth_client_id FROM auth.refresh_tokens t
                             JOIN auth.sessions s ON s.id = t.session_id WHERE t.token = $1",
                                &[&sessions::sha256_hex(token)],
                            )
                            .await?
                            .and_then(|r| r.get(0));
                        if owner != Some(client) {
                            return Err(oauth("invalid_grant", "Invalid Refresh Token"));
                        }
                        sessions::refresh(c, cfg, token)
                            .await
                            .map_err(|e| oauth("invalid_grant", e.parts().2))?
                    }
                    other => {
                        return Err(oauth(
                            "unsupported_grant_type",
                            format!("Unsupported grant type: {other}"),
                        ));
                    }
                };
                Ok(json!({
                    "access_token": session["access_token"],
                    "token_type": session["token_type"],
                    "expires_in": session["expires_in"],
                    "refresh_token": session["refresh_token"],
                }))
            })
            .await
    }
}

/// Uses up an approved code of `client`: its user, once the PKCE verifier and redirect URI
/// match.
async fn redeem(
    c: &tokio_postgres::Client,
    client: Uuid,
    p: &TokenParams,
) -> Result<Uuid, AuthError> {
    let code = some(&p.code).ok_or_else(|| {
        oauth(
            "invalid_request",
            "code is required for authorization_code grant",
        )
    })?;
    let invalid = |why: &str| oauth("invalid_grant", why.to_string());
    let row = c
        .query_opt(
            "DELETE FROM auth.oauth_authorizations
             WHERE authorization_code = $1 AND status = 'approved'
             RETURNING client_id, user_id, redirect_uri, resource, code_challenge,
                       code_challenge_method, approved_at < now() - interval '3 minutes'",
            &[&code],
        )
        .await?
        .ok_or_else(|| invalid("Invalid authorization code"))?;
    let (issued_to, user): (Uuid, Option<Uuid>) = (row.get(0), row.get(1));
    if row.get::<_, Option<bool>>(6) == Some(true) {
        return Err(invalid("Authorization code has expired"));
    }
    if issued_to != client {
        return Err(invalid("Authorization code was not issued for this client"));
    }
    let resource: Option<String> = row.get(3);
    if some(&p.resource).is_some_and(|r| Some(r) != resource.as_deref()) {
        return Err(invalid(
            "Authorization code resource does not match the resource parameter",
        ));
    }
    if some(&p.redirect_uri).is_some_and(|u| u != row.get::<_, String>(2)) {
        return Err(invalid("Invalid redirect_uri"));
    }
    let (challenge, method): (Option<String>, Option<String>) = (row.get(4), row.get(5));
    if let Some(challenge) = challenge {
        let verifier = some(&p.code_verifier)
            .ok_or_else(|| invalid("PKCE verification failed: code_verifier is required"))?;
        let method = method.unwrap_or_else(|| "plain".into());
        if !auth::pkce::matches(&challenge, &method, verifier) {
            return Err(invalid(
                "PKCE verification failed: code challenge does not match previously saved code verifier",
            ));
        }
    }
    user.ok_or_else(|| invalid("Authorization code has no associated user"))
}
