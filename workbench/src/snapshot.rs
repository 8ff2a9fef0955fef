//! Snapshots of a project's whole state: the database (auth users and sessions, every schema,
//! caught mail and texts, realtime's messages) and the stored objects' bytes, taken together.
//!
//! - Named snapshots (`snapshot save | restore | list | delete`) stay in the embedded cluster as
//!   databases `supagate_snapshot_<name>` (copied and put back with CREATE DATABASE … TEMPLATE)
//!   with the objects' bytes hard-linked under `<data>/snapshots/<name>/` (a stored version is
//!   never written again, so a link is a copy).
//! - A snapshot folder (`start --export-on-exit DIR`, `--import DIR`) is portable: `pg_dump`'s
//!   archive of the database, the objects' bytes and `snapshot.json`.

use pg::Database;
use pg::migrate::copies;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error(
        "a snapshot name is 1 to 40 characters: lowercase letters, digits, '-' and '_' ({0:?} is not)"
    )]
    BadName(String),
    #[error("no snapshot named {0:?} (supagate snapshot list shows them)")]
    NotFound(String),
    #[error("{0}")]
    Database(String),
    #[error("{0}: {1}")]
    Files(String, String),
    #[error("{0} failed: {1}")]
    Tool(String, String),
    #[error("{0} is not a snapshot folder (no snapshot.json)")]
    NotASnapshot(String),
    #[error("{0} is not empty and not a snapshot folder: export into a new or empty folder")]
    NotEmpty(String),
}

impl From<pg::migrate::MigrateError> for SnapshotError {
    fn from(e: pg::migrate::MigrateError) -> Self {
        SnapshotError::Database(e.to_string())
    }
}

/// Databases of named snapshots start with this.
pub const PREFIX: &str = "supagate_snapshot_";

/// `[a-z0-9_-]{1,40}`: a snapshot's (or branch's) name, part of a database name and a folder.
pub fn check_name(name: &str) -> Result<(), SnapshotError> {
    let ok = (1..=40).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(SnapshotError::BadName(name.to_string()))
    }
}

/// What `COMMENT ON DATABASE` and `snapshot.json` record.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Meta {
    /// Format of the folder.
    pub format: u32,
    pub project: String,
    pub created_at: String,
}

impl Meta {
    fn now(project: &str) -> Meta {
        Meta {
            format: 1,
            project: project.to_string(),
            created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        }
    }
}

/// A named snapshot or a branch, as `list` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    pub name: String,
    pub created_at: Option<String>,
    pub bytes: i64,
}

/// The kept copies whose database names start with `prefix`, named without it, with the
/// `created_at` their comment records.
pub(crate) async fn listed(db: &Database, prefix: &str) -> Result<Vec<Listed>, SnapshotError> {
    Ok(copies::list(db, prefix)
        .await?
        .into_iter()
        .map(|c| Listed {
            name: c.name[prefix.len()..].to_string(),
            created_at: c
                .comment
                .and_then(|m| serde_json::from_str::<serde_json::Value>(&m).ok())
                .and_then(|m| m["created_at"].as_str().map(str::to_string)),
            bytes: c.bytes,
        })
        .collect())
}

/// Where a project's state is.
pub struct State<'a> {
    pub db: &'a Database,
    pub project: String,
    /// The data directory (named snapshots' bytes go under `snapshots/`).
    pub data_dir: &'a Path,
    /// The local object store's folder (`<data>/storage`); None when objects live in S3 (their
    /// stored versions are never rewritten there either: the bytes stay where they are).
    pub objects: Option<PathBuf>,
    /// Realtime is on: its replication slot is made again when a database is put back.
    pub slot: bool,
    /// PostgreSQL's programs (pg_dump, pg_restore).
    pub bin_dir: PathBuf,
}

