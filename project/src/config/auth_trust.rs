//! `[auth.third_party]` (tokens another issuer signs), `[auth.sessions]` (how long a session
//! may be refreshed) and `[auth.captcha]`, with the CLI's checks and messages.

use super::ConfigError;
use super::doc::Doc;
use super::fields;
use serde::Deserialize;

/// The third-party issuer whose tokens the APIs accept (`[auth.third_party.<provider>]`): at
/// most one is switched on, as in the CLI.
#[derive(Debug, Clone, PartialEq)]
pub struct ThirdParty {
    /// `firebase`, `auth0`, `aws_cognito`, `clerk` or `workos`.
    pub provider: &'static str,
    /// The `iss` of its tokens, as the CLI builds it; its keys are at
    /// `{issuer}/.well-known/openid-configuration`'s `jwks_uri`.
    pub issuer: String,
}

/// `[auth.sessions]`: seconds (None: no limit).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Sessions {
    /// A session cannot be refreshed this long after it began.
    #[serde(deserialize_with = "limit")]
    pub timebox: Option<u64>,
    /// A session cannot be refreshed after this long without a refresh.
    #[serde(deserialize_with = "limit")]
    pub inactivity_timeout: Option<u64>,
}

/// A duration; 0 is no limit.
fn limit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    fields::duration(d).map(|s| (s > 0).then_some(s))
}

/// `[auth.captcha]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct CaptchaKeys {
    #[serde(deserialize_with = "fields::flag")]
    enabled: bool,
    #[serde(deserialize_with = "fields::text")]
    provider: String,
    #[serde(deserialize_with = "fields::secret")]
    secret: String,
}

/// `[auth.captcha]` switched on.
#[derive(Debug, Clone, PartialEq)]
pub struct Captcha {
    /// `hcaptcha` or `turnstile`.
    pub provider: String,
    pub secret: String,
}

fn clerk_domain_ok(domain: &str) -> bool {
    let label = |l: &str| {
        !l.is_empty()
            && l.bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
    };
    let parts: Vec<&str> = domain.split('.').collect();
    // clerk.<label>.<label>… or <label>.….clerk.accounts.dev
    (parts[0] == "clerk" && parts.len() >= 3 && parts[1..].iter().all(|l| label(l)))
        || (domain.ends_with(".clerk.accounts.dev")
            && parts.len() >= 4
            && parts[..parts.len() - 3].iter().all(|l| label(l)))
}

/// `[auth.third_party.firebase]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Firebase {
    #[serde(deserialize_with = "fields::text")]
    project_id: String,
}

/// `[auth.third_party.auth0]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Auth0 {
    #[serde(deserialize_with = "fields::text")]
    tenant: String,
    #[serde(deserialize_with = "fields::text")]
    tenant_region: String,
}

/// `[auth.third_party.aws_cognito]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct AwsCognito {
    #[serde(deserialize_with = "fields::text")]
    user_pool_id: String,
    #[serde(deserialize_with = "fields::text")]
    user_pool_region: String,
}

/// `[auth.third_party.clerk]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Clerk {
    #[serde(deserialize_with = "fields::text")]
    domain: String,
}

/// `[auth.third_party.workos]`'s keys.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Workos {
    #[serde(deserialize_with = "fields::text")]
    issuer_url: String,
}

/// A provider's keys in the order the CLI lists them, with their values.
fn provider_keys(doc: &mut Doc, p: &str) -> Result<Vec<(&'static str, String)>, ConfigError> {
    let at = ["auth", "third_party", p];
    Ok(match p {
        "firebase" => {
            let k: Firebase = doc.section(&at, &[])?;
            vec![("project_id", k.project_id)]
        }
        "auth0" => {
            let k: Auth0 = doc.section(&at, &[])?;
            vec![("tenant", k.tenant), ("tenant_region", k.tenant_region)]
        }
        "aws_cognito" => {
            let k: AwsCognito = doc.section(&at, &[])?;
            vec![
                ("user_pool_id", k.user_pool_id),
                ("user_pool_region", k.user_pool_region),
            ]
        }
        "clerk" => {
            let k: Clerk = doc.section(&at, &[])?;
            vec![("domain", k.domain)]
        }
        _ => {
            let k: Workos = doc.section(&at, &[])?;
            vec![("issuer_url", k.issuer_url)]
        }
    })
}

