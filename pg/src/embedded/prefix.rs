//! A private installation of the server for the embedded cluster, so that supagate can give it
//! extensions of its own (pg_net, supabase_vault, pgjwt, pgmq: see `extensions/`; and the Rust
//! ones of `extensions/pgrx`, such as pg_jsonschema, when the binary was built with them)
//! without writing into the system's PostgreSQL. PostgreSQL finds `share/` and `lib/` relative
//! to the `postgres` program it runs as, so the prefix holds that program (hard-linked, or
//! copied when the data directory is on another file system) with `initdb` and `pg_ctl`, a
//! library folder holding links to every file of the system's beside the shared libraries of
//! supagate's Rust extensions for this major, and a share folder whose entries link to the
//! system's, with an `extension/` folder holding links to every system extension file beside
//! supagate's own.
//!
//! It lives in a cache folder shared by every project, named by what it is made from: the
//! system's installation and supagate's extensions. A change to either (a package installed
//! with apt, a PostgreSQL upgrade, another supagate) makes a new one at the next start, so what
//! the system has is always there.

use super::EmbeddedError;
use super::binaries::Binaries;
use std::path::{Component, Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/extension_files.rs"));
/// Files by name: their bytes.
type Files = [(&'static str, &'static [u8])];
include!(concat!(env!("OUT_DIR"), "/pgrx_extension_files.rs"));

/// supagate's extensions that only say why they cannot be had here: installed only where the
/// system has no extension of that name.
const UNAVAILABLE: &[&str] = &["plv8"];

/// The files of supagate's Rust extensions built for PostgreSQL `major` (`NAME.so`,
/// `NAME.control`, `NAME--VERSION.sql`): none when the binary was built without them.
pub fn pgrx_extension_files(major: &str) -> &'static Files {
    PGRX_EXTENSION_FILES
        .iter()
        .find(|(m, _)| *m == major)
        .map(|(_, files)| *files)
        .unwrap_or_default()
}

/// The names of supagate's Rust extensions in its sources (`extensions/pgrx`), built into this
/// binary or not.
pub fn pgrx_sources() -> &'static [&'static str] {
    PGRX_SOURCES
}

/// The names of supagate's Rust extensions built for PostgreSQL `major`.
pub fn pgrx_extensions(major: &str) -> Vec<&'static str> {
    pgrx_extension_files(major)
        .iter()
        .filter_map(|(n, _)| n.strip_suffix(".control"))
        .collect()
}

/// The programs the cluster is run with.
const PROGRAMS: [&str; 3] = ["postgres", "pg_ctl", "initdb"];

/// Where an installation keeps its programs, shared files and libraries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub bin: PathBuf,
    pub share: PathBuf,
    pub lib: PathBuf,
}

impl Layout {
    /// From `pg_config` (its answer kept in `cache`, when given), else guessed from the folders
    /// around `bin`.
    pub fn of(b: &Binaries, cache: Option<&Path>) -> Option<Layout> {
        Self::from_pg_config(&b.dir, cache).or_else(|| Self::guess(&b.dir))
    }

    fn from_pg_config(dir: &Path, cache: Option<&Path>) -> Option<Layout> {
        let text = super::memo::output(
            &dir.join("pg_config"),
            &["--bindir", "--sharedir", "--pkglibdir"],
            cache,
        )?;
        let mut lines = text.lines().map(|l| PathBuf::from(l.trim()));
        let layout = Layout {
            bin: lines.next()?,
            share: lines.next()?,
            lib: lines.next()?,
        };
        (layout.share.join("extension").is_dir() && layout.bin.join("postgres").is_file())
            .then_some(layout)
    }

    fn guess(dir: &Path) -> Option<Layout> {
        let up = dir.parent()?;
        let share = [up.join("share/postgresql"), up.join("share")]
            .into_iter()
            .find(|s| s.join("extension/plpgsql.control").is_file())?;
        let lib = [up.join("lib/postgresql"), up.join("lib")]
            .into_iter()
            .find(|l| {
                ["plpgsql.so", "plpgsql.dylib"]
                    .iter()
                    .any(|f| l.join(f).is_file())
            })?;
        Some(Layout {
            bin: dir.to_path_buf(),
            share,
            lib,
        })
    }