/// Hard-links (or, across file systems, copies) every file under `from` into `to`, keeping
/// files `to` already has.
pub fn link_tree(from: &Path, to: &Path) -> Result<usize, SnapshotError> {
    let err =
        |p: &Path, e: std::io::Error| SnapshotError::Files(p.display().to_string(), e.to_string());
    let mut n = 0;
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(0);
    };
    std::fs::create_dir_all(to).map_err(|e| err(to, e))?;
    for e in entries.flatten() {
        let src = e.path();
        let dst = to.join(e.file_name());
        if src.is_dir() {
            n += link_tree(&src, &dst)?;
        } else if !dst.exists() && !e.file_name().to_string_lossy().contains('#') {
            if std::fs::hard_link(&src, &dst).is_err() {
                std::fs::copy(&src, &dst).map_err(|e| err(&src, e))?;
            }
            n += 1;
        }
    }
    Ok(n)
}

/// A folder (and the parents it needs) that only its owner can enter: 0700, also when it was
/// there already.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

/// An empty file that only its owner can read: 0600, also when it was there already.
fn private_file(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

/// Every folder under `dir` 0700 and every file 0600.
fn make_private(dir: &Path) -> Result<(), SnapshotError> {
    use std::os::unix::fs::PermissionsExt;
    let err =
        |p: &Path, e: std::io::Error| SnapshotError::Files(p.display().to_string(), e.to_string());
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| err(dir, e))?;
    for e in std::fs::read_dir(dir).map_err(|e| err(dir, e))?.flatten() {
        let path = e.path();
        let meta = std::fs::symlink_metadata(&path).map_err(|e| err(&path, e))?;
        if meta.is_dir() {
            make_private(&path)?;
        } else if meta.is_file() {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| err(&path, e))?;
        }
    }
    Ok(())
}

/// The stored versions' folders a snapshot keeps (renderings are derived, made again on use).
const OBJECT_FOLDERS: [&str; 2] = ["versions", "resumable"];

fn link_objects(from: &Path, to: &Path) -> Result<usize, SnapshotError> {
    let mut n = 0;
    for f in OBJECT_FOLDERS {
        n += link_tree(&from.join(f), &to.join(f))?;
    }
    Ok(n)
}

