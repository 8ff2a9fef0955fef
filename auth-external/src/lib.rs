//! Sign-in with OAuth providers (`[auth.external.<provider>]`) through supagate's local stand-in,
//! in local development mode: `/authorize` sends the browser, with a signed state, to a page that
//! plays the provider — pick one of the identities already made there or make one (name, e-mail,
//! avatar) — which hands `/callback` a one-time code, as a provider would. `/callback` then does
//! what GoTrue does with a provider's answer: the identity's user (or the user whose confirmed
//! address it carries, or a new one), a session, and the browser sent back to the app with the
//! tokens in the fragment (implicit) or a code for `/token?grant_type=pkce`. Linking an identity
//! to the signed-in user (`/user/identities/authorize`) goes the same way.
//!
//! Sign-in with the providers themselves (`real`) and with an ID token an app got from one
//! (`id_token`, `POST /token?grant_type=id_token`) are here too. [`External`] borrows the auth
//! service's core ([`auth::Auth`]: its settings and signing keys, its transactions, its sessions
//! and the providers' key sets it keeps): the gateway's `external_api` and `auth_api` make one
//! per request.

mod id_token;
mod real;

use auth::config::AuthConfig;
use auth::error::{AuthError, ErrorCode, api, validation};
use auth::params::CallbackParams;
use auth::redirect::encode;
use auth::service::never;
use auth::sessions::{self, new_refresh_token};
use auth::{Auth, Request};
use real::ProviderTokens;
use serde_json::{Value, json};
use uuid::Uuid;

const STATE_ISSUER: &str = "supagate-local-oauth";
/// Seconds a sign-in may take on the stand-in's page.
const STATE_SECS: i64 = 600;

/// What the signed state carries from `/authorize` to `/callback`.
pub struct Start<'a> {
    pub provider: &'a str,
    pub redirect_to: Option<&'a str>,
    /// PKCE (`code_challenge_method`, `code_challenge`).
    pub pkce: Option<(String, String)>,
    /// Linking an identity to this signed-in user.
    pub link_user: Option<Uuid>,
    /// The query of `/authorize`: `scopes` and the parameters passed on to the provider.
    pub query: &'a str,
}

/// The profile a developer picks or makes on the stand-in's page.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct Chosen {
    pub state: String,
    /// An identity already made on the page (its `sub`), or none to make one.
    pub sub: Option<String>,
    pub name: Option<String>,
    pub email: Option<String>,
    pub avatar_url: Option<String>,
}

fn title(provider: &str) -> String {
    let mut c = provider.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// Sign-in with OAuth providers over the auth service it belongs to.
pub struct External<'a> {
    auth: &'a Auth,
}

impl<'a> External<'a> {
    pub fn new(auth: &'a Auth) -> External<'a> {
        External { auth }
    }

    fn cfg(&self) -> &'a AuthConfig {
        self.auth.config()
    }

    fn bad_state() -> AuthError {
        api(
            400,
            ErrorCode::BadOauthState,
            "OAuth state is invalid or has expired",
        )
    }

    /// The state's claims, once its signature, issuer, expiry and provider check out.
    fn read_state(&self, state: &str, provider: Option<&str>) -> Result<Value, AuthError> {
        let claims = self
            .cfg()
            .keys
            .verify(state)
            .map_err(|_| Self::bad_state())?;
        if claims["iss"] != STATE_ISSUER
            || provider.is_some_and(|p| claims["provider"].as_str() != Some(p))
        {
            return Err(Self::bad_state());
        }
        Ok(claims)
    }

