//! The keys a config.toml sets, each with the line that sets it and its value as a settings page
//! may show it: secrets (keys named like a secret, password, key or token, and every entry of
//! `[db.vault]`, `[edge_runtime.secrets]` and a hook's `secrets`) masked, `env(NAME)` values
//! named, not read. Read with a parser that keeps spans (the settings themselves are read by
//! [`super::Config::parse`], which does not).

use super::ConfigError;
use super::doc::{env_reference, override_var};
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Longest value shown (a long template or list is cut, with an ellipsis).
const MAX_SHOWN: usize = 200;

/// One key the file sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The key's path: `["auth", "external", "github", "enabled"]`.
    pub path: Vec<String>,
    /// 1-based line of the key in the file.
    pub line: usize,
    pub value: Shown,
    /// The `SUPABASE_<PATH>` variable that sets this key instead of the file, when it is set.
    pub overridden_by: Option<String>,
}

/// A value as it may be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// The value as TOML writes it (strings without quotes).
    Plain(String),
    /// A secret written in the file: only whether it is empty.
    Secret { empty: bool },
    /// `env(NAME)`: the variable's name and whether it is set (its value is not shown).
    Env { name: String, set: bool },
}

/// Whether a key's value is a secret: the last word of its name says secret, password, key or
/// token (`jwt_secret`, `auth_token`, `api_key`, `pass`; not `key_path` or `token_refresh`), or
/// it is an entry of a table of secrets.
pub fn is_secret(path: &[String]) -> bool {
    let Some(last) = path.last() else {
        return false;
    };
    let word = last.rsplit('_').next().unwrap_or("").to_ascii_lowercase();
    let in_secrets_table = path.len() >= 2 && {
        let parent = &path[..path.len() - 1];
        parent == ["db", "vault"]
            || parent == ["edge_runtime", "secrets"]
            || parent.last().is_some_and(|p| p == "secrets")
    };
    in_secrets_table
        || [
            "secret", "secrets", "password", "pass", "key", "keys", "token",
        ]
        .contains(&word.as_str())
}