    /// The same layout under `root`, each folder at its place relative to the others.
    fn under(&self, root: &Path) -> Layout {
        let common = common_prefix(&[&self.bin, &self.share, &self.lib]);
        let place = |p: &Path| root.join(p.strip_prefix(&common).unwrap_or(p));
        Layout {
            bin: place(&self.bin),
            share: place(&self.share),
            lib: place(&self.lib),
        }
    }
}

fn common_prefix(paths: &[&Path]) -> PathBuf {
    let mut common: Vec<Component> = paths[0].components().collect();
    for p in &paths[1..] {
        let n = common
            .iter()
            .zip(p.components())
            .take_while(|(a, b)| **a == *b)
            .count();
        common.truncate(n);
    }
    common.iter().collect()
}

/// Whether an extension's scripts (`NAME--*.sql` in `dir`) run without a library of their own:
/// none names `MODULE_PATHNAME` or `$libdir`.
fn sql_only(dir: &Path, name: &str) -> Option<Vec<PathBuf>> {
    let prefix = format!("{name}--");
    let mut files = vec![dir.join(format!("{name}.control"))];
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let file = e.file_name().to_string_lossy().to_string();
        if file.starts_with(&prefix) && file.ends_with(".sql") {
            let text = std::fs::read_to_string(e.path()).ok()?;
            if text.contains("MODULE_PATHNAME") || text.contains("$libdir") {
                return None;
            }
            files.push(e.path());
        }
    }
    Some(files)
}

/// The files of the extensions written only in SQL (pgTAP, pg_partman, …) that the system's
/// installations of other majors have and PostgreSQL `major`'s may lack (npm's builds carry
/// none of the distribution's): (file name, where it is), the newest major's first. Installed
/// into `major`'s private installation where it has no extension of that name. `cache`: where
/// the installations' answers about themselves are kept.
pub fn portable_extensions(major: u32, cache: Option<&Path>) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    for other in super::binaries::system_installations(cache) {
        if other.major == major {
            continue;
        }
        let Some(layout) = Layout::of(&other, cache) else {
            continue;
        };
        let dir = layout.share.join("extension");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter_map(|e| {
                e.file_name()
                    .to_string_lossy()
                    .strip_suffix(".control")
                    .map(str::to_string)
            })
            .collect();
        names.sort();
        for name in names {
            let control = format!("{name}.control");
            if out.iter().any(|(f, _)| *f == control) {
                continue;
            }
            for path in sql_only(&dir, &name).unwrap_or_default() {
                let file = path
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .to_string();
                out.push((file, path));
            }
        }
    }
    out
}

/// The extensions of `needs` that installation `b` cannot give: neither the system's files nor
/// supagate's (its SQL extensions and its Rust ones built for that major) have them. `cache`:
/// where the installations' answers about themselves are kept.
pub fn lacking(b: &Binaries, needs: &[String], cache: Option<&Path>) -> Vec<String> {
    if needs.is_empty() {
        return Vec::new();
    }
    let share = Layout::of(b, cache).map(|l| l.share.join("extension"));
    let major = b.major.to_string();
    let ours = extension_files();
    let rust = pgrx_extensions(&major);
    let portable = portable_extensions(b.major, cache);
    needs
        .iter()
        .filter(|n| {
            let control = format!("{n}.control");
            !(share.as_ref().is_some_and(|s| s.join(&control).is_file())
                || ours.iter().any(|(f, _)| *f == control)
                || rust.contains(&n.as_str())
                || portable.iter().any(|(f, _)| *f == control))
        })
        .cloned()
        .collect()
}

/// What the private installation is made from: it is made again when this changes.
fn fingerprint(system: &Layout, major: &str, portable: &[(String, PathBuf)]) -> String {
    let stamp = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| {
                let t = m.modified()?;
                Ok(format!(
                    "{}:{}:{:?}",
                    p.display(),
                    m.len(),
                    t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default()
                ))
            })
            .unwrap_or_default()
    };
    // v2: the library folder is a folder of links (it was one link to the system's).
    // v3: other majors' SQL-only extensions are linked in.
    let mut all = format!("v3\n{system:?}\n");
    for p in [
        system.bin.join("postgres"),
        system.share.join("extension"),
        system.lib.clone(),
    ] {
        all.push_str(&stamp(&p));
        all.push('\n');
    }
    for (name, text) in EXTENSION_FILES {
        all.push_str(name);
        all.push_str(&project::sha256_hex(text.as_bytes()));
    }
    if let Some((_, digest)) = PGRX_DIGEST.iter().find(|(m, _)| *m == major) {
        all.push_str(&format!("pgrx {major} {digest}\n"));
    }
    for (_, path) in portable {
        all.push_str(&stamp(path));
        all.push('\n');
    }
    project::sha256_hex(all.as_bytes())
}

