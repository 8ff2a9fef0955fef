//! `gen signing-key`, as the Supabase CLI's: a new private JWK (ES256 or RS256) printed, or,
//! when `[auth] signing_keys_path` names a file, written to it (replacing its keys, or added to
//! them with `--append`). Runs before the configuration is resolved: the file it writes may not
//! exist yet.

use super::CommandError;
use identity::keygen::{self, Algorithm};
use project::Project;
use serde_json::Value;
use std::io::BufRead;

/// `--algorithm`: the CLI's names.
pub fn algorithm(name: &str) -> Result<Algorithm, CommandError> {
    match name {
        "ES256" => Ok(Algorithm::Es256),
        "RS256" => Ok(Algorithm::Rs256),
        other => Err(CommandError::Usage(format!(
            "unsupported algorithm: {other}"
        ))),
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// One key on one line, as the CLI prints it.
pub fn compact(jwk: &[(String, Value)]) -> String {
    let fields: Vec<String> = jwk
        .iter()
        .map(|(k, v)| format!("{}:{v}", quoted(k)))
        .collect();
    format!("{{{}}}", fields.join(","))
}

/// The keys file as the CLI writes it: a JSON array, two-space indents, fields in its order.
pub fn keys_file(keys: &[Vec<(String, Value)>]) -> String {
    let objects: Vec<String> = keys
        .iter()
        .map(|jwk| {
            let fields: Vec<String> = jwk
                .iter()
                .map(|(k, v)| {
                    let value = serde_json::to_string_pretty(v)
                        .unwrap_or_default()
                        .replace('\n', "\n    ");
                    format!("    {}: {value}", quoted(k))
                })
                .collect();
            format!("  {{\n{}\n  }}", fields.join(",\n"))
        })
        .collect();
    if objects.is_empty() {
        return "[]\n".into();
    }
    format!("[\n{}\n]\n", objects.join(",\n"))
}

/// The keys a keys file holds (an array of JWKs, or `{"keys": [...]}`), fields in order.
pub fn read_keys(text: &str) -> Result<Vec<Vec<(String, Value)>>, CommandError> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| CommandError::other("failed to parse signing keys", e))?;
    let not_keys =
        || CommandError::Message("failed to parse signing keys: expected an array of JWKs".into());
    let list = match doc {
        Value::Array(a) => a,
        Value::Object(mut o) => match o.remove("keys") {
            Some(Value::Array(a)) => a,
            _ => return Err(not_keys()),
        },
        _ => return Err(not_keys()),
    };
    list.iter()
        .map(|k| match k {
            Value::Object(o) => Ok(keygen::ordered(o)),
            _ => Err(not_keys()),
        })
        .collect()
}

pub fn run(project: &Project, alg: &str, append: bool) -> Result<(), CommandError> {
    let alg = algorithm(alg)?;
    let jwk: Vec<(String, Value)> = keygen::generate(alg)?
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let Some(path) = &project.config.auth.signing_keys_path else {
        println!("{}", compact(&jwk));
        eprintln!(
            "\nTo enable JWT signing keys in your local project:\n1. Save the generated key to \
             supabase/signing_keys.json\n2. Update your supabase/config.toml with the new keys \
             path\n[auth]\nsigning_keys_path = \"./signing_keys.json\""
        );
        return Ok(());
    };
    let file = project.supabase_dir.join(path);
    let shown = project.relative(&file);
    let existing = match std::fs::read_to_string(&file) {
        Ok(text) => read_keys(&text).map_err(|e| CommandError::other(shown.clone(), e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(CommandError::io(format!("failed to read {shown}"), e)),
    };
    let mut keys = if append {
        existing
    } else {
        if !existing.is_empty() {
            eprint!("Do you want to overwrite the existing {shown} file? [Y/n] ");
            let mut line = String::new();
            let read = std::io::stdin().lock().read_line(&mut line).unwrap_or(0);
            eprintln!();
            if !super::migration::answer((read > 0).then_some(line.as_str()), true) {
                return Err(CommandError::Canceled);
            }
        }
        Vec::new()
    };
    keys.push(jwk);
    write_private(&file, &keys_file(&keys))
        .map_err(|e| CommandError::io("failed to open signing key", e))?;
    eprintln!(
        "JWT signing key appended to: {shown} (now contains {} keys)",
        keys.len()
    );
    if keys.len() == 1 && !git_ignored(project, &file) {
        eprintln!(
            "IMPORTANT: Add your signing key path to .gitignore to prevent committing to version \
             control."
        );
    }
    Ok(())
}

/// Writes the file readable by its owner only (it holds private keys).
fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(text.as_bytes())
}

fn git_ignored(project: &Project, file: &std::path::Path) -> bool {
    std::process::Command::new("git")
        .arg("-C")
        .arg(&project.root)
        .args(["check-ignore", "-q"])
        .arg(file)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_files_as_the_cli_writes_them() {
        let keys = read_keys(r#"{"keys": [{"y": "Y", "kty": "EC", "key_ops": ["sign", "verify"], "ext": true, "zz": 1}]}"#)
            .unwrap();
        assert_eq!(
            keys_file(&keys),
            "[\n  {\n    \"kty\": \"EC\",\n    \"key_ops\": [\n      \"sign\",\n      \"verify\"\n    ],\n    \"ext\": true,\n    \"y\": \"Y\",\n    \"zz\": 1\n  }\n]\n"
        );
        assert_eq!(
            compact(&keys[0]),
            r#"{"kty":"EC","key_ops":["sign","verify"],"ext":true,"y":"Y","zz":1}"#
        );
        assert_eq!(read_keys(&keys_file(&keys)).unwrap(), keys);
        assert!(read_keys("[1]").is_err() && read_keys("{").is_err());
        assert!(
            algorithm("HS256")
                .unwrap_err()
                .to_string()
                .contains("unsupported algorithm")
        );
    }
}