/// Every leaf `text` sets, in the file's order, each with its line; `env` says which variables
/// are set (for `env(NAME)` values and `SUPABASE_<PATH>` overrides).
pub fn settings(
    file: &Path,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Setting>, ConfigError> {
    let root = DeTable::parse(text).map_err(|e| ConfigError::Syntax {
        file: file.into(),
        message: e.to_string().trim().to_string(),
    })?;
    let mut out = Vec::new();
    walk(root.get_ref(), &mut Vec::new(), text, env, &mut out);
    out.sort_by_key(|s| s.line);
    Ok(out)
}

fn walk(
    table: &DeTable<'_>,
    path: &mut Vec<String>,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
    out: &mut Vec<Setting>,
) {
    for (key, value) in table.iter() {
        path.push(key.get_ref().to_string());
        match value.get_ref() {
            DeValue::Table(t) => walk(t, path, text, env, out),
            v => {
                let overridden_by = Some(override_var(path)).filter(|var| env(var).is_some());
                out.push(Setting {
                    path: path.clone(),
                    line: line_of(text, key),
                    value: shown(path, v, env),
                    overridden_by,
                });
            }
        }
        path.pop();
    }
}

fn line_of<T>(text: &str, at: &Spanned<T>) -> usize {
    let start = at.span().start.min(text.len());
    text.as_bytes()[..start]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

fn shown(path: &[String], v: &DeValue<'_>, env: &dyn Fn(&str) -> Option<String>) -> Shown {
    if let DeValue::String(s) = v
        && let Some(name) = env_reference(s)
    {
        return Shown::Env {
            name: name.to_string(),
            set: env(name).is_some(),
        };
    }
    if is_secret(path) {
        let empty = match v {
            DeValue::String(s) => s.is_empty(),
            DeValue::Array(a) => a.is_empty(),
            _ => false,
        };
        return Shown::Secret { empty };
    }
    let mut text = written(v);
    if text.chars().count() > MAX_SHOWN {
        text = text.chars().take(MAX_SHOWN).collect::<String>() + "…";
    }
    Shown::Plain(text)
}

/// A value as TOML writes it, strings unquoted at the top and quoted inside lists.
fn written(v: &DeValue<'_>) -> String {
    match v {
        DeValue::String(s) => s.to_string(),
        other => inner(other),
    }
}

fn inner(v: &DeValue<'_>) -> String {
    match v {
        DeValue::String(s) => format!("{s:?}"),
        DeValue::Integer(i) => i.as_str().to_string(),
        DeValue::Float(f) => f.as_str().to_string(),
        DeValue::Boolean(b) => b.to_string(),
        DeValue::Datetime(d) => d.to_string(),
        DeValue::Array(a) => format!(
            "[{}]",
            a.iter()
                .map(|x| inner(x.get_ref()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        DeValue::Table(t) => format!(
            "{{ {} }}",
            t.iter()
                .map(|(k, x)| format!("{} = {}", k.get_ref(), inner(x.get_ref())))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"project_id = "shop"

[auth]
enabled = true
site_url = "env(SITE)"
additional_redirect_urls = ["http://a", "http://b"]
jwt_secret = "super-secret-jwt-token-with-at-least-32-characters"
signing_keys_path = "./keys.json"

[auth.rate_limit]
token_refresh = 150

[auth.email.smtp]
pass = ""

[auth.external.github]
enabled = true
client_id = "abc"
secret = "env(GITHUB_SECRET)"

[auth.hook.custom_access_token]
enabled = true
uri = "pg-functions://postgres/public/hook"
secrets = "v1,whsec_x"

[db.vault]
stripe = "sk_live"

[auth.mfa.totp]
enroll_enabled = { a = 1 }
"#;

    fn find<'a>(all: &'a [Setting], key: &str) -> &'a Setting {
        all.iter()
            .find(|s| s.path.join(".") == key)
            .unwrap_or_else(|| panic!("{key} not listed: {all:?}"))
    }

    #[test]
    fn each_key_with_its_line_and_value_secrets_masked() {
        let env = |n: &str| {
            (n == "SITE" || n == "SUPABASE_AUTH_EXTERNAL_GITHUB_CLIENT_ID").then(|| "x".into())
        };
        let all = settings(Path::new("config.toml"), FILE, &env).unwrap();
        let plain = |s: &str| Shown::Plain(s.into());
        let cases: &[(&str, usize, Shown)] = &[
            ("project_id", 1, plain("shop")),
            ("auth.enabled", 4, plain("true")),
            (
                "auth.site_url",
                5,
                Shown::Env {
                    name: "SITE".into(),
                    set: true,
                },
            ),
            (
                "auth.additional_redirect_urls",
                6,
                plain("[\"http://a\", \"http://b\"]"),
            ),
            ("auth.jwt_secret", 7, Shown::Secret { empty: false }),
            ("auth.signing_keys_path", 8, plain("./keys.json")),
            ("auth.rate_limit.token_refresh", 11, plain("150")),
            ("auth.email.smtp.pass", 14, Shown::Secret { empty: true }),
            ("auth.external.github.client_id", 18, plain("abc")),
            (
                "auth.external.github.secret",
                19,
                Shown::Env {
                    name: "GITHUB_SECRET".into(),
                    set: false,
                },
            ),
            (
                "auth.hook.custom_access_token.secrets",
                24,
                Shown::Secret { empty: false },
            ),
            ("db.vault.stripe", 27, Shown::Secret { empty: false }),
            // An inline table's keys are listed on the inline table's line.
            ("auth.mfa.totp.enroll_enabled.a", 30, plain("1")),
        ];
        for (key, line, value) in cases {
            let s = find(&all, key);
            assert_eq!((s.line, &s.value), (*line, value), "{key}");
        }
        assert_eq!(
            find(&all, "auth.external.github.client_id").overridden_by,
            Some("SUPABASE_AUTH_EXTERNAL_GITHUB_CLIENT_ID".into())
        );
        assert_eq!(find(&all, "auth.enabled").overridden_by, None);
        // In the file's order.
        assert!(all.windows(2).all(|w| w[0].line <= w[1].line));
    }

    #[test]
    fn a_file_that_is_not_toml_is_an_error_naming_it() {
        let e = settings(Path::new("supabase/config.toml"), "[auth\n", &|_| None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("supabase/config.toml is not valid TOML"),
            "{e}"
        );
    }
}
