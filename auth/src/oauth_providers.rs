//! OAuth providers signed in with for real (`[auth.external.<provider>]` with a secret): where
//! GoTrue sends the browser, exchanges the code and reads the user, and how it reads a user's
//! answer into an identity (`sub`, e-mail and whether it is verified, name, avatar). `url` is the
//! provider's own base where it has one (GitHub Enterprise, self-hosted GitLab, a Keycloak realm).

use serde_json::{Value, json};

/// A provider's endpoints and the scopes GoTrue asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    pub authorize: String,
    pub token: String,
    pub user: String,
    /// GitHub's list of addresses (the primary verified one is the user's).
    pub emails: Option<String>,
    pub scopes: &'static str,
}

/// The providers supagate signs in with for real.
pub const REAL: [&str; 5] = ["github", "gitlab", "google", "discord", "keycloak"];

pub fn endpoints(provider: &str, url: &str) -> Option<Endpoints> {
    let url = url.trim_end_matches('/');
    let or = |default: &str| {
        if url.is_empty() {
            default.to_string()
        } else {
            url.to_string()
        }
    };
    Some(match provider {
        "github" => {
            let base = or("https://github.com");
            let api = if url.is_empty() {
                "https://api.github.com".to_string()
            } else {
                format!("{base}/api/v3")
            };
            Endpoints {
                authorize: format!("{base}/login/oauth/authorize"),
                token: format!("{base}/login/oauth/access_token"),
                user: format!("{api}/user"),
                emails: Some(format!("{api}/user/emails")),
                scopes: "user:email",
            }
        }
        "gitlab" => {
            let base = or("https://gitlab.com");
            Endpoints {
                authorize: format!("{base}/oauth/authorize"),
                token: format!("{base}/oauth/token"),
                user: format!("{base}/api/v4/user"),
                emails: None,
                scopes: "read_user",
            }
        }
        "google" => Endpoints {
            authorize: "https://accounts.google.com/o/oauth2/auth".into(),
            token: "https://oauth2.googleapis.com/token".into(),
            user: "https://www.googleapis.com/userinfo/v2/me".into(),
            emails: None,
            scopes: "email profile",
        },
        "discord" => Endpoints {
            authorize: "https://discord.com/api/oauth2/authorize".into(),
            token: "https://discord.com/api/oauth2/token".into(),
            user: "https://discord.com/api/users/@me".into(),
            emails: None,
            scopes: "email identify",
        },
        "keycloak" if !url.is_empty() => Endpoints {
            authorize: format!("{url}/protocol/openid-connect/auth"),
            token: format!("{url}/protocol/openid-connect/token"),
            user: format!("{url}/protocol/openid-connect/userinfo"),
            emails: None,
            scopes: "profile email",
        },
        _ => return None,
    })
}

