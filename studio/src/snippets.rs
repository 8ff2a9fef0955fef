//! Saved SQL snippets: `supabase/snippets/<name>.sql` in the project folder, where the CLI
//! mounts the folder for its Studio, so they are files a team can commit.

use crate::StudioError;
use serde::Serialize;
use std::path::{Path, PathBuf};

pub const MAX_SNIPPET_BYTES: usize = 1 << 20;
const MAX_LISTED: usize = 1000;

/// A snippet's name: letters, digits, spaces, `-`, `_` and `.`, 1 to 100 of them, not starting
/// with a dot or a space (so never a path).
pub fn valid_name(name: &str) -> bool {
    (1..=100).contains(&name.chars().count())
        && !name.starts_with(['.', ' '])
        && !name.ends_with(' ')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.'))
}

#[derive(Debug, Serialize, PartialEq)]
pub struct Snippet {
    pub name: String,
    pub bytes: u64,
    /// Seconds since the epoch.
    pub modified: u64,
}

pub struct Snippets {
    dir: PathBuf,
}

impl Snippets {
    /// The folder `supabase/snippets` of the project's `supabase/` folder.
    pub fn new(supabase_dir: &Path) -> Snippets {
        Snippets {
            dir: supabase_dir.join("snippets"),
        }
    }

    fn path(&self, name: &str) -> Result<PathBuf, StudioError> {
        if !valid_name(name) {
            return Err(StudioError::Invalid(format!(
                "\"{name}\" is not a snippet name: use letters, digits, spaces, - _ and ."
            )));
        }
        Ok(self.dir.join(format!("{name}.sql")))
    }

    pub fn list(&self) -> Result<Vec<Snippet>, StudioError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(unavailable(&self.dir, e)),
        };
        let mut found: Vec<Snippet> = entries
            .flatten()
            .take(MAX_LISTED)
            .filter_map(|e| {
                let file = e.file_name().into_string().ok()?;
                let name = file.strip_suffix(".sql")?.to_string();
                let meta = e.metadata().ok().filter(|m| m.is_file())?;
                let modified = meta
                    .modified()
                    .ok()?
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()?
                    .as_secs();
                valid_name(&name).then_some(Snippet {
                    name,
                    bytes: meta.len(),
                    modified,
                })
            })
            .collect();
        found.sort_by_key(|a| a.name.to_lowercase());
        Ok(found)
    }

    pub fn read(&self, name: &str) -> Result<String, StudioError> {
        let path = self.path(name)?;
        std::fs::read_to_string(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                StudioError::NotFound(format!("the snippet \"{name}\""))
            }
            _ => unavailable(&path, e),
        })
    }

    /// Writes the snippet whole (a new file replaces the old one at once).
    pub fn save(&self, name: &str, sql: &str) -> Result<(), StudioError> {
        let path = self.path(name)?;
        if sql.len() > MAX_SNIPPET_BYTES {
            return Err(StudioError::Invalid(format!(
                "a snippet is at most {MAX_SNIPPET_BYTES} bytes"
            )));
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| unavailable(&self.dir, e))?;
        let staged = self.dir.join(format!(".{name}.sql.tmp"));
        std::fs::write(&staged, sql)
            .and_then(|_| std::fs::rename(&staged, &path))
            .map_err(|e| unavailable(&path, e))
    }

    pub fn delete(&self, name: &str) -> Result<(), StudioError> {
        let path = self.path(name)?;
        std::fs::remove_file(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                StudioError::NotFound(format!("the snippet \"{name}\""))
            }
            _ => unavailable(&path, e),
        })
    }
}

fn unavailable(path: &Path, e: std::io::Error) -> StudioError {
    StudioError::Unavailable(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_never_paths() {
        for ok in ["orders by day", "a", "v1.2_final-x", "Résumé"] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in [
            "",
            "../x",
            "a/b",
            ".hidden",
            " x",
            "x ",
            "a\\b",
            "a\0",
            &"x".repeat(101),
        ] {
            assert!(!valid_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn saves_lists_reads_and_deletes_files() {
        let dir = std::env::temp_dir().join(format!("studio-snippets-{}", std::process::id()));
        let s = Snippets::new(&dir);
        assert_eq!(s.list().unwrap(), vec![]);
        s.save("b one", "select 1").unwrap();
        s.save("A two", "select 2").unwrap();
        s.save("b one", "select 11").unwrap();
        let names: Vec<String> = s.list().unwrap().into_iter().map(|n| n.name).collect();
        assert_eq!(names, ["A two", "b one"]);
        assert_eq!(s.read("b one").unwrap(), "select 11");
        assert_eq!(
            std::fs::read_to_string(dir.join("snippets/b one.sql")).unwrap(),
            "select 11"
        );
        s.delete("b one").unwrap();
        assert!(matches!(s.read("b one"), Err(StudioError::NotFound(_))));
        assert!(matches!(s.save("../x", "x"), Err(StudioError::Invalid(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
