//! OAuth providers signed in with for real (`[auth.external.<provider>]` with a secret), as
//! GoTrue's `provider` package has them: where the browser is sent, where the code is exchanged,
//! how the user is read (the provider's user API, or the OpenID ID token of the token answer),
//! and how that answer becomes an identity (`sub`, e-mail and whether it is verified, name,
//! avatar, GoTrue's `iss`). `url` replaces the provider's hosts, as GoTrue's `chooseHost` does
//! (GitHub Enterprise, self-hosted GitLab, a Keycloak realm, an Azure tenant, a stand-in).

mod profile;
pub use profile::{id_token_profile, profile};

/// Where the user comes from once the code is exchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserFrom {
    /// A GET of this URL with the access token.
    Api(String),
    /// The token answer's `id_token`, checked against this issuer's keys (None: the token's own
    /// issuer, which Azure's multi-tenant endpoint leaves to each tenant).
    IdToken(Option<String>),
    /// A field of the token answer itself (WorkOS's `profile`).
    TokenField(&'static str),
}

/// A provider's endpoints and the scopes GoTrue asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub authorize: String,
    pub token: String,
    pub user: UserFrom,
    /// A second list of the user's addresses (GitHub's, Bitbucket's).
    pub emails: Option<String>,
    pub scopes: &'static str,
    /// The identity's `iss`, as GoTrue records it for this provider.
    pub issuer: String,
    /// More authorize parameters (Apple answers with a form POST).
    pub authorize_extra: &'static str,
    /// The client's credentials go in the form only (Kakao); otherwise as HTTP Basic first and
    /// then in the form, as Go's oauth2 tries them.
    pub credentials_in_form: bool,
    /// The provider wants PKCE of its own (X): a verifier kept in `auth.oauth_client_states`.
    pub pkce: bool,
}

/// A plain OAuth 2 provider read from its user API.
fn api(authorize: String, token: String, user: String, issuer: String) -> Endpoints {
    Endpoints {
        authorize,
        token,
        user: UserFrom::Api(user),
        emails: None,
        scopes: "",
        issuer,
        authorize_extra: "",
        credentials_in_form: false,
        pkce: false,
    }
}