fn s(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The identity's data from the provider's user answer (and GitHub's addresses): None when it
/// names no user.
pub fn profile(
    provider: &str,
    issuer: &str,
    user: &Value,
    emails: Option<&Value>,
) -> Option<Value> {
    let sub = s(&user["id"]).or_else(|| s(&user["sub"]))?;
    let (email, verified) = match provider {
        "github" => {
            let primary = emails.and_then(Value::as_array).and_then(|l| {
                l.iter()
                    .find(|e| e["primary"] == true && e["verified"] == true)
            });
            match primary {
                Some(e) => (s(&e["email"]), true),
                None => (s(&user["email"]), false),
            }
        }
        "gitlab" => (s(&user["email"]), !user["confirmed_at"].is_null()),
        "google" => (s(&user["email"]), user["verified_email"] == true),
        "discord" => (s(&user["email"]), user["verified"] == true),
        _ => (s(&user["email"]), user["email_verified"] == true),
    };
    let name = s(&user["name"])
        .or_else(|| s(&user["global_name"]))
        .or_else(|| s(&user["username"]))
        .or_else(|| s(&user["login"]));
    let user_name = s(&user["login"])
        .or_else(|| s(&user["username"]))
        .or_else(|| s(&user["preferred_username"]));
    let avatar = match provider {
        "discord" => {
            s(&user["avatar"]).map(|a| format!("https://cdn.discordapp.com/avatars/{sub}/{a}.png"))
        }
        _ => s(&user["avatar_url"]).or_else(|| s(&user["picture"])),
    };
    Some(json!({
        "sub": sub, "provider_id": sub, "iss": issuer,
        "email": email.map(|e| e.to_lowercase()), "email_verified": verified,
        "phone_verified": false, "name": name, "full_name": name,
        "user_name": user_name, "preferred_username": user_name,
        "avatar_url": avatar, "picture": avatar,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_by_provider_and_url() {
        let gh = endpoints("github", "").unwrap();
        assert_eq!(gh.authorize, "https://github.com/login/oauth/authorize");
        assert_eq!(gh.user, "https://api.github.com/user");
        let ghe = endpoints("github", "https://git.example.com/").unwrap();
        assert_eq!(
            ghe.token,
            "https://git.example.com/login/oauth/access_token"
        );
        assert_eq!(
            ghe.emails.as_deref(),
            Some("https://git.example.com/api/v3/user/emails")
        );
        assert_eq!(
            endpoints("gitlab", "").unwrap().user,
            "https://gitlab.com/api/v4/user"
        );
        assert_eq!(
            endpoints("keycloak", "https://id.example.com/realms/shop")
                .unwrap()
                .authorize,
            "https://id.example.com/realms/shop/protocol/openid-connect/auth"
        );
        assert_eq!(endpoints("keycloak", ""), None);
        assert_eq!(endpoints("twitter", ""), None);
    }

    #[test]
    fn users_read_as_identities() {
        // (provider, user answer, emails, sub, email, verified, name, avatar)
        let cases = [
            (
                "github",
                json!({"id": 42, "login": "ann", "name": "Ann", "avatar_url": "https://a/x.png", "email": null}),
                Some(
                    json!([{"email": "old@x.com", "primary": false, "verified": true}, {"email": "Ann@X.com", "primary": true, "verified": true}]),
                ),
                "42",
                Some("ann@x.com"),
                true,
                "Ann",
                Some("https://a/x.png"),
            ),
            (
                "github",
                json!({"id": 43, "login": "bob", "email": "bob@x.com"}),
                Some(json!([])),
                "43",
                Some("bob@x.com"),
                false,
                "bob",
                None,
            ),
            (
                "google",
                json!({"id": "g1", "email": "c@x.com", "verified_email": true, "name": "Cy", "picture": "https://p"}),
                None,
                "g1",
                Some("c@x.com"),
                true,
                "Cy",
                Some("https://p"),
            ),
            (
                "discord",
                json!({"id": "d1", "username": "dee", "global_name": "Dee", "email": "d@x.com", "verified": true, "avatar": "abc"}),
                None,
                "d1",
                Some("d@x.com"),
                true,
                "Dee",
                Some("https://cdn.discordapp.com/avatars/d1/abc.png"),
            ),
            (
                "gitlab",
                json!({"id": 7, "username": "gus", "name": "Gus", "email": "g@x.com", "confirmed_at": "2024-01-01"}),
                None,
                "7",
                Some("g@x.com"),
                true,
                "Gus",
                None,
            ),
            (
                "keycloak",
                json!({"sub": "k1", "email": "k@x.com", "email_verified": false, "preferred_username": "kay"}),
                None,
                "k1",
                Some("k@x.com"),
                false,
                "kay",
                None,
            ),
        ];
        for (provider, user, emails, sub, email, verified, name, avatar) in cases {
            let p = profile(provider, "iss", &user, emails.as_ref()).unwrap();
            assert_eq!(p["sub"], sub, "{provider}");
            assert_eq!(p["email"].as_str(), email, "{provider}");
            assert_eq!(p["email_verified"], verified, "{provider}");
            assert_eq!(
                p["name"].as_str().or(p["user_name"].as_str()),
                Some(name),
                "{provider}"
            );
            assert_eq!(p["avatar_url"].as_str(), avatar, "{provider}");
        }
        assert_eq!(profile("github", "iss", &json!({}), None), None);
    }
}