    /// `GET /authorize?provider=…`: the provider's own page for a provider with credentials,
    /// else the stand-in's page for a provider that is on (local development).
    pub async fn external_start(&self, s: Start<'_>) -> Result<String, AuthError> {
        let real = self.is_real_provider(s.provider);
        if !real && !self.cfg().external.iter().any(|p| p == s.provider) {
            return Err(self.auth.authorize(s.provider));
        }
        let redirect_to = auth::redirect::resolve(self.cfg(), s.redirect_to);
        let now = chrono::Utc::now().timestamp();
        let (method, challenge) = s.pkce.unzip();
        let (client_state, provider_challenge) = match real {
            true => self.client_state(s.provider).await?.unzip(),
            false => (None, None),
        };
        let state = self.cfg().keys.sign(&json!({
            "iss": STATE_ISSUER, "exp": now + STATE_SECS, "iat": now,
            "provider": s.provider, "redirect_to": redirect_to,
            "pkce_method": method, "pkce_challenge": challenge, "link_user": s.link_user,
            "nonce": new_refresh_token(), "real": real, "client_state": client_state,
        }));
        let asked = (s.query, provider_challenge.as_deref());
        if let Some(url) = real
            .then(|| self.real_authorize_url(s.provider, &state, asked))
            .flatten()
        {
            return Ok(url);
        }
        Ok(format!(
            "{}/local-oauth/{}?state={}",
            self.cfg().issuer,
            s.provider,
            encode(&state)
        ))
    }

