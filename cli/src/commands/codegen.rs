//! `gen types typescript|go|swift|python` and `gen bearer-jwt`.

use super::CommandError;
use super::{Prepare, with_database};
use gateway::config::Config;
use pg::connect;

pub async fn types(
    cfg: &Config,
    schemas: Vec<String>,
    lang: &str,
    access_control: &str,
) -> Result<(), CommandError> {
    // As the CLI: public and the API's schemas unless told which.
    let schemas = if schemas.is_empty() {
        let mut s = vec!["public".to_string()];
        s.extend(cfg.schemas.iter().cloned());
        s
    } else {
        schemas
    };
    with_database(cfg, Prepare::UnlessRunning, async |db| {
        let c = connect(&db.admin).await?;
        if lang != "typescript" {
            let out = typegen::generate_lang(&c, &schemas, lang, access_control).await?;
            println!("{out}");
            return Ok(());
        }
        let ts = typegen::generate(&c, &schemas).await?;
        print!("{ts}");
        Ok(())
    })
    .await
}

/// A Go duration as `--valid-for` takes it (`30m`, `1h30m`, `90s`, `1.5h`), in seconds.
pub fn parse_duration(text: &str) -> Result<i64, CommandError> {
    let bad = || {
        CommandError::Usage(format!(
            "invalid argument {text:?} for \"--valid-for\" flag: time: invalid duration {text:?}"
        ))
    };
    if text == "0" {
        return Ok(0);
    }
    let mut rest = text;
    let mut total = 0f64;
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let value: f64 = rest[..n].parse().map_err(|_| bad())?;
        rest = &rest[n..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return Err(bad()),
        };
        total += value * scale;
        rest = &rest[unit_len..];
    }
    // Ten years at most: a token is for trying things out.
    if total > 10.0 * 366.0 * 86400.0 {
        return Err(CommandError::Usage(format!(
            "--valid-for {text} is longer than ten years"
        )));
    }
    Ok(total as i64)
}

/// The claims of `gen bearer-jwt`, as the CLI makes them: role, `sub` when given (else an
/// authenticated token is anonymous), `iat` and `exp`, then the payload's claims over them.
pub fn bearer_claims(
    role: &str,
    sub: Option<&str>,
    now: i64,
    exp: Option<i64>,
    valid_for: i64,
    payload: &str,
) -> Result<serde_json::Value, CommandError> {
    let (iat, exp) = match exp {
        Some(e) => (e - valid_for, e),
        None => (now, now + valid_for),
    };
    let mut claims = serde_json::Map::new();
    claims.insert("role".into(), role.into());
    if role.eq_ignore_ascii_case("authenticated") && sub.is_none_or(str::is_empty) {
        claims.insert("is_anonymous".into(), true.into());
    }
    if let Some(s) = sub.filter(|s| !s.is_empty()) {
        claims.insert("sub".into(), s.into());
    }
    claims.insert("exp".into(), exp.into());
    claims.insert("iat".into(), iat.into());
    let custom: serde_json::Value = serde_json::from_str(payload)
        .map_err(|e| CommandError::other("failed to parse payload", e))?;
    let serde_json::Value::Object(custom) = custom else {
        return Err(CommandError::Usage(
            "failed to parse payload: a JSON object is expected".into(),
        ));
    };
    claims.extend(custom);
    Ok(serde_json::Value::Object(claims))
}

/// `gen bearer-jwt`: a token for the Data API, signed as the project signs (its signing key when
/// `[auth] signing_keys_path` has one, else the JWT secret).
pub fn bearer_jwt(
    cfg: &Config,
    role: &str,
    sub: Option<&str>,
    exp: Option<&str>,
    valid_for: &str,
    payload: &str,
) -> Result<(), CommandError> {
    let valid_for = parse_duration(valid_for)?;
    let exp = exp
        .map(|e| {
            chrono::DateTime::parse_from_rfc3339(e)
                .map(|t| t.timestamp())
                .map_err(|err| {
                    CommandError::other(format!("invalid argument {e:?} for \"--exp\" flag"), err)
                })
        })
        .transpose()?;
    let claims = bearer_claims(
        role,
        sub,
        chrono::Utc::now().timestamp(),
        exp,
        valid_for,
        payload,
    )?;
    println!("{}", cfg.jwt_keys().sign(&claims));
    Ok(())
}