/// The files of supagate's extensions as they are installed: each file, and the script of an
/// extension once more under every extra version its `.versions` file lists.
pub fn extension_files() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for (name, text) in EXTENSION_FILES {
        match name.strip_suffix(".versions") {
            Some(ext) => {
                let script = EXTENSION_FILES
                    .iter()
                    .find(|(n, _)| n.starts_with(&format!("{ext}--")) && n.ends_with(".sql"))
                    .map(|(_, t)| *t)
                    .unwrap_or_default();
                for v in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                    out.push((format!("{ext}--{v}.sql"), script));
                }
            }
            None => out.push((name.to_string(), *text)),
        }
    }
    out
}

fn io(p: &Path) -> impl Fn(std::io::Error) -> EmbeddedError + '_ {
    move |e| EmbeddedError::Io(p.to_path_buf(), e)
}

/// A hard link where the file systems allow, else a copy (keeping the program executable).
fn link_or_copy(from: &Path, to: &Path) -> Result<(), EmbeddedError> {
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to).map_err(io(to))?;
    Ok(())
}

/// A link at `to` to every entry of the folder `from`.
fn link_entries(from: &Path, to: &Path) -> Result<(), EmbeddedError> {
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let target = to.join(entry.file_name());
        std::os::unix::fs::symlink(entry.path(), &target).map_err(io(&target))?;
    }
    Ok(())
}

/// Writes `bytes` at `path`, in place of a link to the system's file of that name.
fn write_over(path: &Path, bytes: &[u8]) -> Result<(), EmbeddedError> {
    let _ = std::fs::remove_file(path);
    std::fs::write(path, bytes).map_err(io(path))
}

fn build(
    system: &Layout,
    into: &Layout,
    major: &str,
    portable: &[(String, PathBuf)],
) -> Result<(), EmbeddedError> {
    std::fs::create_dir_all(&into.bin).map_err(io(&into.bin))?;
    for p in PROGRAMS {
        link_or_copy(&system.bin.join(p), &into.bin.join(p))?;
    }
    std::fs::create_dir_all(&into.lib).map_err(io(&into.lib))?;
    link_entries(&system.lib, &into.lib)?;
    let pgrx = pgrx_extension_files(major);
    for (name, bytes) in pgrx.iter().filter(|(n, _)| n.ends_with(".so")) {
        write_over(&into.lib.join(name), bytes)?;
    }
    let ext = into.share.join("extension");
    std::fs::create_dir_all(&ext).map_err(io(&ext))?;
    for entry in std::fs::read_dir(&system.share).map_err(io(&system.share))? {
        let entry = entry.map_err(io(&system.share))?;
        if entry.file_name() != "extension" {
            std::os::unix::fs::symlink(entry.path(), into.share.join(entry.file_name()))
                .map_err(io(&into.share))?;
        }
    }
    let system_ext = system.share.join("extension");
    link_entries(&system_ext, &ext)?;
    // Other majors' SQL-only extensions, where this one has none of that name.
    let mut skipped = Vec::new();
    for (file, path) in portable {
        let name = file
            .split("--")
            .next()
            .unwrap_or(file)
            .trim_end_matches(".control");
        if skipped.contains(&name) {
            continue;
        }
        if file.ends_with(".control") && ext.join(file).exists() {
            skipped.push(name);
            continue;
        }
        let target = ext.join(file);
        if !target.exists() {
            std::os::unix::fs::symlink(path, &target).map_err(io(&target))?;
        }
    }
    // supagate's own come last: where the system has an extension of the same name, the one
    // supagate's gateways work with is installed (but not one that only says it is missing).
    let unavailable_here = |name: &str| {
        UNAVAILABLE.iter().any(|u| {
            (name == format!("{u}.control") || name.starts_with(&format!("{u}--")))
                && system_ext.join(format!("{u}.control")).exists()
        })
    };
    for (name, text) in extension_files() {
        if !unavailable_here(&name) {
            write_over(&ext.join(&name), text.as_bytes())?;
        }
    }
    for (name, bytes) in pgrx.iter().filter(|(n, _)| !n.ends_with(".so")) {
        write_over(&ext.join(name), bytes)?;
    }
    // What sits beside the library folder too: builds that carry their own shared libraries
    // there find them relative to the program ($ORIGIN/../lib). Last, so that where the
    // library folder's parent also holds `share` or `bin` (a prefix like /usr/local/pgsql),
    // the private ones are not links to the system's.
    if let (Some(from), Some(to)) = (system.lib.parent(), into.lib.parent()) {
        for entry in std::fs::read_dir(from).map_err(io(from))? {
            let entry = entry.map_err(io(from))?;
            let target = to.join(entry.file_name());
            if !target.exists() && std::fs::symlink_metadata(&target).is_err() {
                std::os::unix::fs::symlink(entry.path(), &target).map_err(io(&target))?;
            }
        }
    }
    Ok(())
}

