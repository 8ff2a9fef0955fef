//! Embeds the platform migrations (`sql/NNNN_name.sql`: roles, extensions, auth, storage) into
//! the binary, in order, and the extensions supagate brings (`extensions/`: control files,
//! scripts and the extra versions each may be asked for by). Nothing of any app is embedded.
use std::{env, fs, path::Path};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sql");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files: Vec<_> = fs::read_dir(&root)
        .expect("sql/ directory")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    let mut out = String::from("pub static PLATFORM_MIGRATIONS: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        out.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            f.canonicalize().unwrap()
        ));
    }
    out.push_str("];\n");
    let ext_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../extensions");
    println!("cargo:rerun-if-changed={}", ext_root.display());
    let mut ext: Vec<_> = fs::read_dir(&ext_root)
        .expect("extensions/ directory")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "sql" || x == "control" || x == "versions")
        })
        .collect();
    ext.sort();
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("platform_migrations.rs"),
        &out,
    )
    .unwrap();
    let mut out = String::from("pub static EXTENSION_FILES: &[(&str, &str)] = &[\n");
    for f in &ext {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        out.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            f.canonicalize().unwrap()
        ));
    }
    out.push_str("];\n");
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("extension_files.rs"),
        out,
    )
    .unwrap();
}
