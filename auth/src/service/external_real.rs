//! Sign-in with the OAuth providers themselves (a provider switched on with a secret): the
//! browser goes to the provider's page with the signed state, the provider sends it back to
//! `/callback` with a code, which is exchanged at the provider for a token that reads the user
//! (`crate::oauth_providers`), as GoTrue does. The rest (the identity's user, a session or a PKCE
//! code, the redirect) is shared with the local stand-in (`external.rs`).

use super::Auth;
use crate::error::{AuthError, ErrorCode, api};
use crate::oauth_providers::{self, Endpoints, UserFrom};
use crate::redirect::encode;
use serde_json::Value;
use std::time::Duration;

fn provider_failed(why: impl std::fmt::Display) -> AuthError {
    tracing::warn!("OAuth provider: {why}");
    api(
        500,
        ErrorCode::UnexpectedFailure,
        "Error getting user profile from external provider",
    )
}

impl Auth {
    /// The provider's settings and endpoints, when it is signed in with for real.
    fn real_provider(&self, provider: &str) -> Option<(&project::config::External, Endpoints)> {
        let e = self.cfg.external_providers.get(provider)?;
        if e.secret.is_empty() || e.client_id.is_empty() {
            return None;
        }
        Some((e, oauth_providers::endpoints(provider, &e.url)?))
    }

    pub(super) fn is_real_provider(&self, provider: &str) -> bool {
        self.real_provider(provider).is_some()
    }

    /// Where GoTrue's `/callback` is: `redirect_uri` of the provider's settings, else the API's.
    fn callback_url(&self, e: &project::config::External) -> String {
        if e.redirect_uri.is_empty() {
            format!("{}/callback", self.cfg.issuer)
        } else {
            e.redirect_uri.clone()
        }
    }

    /// The provider's sign-in page for this (signed) state.
    pub(super) fn real_authorize_url(&self, provider: &str, state: &str) -> Option<String> {
        let (e, ends) = self.real_provider(provider)?;
        let scope = match ends.scopes {
            "" => String::new(),
            s => format!("&scope={}", encode(s)),
        };
        Some(format!(
            "{}?client_id={}&redirect_uri={}&response_type=code{scope}&state={}{}",
            ends.authorize,
            encode(&e.client_id),
            encode(&self.callback_url(e)),
            encode(state),
            ends.authorize_extra
        ))
    }

    /// Exchanges the provider's code for its token and reads the user: the identity's data.
    /// `apple_user` is the name Apple posts along the first time (`user`).
    pub(super) async fn real_profile(
        &self,
        provider: &str,
        code: &str,
        apple_user: Option<&str>,
    ) -> Result<Value, AuthError> {
        let (e, ends) = self
            .real_provider(provider)
            .ok_or_else(|| self.authorize(provider))?;
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
        let token = self.exchange(&http, (e, &ends), code).await?;
        let access = token["access_token"].as_str().unwrap_or_default();
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
                return oauth_providers::id_token_profile(provider, &iss, &claims)
                    .ok_or_else(|| provider_failed("the ID token names no user"));
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
            unreachable!("ID token providers answered above")
        };
        let user = get(user_url).await?;
        let emails = match &ends.emails {
            Some(u) => Some(get(u).await?),
            None => None,
        };
        oauth_providers::profile(provider, &issuer, &user, emails.as_ref())
            .ok_or_else(|| provider_failed("the user answer names no user"))
    }

    /// The code exchanged at the provider's token endpoint: its answer. The client's credentials
    /// go as HTTP Basic and, if the provider refuses that, in the form (Go's oauth2 detection),
    /// or in the form only where GoTrue says so.
    async fn exchange(
        &self,
        http: &reqwest::Client,
        (e, ends): (&project::config::External, &Endpoints),
        code: &str,
    ) -> Result<Value, AuthError> {
        let callback = self.callback_url(e);
        let post = async |in_form: bool| -> Result<(bool, Value), AuthError> {
            let mut form = vec![
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", callback.as_str()),
            ];
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

/// The `iss` of a JWT, read before its signature is checked (to find its keys).
fn unverified_issuer(token: &str) -> Option<String> {
    use base64::Engine;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
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