/// Private installations not used for this long are removed when another one is made.
const UNUSED_FOR: std::time::Duration = std::time::Duration::from_secs(30 * 24 * 3600);

/// Makes (or reuses) the private installation of `system` in `cache`, named by what it is made
/// from (so every cluster of that PostgreSQL shares it, and several processes making it at once
/// agree: each builds aside, the first to rename wins). Returns where its programs are, or None
/// when the system's layout cannot be told (then the system's programs run as they are,
/// without supagate's extensions).
pub fn prepare(system: &Binaries, cache: &Path) -> Result<Option<Layout>, EmbeddedError> {
    let Some(layout) = Layout::of(system, Some(cache)) else {
        tracing::warn!(
            "cannot tell where the PostgreSQL in {} keeps its files (no pg_config): running it \
             without supagate's extensions (pg_net, supabase_vault, pgjwt, pgmq)",
            system.dir.display()
        );
        return Ok(None);
    };
    let major = system.major.to_string();
    let portable = portable_extensions(system.major, Some(cache));
    let want = fingerprint(&layout, &major, &portable);
    let root = cache.join(format!("postgres-{}-{}", system.major, &want[..16]));
    let stamp = root.join("fingerprint");
    let private = layout.under(&root);
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == want) {
        // Touched, so that it counts as in use.
        let _ = std::fs::write(&stamp, &want);
        return Ok(Some(private));
    }
    let t0 = std::time::Instant::now();
    std::fs::create_dir_all(cache).map_err(io(cache))?;
    let tmp = cache.join(format!(".building-{}-{}", std::process::id(), &want[..16]));
    let _ = std::fs::remove_dir_all(&tmp);
    build(&layout, &layout.under(&tmp), &major, &portable)?;
    std::fs::write(tmp.join("fingerprint"), &want).map_err(io(&tmp))?;
    if std::fs::rename(&tmp, &root).is_err() {
        // Made meanwhile by another process, or a broken one is in the way.
        if std::fs::read_to_string(&stamp).is_ok_and(|s| s == want) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Ok(Some(private));
        }
        let _ = std::fs::remove_dir_all(&root);
        std::fs::rename(&tmp, &root).map_err(io(&root))?;
    }
    tracing::info!(
        "made the private installation of PostgreSQL {} in {} ms ({})",
        system.major,
        t0.elapsed().as_millis(),
        root.display()
    );
    remove_unused(cache, &root);
    Ok(Some(private))
}