impl State<'_> {
    fn folder(&self, name: &str) -> PathBuf {
        self.data_dir.join("snapshots").join(name)
    }

    /// Saves the state as snapshot `name` (replacing one of that name).
    pub async fn save(&self, name: &str) -> Result<(), SnapshotError> {
        check_name(name)?;
        let meta = serde_json::to_string(&Meta::now(&self.project)).expect("meta serialises");
        copies::save(self.db, &format!("{PREFIX}{name}"), &meta, false).await?;
        let folder = self.folder(name);
        let _ = std::fs::remove_dir_all(&folder);
        if let Some(objects) = &self.objects {
            link_objects(objects, &folder)?;
        }
        Ok(())
    }

    /// Puts snapshot `name` back: the database as it was and the bytes its objects name.
    pub async fn restore(&self, name: &str) -> Result<(), SnapshotError> {
        check_name(name)?;
        let db_name = format!("{PREFIX}{name}");
        if !copies::exists(self.db, &format!("{PREFIX}{name}")).await? {
            return Err(SnapshotError::NotFound(name.to_string()));
        }
        copies::restore(self.db, &db_name, self.slot).await?;
        if let Some(objects) = &self.objects {
            link_objects(&self.folder(name), objects)?;
        }
        Ok(())
    }

    pub async fn list(&self) -> Result<Vec<Listed>, SnapshotError> {
        listed(self.db, PREFIX).await
    }

    pub async fn delete(&self, name: &str) -> Result<(), SnapshotError> {
        check_name(name)?;
        if !copies::exists(self.db, &format!("{PREFIX}{name}")).await? {
            return Err(SnapshotError::NotFound(name.to_string()));
        }
        copies::remove(self.db, &format!("{PREFIX}{name}")).await?;
        let _ = std::fs::remove_dir_all(self.folder(name));
        Ok(())
    }

    async fn tool(&self, program: &str, args: &[&std::ffi::OsStr]) -> Result<(), SnapshotError> {
        let out = tokio::process::Command::new(self.bin_dir.join(program))
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .await
            .map_err(|e| SnapshotError::Tool(program.into(), e.to_string()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(SnapshotError::Tool(
                program.into(),
                String::from_utf8_lossy(&out.stderr).trim().to_string(),
            ))
        }
    }

    /// Writes the state into folder `dir` (new, empty, or a snapshot folder, whose contents
    /// it replaces). The dump holds sessions, refresh tokens and password hashes: the folder
    /// and everything in it are the user's alone (0700 folders, 0600 files).
    pub async fn export(&self, dir: &Path) -> Result<(), SnapshotError> {
        let err =
            |e: std::io::Error| SnapshotError::Files(dir.display().to_string(), e.to_string());
        let foreign = std::fs::read_dir(dir)
            .map(|mut entries| entries.next().is_some())
            .unwrap_or(false)
            && !dir.join("snapshot.json").is_file();
        if foreign {
            return Err(SnapshotError::NotEmpty(dir.display().to_string()));
        }
        private_dir(dir).map_err(err)?;
        let dump = dir.join("database.dump");
        // Made private before pg_dump writes into it (pg_dump keeps an existing file's mode).
        private_file(&dump).map_err(err)?;
        self.tool(
            "pg_dump",
            &[
                "--format=custom".as_ref(),
                "--file".as_ref(),
                dump.as_os_str(),
                self.db.db_url.as_ref(),
            ],
        )
        .await?;
        let objects = dir.join("objects");
        let _ = std::fs::remove_dir_all(&objects);
        if let Some(from) = &self.objects {
            // Made first: a project without stored objects links nothing into it.
            std::fs::create_dir_all(&objects).map_err(err)?;
            link_objects(from, &objects)?;
            // The links are the stored versions themselves: those become private too (only
            // supagate reads them).
            make_private(&objects)?;
        }
        let meta =
            serde_json::to_string_pretty(&Meta::now(&self.project)).expect("meta serialises");
        let file = dir.join("snapshot.json");
        private_file(&file).map_err(err)?;
        std::fs::write(&file, meta).map_err(err)
    }

    /// Replaces the state by what folder `dir` holds.
    pub async fn import(&self, dir: &Path) -> Result<(), SnapshotError> {
        let meta = dir.join("snapshot.json");
        if !meta.is_file() {
            return Err(SnapshotError::NotASnapshot(dir.display().to_string()));
        }
        let staging = format!("{PREFIX}_import");
        copies::empty(self.db, &staging).await?;
        let url = self.db.url_of(&staging);
        let restored = self
            .tool(
                "pg_restore",
                &[
                    "--exit-on-error".as_ref(),
                    "--dbname".as_ref(),
                    url.as_ref(),
                    dir.join("database.dump").as_os_str(),
                ],
            )
            .await;
        if let Err(e) = restored {
            copies::remove(self.db, &staging).await?;
            return Err(e);
        }
        copies::restore(self.db, &staging, self.slot).await?;
        copies::remove(self.db, &staging).await?;
        if let Some(objects) = &self.objects {
            link_objects(&dir.join("objects"), objects)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["a", "before-checkout", "w_1", &"x".repeat(40)] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "A", "a b", "../x", "ü", &"x".repeat(41), "a;drop"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn links_keep_what_is_there() {
        let base = std::env::temp_dir().join(format!("supagate-link-{}", std::process::id()));
        let (from, to) = (base.join("from"), base.join("to"));
        std::fs::create_dir_all(from.join("versions/sub")).unwrap();
        std::fs::write(from.join("versions/a"), "a").unwrap();
        std::fs::write(from.join("versions/sub/b"), "b").unwrap();
        std::fs::write(from.join("versions/c#1"), "staging").unwrap();
        std::fs::create_dir_all(to.join("versions")).unwrap();
        std::fs::write(to.join("versions/a"), "kept").unwrap();
        assert_eq!(link_objects(&from, &to).unwrap(), 1);
        assert_eq!(
            std::fs::read_to_string(to.join("versions/a")).unwrap(),
            "kept"
        );
        assert_eq!(
            std::fs::read_to_string(to.join("versions/sub/b")).unwrap(),
            "b"
        );
        assert!(!to.join("versions/c#1").exists());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
