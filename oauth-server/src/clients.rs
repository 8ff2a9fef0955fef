//! The OAuth 2.1 server's clients (`[auth.oauth_server]`): registered by an admin or, when
//! allowed, by themselves; listed, read, changed, soft-deleted, given a new secret; and the
//! server's metadata document. The HTTP edge answers 404 while the server is off.

use crate::OAuthServer;
use crate::checks::{self, RegisterParams, UpdateParams};
use auth::error::{AuthError, ErrorCode, api, validation};
use auth::service::never;
use serde_json::{Value, json};
use uuid::Uuid;

/// A client as GoTrue shows it (never its secret): empty fields left out.
const CLIENT_JSON: &str = "jsonb_strip_nulls(jsonb_build_object(
    'client_id', c.id, 'client_type', c.client_type,
    'redirect_uris', to_jsonb(string_to_array(c.redirect_uris, ',')),
    'token_endpoint_auth_method',
      CASE c.client_type WHEN 'public' THEN 'none' ELSE 'client_secret_basic' END,
    'grant_types', to_jsonb(string_to_array(c.grant_types, ',')),
    'response_types', jsonb_build_array('code'),
    'client_name', c.client_name, 'client_uri', c.client_uri, 'logo_uri', c.logo_uri,
    'registration_type', c.registration_type,
    'created_at', c.created_at, 'updated_at', c.updated_at))";

fn client_not_found() -> AuthError {
    api(
        404,
        ErrorCode::OAuthClientNotFound,
        "OAuth client not found",
    )
}

/// A client id from the path: a UUID, as GoTrue requires.
fn client_id(raw: &str) -> Result<Uuid, AuthError> {
    if raw.is_empty() {
        return Err(validation("client_id is required"));
    }
    Uuid::parse_str(raw).map_err(|_| validation("invalid client_id format"))
}

/// The client's JSON with its new secret, when it has one.
fn with_secret(mut client: Value, secret: Option<String>) -> Value {
    if let Some(s) = secret {
        client["client_secret"] = json!(s);
    }
    client
}