/// Removes private installations and pristine clusters nobody started a cluster with for
/// [`UNUSED_FOR`].
pub(super) fn remove_unused(cache: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let stamp = if name.starts_with("postgres-") {
            "fingerprint"
        } else if name.starts_with("initdb-") {
            super::PRISTINE_MARK
        } else {
            continue;
        };
        let old = std::fs::metadata(path.join(stamp))
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().unwrap_or_default() > UNUSED_FOR);
        if path != keep && old {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_private_layout_keeps_the_systems_relative_places() {
        let debian = Layout {
            bin: "/usr/lib/postgresql/15/bin".into(),
            share: "/usr/share/postgresql/15".into(),
            lib: "/usr/lib/postgresql/15/lib".into(),
        };
        assert_eq!(
            debian.under(Path::new("/d/postgres")),
            Layout {
                bin: "/d/postgres/lib/postgresql/15/bin".into(),
                share: "/d/postgres/share/postgresql/15".into(),
                lib: "/d/postgres/lib/postgresql/15/lib".into(),
            }
        );
        let tarball = Layout {
            bin: "/opt/pg/bin".into(),
            share: "/opt/pg/share/postgresql".into(),
            lib: "/opt/pg/lib/postgresql".into(),
        };
        assert_eq!(
            tarball.under(Path::new("/p")).share,
            Path::new("/p/share/postgresql")
        );
    }

    #[test]
    fn the_library_folder_links_the_systems_files_beside_supagates() {
        let root = std::env::temp_dir().join(format!("supagate-prefix-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let system = Layout {
            bin: root.join("sys/bin"),
            share: root.join("sys/share"),
            lib: root.join("sys/lib"),
        };
        for dir in [
            &system.bin,
            &system.share.join("extension"),
            &system.share.join("timezonesets"),
            &system.lib.join("bitcode"),
        ] {
            std::fs::create_dir_all(dir).unwrap();
        }
        for file in [
            system.bin.join("postgres"),
            system.bin.join("pg_ctl"),
            system.bin.join("initdb"),
            system.share.join("extension/plpgsql.control"),
            system.lib.join("plpgsql.so"),
        ] {
            std::fs::write(file, "system").unwrap();
        }
        let is_link = |p: &Path| {
            std::fs::symlink_metadata(p)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
                .file_type()
                .is_symlink()
        };
        // Without a plv8 of the system's, supagate's says why it is missing; with one, the
        // system's is installed.
        for system_plv8 in [false, true] {
            if system_plv8 {
                std::fs::write(system.share.join("extension/plv8.control"), "system").unwrap();
            }
            let into = system.under(&root.join(format!("private-{system_plv8}")));
            build(&system, &into, "15", &[]).unwrap();
            assert!(!is_link(&into.lib) && into.lib.is_dir());
            assert!(is_link(&into.lib.join("plpgsql.so")) && is_link(&into.lib.join("bitcode")));
            let ext = into.share.join("extension");
            assert!(
                is_link(&ext.join("plpgsql.control")) && is_link(&into.share.join("timezonesets"))
            );
            assert!(!is_link(&ext.join("pgjwt.control")));
            assert_eq!(is_link(&ext.join("plv8.control")), system_plv8);
            assert_eq!(ext.join("plv8--3.1.10.sql").exists(), !system_plv8);
            for (name, bytes) in pgrx_extension_files("15") {
                let dir = if name.ends_with(".so") {
                    &into.lib
                } else {
                    &ext
                };
                assert_eq!(std::fs::read(dir.join(name)).unwrap(), *bytes, "{name}");
            }
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn every_extension_has_its_script_and_extra_versions() {
        let files = extension_files();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        for ext in ["pg_net", "supabase_vault", "pgjwt", "pgmq", "plv8"] {
            let control = EXTENSION_FILES
                .iter()
                .find(|(n, _)| *n == format!("{ext}.control"))
                .map(|(_, t)| *t)
                .expect("control file");
            let version = control
                .lines()
                .find_map(|l| l.strip_prefix("default_version = "))
                .map(|v| v.trim_matches('\''))
                .expect("default_version");
            assert!(
                names.contains(&format!("{ext}--{version}.sql").as_str()),
                "{ext}"
            );
        }
        let v144 = files
            .iter()
            .find(|(n, _)| n == "pgmq--1.4.4.sql")
            .expect("pgmq 1.4.4");
        assert!(v144.1.contains("create function pgmq.send("));
    }

    #[test]
    fn an_extension_travels_to_another_major_only_without_a_library() {
        let root = std::env::temp_dir().join(format!("supagate-portable-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let ext = root.as_path();
        for (file, text) in [
            ("tap.control", "default_version = '1.0'"),
            (
                "tap--1.0.sql",
                "create function ok(bool) returns text language sql as $$ select 'ok' $$;",
            ),
            ("tap--0.9--1.0.sql", "select 1;"),
            ("native.control", "module_pathname = '$libdir/native'"),
            (
                "native--1.0.sql",
                "create function f() returns int as 'MODULE_PATHNAME' language c;",
            ),
        ] {
            std::fs::write(ext.join(file), text).unwrap();
        }
        let mut tap: Vec<String> = sql_only(ext, "tap")
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
            .collect();
        tap.sort();
        assert_eq!(tap, ["tap--0.9--1.0.sql", "tap--1.0.sql", "tap.control"]);
        assert!(sql_only(ext, "native").is_none());
        let _ = std::fs::remove_dir_all(&root);
    }
}