    /// `GET /local-oauth/{provider}?state=…`: the stand-in's sign-in page.
    pub async fn local_oauth_page(&self, provider: &str, state: &str) -> Result<String, AuthError> {
        self.read_state(state, Some(provider))?;
        let known: Vec<Value> = self
            .auth
            .in_tx(never, async |c| {
                Ok(c.query(
                    "SELECT identity_data FROM auth.identities WHERE provider = $1
                     ORDER BY last_sign_in_at DESC NULLS LAST LIMIT 50",
                    &[&provider],
                )
                .await?
                .iter()
                .map(|r| r.get(0))
                .collect())
            })
            .await?;
        let name = mail::escape_html(&title(provider));
        let action = format!(
            "{}/local-oauth/{}",
            self.cfg().issuer,
            mail::escape_html(provider)
        );
        let state = mail::escape_html(state);
        let accounts: String = known
            .iter()
            .map(|d| {
                let text = |k: &str| mail::escape_html(d[k].as_str().unwrap_or(""));
                format!(
                    "<li><form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"state\" \
                     value=\"{state}\"><input type=\"hidden\" name=\"sub\" value=\"{}\"><button>{} \
                     <small>{}</small></button></form></li>",
                    text("sub"),
                    text("name"),
                    text("email")
                )
            })
            .collect();
        let accounts = if accounts.is_empty() {
            "<p>No accounts yet: make one below.</p>".to_string()
        } else {
            format!("<h2>Continue as</h2><ul>{accounts}</ul>")
        };
        Ok(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width\"><title>Sign in with {name} · supagate</title>\
             <style>body{{font:16px system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#222}}\
             ul{{list-style:none;padding:0}}li{{margin:.4rem 0}}button{{font:inherit;padding:.5rem .8rem;cursor:pointer}}\
             label{{display:block;margin:.6rem 0}}input{{font:inherit;width:100%;padding:.4rem}}small{{color:#555}}\
             .note{{background:#fff4d6;padding:.6rem .8rem;border-radius:.3rem}}</style></head><body>\
             <h1>Sign in with {name}</h1><p class=\"note\">This page stands in for {name} while you develop \
             locally (supagate). No request leaves this machine.</p>{accounts}\
             <h2>New account</h2><form method=\"post\" action=\"{action}\">\
             <input type=\"hidden\" name=\"state\" value=\"{state}\">\
             <label>Name <input name=\"name\" required autocomplete=\"name\"></label>\
             <label>E-mail <input name=\"email\" type=\"email\" required autocomplete=\"email\"></label>\
             <label>Avatar URL (optional) <input name=\"avatar_url\" type=\"url\"></label>\
             <button>Continue</button></form></body></html>"
        ))
    }

    /// `POST /local-oauth/{provider}`: the `/callback` URL with a one-time code for the profile.
    pub async fn local_oauth_choose(&self, provider: &str, f: Chosen) -> Result<String, AuthError> {
        let claims = self.read_state(&f.state, Some(provider))?;
        // The code is good with this state only (its nonce is kept with the profile).
        let nonce = claims["nonce"].clone();
        let code = new_refresh_token();
        let issuer = format!("{}/local-oauth/{provider}", self.cfg().issuer);
        let text = |v: &Option<String>| v.as_deref().unwrap_or("").trim().to_string();
        self.auth.in_tx(never, async |c| {
            let profile = match f.sub.as_deref().filter(|s| !s.is_empty()) {
                Some(sub) => c
                    .query_opt(
                        "SELECT identity_data FROM auth.identities
                         WHERE provider = $1 AND provider_id = $2",
                        &[&provider, &sub],
                    )
                    .await?
                    .map(|r| r.get::<_, Value>(0))
                    .ok_or_else(|| validation("That account is not known here"))?,
                None => {
                    let (name, avatar) = (text(&f.name), text(&f.avatar_url));
                    let email = auth::users::normalize_email(&text(&f.email))
                        .map_err(|e| validation(e.to_string()))?;
                    if name.is_empty() {
                        return Err(validation("A name is required"));
                    }
                    let sub = (rand::random::<u32>() % 90_000_000 + 10_000_000).to_string();
                    json!({
                        "sub": sub, "provider_id": sub, "iss": issuer, "name": name,
                        "full_name": name, "user_name": email.split('@').next(),
                        "preferred_username": email.split('@').next(), "email": email,
                        "email_verified": true, "phone_verified": false,
                        "avatar_url": avatar, "picture": avatar,
                    })
                }
            };
            let kept = json!({"profile": profile, "state_nonce": nonce});
            c.execute(
                "WITH gone AS (DELETE FROM supagate.local_oauth_codes WHERE expires_at < now())
                 INSERT INTO supagate.local_oauth_codes (code, provider, profile) VALUES ($1, $2, $3)",
                &[&code, &provider, &kept],
            )
            .await?;
            Ok(())
        })
        .await?;
        Ok(format!(
            "{}/callback?code={}&state={}",
            self.cfg().issuer,
            encode(&code),
            encode(&f.state)
        ))
    }

    /// `GET /callback?code=…&state=…`: where the browser goes next — the app, with the session
    /// (or a PKCE code), or with the error in the fragment.
    pub async fn external_callback(&self, r: &Request, p: CallbackParams) -> String {
        let claims = match self.read_state(&p.state, None) {
            Ok(c) => c,
            Err(e) => return error_redirect(&self.cfg().site_url, &e),
        };
        let to = claims["redirect_to"]
            .as_str()
            .unwrap_or(&self.cfg().site_url)
            .to_string();
        if !p.error.is_empty() {
            // The provider's refusal goes back to the app in its own words, as GoTrue's
            // OAuthError does.
            return format!(
                "{to}#error={}&error_description={}",
                encode(&p.error),
                encode(&p.error_description)
            );
        }
        let apple_user = p.user.as_deref();
        match self
            .external_sign_in(r, (&p.code, apple_user), &claims)
            .await
        {
            Ok(Done::Session(s, tokens)) => {
                // As GoTrue: provider_token always, provider_refresh_token when there is one.
                let refresh = match tokens.refresh.as_str() {
                    "" => String::new(),
                    r => format!("&provider_refresh_token={}", encode(r)),
                };
                format!(
                    "{to}#access_token={}&expires_at={}&expires_in={}{refresh}&provider_token={}&refresh_token={}&token_type=bearer",
                    encode(s["access_token"].as_str().unwrap_or("")),
                    s["expires_at"],
                    s["expires_in"],
                    encode(&tokens.access),
                    encode(s["refresh_token"].as_str().unwrap_or(""))
                )
            }
            Ok(Done::Code(code)) => {
                let join = if to.contains('?') { '&' } else { '?' };
                format!("{to}{join}code={}", encode(&code))
            }
            Err(e) => error_redirect(&to, &e),
        }
    }

    async fn external_sign_in(
        &self,
        r: &Request,
        (code, apple_user): (&str, Option<&str>),
        claims: &Value,
    ) -> Result<Done, AuthError> {
        let provider = claims["provider"].as_str().unwrap_or_default().to_string();
        let link = claims["link_user"]
            .as_str()
            .and_then(|s| Uuid::parse_str(s).ok());
        let pkce = (
            claims["pkce_method"].as_str(),
            claims["pkce_challenge"].as_str(),
        );
        let cfg = self.cfg();
        let (ua, addr) = (r.user_agent.as_deref(), r.peer_ip.as_deref());
        let real = if claims["real"] == true {
            let client_state = claims["client_state"]
                .as_str()
                .and_then(|s| Uuid::parse_str(s).ok());
            let answer = (code, apple_user);
            let (profile, tokens) = self.real_profile(&provider, answer, client_state).await?;
            let optional =
                (cfg.external_providers.get(&provider)).is_some_and(|e| e.email_optional);
            require_email(&profile, optional)?;
            Some((profile, tokens))
        } else {
            None
        };
        self.auth
            .in_tx(never, async |c| {
                if let Some((profile, tokens)) = &real {
                    let user = auth::identities::user_of(c, cfg, &provider, profile, link).await?;
                    return finish(c, cfg, (&provider, user), pkce, (ua, addr), tokens).await;
                }
                let bad_code = || {
                    api(
                        400,
                        ErrorCode::BadOauthCallback,
                        "OAuth code is invalid or has expired",
                    )
                };
                let kept: Value = c
                    .query_opt(
                        "DELETE FROM supagate.local_oauth_codes
                     WHERE code = $1 AND provider = $2 AND expires_at > now() RETURNING profile",
                        &[&code, &provider],
                    )
                    .await?
                    .map(|r| r.get(0))
                    .ok_or_else(bad_code)?;
                if kept["state_nonce"] != claims["nonce"] {
                    return Err(bad_code());
                }
                let user =
                    auth::identities::user_of(c, cfg, &provider, &kept["profile"], link).await?;
                let none = ProviderTokens::default();
                finish(c, cfg, (&provider, user), pkce, (ua, addr), &none).await
            })
            .await
    }
}

