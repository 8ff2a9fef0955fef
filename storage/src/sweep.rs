//! Start-up cleaning of the local object store: files an upload left behind when the process
//! died mid-way (object_store's staging files, `name#n`), stored versions no object row
//! points at any more (a crash between writing the bytes and committing the row), and what was
//! derived from versions that are gone: cached renderings (`renders/<version>/`) and the parts
//! of resumable uploads that were finished, terminated or expired (`resumable/<version>/`).

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime};
use tokio_postgres::GenericClient;

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub staging: usize,
    pub orphans: usize,
    /// Folders of renderings and upload parts whose version is gone.
    pub derived: usize,
}

/// Cleans `<root>/versions`. Only the process that owns the data directory may call it: a
/// staging file there belongs to an upload of a process that is gone. Orphaned versions are
/// removed once older than `grace` (an upload commits its row right after its bytes).
pub async fn local_versions(
    root: &Path,
    c: &impl GenericClient,
    grace: Duration,
) -> Result<Swept, tokio_postgres::Error> {
    let mut swept = Swept {
        derived: derived_folders(root, c, grace).await?,
        ..Swept::default()
    };
    let dir = root.join("versions");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(swept);
    };
    let files: Vec<_> = entries.flatten().filter(|e| e.path().is_file()).collect();
    let mut candidates = Vec::new();
    for e in files {
        let name = e.file_name().to_string_lossy().to_string();
        if name.contains('#') {
            if std::fs::remove_file(e.path()).is_ok() {
                swept.staging += 1;
            }
            continue;
        }
        if older_than(&e, grace) {
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

fn older_than(e: &std::fs::DirEntry, grace: Duration) -> bool {
    e.metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age >= grace)
}

/// Removes `renders/<version>` and `resumable/<version>` folders (older than `grace`) whose
/// version no object, or no unexpired upload, has.
async fn derived_folders(
    root: &Path,
    c: &impl GenericClient,
    grace: Duration,
) -> Result<usize, tokio_postgres::Error> {
    let mut removed = 0;
    for (folder, live_sql) in [
        (
            "renders",
            "SELECT version FROM storage.objects WHERE version IS NOT NULL",
        ),
        (
            "resumable",
            "SELECT version FROM supagate.resumable_uploads WHERE expires_at > now()",
        ),
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        let old: Vec<_> = entries
            .flatten()
            .filter(|e| e.path().is_dir() && older_than(e, grace))
            .collect();
        if old.is_empty() {
            continue;
        }
        let live: HashSet<String> = c
            .query(live_sql, &[])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        for e in old {
            let version = e.file_name().to_string_lossy().to_string();
            if !live.contains(&version) && std::fs::remove_dir_all(e.path()).is_ok() {
                removed += 1;
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_is_read_from_the_file() {
        let dir = std::env::temp_dir().join(format!("sweep-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(dir.join("a")).unwrap();
        let e = std::fs::read_dir(&dir).unwrap().flatten().next().unwrap();
        assert!(older_than(&e, Duration::ZERO));
        assert!(!older_than(&e, Duration::from_secs(3600)));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
