//! Start-up cleaning of the local object store: files an upload left behind when the process
//! died mid-way (object_store's staging files, `name#n`), and stored versions no object row
//! points at any more (a crash between writing the bytes and committing the row).

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime};
use tokio_postgres::GenericClient;

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub staging: usize,
    pub orphans: usize,
}

/// Cleans `<root>/versions`. Only the process that owns the data directory may call it: a
/// staging file there belongs to an upload of a process that is gone. Orphaned versions are
/// removed once older than `grace` (an upload commits its row right after its bytes).
pub async fn local_versions(
    root: &Path,
    c: &impl GenericClient,
    grace: Duration,
) -> Result<Swept, tokio_postgres::Error> {
    let dir = root.join("versions");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Swept::default());
    };
    let files: Vec<_> = entries.flatten().filter(|e| e.path().is_file()).collect();
    let mut swept = Swept::default();
    let mut candidates = Vec::new();
    for e in files {
        let name = e.file_name().to_string_lossy().to_string();
        if name.contains('#') {
            if std::fs::remove_file(e.path()).is_ok() {
                swept.staging += 1;
            }
            continue;
        }
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age >= grace);
        if old {
            candidates.push((name, e.path()));
        }
    }
    if candidates.is_empty() {
        return Ok(swept);
    }
    let live: HashSet<String> = c
        .query(
            "SELECT version FROM storage.objects WHERE version IS NOT NULL",
            &[],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    for (version, path) in candidates {
        if !live.contains(&version) && std::fs::remove_file(&path).is_ok() {
            swept.orphans += 1;
        }
    }
    Ok(swept)
}
