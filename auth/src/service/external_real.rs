//! Sign-in with the OAuth providers themselves (a provider switched on with a secret): the
//! browser goes to the provider's page with the signed state, the provider sends it back to
//! `/callback` with a code, which is exchanged at the provider for a token that reads the user
//! (`crate::oauth_providers`), as GoTrue does. The rest (the identity's user, a session or a PKCE
//! code, the redirect) is shared with the local stand-in (`external.rs`).

use super::Auth;
use crate::error::{AuthError, ErrorCode, api};
use crate::oauth_providers::{self, Endpoints};
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
        Some(format!(
            "{}?client_id={}&redirect_uri={}&response_type=code&scope={}&state={}",
            ends.authorize,
            encode(&e.client_id),
            encode(&self.callback_url(e)),
            encode(ends.scopes),
            encode(state)
        ))
    }

    /// Exchanges the provider's code for its token and reads the user: the identity's data.
    pub(super) async fn real_profile(
        &self,
        provider: &str,
        code: &str,
    ) -> Result<Value, AuthError> {
        let (e, ends) = self
            .real_provider(provider)
            .ok_or_else(|| self.authorize(provider))?;
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .user_agent(concat!("supagate/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(provider_failed)?;
        let form = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs([
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", &self.callback_url(e)),
                ("client_id", &e.client_id),
                ("client_secret", &e.secret),
            ])
            .finish();
        let token = json_of(
            http.post(&ends.token)
                .header("accept", "application/json")
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form)
                .send()
                .await
                .map_err(provider_failed)?,
        )
        .await?;
        let access = token["access_token"].as_str().ok_or_else(|| {
            api(
                400,
                ErrorCode::BadOauthCallback,
                "OAuth code is invalid or has expired",
            )
        })?;
        let get = async |url: &str| -> Result<Value, AuthError> {
            let res = http
                .get(url)
                .bearer_auth(access)
                .header("accept", "application/json")
                .send()
                .await
                .map_err(provider_failed)?;
            if !res.status().is_success() {
                return Err(provider_failed(format!("{url}: {}", res.status())));
            }
            json_of(res).await
        };
        let user = get(&ends.user).await?;
        let emails = match &ends.emails {
            Some(u) => Some(get(u).await?),
            None => None,
        };
        // The identity's `iss`: the origin of the provider's user API.
        let issuer: String = ends.user.split('/').take(3).collect::<Vec<_>>().join("/");
        oauth_providers::profile(provider, &issuer, &user, emails.as_ref())
            .ok_or_else(|| provider_failed("the user answer names no user"))
    }
}

/// A provider's answer as JSON.
async fn json_of(res: reqwest::Response) -> Result<Value, AuthError> {
    let bytes = res.bytes().await.map_err(provider_failed)?;
    serde_json::from_slice(&bytes).map_err(provider_failed)
}