impl OAuthServer<'_> {
    pub fn oauth_server_enabled(&self) -> bool {
        self.auth.config().oauth_server.enabled
    }

    /// `POST /admin/oauth/clients` (`dynamic`: `POST /oauth/clients/register`, when allowed).
    pub async fn register_oauth_client(
        &self,
        p: RegisterParams,
        dynamic: bool,
    ) -> Result<Value, AuthError> {
        if dynamic && !self.auth.config().oauth_server.allow_dynamic_registration {
            return Err(api(
                403,
                ErrorCode::OAuthDynamicClientRegistrationDisabled,
                "Dynamic client registration is not enabled",
            ));
        }
        let r = p.check()?;
        let secret = (r.client_type == "confidential").then(checks::new_secret);
        let kind = if dynamic { "dynamic" } else { "manual" };
        self.auth
            .in_tx(never, async |c| {
                let row = c
                    .query_one(
                        &format!(
                            "INSERT INTO auth.oauth_clients AS c (id, client_secret_hash,
                           registration_type, redirect_uris, grant_types, client_name, client_uri,
                           logo_uri, client_type)
                         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8)
                         RETURNING {CLIENT_JSON}"
                        ),
                        &[
                            &secret.as_ref().map(|(_, hash)| hash),
                            &kind,
                            &r.redirect_uris.join(","),
                            &r.grant_types.join(","),
                            &r.client_name,
                            &r.client_uri,
                            &r.logo_uri,
                            &r.client_type,
                        ],
                    )
                    .await?;
                Ok(with_secret(row.get(0), secret.map(|(s, _)| s)))
            })
            .await
    }

    /// `GET /admin/oauth/clients?page=&per_page=`: newest first.
    pub async fn list_oauth_clients(
        &self,
        page: Option<&str>,
        per_page: Option<&str>,
    ) -> Result<Value, AuthError> {
        let num = |v: Option<&str>| v.filter(|v| !v.is_empty()).map(str::parse::<i64>);
        let per_page = match num(per_page) {
            None => None,
            Some(Ok(n)) => Some(n.clamp(1, 1000)),
            Some(Err(e)) => return Err(validation(format!("Bad Pagination Parameters: {e}"))),
        };
        let page = match num(page) {
            None => 1,
            Some(Ok(n)) => n.max(1),
            Some(Err(e)) => return Err(validation(format!("Bad Pagination Parameters: {e}"))),
        };
        let offset = per_page.map_or(0, |n| (page - 1) * n);
        self.auth
            .in_tx(never, async |c| {
                let row = c
                    .query_one(
                        &format!(
                            "SELECT coalesce(jsonb_agg(j ORDER BY created_at DESC, id), '[]')
                         FROM (SELECT {CLIENT_JSON} AS j, c.created_at, c.id
                               FROM auth.oauth_clients c WHERE c.deleted_at IS NULL
                               ORDER BY c.created_at DESC, c.id LIMIT $1 OFFSET $2) page"
                        ),
                        &[&per_page, &offset],
                    )
                    .await?;
                Ok(json!({ "clients": row.get::<_, Value>(0) }))
            })
            .await
    }

    /// `GET /admin/oauth/clients/{client_id}`.
    pub async fn get_oauth_client(&self, id: &str) -> Result<Value, AuthError> {
        let id = client_id(id)?;
        self.auth
            .in_tx(never, async |c| {
                c.query_opt(
                    &format!(
                        "SELECT {CLIENT_JSON} FROM auth.oauth_clients c
                     WHERE c.id = $1 AND c.deleted_at IS NULL"
                    ),
                    &[&id],
                )
                .await?
                .map(|r| r.get(0))
                .ok_or_else(client_not_found)
            })
            .await
    }

    /// `PUT /admin/oauth/clients/{client_id}`: the fields given change.
    pub async fn update_oauth_client(&self, id: &str, p: UpdateParams) -> Result<Value, AuthError> {
        let id = client_id(id)?;
        p.check()?;
        let uris = p.redirect_uris.map(|u| u.join(","));
        let grants = p.grant_types.map(|g| g.join(","));
        self.auth
            .in_tx(never, async |c| {
                c.query_opt(
                    &format!(
                        "UPDATE auth.oauth_clients c SET
                       redirect_uris = coalesce($2, redirect_uris),
                       grant_types = coalesce($3, grant_types),
                       client_name = coalesce($4, client_name),
                       client_uri = coalesce($5, client_uri),
                       logo_uri = coalesce($6, logo_uri),
                       updated_at = now()
                     WHERE c.id = $1 AND c.deleted_at IS NULL
                     RETURNING {CLIENT_JSON}"
                    ),
                    &[
                        &id,
                        &uris,
                        &grants,
                        &p.client_name,
                        &p.client_uri,
                        &p.logo_uri,
                    ],
                )
                .await?
                .map(|r| r.get(0))
                .ok_or_else(client_not_found)
            })
            .await
    }

    /// `DELETE /admin/oauth/clients/{client_id}`: kept, marked deleted, as GoTrue does.
    pub async fn delete_oauth_client(&self, id: &str) -> Result<(), AuthError> {
        let id = client_id(id)?;
        self.auth
            .in_tx(never, async |c| {
                let n = c
                    .execute(
                        "UPDATE auth.oauth_clients SET deleted_at = now(), updated_at = now()
                     WHERE id = $1 AND deleted_at IS NULL",
                        &[&id],
                    )
                    .await?;
                if n == 0 {
                    return Err(client_not_found());
                }
                Ok(())
            })
            .await
    }

    /// `POST /admin/oauth/clients/{client_id}/regenerate_secret`: confidential clients only.
    pub async fn regenerate_oauth_client_secret(&self, id: &str) -> Result<Value, AuthError> {
        let id = client_id(id)?;
        let (secret, hash) = checks::new_secret();
        self.auth
            .in_tx(never, async |c| {
                let client_type: String = c
                    .query_opt(
                        "SELECT client_type FROM auth.oauth_clients
                     WHERE id = $1 AND deleted_at IS NULL FOR UPDATE",
                        &[&id],
                    )
                    .await?
                    .map(|r| r.get(0))
                    .ok_or_else(client_not_found)?;
                if client_type != "confidential" {
                    return Err(validation("Cannot regenerate secret for public client"));
                }
                let row = c
                    .query_one(
                        &format!(
                            "UPDATE auth.oauth_clients c SET client_secret_hash = $2,
                           updated_at = now()
                         WHERE c.id = $1 RETURNING {CLIENT_JSON}"
                        ),
                        &[&id, &hash],
                    )
                    .await?;
                Ok(with_secret(row.get(0), Some(secret)))
            })
            .await
    }

    /// `GET /.well-known/oauth-authorization-server` (RFC 8414), from the issuer.
    pub fn oauth_server_metadata(&self) -> Value {
        let issuer = self.auth.config().issuer.trim_end_matches('/');
        let mut doc = json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/oauth/authorize"),
            "token_endpoint": format!("{issuer}/oauth/token"),
            "jwks_uri": format!("{issuer}/.well-known/jwks.json"),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": checks::GRANT_TYPES,
            "token_endpoint_auth_methods_supported":
                ["client_secret_basic", "client_secret_post", "none"],
            "code_challenge_methods_supported": ["S256", "plain"],
        });
        if self.auth.config().oauth_server.allow_dynamic_registration {
            doc["registration_endpoint"] = json!(format!("{issuer}/oauth/clients/register"));
        }
        doc
    }
}
