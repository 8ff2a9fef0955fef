//! Embeds the platform migrations (`sql/NNNN_name.sql`: roles, extensions, auth, storage) into
//! the binary, in order, the extensions supagate brings (`extensions/`: control files, scripts
//! and the extra versions each may be asked for by), and its Rust extensions as
//! scripts/build-extensions built them (`target/pgrx-extensions/<major>/`: `NAME.so`,
//! `NAME.control`, `NAME--VERSION.sql`), when it did: a binary built without them runs without
//! them. Nothing of any app is embedded.
use std::hash::{DefaultHasher, Hasher};
use std::path::PathBuf;
use std::{env, fs, path::Path};

/// Writes `$OUT_DIR/<out>`: `pub static <name>: &[(&str, &str)]`, the file name and text of
/// every file of `dir` (beside this crate) whose extension is one of `kinds`, sorted by name.
/// Cargo watches a folder's whole tree, so a folder with subfolders (`extensions/`, whose `pgrx`
/// holds the Rust extensions' sources, edited often and embedded only once built) is watched
/// through its files and its README, which lists them: a new file is added to that list.
fn embed(dir: &str, kinds: &[&str], name: &str, out: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let has_folders = fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.path().is_dir());
    if has_folders {
        println!(
            "cargo:rerun-if-changed={}",
            root.join("README.md").display()
        );
    } else {
        println!("cargo:rerun-if-changed={}", root.display());
    }
    let mut files: Vec<_> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| kinds.iter().any(|k| x == *k)))
        .collect();
    files.sort();
    let mut text = format!("pub static {name}: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let file = f.file_name().unwrap().to_string_lossy().to_string();
        text.push_str(&format!(
            "    ({file:?}, include_str!({:?})),\n",
            f.canonicalize().unwrap()
        ));
    }
    text.push_str("];\n");
    fs::write(Path::new(&env::var("OUT_DIR").unwrap()).join(out), text).unwrap();
}

/// Where scripts/build-extensions puts the Rust extensions: `SUPAGATE_PGRX_EXTENSIONS` when set,
/// else `pgrx-extensions` in the target folder this build writes into, so that CARGO_TARGET_DIR
/// is followed: the nearest ancestor of OUT_DIR that has that folder, or else cargo's
/// CACHEDIR.TAG. (Cargo writes the tag only into a target folder it creates itself: on a clean
/// clone scripts/build-extensions creates `target/` first, and it has none.)
fn pgrx_dir() -> Option<PathBuf> {
    println!("cargo:rerun-if-env-changed=SUPAGATE_PGRX_EXTENSIONS");
    if let Some(dir) = env::var_os("SUPAGATE_PGRX_EXTENSIONS") {
        return Some(PathBuf::from(dir));
    }
    let out = PathBuf::from(env::var("OUT_DIR").ok()?);
    let target = out
        .ancestors()
        .find(|a| a.join("pgrx-extensions").is_dir())
        .or_else(|| out.ancestors().find(|a| a.join("CACHEDIR.TAG").is_file()))?
        .to_path_buf();
    Some(target.join("pgrx-extensions"))
}

/// The Rust extensions of the sources (`extensions/pgrx`): the control files' names of the
/// workspace's members.
fn pgrx_sources() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../extensions/pgrx");
    let manifest = root.join("Cargo.toml");
    println!("cargo:rerun-if-changed={}", manifest.display());
    let text = fs::read_to_string(&manifest).unwrap_or_default();
    let members = text
        .lines()
        .find_map(|l| l.strip_prefix("members = ["))
        .unwrap_or_default();
    let mut names = Vec::new();
    for member in members
        .split(',')
        .map(|m| m.trim_matches(|c| " \"]".contains(c)))
    {
        for control in fs::read_dir(root.join(member))
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = control.path();
            if path.extension().is_some_and(|x| x == "control") {
                println!("cargo:rerun-if-changed={}", path.display());
                names.push(path.file_stem().unwrap().to_string_lossy().to_string());
            }
        }
    }
    names.sort();
    names
}

/// Writes `$OUT_DIR/pgrx_extension_files.rs` (for a module that defines `Files`, a list of file
/// names and bytes): `PGRX_SOURCES` ([`pgrx_sources`]), `PGRX_EXTENSION_FILES`, for each
/// PostgreSQL major
/// (the folders of [`pgrx_dir`]), the name and bytes of each file, sorted by name, and
/// `PGRX_DIGEST`, for each major a digest of those files (the private installation is named by
/// it, so a rebuilt extension makes a new one).
fn embed_pgrx() {
    let mut majors: Vec<(String, Vec<PathBuf>)> = Vec::new();
    if let Some(root) = pgrx_dir() {
        // Watched even while empty: a missing path would make cargo run this script every build.
        let _ = fs::create_dir_all(&root);
        println!("cargo:rerun-if-changed={}", root.display());
        for dir in fs::read_dir(&root).into_iter().flatten().flatten() {
            let major = dir.file_name().to_string_lossy().to_string();
            if !dir.path().is_dir() || !major.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            println!("cargo:rerun-if-changed={}", dir.path().display());
            let mut files: Vec<PathBuf> = fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.extension()
                        .is_some_and(|x| x == "so" || x == "control" || x == "sql")
                })
                .collect();
            files.sort();
            majors.push((major, files));
        }
    }
    majors.sort();
    let mut text = format!(
        "pub static PGRX_SOURCES: &[&str] = &{:?};\n",
        pgrx_sources()
    );
    text.push_str("pub static PGRX_EXTENSION_FILES: &[(&str, &Files)] = &[\n");
    let mut digests = String::from("pub static PGRX_DIGEST: &[(&str, &str)] = &[\n");
    for (major, files) in &majors {
        text.push_str(&format!("    ({major:?}, &[\n"));
        let mut hash = DefaultHasher::new();
        for f in files {
            println!("cargo:rerun-if-changed={}", f.display());
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            let bytes = fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            hash.write(name.as_bytes());
            hash.write(&bytes);
            text.push_str(&format!(
                "        ({name:?}, include_bytes!({:?})),\n",
                f.canonicalize().unwrap()
            ));
        }
        text.push_str("    ]),\n");
        digests.push_str(&format!("    ({major:?}, \"{:016x}\"),\n", hash.finish()));
    }
    text.push_str("];\n");
    digests.push_str("];\n");
    text.push_str(&digests);
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("pgrx_extension_files.rs"),
        text,
    )
    .unwrap();
}

fn main() {
    embed(
        "../sql",
        &["sql"],
        "PLATFORM_MIGRATIONS",
        "platform_migrations.rs",
    );
    embed(
        "../extensions",
        &["sql", "control", "versions"],
        "EXTENSION_FILES",
        "extension_files.rs",
    );
    embed_pgrx();
}
