//! Sign-in with the OAuth providers themselves (a provider switched on with a secret): the
//! browser goes to the provider's page with the signed state, the provider sends it back to
//! `/callback` with a code, which is exchanged at the provider for a token that reads the user
//! (the `oauth_providers` crate), as GoTrue does. The rest (the identity's user, a session or a PKCE
//! code, the redirect) is shared with the local stand-in (`lib.rs`).

use crate::External;
use auth::error::{AuthError, ErrorCode, api};
use auth::redirect::encode;
use auth::service::never;
use auth::sessions::new_refresh_token;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use oauth_providers::{Endpoints, UserFrom};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::time::Duration;
use uuid::Uuid;

fn provider_failed(why: impl std::fmt::Display) -> AuthError {
    tracing::warn!("OAuth provider: {why}");
    api(
        500,
        ErrorCode::UnexpectedFailure,
        "Error getting user profile from external provider",
    )
}

impl External<'_> {
    /// The provider's settings and endpoints, when it is signed in with for real.
    fn real_provider(&self, provider: &str) -> Option<(&project::config::External, Endpoints)> {
        let e = self.cfg().external_providers.get(provider)?;
        if e.secret.is_empty() || e.client_id.is_empty() {
            return None;
        }
        Some((e, oauth_providers::endpoints(provider, &e.url)?))
    }

    pub(crate) fn is_real_provider(&self, provider: &str) -> bool {
        self.real_provider(provider).is_some()
    }

    /// Where GoTrue's `/callback` is: `redirect_uri` of the provider's settings, else the API's.
    fn callback_url(&self, e: &project::config::External) -> String {
        if e.redirect_uri.is_empty() {
            format!("{}/callback", self.cfg().issuer)
        } else {
            e.redirect_uri.clone()
        }
    }

    /// The provider's sign-in page for this (signed) state, with what `/authorize` passes on
    /// (`query`) and the provider's own PKCE challenge.
    pub(crate) fn real_authorize_url(
        &self,
        provider: &str,
        state: &str,
        (query, challenge): (&str, Option<&str>),
    ) -> Option<String> {
        let (e, ends) = self.real_provider(provider)?;
        let pkce = challenge
            .map(|c| format!("&code_challenge={c}&code_challenge_method=S256"))
            .unwrap_or_default();
        Some(format!(
            "{}?client_id={}&redirect_uri={}&response_type=code&state={}{}{pkce}{}",
            ends.authorize,
            encode(&e.client_id),
            encode(&self.callback_url(e)),
            encode(state),
            oauth_providers::authorize_params(query, ends.scopes),
            ends.authorize_extra
        ))
    }

    /// For a provider that wants PKCE of its own (X): a verifier kept for five minutes in
    /// `auth.oauth_client_states`, its id (carried in the state) and its S256 challenge.
    pub(crate) async fn client_state(
        &self,
        provider: &str,
    ) -> Result<Option<(Uuid, String)>, AuthError> {
        if !self.real_provider(provider).is_some_and(|(_, e)| e.pkce) {
            return Ok(None);
        }
        let verifier = new_refresh_token() + &new_refresh_token();
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        let id: Uuid = self
            .auth
            .in_tx(never, async |c| {
                c.execute(
                    "DELETE FROM auth.oauth_client_states WHERE created_at < now() - interval '1 hour'",
                    &[],
                )
                .await?;
                Ok(c.query_one(
                    "INSERT INTO auth.oauth_client_states (id, provider_type, code_verifier, created_at)
                     VALUES (gen_random_uuid(), $1, $2, now()) RETURNING id",
                    &[&provider, &verifier],
                )
                .await?
                .get(0))
            })
            .await?;
        Ok(Some((id, challenge)))
    }

    /// The verifier kept for the provider's PKCE, taken once, as GoTrue checks it.
    async fn take_verifier(&self, provider: &str, id: Option<Uuid>) -> Result<String, AuthError> {
        let Some(id) = id else {
            return Err(api(
                400,
                ErrorCode::OAuthInvalidState,
                "OAuth PKCE code verifier missing",
            ));
        };
        let row = self
            .auth
            .in_tx(never, async |c| {
                Ok(c.query_opt(
                    "DELETE FROM auth.oauth_client_states WHERE id = $1
                     RETURNING provider_type, code_verifier,
                               created_at < now() - interval '5 minutes'",
                    &[&id],
                )
                .await?)
            })
            .await?
            .ok_or_else(|| {
                api(
                    422,
                    ErrorCode::OAuthClientStateNotFound,
                    "OAuth state not found",
                )
            })?;
        let (kind, verifier, expired): (String, Option<String>, bool) =
            (row.get(0), row.get(1), row.get(2));
        if kind != provider {
            return Err(api(
                400,
                ErrorCode::OAuthInvalidState,
                "OAuth provider mismatch",
            ));
        }
        if expired {
            return Err(api(
                422,
                ErrorCode::OAuthClientStateExpired,
                "OAuth state expired",
            ));
        }
        Ok(verifier.unwrap_or_default())
    }

    /// Exchanges the provider's code for its token and reads the user: the identity's data and
    /// the provider's tokens. `apple_user` is the name Apple posts the first time (`user`);
    /// `client_state` the id of the provider's own PKCE verifier.
    pub(crate) async fn real_profile(
        &self,
        provider: &str,
        (code, apple_user): (&str, Option<&str>),
        client_state: Option<Uuid>,
    ) -> Result<(Value, ProviderTokens), AuthError> {
        let (e, ends) = self
            .real_provider(provider)
            .ok_or_else(|| self.auth.authorize(provider))?;
        if code.is_empty() {
            return Err(api(
                400,
                ErrorCode::BadOauthCallback,
                "OAuth callback with missing authorization code missing",
            ));
        }
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .user_agent(concat!("supagate/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(provider_failed)?;
        let verifier = match ends.pkce {
            true => Some(self.take_verifier(provider, client_state).await?),
            false => None,
        };
        let token = self
            .exchange(&http, (e, &ends), (code, verifier.as_deref()))
            .await?;
        let access = token["access_token"].as_str().unwrap_or_default();
        let tokens = ProviderTokens {
            access: access.to_string(),
            refresh: token["refresh_token"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        };
        let issuer = match &ends.user {
            UserFrom::IdToken(fixed) => {
                let id_token = token["id_token"]
                    .as_str()
                    .ok_or_else(|| provider_failed("no OIDC ID token in the token answer"))?;
                let issuer = match fixed {
                    Some(i) => i.clone(),
                    None => unverified_issuer(id_token)
                        .ok_or_else(|| provider_failed("an ID token without iss"))?,
                };
                let mut claims = self
                    .id_token_claims(id_token, &issuer, provider != "apple", &e.client_id)
                    .await
                    .map_err(provider_failed)?;
                if let Some(name) = apple_user.and_then(apple_name) {
                    claims["name"] = Value::String(name);
                }
                let iss = claims["iss"].as_str().unwrap_or(&issuer).to_string();
                let profile = oauth_providers::id_token_profile(provider, &iss, &claims)
                    .ok_or_else(|| provider_failed("the ID token names no user"))?;
                return Ok((profile, tokens));
            }
            UserFrom::TokenField(field) => {
                let profile =
                    oauth_providers::profile(provider, &ends.issuer, &token[*field], None)
                        .ok_or_else(|| provider_failed("the token answer names no user"))?;
                return Ok((profile, tokens));
            }
            UserFrom::Api(_) => ends.issuer.clone(),
        };
        let get = async |url: &str| -> Result<Value, AuthError> {
            let (url, headers) =
                oauth_providers::user_request(provider, url, (&e.client_id, &e.secret), access);
            let mut req = http
                .get(&url)
                .bearer_auth(access)
                .header("accept", "application/json");
            for (name, value) in headers {
                req = req.header(name, value);
            }
            let res = req.send().await.map_err(provider_failed)?;
            if !res.status().is_success() {
                return Err(provider_failed(format!("{url}: {}", res.status())));
            }
            json_of(res).await
        };
        let UserFrom::Api(user_url) = &ends.user else {
            unreachable!("the other sources answered above")
        };
        let user = get(user_url).await?;
        let emails = match &ends.emails {
            Some(u) => Some(get(u).await?),
            None => None,
        };
        let profile = oauth_providers::profile(provider, &issuer, &user, emails.as_ref())
            .ok_or_else(|| provider_failed("the user answer names no user"))?;
        Ok((profile, tokens))
    }

    /// The code exchanged at the provider's token endpoint: its answer. The client's credentials
    /// go as HTTP Basic and, if the provider refuses that, in the form (Go's oauth2 detection),
    /// or in the form only where GoTrue says so.
    async fn exchange(
        &self,
        http: &reqwest::Client,
        (e, ends): (&project::config::External, &Endpoints),
        (code, verifier): (&str, Option<&str>),
    ) -> Result<Value, AuthError> {
        let callback = self.callback_url(e);
        let post = async |in_form: bool| -> Result<(bool, Value), AuthError> {
            let mut form = vec![
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", callback.as_str()),
            ];
            if let Some(v) = verifier {
                form.push(("code_verifier", v));
            }
            if in_form {
                form.extend([
                    ("client_id", e.client_id.as_str()),
                    ("client_secret", e.secret.as_str()),
                ]);
            }
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(form)
                .finish();
            let mut req = http
                .post(&ends.token)
                .header("accept", "application/json")
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body);
            if !in_form {
                req = req.basic_auth(encode(&e.client_id), Some(encode(&e.secret)));
            }
            let res = req.send().await.map_err(provider_failed)?;
            let status_ok = res.status().is_success();
            let answer = json_of(res).await.unwrap_or(Value::Null);
            let ok = status_ok
                && answer["access_token"]
                    .as_str()
                    .is_some_and(|t| !t.is_empty());
            Ok((ok, answer))
        };
        let (mut ok, mut answer) = post(ends.credentials_in_form).await?;
        if !ok && !ends.credentials_in_form {
            (ok, answer) = post(true).await?;
        }
        if !ok {
            return Err(api(
                400,
                ErrorCode::BadOauthCallback,
                "OAuth code is invalid or has expired",
            ));
        }
        Ok(answer)
    }
}

/// The provider's own tokens, handed to the app as `provider_token` and
/// `provider_refresh_token` (empty when the provider gave none).
#[derive(Debug, Default, Clone)]
pub(crate) struct ProviderTokens {
    pub access: String,
    pub refresh: String,
}

/// The `iss` of a JWT, read before its signature is checked (to find its keys).
fn unverified_issuer(token: &str) -> Option<String> {
    let payload = token.split('.').nth(1)?;
    let bytes = URL_SAFE_NO_PAD.decode(payload.trim_end_matches('=')).ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    claims["iss"].as_str().map(str::to_string)
}

/// The name in Apple's `user` form field (`{"name":{"firstName":…,"lastName":…}}`).
fn apple_name(user: &str) -> Option<String> {
    let u: Value = serde_json::from_str(user).ok()?;
    let n = &u["name"];
    let name = format!(
        "{} {}",
        n["firstName"].as_str().unwrap_or(""),
        n["lastName"].as_str().unwrap_or("")
    );
    Some(name.trim().to_string()).filter(|n| !n.is_empty())
}

/// A provider's answer as JSON.
async fn json_of(res: reqwest::Response) -> Result<Value, AuthError> {
    let bytes = res.bytes().await.map_err(provider_failed)?;
    serde_json::from_slice(&bytes).map_err(provider_failed)
}
