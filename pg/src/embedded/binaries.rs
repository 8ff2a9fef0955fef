//! Where the PostgreSQL server programs are: `--pg-bin-dir` (PG_BIN_DIR), else every
//! installation in the usual places (Debian/Ubuntu's /usr/lib/postgresql/N, the PGDG packages of
//! Fedora/RHEL in /usr/pgsql-N, Homebrew's postgresql@N, /usr/local/pgsql, PATH). Of those, the
//! one a data directory was made with, else the project's `[db] major_version`, else the newest.

use super::EmbeddedError;
use std::path::{Path, PathBuf};

/// The oldest major version supagate runs on.
const OLDEST_MAJOR: u32 = 15;

/// An installation's server programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binaries {
    pub dir: PathBuf,
    pub major: u32,
}

fn has_all(d: &Path) -> bool {
    ["initdb", "pg_ctl", "postgres"]
        .iter()
        .all(|b| d.join(b).is_file())
}

/// `postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)` → 15.
fn major_of(dir: &Path) -> Option<u32> {
    let out = std::process::Command::new(dir.join("postgres"))
        .arg("--version")
        .output()
        .ok()?;
    parse_major(&String::from_utf8_lossy(&out.stdout))
}

fn parse_major(version: &str) -> Option<u32> {
    let v = version.split(')').nth(1)?.split_whitespace().next()?;
    let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Installations in the usual places, each folder once.
fn candidates() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let numbered = |root: &str, pattern: fn(&Path) -> Option<PathBuf>| -> Vec<PathBuf> {
        std::fs::read_dir(root)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| pattern(&e.path()))
            .collect()
    };
    // Debian and Ubuntu: /usr/lib/postgresql/17/bin.
    dirs.extend(numbered("/usr/lib/postgresql", |p| Some(p.join("bin"))));
    // PGDG on Fedora/RHEL: /usr/pgsql-17/bin.
    dirs.extend(numbered("/usr", |p| {
        let name = p.file_name()?.to_str()?;
        name.starts_with("pgsql-").then(|| p.join("bin"))
    }));
    // Homebrew: /opt/homebrew/opt/postgresql@17/bin, /usr/local/opt/postgresql@17/bin.
    for root in ["/opt/homebrew/opt", "/usr/local/opt"] {
        dirs.extend(numbered(root, |p| {
            let name = p.file_name()?.to_str()?;
            name.starts_with("postgresql").then(|| p.join("bin"))
        }));
    }
    dirs.push(PathBuf::from("/usr/local/pgsql/bin"));
    if let Some(paths) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&paths));
    }
    let mut seen = Vec::new();
    dirs.into_iter()
        .filter(|d| has_all(d))
        .filter(|d| {
            let real = std::fs::canonicalize(d).unwrap_or_else(|_| d.clone());
            let new = !seen.contains(&real);
            seen.push(real);
            new
        })
        .collect()
}

/// Chooses the installation: `explicit` if given; else the one of major `existing` (the data
/// directory's PG_VERSION) — an error if absent —, else `wanted` (`[db] major_version`) when
/// installed, else the newest.
pub fn find(
    explicit: Option<&Path>,
    wanted: Option<u32>,
    existing: Option<u32>,
) -> Result<Binaries, EmbeddedError> {
    if let Some(d) = explicit {
        if !has_all(d) {
            return Err(EmbeddedError::NoBinaries);
        }
        let major = major_of(d).ok_or(EmbeddedError::NoBinaries)?;
        return Ok(Binaries {
            dir: d.to_path_buf(),
            major,
        });
    }
    let mut found: Vec<Binaries> = candidates()
        .into_iter()
        .filter_map(|dir| {
            let major = major_of(&dir)?;
            Some(Binaries { dir, major })
        })
        .filter(|b| b.major >= OLDEST_MAJOR)
        .collect();
    found.sort_by_key(|b| std::cmp::Reverse(b.major));
    if found.is_empty() {
        return Err(EmbeddedError::NoBinaries);
    }
    if let Some(m) = existing {
        return found
            .into_iter()
            .find(|b| b.major == m)
            .ok_or(EmbeddedError::WrongMajor(m));
    }
    if let Some(w) = wanted {
        if let Some(b) = found.iter().find(|b| b.major == w) {
            return Ok(b.clone());
        }
        tracing::warn!(
            "[db] major_version is {w}, which is not installed; using PostgreSQL {}",
            found[0].major
        );
    }
    Ok(found.swap_remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_as_postgres_prints_them() {
        for (line, major) in [
            (
                "postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)\n",
                Some(15),
            ),
            ("postgres (PostgreSQL) 17.6\n", Some(17)),
            ("postgres (PostgreSQL) 18beta1\n", Some(18)),
            ("nonsense", None),
        ] {
            assert_eq!(parse_major(line), major, "{line}");
        }
    }
}
