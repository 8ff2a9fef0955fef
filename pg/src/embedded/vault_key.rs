//! Supabase Vault's root key for the embedded cluster: kept in its data directory, outside the
//! database and readable by the server only (the vault's functions read it with
//! `pg_read_file`). SUPAGATE_VAULT_KEY (64 hex digits) gives it when set, else it is made once
//! at random; a set key that differs from the one the secrets were encrypted with is refused.

use super::EmbeddedError;
use super::process::chown;
use std::path::Path;

/// Makes sure the cluster in `pgdata` has its Vault root key; `given`: SUPAGATE_VAULT_KEY.
pub(super) fn ensure(
    pgdata: &Path,
    run_as: Option<&str>,
    given: Option<String>,
) -> Result<(), EmbeddedError> {
    let path = pgdata.join("supagate_vault.key");
    let given = given
        .map(|k| k.trim().to_ascii_lowercase())
        .filter(|k| !k.is_empty());
    if let Some(k) = &given
        && (k.len() != 64 || !k.chars().all(|c| c.is_ascii_hexdigit()))
    {
        return Err(EmbeddedError::VaultKey(
            "SUPAGATE_VAULT_KEY must be 64 hexadecimal digits (32 bytes)".into(),
        ));
    }
    if let Ok(existing) = std::fs::read_to_string(&path) {
        return match given {
            Some(k) if k != existing.trim() => Err(EmbeddedError::VaultKey(format!(
                "SUPAGATE_VAULT_KEY differs from the key the vault's secrets are encrypted \
                 with ({}); unset it, or remove the data directory to start afresh",
                path.display()
            ))),
            _ => Ok(()),
        };
    }
    let key = match given {
        Some(k) => k,
        None => {
            use std::io::Read;
            let mut bytes = [0u8; 32];
            std::fs::File::open("/dev/urandom")
                .and_then(|mut f| f.read_exact(&mut bytes))
                .map_err(|e| EmbeddedError::Io("/dev/urandom".into(), e))?;
            hex::encode(bytes)
        }
    };
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .and_then(|mut f| f.write_all(key.as_bytes()))
        .map_err(|e| EmbeddedError::Io(path.clone(), e))?;
    if let Some(user) = run_as {
        chown(user, &path)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_made_once_and_a_different_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("vault-key-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let key = "AB".repeat(32);
        let short = ensure(&dir, None, Some("abc".into()))
            .unwrap_err()
            .to_string();
        assert!(short.contains("64 hexadecimal digits"), "{short}");
        ensure(&dir, None, Some(key.clone())).unwrap();
        let path = dir.join("supagate_vault.key");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            key.to_ascii_lowercase()
        );
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        ensure(&dir, None, None).unwrap();
        ensure(&dir, None, Some(key)).unwrap();
        let other = ensure(&dir, None, Some("cd".repeat(32)))
            .unwrap_err()
            .to_string();
        assert!(other.contains("differs from the key"), "{other}");
        std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
        let made = dir.join("random");
        std::fs::create_dir_all(&made).unwrap();
        ensure(&made, None, None).unwrap();
        let random = std::fs::read_to_string(made.join("supagate_vault.key")).unwrap();
        assert!(random.len() == 64 && random.chars().all(|c| c.is_ascii_hexdigit()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
