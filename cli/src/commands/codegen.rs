//! `gen types typescript|go|swift|python` and `gen bearer-jwt`.

use super::{Prepare, with_database};
use gateway::config::Config;
use pg::connect;

pub async fn types(
    cfg: &Config,
    schemas: Vec<String>,
    lang: &str,
    access_control: &str,
) -> Result<(), String> {
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
            let out = typegen::generate_lang(&c, &schemas, lang, access_control)
                .await
                .map_err(|e| e.to_string())?;
            println!("{out}");
            return Ok(());
        }
        let ts = typegen::generate(&c, &schemas)
            .await
            .map_err(|e| e.to_string())?;
        print!("{ts}");
        Ok(())
    })
    .await
}

/// A Go duration as `--valid-for` takes it (`30m`, `1h30m`, `90s`, `1.5h`), in seconds.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let bad = || {
        format!(
            "invalid argument {text:?} for \"--valid-for\" flag: time: invalid duration {text:?}"
        )
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
        return Err(format!("--valid-for {text} is longer than ten years"));
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
) -> Result<serde_json::Value, String> {
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
    let custom: serde_json::Value =
        serde_json::from_str(payload).map_err(|e| format!("failed to parse payload: {e}"))?;
    let serde_json::Value::Object(custom) = custom else {
        return Err("failed to parse payload: a JSON object is expected".into());
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
) -> Result<(), String> {
    let valid_for = parse_duration(valid_for)?;
    let exp = exp
        .map(|e| {
            chrono::DateTime::parse_from_rfc3339(e)
                .map(|t| t.timestamp())
                .map_err(|err| format!("invalid argument {e:?} for \"--exp\" flag: {err}"))
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

#[cfg(test)]
mod tests {
    use super::*;

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
                .starts_with("failed to parse payload")
        );
        assert!(
            bearer_claims("anon", None, 0, None, 1, "{")
                .unwrap_err()
                .starts_with("failed to parse payload")
        );
    }
}
