//! How a provider's answer becomes an identity, as GoTrue reads each provider's user (or ID
//! token): `sub`, e-mail and whether it is verified, name, user name, avatar.

use serde_json::{Value, json};

fn s(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// True, or the strings `"true"` and `"1"` (Apple, LinkedIn and Azure write them so).
fn truthy(v: &Value) -> bool {
    *v == true || *v == "true" || *v == "1"
}

/// Two names joined as GoTrue joins first and last names.
fn full(first: &Value, last: &Value) -> Option<String> {
    let name = format!(
        "{} {}",
        first.as_str().unwrap_or(""),
        last.as_str().unwrap_or("")
    );
    Some(name.trim().to_string()).filter(|n| !n.is_empty())
}

/// What GoTrue reads of a user: sub, e-mail, whether verified, name, user name, avatar.
struct Read {
    sub: Option<String>,
    email: Option<String>,
    verified: bool,
    name: Option<String>,
    user_name: Option<String>,
    avatar: Option<String>,
}

/// The primary verified address of a list (`primary`/`verified` or Bitbucket's names), else the
/// first address, unverified.
fn primary(list: Option<&Value>, primary: &str, verified: &str) -> (Option<String>, bool) {
    let list = list
        .and_then(|l| l.as_array().or_else(|| l["values"].as_array()))
        .map(Vec::as_slice)
        .unwrap_or_default();
    match list
        .iter()
        .find(|e| e[primary] == true && e[verified] == true)
    {
        Some(e) => (s(&e["email"]), true),
        None => (None, false),
    }
}

fn read(provider: &str, u: &Value, emails: Option<&Value>) -> Read {
    let mut r = Read {
        sub: s(&u["id"]).or_else(|| s(&u["sub"])),
        email: s(&u["email"]),
        verified: truthy(&u["email_verified"]),
        name: s(&u["name"]),
        user_name: s(&u["login"])
            .or_else(|| s(&u["username"]))
            .or_else(|| s(&u["preferred_username"])),
        avatar: s(&u["avatar_url"]).or_else(|| s(&u["picture"])),
    };
    match provider {
        "github" => {
            let (email, verified) = primary(emails, "primary", "verified");
            (r.email, r.verified) = match email {
                Some(e) => (Some(e), verified),
                None => (r.email, false),
            };
            r.name = r.name.or_else(|| s(&u["login"]));
        }
        "bitbucket" => {
            (r.email, r.verified) = primary(emails, "is_primary", "is_confirmed");
            (r.sub, r.name) = (s(&u["uuid"]), s(&u["display_name"]));
            r.avatar = s(&u["avatar"]["href"]);
        }
        "gitlab" => r.verified = !u["confirmed_at"].is_null(),
        "google" => r.verified = u["verified_email"] == true || r.verified,
        "discord" => {
            r.verified = u["verified"] == true;
            r.name = s(&u["global_name"]).or_else(|| s(&u["username"]));
            r.avatar = s(&u["avatar"]).map(|a| {
                let id = r.sub.as_deref().unwrap_or_default();
                format!("https://cdn.discordapp.com/avatars/{id}/{a}.png")
            });
        }
        "facebook" => {
            r.verified = r.email.is_some();
            r.name = full(&u["first_name"], &u["last_name"]);
            r.user_name = s(&u["name"]);
            r.avatar = s(&u["picture"]["data"]["url"]);
        }
        "figma" => {
            r.verified = r.email.is_some();
            (r.name, r.avatar) = (s(&u["handle"]), s(&u["img_url"]));
        }
        "fly" => {
            r.verified = r.email.is_some();
            (r.sub, r.name) = (s(&u["user_id"]), s(&u["user_name"]));
        }
        "kakao" => {
            let a = &u["kakao_account"];
            r.email = s(&a["email"]);
            r.verified = a["is_email_verified"] == true && a["is_email_valid"] == true;
            r.name = s(&a["profile"]["nickname"]);
            r.user_name = r.name.clone();
            r.avatar = s(&a["profile"]["profile_image_url"]);
        }
        "notion" => {
            let o = &u["bot"]["owner"]["user"];
            (r.sub, r.name, r.avatar) = (s(&o["id"]), s(&o["name"]), s(&o["avatar_url"]));
            r.email = s(&o["person"]["email"]);
            r.verified = r.email.is_some();
        }
        "slack_oidc" => r.sub = s(&u["https://slack.com/user_id"]),
        "spotify" => {
            r.verified = false;
            r.name = s(&u["display_name"]);
            let images = u["images"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default();
            let area =
                |i: &Value| i["height"].as_i64().unwrap_or(0) * i["width"].as_i64().unwrap_or(0);
            r.avatar = images
                .iter()
                .fold(None::<&Value>, |best, i| match best {
                    Some(b) if area(b) >= area(i) => Some(b),
                    _ => Some(i),
                })
                .and_then(|i| s(&i["url"]));
        }
        "twitch" => {
            let d = &u["data"][0];
            (r.sub, r.email) = (s(&d["id"]), s(&d["email"]));
            r.verified = r.email.is_some();
            (r.name, r.user_name) = (s(&d["login"]), s(&d["display_name"]));
            r.avatar = s(&d["profile_image_url"]);
        }
        "x" => {
            let d = &u["data"];
            (r.sub, r.name) = (s(&d["id"]), s(&d["name"]));
            r.user_name = s(&d["username"]);
            r.email = s(&d["confirmed_email"]);
            r.verified = r.email.is_some();
            r.avatar = s(&d["profile_image_url"]);
        }
        "snapchat" => {
            let me = &u["data"]["me"];
            (r.sub, r.name) = (s(&me["externalId"]), s(&me["displayName"]));
            r.email = s(&me["email"]);
            r.verified = r.email.is_some();
            r.avatar = s(&me["bitmoji"]["avatar"]);
        }
        "workos" => {
            r.verified = r.email.is_some();
            r.name = full(&u["first_name"], &u["last_name"]);
        }
        "zoom" => {
            r.verified = r.email.is_some()
                && (u["login_type"] != "100" || u["verified"].as_i64() != Some(0));
            r.name = full(&u["first_name"], &u["last_name"]);
            r.avatar = s(&u["pic_url"]);
        }
        _ => {}
    }
    r
}

/// The identity's data from the provider's user answer (and its list of addresses): None when
/// it names no user.
pub fn profile(
    provider: &str,
    issuer: &str,
    user: &Value,
    emails: Option<&Value>,
) -> Option<Value> {
    let r = read(provider, user, emails);
    let sub = r.sub?;
    let name = r.name.or_else(|| r.user_name.clone());
    Some(json!({
        "sub": sub, "provider_id": sub, "iss": issuer,
        "email": r.email.map(|e| e.to_lowercase()), "email_verified": r.verified,
        "phone_verified": false, "name": name, "full_name": name,
        "user_name": r.user_name, "preferred_username": r.user_name,
        "avatar_url": r.avatar, "picture": r.avatar,
    }))
}

/// The identity's data from an OpenID ID token's claims, as GoTrue's `ParseIDToken` reads each
/// provider's: Apple's and Kakao's addresses count as verified, LinkedIn's and Azure's flags may
/// be strings (Azure's is `xms_edov` when present), LinkedIn joins given and family names.
pub fn id_token_profile(provider: &str, issuer: &str, claims: &Value) -> Option<Value> {
    let mut c = claims.clone();
    c["id"] = claims["sub"].clone();
    let email = s(&claims["email"]);
    let verified = match provider {
        "apple" | "kakao" | "facebook" => email.is_some(),
        "azure" => {
            email.is_some()
                && match &claims["xms_edov"] {
                    Value::Null => true,
                    v => truthy(v),
                }
        }
        _ => truthy(&claims["email_verified"]),
    };
    c["email_verified"] = json!(verified);
    if provider == "linkedin_oidc" {
        c["name"] = json!(full(&claims["given_name"], &claims["family_name"]));
    }
    if provider == "kakao" {
        c["name"] = claims["nickname"].clone();
    }
    profile("oidc", issuer, &c, None)
}