pub(super) fn read_third_party(doc: &mut Doc) -> Result<Option<ThirdParty>, ConfigError> {
    // Every key is read, also of a provider switched off; a provider switched on needs its own.
    // `enabled` is read before the provider's other keys, as the CLI's order names them.
    let mut on = Vec::new();
    for p in ["firebase", "auth0", "aws_cognito", "clerk", "workos"] {
        let at = ["auth", "third_party", p];
        let fields::SwitchedOff { enabled } = doc.section(&at, &[])?;
        let keys = provider_keys(doc, p)?;
        if !enabled {
            continue;
        }
        // Required: all but auth0's tenant_region.
        for (k, v) in &keys {
            if v.is_empty() && *k != "tenant_region" {
                return Err(doc.err(
                    &["auth", "third_party", p, k],
                    format!("auth.third_party.{p} is enabled but without a {k}"),
                ));
            }
        }
        let values: Vec<&String> = keys.iter().map(|(_, v)| v).collect();
        let issuer = match (p, &values[..]) {
            ("firebase", [id]) => format!("https://securetoken.google.com/{id}"),
            ("auth0", [tenant, region]) if region.is_empty() => {
                format!("https://{tenant}.auth0.com")
            }
            ("auth0", [tenant, region]) => format!("https://{tenant}.{region}.auth0.com"),
            ("aws_cognito", [pool, region]) => {
                format!("https://cognito-idp.{region}.amazonaws.com/{pool}")
            }
            ("clerk", [domain]) => {
                if !clerk_domain_ok(domain) {
                    return Err(doc.err(
                        &["auth", "third_party", p, "domain"],
                        "auth.third_party.clerk has invalid domain, it usually is like \
                         clerk.example.com or example.clerk.accounts.dev",
                    ));
                }
                format!("https://{domain}")
            }
            (_, [issuer]) => issuer.to_string(),
            _ => unreachable!("one value per key"),
        };
        on.push((p, issuer));
    }
    if on.len() > 1 {
        return Err(doc.err(
            &["auth", "third_party"],
            "Only one third_party provider allowed to be enabled at a time",
        ));
    }
    Ok(on.pop().map(|(provider, issuer)| ThirdParty {
        provider,
        issuer: issuer.trim_end_matches('/').to_string(),
    }))
}

pub(super) fn read_sessions(doc: &mut Doc) -> Result<Sessions, ConfigError> {
    doc.section(&["auth", "sessions"], &[])
}

pub(super) fn read_captcha(doc: &mut Doc) -> Result<Option<Captcha>, ConfigError> {
    let key = |k: &'static str| ["auth", "captcha", k];
    let CaptchaKeys {
        enabled,
        provider,
        secret,
    } = doc.section(&["auth", "captcha"], &[])?;
    if !enabled {
        return Ok(None);
    }
    if !["hcaptcha", "turnstile"].contains(&provider.as_str()) {
        return Err(doc.err(
            &key("provider"),
            format!("\"{provider}\" is not one of hcaptcha, turnstile"),
        ));
    }
    if secret.is_empty() {
        return Err(doc.err(&key("secret"), "Missing required field in config"));
    }
    Ok(Some(Captcha { provider, secret }))
}

#[cfg(test)]
mod tests {
    use super::clerk_domain_ok;
    use crate::config::{Auth, Config};

    fn auth(text: &str) -> Result<Auth, String> {
        Config::parse(std::path::Path::new("supabase/config.toml"), text, &|_| {
            None
        })
        .map(|l| l.config.auth)
        .map_err(|e| e.to_string())
    }

