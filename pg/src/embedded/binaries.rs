//! Where the PostgreSQL server programs are: PG_BIN_DIR, the newest Debian/Ubuntu
//! installation, or PATH.

use super::EmbeddedError;
use std::path::{Path, PathBuf};

/// Finds initdb/pg_ctl: PG_BIN_DIR, then the newest /usr/lib/postgresql/*/bin, then PATH.
pub fn find(explicit: Option<&Path>) -> Result<PathBuf, EmbeddedError> {
    let has_all = |d: &Path| {
        ["initdb", "pg_ctl", "postgres"]
            .iter()
            .all(|b| d.join(b).is_file())
    };
    if let Some(d) = explicit {
        return if has_all(d) {
            Ok(d.to_path_buf())
        } else {
            Err(EmbeddedError::NoBinaries)
        };
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, p)| has_all(p))
        .collect();
    versions.sort();
    if let Some((_, p)) = versions.pop() {
        return Ok(p);
    }
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).find(|d| has_all(d)))
        .and_then(|d| d)
        .ok_or(EmbeddedError::NoBinaries)
}