/// The end of a provider's sign-in: a PKCE code for the app to exchange, or a session.
async fn finish(
    c: &tokio_postgres::Client,
    cfg: &AuthConfig,
    (provider, user): (&str, Uuid),
    pkce: (Option<&str>, Option<&str>),
    (ua, addr): (Option<&str>, Option<&str>),
    tokens: &ProviderTokens,
) -> Result<Done, AuthError> {
    if let (Some(method), Some(challenge)) = pkce {
        let flow = auth::pkce::create(c, provider, "oauth", method, challenge, Some(user)).await?;
        let provider_tokens = (tokens.access.as_str(), tokens.refresh.as_str());
        auth::pkce::keep_provider_tokens(c, flow, provider_tokens).await?;
        return Ok(Done::Code(auth::pkce::issue_code(c, user, "oauth").await?));
    }
    let session = sessions::start(c, cfg, user, "oauth", ua, addr).await?;
    Ok(Done::Session(session, tokens.clone()))
}

enum Done {
    Session(Value, ProviderTokens),
    Code(String),
}

fn error_redirect(to: &str, e: &AuthError) -> String {
    let (status, code, message) = e.parts();
    let error = if status >= 500 {
        "server_error"
    } else {
        "invalid_request"
    };
    format!(
        "{to}#error={error}&error_code={}&error_description={}",
        code.as_str(),
        encode(&message)
    )
}

/// GoTrue refuses a provider's user without an e-mail address unless the provider's
/// `email_optional` is set.
fn require_email(profile: &serde_json::Value, optional: bool) -> Result<(), AuthError> {
    if optional || profile["email"].as_str().is_some_and(|e| !e.is_empty()) {
        return Ok(());
    }
    Err(api(
        500,
        ErrorCode::UnexpectedFailure,
        "Error getting user email from external provider",
    ))
}

#[cfg(test)]
mod email_tests {
    use super::require_email;
    use serde_json::json;

    #[test]
    fn a_provider_user_without_email_needs_email_optional() {
        let none = json!({"sub": "42", "email": null});
        let e = require_email(&none, false).unwrap_err().to_string();
        assert!(
            e.contains("Error getting user email from external provider"),
            "{e}"
        );
        assert!(require_email(&none, true).is_ok());
        assert!(require_email(&json!({"sub": "42", "email": "a@b.example"}), false).is_ok());
    }
}