/// The provider's endpoints: None for a provider supagate does not sign in with for real (it keeps
/// the local stand-in), or for Keycloak without its realm's `url`.
pub fn endpoints(provider: &str, url: &str) -> Option<Endpoints> {
    let url = url.trim_end_matches('/');
    let host = |default: &str| match url.is_empty() {
        true => format!("https://{default}"),
        false => url.to_string(),
    };
    let with = |e: Endpoints, scopes: &'static str| Endpoints { scopes, ..e };
    Some(match provider {
        "apple" => {
            let iss = host("appleid.apple.com");
            Endpoints {
                authorize_extra: "&response_mode=form_post",
                user: UserFrom::IdToken(Some(iss.clone())),
                ..with(
                    api(
                        format!("{iss}/auth/authorize"),
                        format!("{iss}/auth/token"),
                        String::new(),
                        iss,
                    ),
                    "email name",
                )
            }
        }
        "azure" => {
            let h = host("login.microsoftonline.com/common");
            // A tenant's own address names its issuer; `common` and `organizations` do not.
            let tenant = format!("{h}/v2.0");
            let fixed = !url.is_empty()
                && azure_issuer(&tenant)
                && !["common", "organizations"]
                    .iter()
                    .any(|t| tenant.ends_with(&format!("/{t}/v2.0")));
            Endpoints {
                user: UserFrom::IdToken(fixed.then(|| tenant.clone())),
                ..with(
                    api(
                        format!("{h}/oauth2/v2.0/authorize"),
                        format!("{h}/oauth2/v2.0/token"),
                        String::new(),
                        tenant,
                    ),
                    "openid",
                )
            }
        }
        "bitbucket" => {
            let (a, p) = (
                host("bitbucket.org"),
                format!("{}/2.0", host("api.bitbucket.org")),
            );
            Endpoints {
                emails: Some(format!("{p}/user/emails")),
                ..with(
                    api(
                        format!("{a}/site/oauth2/authorize"),
                        format!("{a}/site/oauth2/access_token"),
                        format!("{p}/user"),
                        p,
                    ),
                    "account email",
                )
            }
        }
        "discord" => {
            let p = format!("{}/api", host("discord.com"));
            with(
                api(
                    format!("{p}/oauth2/authorize"),
                    format!("{p}/oauth2/token"),
                    format!("{p}/users/@me"),
                    p,
                ),
                "email identify",
            )
        }
        "facebook" => {
            let profile = format!(
                "{}/me?fields=email,first_name,last_name,name,picture",
                host("graph.facebook.com")
            );
            with(
                api(
                    format!("{}/dialog/oauth", host("www.facebook.com")),
                    format!("{}/oauth/access_token", host("graph.facebook.com")),
                    profile.clone(),
                    profile,
                ),
                "email",
            )
        }
        "figma" => {
            let a = host("api.figma.com");
            with(
                api(
                    format!("{}/oauth", host("www.figma.com")),
                    format!("{a}/v1/oauth/token"),
                    format!("{a}/v1/me"),
                    a,
                ),
                "current_user:read",
            )
        }
        "fly" => {
            let a = host("api.fly.io");
            with(
                api(
                    format!("{a}/oauth/authorize"),
                    format!("{a}/oauth/token"),
                    format!("{a}/oauth/token/info"),
                    a,
                ),
                "read",
            )
        }
        "github" => {
            let a = host("github.com");
            let mut p = host("api.github.com");
            if !p.ends_with("api.github.com") {
                p.push_str("/api/v3");
            }
            Endpoints {
                emails: Some(format!("{p}/user/emails")),
                ..with(
                    api(
                        format!("{a}/login/oauth/authorize"),
                        format!("{a}/login/oauth/access_token"),
                        format!("{p}/user"),
                        p,
                    ),
                    "user:email",
                )
            }
        }
        "gitlab" => {
            let h = host("gitlab.com");
            with(
                api(
                    format!("{h}/oauth/authorize"),
                    format!("{h}/oauth/token"),
                    format!("{h}/api/v4/user"),
                    h,
                ),
                "read_user",
            )
        }
        // GoTrue ignores `url` for Google.
        "google" => with(
            api(
                "https://accounts.google.com/o/oauth2/auth".into(),
                "https://oauth2.googleapis.com/token".into(),
                "https://www.googleapis.com/userinfo/v2/me".into(),
                "https://www.googleapis.com/userinfo/v2/me".into(),
            ),
            "email profile",
        ),
        "kakao" => {
            let a = host("kauth.kakao.com");
            Endpoints {
                credentials_in_form: true,
                ..with(
                    api(
                        format!("{a}/oauth/authorize"),
                        format!("{a}/oauth/token"),
                        format!("{}/v2/user/me", host("kapi.kakao.com")),
                        host("kapi.kakao.com"),
                    ),
                    "account_email profile_image profile_nickname",
                )
            }
        }
        "keycloak" if !url.is_empty() => with(
            api(
                format!("{url}/protocol/openid-connect/auth"),
                format!("{url}/protocol/openid-connect/token"),
                format!("{url}/protocol/openid-connect/userinfo"),
                url.to_string(),
            ),
            "profile email",
        ),
        "linkedin_oidc" => {
            let a = host("api.linkedin.com");
            let iss = match url.is_empty() {
                true => "https://www.linkedin.com/oauth".to_string(),
                false => url.to_string(),
            };
            Endpoints {
                user: UserFrom::IdToken(Some(iss.clone())),
                ..with(
                    api(
                        format!("{a}/oauth/v2/authorization"),
                        format!("{a}/oauth/v2/accessToken"),
                        String::new(),
                        iss,
                    ),
                    "openid email profile",
                )
            }
        }
        "notion" => {
            let a = host("api.notion.com");
            api(
                format!("{a}/v1/oauth/authorize"),
                format!("{a}/v1/oauth/token"),
                format!("{a}/v1/users/me"),
                a,
            )
        }
        "slack_oidc" => {
            let s = host("slack.com");
            with(
                api(
                    format!("{s}/openid/connect/authorize"),
                    format!("{s}/api/openid.connect.token"),
                    format!("{s}/api/openid.connect.userInfo"),
                    format!("{s}/api"),
                ),
                "profile email openid",
            )
        }
        "snapchat" => {
            let a = host("accounts.snapchat.com");
            let query =
                "query=%7Bme+%7B+externalId+displayName+bitmoji+%7B+avatar+id+%7D+email+%7D+%7D";
            with(
                api(
                    format!("{a}/accounts/oauth2/auth"),
                    format!("{a}/accounts/oauth2/token"),
                    format!("{}/v1/me?{query}", host("kit.snapchat.com")),
                    "https://accounts.snapchat.com/accounts/oauth2/token".into(),
                ),
                "https://auth.snapchat.com/oauth2/api/user.external_id \
                 https://auth.snapchat.com/oauth2/api/user.display_name \
                 https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar",
            )
        }
        "spotify" => {
            let (a, p) = (host("accounts.spotify.com"), host("api.spotify.com/v1"));
            with(
                api(
                    format!("{a}/authorize"),
                    format!("{a}/api/token"),
                    format!("{p}/me"),
                    p,
                ),
                "user-read-email",
            )
        }
        "twitch" => {
            let (a, p) = (host("id.twitch.tv"), host("api.twitch.tv"));
            with(
                api(
                    format!("{a}/oauth2/authorize"),
                    format!("{a}/oauth2/token"),
                    format!("{p}/helix/users"),
                    p,
                ),
                "user:read:email",
            )
        }
        "workos" => {
            let a = host("api.workos.com");
            Endpoints {
                user: UserFrom::TokenField("profile"),
                ..api(
                    format!("{a}/sso/authorize"),
                    format!("{a}/sso/token"),
                    String::new(),
                    a,
                )
            }
        }
        "x" => {
            let p = host("api.x.com");
            Endpoints {
                pkce: true,
                ..with(
                    api(
                        format!("{}/i/oauth2/authorize", host("x.com")),
                        format!("{p}/2/oauth2/token"),
                        format!(
                            "{p}/2/users/me?user.fields=id,name,username,confirmed_email,\
                             profile_image_url,url,created_at"
                        ),
                        p,
                    ),
                    "users.email tweet.read users.read offline.access",
                )
            }
        }
        "zoom" => {
            let (a, p) = (
                format!("{}/oauth", host("zoom.us")),
                format!("{}/v2", host("api.zoom.us")),
            );
            api(
                format!("{a}/authorize"),
                format!("{a}/token"),
                format!("{p}/users/me"),
                p,
            )
        }
        _ => return None,
    })
}

