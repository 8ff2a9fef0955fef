//! Embeds the platform migrations (`sql/NNNN_name.sql`: roles, extensions, auth, storage) into
//! the binary, in order, and the extensions supagate brings (`extensions/`: control files,
//! scripts and the extra versions each may be asked for by). Nothing of any app is embedded.
use std::{env, fs, path::Path};

/// Writes `$OUT_DIR/<out>`: `pub static <name>: &[(&str, &str)]`, the file name and text of
/// every file of `dir` (beside this crate) whose extension is one of `kinds`, sorted by name.
fn embed(dir: &str, kinds: &[&str], name: &str, out: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    println!("cargo:rerun-if-changed={}", root.display());
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
}
