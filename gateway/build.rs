//! Embeds every `sql/NNNN_name.sql` migration (and the demo data) into the binary, in order.
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
    let mut out = String::from("pub static MIGRATIONS: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        out.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            f.canonicalize().unwrap()
        ));
    }
    out.push_str("];\n");
    let demo = root.join("demo/catalogue.sql");
    println!("cargo:rerun-if-changed={}", demo.display());
    out.push_str(&format!(
        "pub static DEMO_CATALOGUE: &str = include_str!({:?});\n",
        demo.canonicalize().unwrap()
    ));
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("migrations.rs"),
        out,
    )
    .unwrap();
}