/// An Azure tenant's issuer: `https://login.microsoftonline.com/<tenant>/v2.0` or an External ID
/// (CIAM) one, `https://<name>.ciamlogin.com/<tenant>/v2.0`.
pub fn azure_issuer(iss: &str) -> bool {
    let iss = iss.trim_end_matches('/');
    let Some(rest) = iss.strip_prefix("https://") else {
        return false;
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let host_ok = parts[0] == "login.microsoftonline.com"
        || parts[0].strip_suffix(".ciamlogin.com").is_some_and(|n| {
            !n.is_empty()
                && n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        });
    host_ok && parts.len() == 3 && !parts[1].is_empty() && parts[2] == "v2.0"
}

/// What `/authorize` passes on to the provider's page, as GoTrue does: `scopes` added to the
/// provider's own, and every other parameter but `provider` and the ones the server controls
/// (`client_id`, `redirect_uri`, `state`, PKCE, …); `workos_provider` as WorkOS's `provider`.
pub fn authorize_params(query: &str, scopes: &str) -> String {
    const RESERVED: [&str; 8] = [
        "client_id",
        "client_secret",
        "redirect_uri",
        "response_type",
        "state",
        "code_challenge",
        "code_challenge_method",
        "code_verifier",
    ];
    let mut asked = scopes.to_string();
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        match k.as_ref() {
            "provider" => {}
            "scopes" => {
                for s in v.split([',', ' ']).filter(|s| !s.is_empty()) {
                    asked = format!("{asked} {s}").trim().to_string();
                }
            }
            _ if RESERVED.contains(&k.to_lowercase().as_str()) => {}
            "workos_provider" => {
                out.append_pair("provider", &v);
            }
            _ => {
                out.append_pair(&k, &v);
            }
        }
    }
    let rest = out.finish();
    let scope = match asked.as_str() {
        "" => String::new(),
        s => format!(
            "&scope={}",
            url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()
        ),
    };
    match rest.as_str() {
        "" => scope,
        r => format!("{scope}&{r}"),
    }
}

/// The headers and query GoTrue adds when it reads the user: Twitch's `Client-Id`, Notion's
/// API version, Facebook's `appsecret_proof` (the HMAC-SHA-256 of the token under the secret).
pub fn user_request(
    provider: &str,
    url: &str,
    (client_id, secret): (&str, &str),
    access_token: &str,
) -> (String, Vec<(&'static str, String)>) {
    match provider {
        "twitch" => (url.to_string(), vec![("client-id", client_id.to_string())]),
        "notion" => (
            url.to_string(),
            vec![("notion-version", "2021-08-16".to_string())],
        ),
        "facebook" => {
            use hmac::Mac;
            let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes())
                .expect("HMAC takes any key");
            mac.update(access_token.as_bytes());
            let proof = hex::encode(mac.finalize().into_bytes());
            (format!("{url}&appsecret_proof={proof}"), Vec::new())
        }
        _ => (url.to_string(), Vec::new()),
    }
}

#[cfg(test)]
use serde_json::json;

#[cfg(test)]
mod tests;