/// The names `gen keys` prints its values under, and what `--override-name` may rename: the
/// CLI's defaults.
const KEY_NAMES: [(&str, &str); 5] = [
    ("db.host", "NEXT_PUBLIC_SUPABASE_URL"),
    ("db.password", "SUPABASE_DB_PASSWORD"),
    ("auth.jwt_secret", "SUPABASE_AUTH_JWT_SECRET"),
    ("auth.anon_key", "SUPABASE_AUTH_ANON_KEY"),
    ("auth.service_role_key", "SUPABASE_AUTH_SERVICE_ROLE_KEY"),
];

/// The CLI's expiry of the API keys it makes (2032-11-12).
const KEY_EXPIRY: i64 = 1_983_812_996;

/// `gen keys`: a preview branch's variables as the CLI derives them from the project's JWT
/// secret: its host (`<ref>-<branch>.fly.dev`), its database password (the SHA-256 of
/// `ref:secret:branch`, hex), the secret, and anon and service_role keys signed with it. Pure:
/// names (after `--override-name`), sorted, and their values.
pub fn branch_keys(
    reference: &str,
    secret: &str,
    branch: &str,
    overrides: &[String],
) -> Result<std::collections::BTreeMap<String, String>, CommandError> {
    let mut names: Vec<(&str, String)> =
        KEY_NAMES.iter().map(|(k, v)| (*k, v.to_string())).collect();
    for o in overrides {
        let (key, name) = o.split_once('=').ok_or_else(|| {
            CommandError::Usage(format!("--override-name {o:?}: expected KEY=NAME"))
        })?;
        let slot = names.iter_mut().find(|(k, _)| *k == key).ok_or_else(|| {
            CommandError::Usage(format!(
                "--override-name {o:?}: {key} is not one of {}",
                KEY_NAMES.map(|(k, _)| k).join(", ")
            ))
        })?;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(CommandError::Usage(format!(
                "--override-name {o:?}: not a variable name"
            )));
        }
        slot.1 = name.to_string();
    }
    let keys = identity::jwt::JwtKeys::new(secret);
    let token = |role: &str| {
        keys.sign(&serde_json::json!({
            "iss": "supabase", "ref": reference, "role": role, "exp": KEY_EXPIRY
        }))
    };
    let password = project::sha256_hex(format!("{reference}:{secret}:{branch}").as_bytes());
    let values = [
        format!("{reference}-{branch}.fly.dev"),
        password,
        secret.to_string(),
        token("anon"),
        token("service_role"),
    ];
    let mut out = std::collections::BTreeMap::new();
    for ((_, name), value) in names.into_iter().zip(values) {
        if out.insert(name.clone(), value).is_some() {
            return Err(CommandError::Usage(format!(
                "--override-name: {name} is given to two values"
            )));
        }
    }
    Ok(out)
}

/// The git branch a preview branch is named after: GITHUB_HEAD_REF, else the checkout's branch
/// (`.git/HEAD`, worktrees included), else `main`, as the CLI decides it.
pub fn git_branch(dir: &std::path::Path) -> String {
    if let Ok(head) = std::env::var("GITHUB_HEAD_REF")
        && !head.is_empty()
    {
        return head;
    }
    for d in dir.ancestors() {
        let git = d.join(".git");
        let head = if git.is_dir() {
            std::fs::read_to_string(git.join("HEAD")).ok()
        } else {
            // A worktree's `.git` file: `gitdir: <its folder in the repository>`.
            std::fs::read_to_string(&git).ok().and_then(|t| {
                let dir = t.strip_prefix("gitdir:")?.trim().to_string();
                std::fs::read_to_string(d.join(dir).join("HEAD")).ok()
            })
        };
        if let Some(head) = head {
            return head
                .trim()
                .strip_prefix("ref: refs/heads/")
                .map(str::to_string)
                .unwrap_or_else(|| "main".into());
        }
    }
    "main".into()
}