    #[test]
    fn issuers_sessions_and_captcha_as_the_cli_reads_them() {
        let cases = [
            (
                "[auth.third_party.firebase]\nenabled = true\nproject_id = \"shop\"",
                "https://securetoken.google.com/shop",
            ),
            (
                "[auth.third_party.auth0]\nenabled = true\ntenant = \"shop\"",
                "https://shop.auth0.com",
            ),
            (
                "[auth.third_party.auth0]\nenabled = true\ntenant = \"shop\"\ntenant_region = \"eu\"",
                "https://shop.eu.auth0.com",
            ),
            (
                "[auth.third_party.aws_cognito]\nenabled = true\nuser_pool_id = \"p1\"\nuser_pool_region = \"eu-west-1\"",
                "https://cognito-idp.eu-west-1.amazonaws.com/p1",
            ),
            (
                "[auth.third_party.clerk]\nenabled = true\ndomain = \"clerk.shop.com\"",
                "https://clerk.shop.com",
            ),
            (
                "[auth.third_party.workos]\nenabled = true\nissuer_url = \"http://127.0.0.1:9/\"",
                "http://127.0.0.1:9",
            ),
        ];
        for (text, issuer) in cases {
            let a = auth(text).unwrap();
            assert_eq!(a.third_party.unwrap().issuer, issuer, "{text}");
        }
        let refused = [
            (
                "[auth.third_party.firebase]\nenabled = true",
                "without a project_id",
            ),
            (
                "[auth.third_party.clerk]\nenabled = true\ndomain = \"shop.com\"",
                "invalid domain",
            ),
            (
                "[auth.third_party.clerk]\nenabled = true\ndomain = \"clerk.shop.com\"\n[auth.third_party.auth0]\nenabled = true\ntenant = \"t\"",
                "Only one third_party provider",
            ),
            (
                "[auth.captcha]\nenabled = true\nprovider = \"recaptcha\"\nsecret = \"s\"",
                "not one of hcaptcha, turnstile",
            ),
            (
                "[auth.captcha]\nenabled = true\nprovider = \"hcaptcha\"",
                "auth.captcha.secret",
            ),
        ];
        for (text, says) in refused {
            let e = auth(text).unwrap_err();
            assert!(e.contains(says), "{text} → {e}");
        }
        let a = auth("[auth.third_party.clerk]\nenabled = false\ndomain = \"x\"\n[auth.sessions]\ntimebox = \"24h\"\ninactivity_timeout = \"30m\"\n[auth.captcha]\nenabled = true\nprovider = \"turnstile\"\nsecret = \"s3\"").unwrap();
        assert_eq!(a.third_party, None);
        assert_eq!(
            (a.sessions.timebox, a.sessions.inactivity_timeout),
            (Some(86_400), Some(1800))
        );
        let c = a.captcha.unwrap();
        assert_eq!(
            (c.provider.as_str(), c.secret.as_str()),
            ("turnstile", "s3")
        );
        let a = auth("[auth]\njwt_issuer = \"https://id.shop.example\"\nexternal_url = \"https://shop.example/auth/v1/\"").unwrap();
        assert_eq!(a.jwt_issuer.as_deref(), Some("https://id.shop.example"));
        assert_eq!(
            a.external_url.as_deref(),
            Some("https://shop.example/auth/v1")
        );
        assert_eq!(auth("").unwrap().sessions.timebox, None);
    }

    #[test]
    fn clerk_domains_as_the_cli_accepts_them() {
        for ok in [
            "clerk.example.com",
            "clerk.shop.co.uk",
            "fine-cat-12.clerk.accounts.dev",
        ] {
            assert!(clerk_domain_ok(ok), "{ok}");
        }
        for bad in [
            "example.com",
            "clerk.com",
            "Clerk.Example.com",
            "https://clerk.example.com",
        ] {
            assert!(!clerk_domain_ok(bad), "{bad}");
        }
    }
}