/// `gen keys --project-ref REF`: the CLI reads the project's JWT secret from the Management API,
/// which supagate does not reach; it takes it from `--jwt-secret` (SUPABASE_AUTH_JWT_SECRET).
pub fn gen_keys(
    cfg: &Config,
    project_ref: Option<&str>,
    jwt_secret: Option<&str>,
    overrides: &[String],
    output: &str,
) -> Result<(), CommandError> {
    let reference = match project_ref {
        Some(r) => r.to_string(),
        None => super::diff::linked_ref(&cfg.project)?,
    };
    super::diff::check_ref(&reference)?;
    let secret = jwt_secret.filter(|s| !s.is_empty()).ok_or_else(|| {
        CommandError::Usage(
            "gen keys needs the project's JWT secret (Project Settings → API): the Supabase CLI \
             reads it from the Management API, which supagate does not call; pass --jwt-secret \
             or set SUPABASE_AUTH_JWT_SECRET"
                .into(),
        )
    })?;
    if secret.len() < 16 {
        return Err(CommandError::Usage(
            "Invalid JWT secret: it must be at least 16 characters".into(),
        ));
    }
    let branch = git_branch(&cfg.project.root);
    let vars = branch_keys(&reference, secret, &branch, overrides)?;
    match output {
        "json" => println!("{}", serde_json::to_string_pretty(&vars)?),
        _ => {
            for (k, v) in vars {
                println!("{k}=\"{v}\"");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_keys_as_the_cli_derives_them() {
        let secret = "super-secret-jwt-token-with-at-least-32-characters-long";
        let got = branch_keys("abcdefghijklmnopqrst", secret, "feature-x", &[]).unwrap();
        let names: Vec<&str> = got.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "NEXT_PUBLIC_SUPABASE_URL",
                "SUPABASE_AUTH_ANON_KEY",
                "SUPABASE_AUTH_JWT_SECRET",
                "SUPABASE_AUTH_SERVICE_ROLE_KEY",
                "SUPABASE_DB_PASSWORD"
            ]
        );
        assert_eq!(
            got["NEXT_PUBLIC_SUPABASE_URL"],
            "abcdefghijklmnopqrst-feature-x.fly.dev"
        );
        // sha256("abcdefghijklmnopqrst:<secret>:feature-x"), as `sha256sum` gives it.
        use sha2::Digest;
        let want =
            sha2::Sha256::digest(format!("abcdefghijklmnopqrst:{secret}:feature-x").as_bytes());
        assert_eq!(got["SUPABASE_DB_PASSWORD"].len(), 64);
        assert_eq!(
            got["SUPABASE_DB_PASSWORD"],
            want.iter().map(|b| format!("{b:02x}")).collect::<String>()
        );
        let keys = identity::jwt::JwtKeys::new(secret);
        for (name, role) in [
            ("SUPABASE_AUTH_ANON_KEY", "anon"),
            ("SUPABASE_AUTH_SERVICE_ROLE_KEY", "service_role"),
        ] {
            let claims = keys.verify(&got[name]).unwrap();
            assert_eq!(claims["role"], role);
            assert_eq!(claims["ref"], "abcdefghijklmnopqrst");
            assert_eq!(claims["iss"], "supabase");
            assert_eq!(claims["exp"], KEY_EXPIRY);
        }
        let renamed = branch_keys(
            "abcdefghijklmnopqrst",
            secret,
            "main",
            &["auth.anon_key=VITE_ANON".into()],
        )
        .unwrap();
        assert!(
            renamed.contains_key("VITE_ANON") && !renamed.contains_key("SUPABASE_AUTH_ANON_KEY")
        );
        for bad in [
            "auth.anon_key",
            "nope=X",
            "auth.anon_key=a b",
            "db.host=SUPABASE_DB_PASSWORD",
        ] {
            assert!(
                branch_keys("abcdefghijklmnopqrst", secret, "main", &[bad.into()]).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn durations_as_go_reads_them() {
        for (text, secs) in [
            ("30m", 1800),
            ("1h30m", 5400),
            ("90s", 90),
            ("1.5h", 5400),
            ("0", 0),
        ] {
            assert_eq!(parse_duration(text).unwrap(), secs, "{text}");
        }
        for bad in ["", "30", "m", "3x", "1h-2m", "999999h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn claims_as_the_cli_makes_them() {
        let c = bearer_claims("authenticated", None, 1000, None, 1800, "{}").unwrap();
        assert_eq!(
            c,
            serde_json::json!({"role": "authenticated", "is_anonymous": true, "exp": 2800, "iat": 1000})
        );
        let c = bearer_claims(
            "authenticated",
            Some("u1"),
            0,
            Some(5000),
            60,
            r#"{"email":"a@b.c","role":"x"}"#,
        )
        .unwrap();
        assert_eq!(
            c,
            serde_json::json!({"role": "x", "sub": "u1", "exp": 5000, "iat": 4940, "email": "a@b.c"})
        );
        assert!(
            bearer_claims("anon", None, 0, None, 1, "[1]")
                .unwrap_err()
                .to_string()
                .starts_with("failed to parse payload")
        );
        assert!(
            bearer_claims("anon", None, 0, None, 1, "{")
                .unwrap_err()
                .to_string()
                .starts_with("failed to parse payload")
        );
    }
}
