//! Builds Studio's UI (`ui/`, Vite from the repository's node_modules) and keeps every file of
//! it gzipped for rust-embed (src/assets.rs). `SUPAGATE_STUDIO_DIST` names an already
//! built UI instead (the Docker image builds it in its Node stage).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    for p in [
        "ui/src",
        "ui/index.html",
        "ui/vite.config.ts",
        "ui/package.json",
        "ui/public",
    ] {
        println!("cargo:rerun-if-changed={p}");
    }
    println!("cargo:rerun-if-env-changed=SUPAGATE_STUDIO_DIST");
    let dist = match std::env::var_os("SUPAGATE_STUDIO_DIST") {
        Some(d) => PathBuf::from(d),
        None => build(&manifest.join("ui"), &out.join("ui-dist")),
    };
    let mut files = vec![];
    walk(&dist, &dist, &mut files);
    files.sort();
    assert!(
        files.iter().any(|f| f == "index.html"),
        "{} has no index.html: it is not Studio's built UI",
        dist.display()
    );
    // Each file gzipped under its own name, for rust-embed (src/assets.rs) to include; the
    // folder is named by absolute path in a file of its own (rust-embed reads no variables
    // in `folder` without a feature that pulls in a shell expander).
    let packed = out.join("ui-gz");
    if packed.exists() {
        std::fs::remove_dir_all(&packed).expect("OUT_DIR is writable");
    }
    for f in &files {
        let bytes = std::fs::read(dist.join(f)).expect("a file of the built UI");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&bytes).expect("gzip in memory");
        let target = packed.join(f);
        std::fs::create_dir_all(target.parent().expect("under the folder"))
            .expect("OUT_DIR is writable");
        std::fs::write(&target, gz.finish().expect("gzip in memory")).expect("OUT_DIR is writable");
    }
    let embed = format!(
        "#[derive(rust_embed::Embed)]\n#[folder = {:?}]\npub struct Ui;\n",
        packed.display().to_string()
    );
    std::fs::write(out.join("ui.rs"), embed).expect("OUT_DIR is writable");
}

fn build(ui: &Path, dest: &Path) -> PathBuf {
    let vite = ui.join("../../node_modules/vite/bin/vite.js");
    if !vite.exists() {
        panic!(
            "Studio's UI is built with Vite from the repository's node_modules, which are \
             missing: run `npm install` at the repository root (Node 20), or set \
             SUPAGATE_STUDIO_DIST to a built UI (`npm run build -w studio/ui`)."
        );
    }
    let status = Command::new("node")
        .arg(&vite)
        .args(["build", "--emptyOutDir", "--logLevel", "warn", "--outDir"])
        .arg(dest)
        .current_dir(ui)
        .status()
        .unwrap_or_else(|e| panic!("cannot run node to build Studio's UI: {e}"));
    assert!(status.success(), "building Studio's UI failed ({status})");
    dest.to_path_buf()
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<String>) {
    for e in std::fs::read_dir(dir)
        .expect("the built UI's folder")
        .flatten()
    {
        let path = e.path();
        if path.is_dir() {
            walk(root, &path, files);
        } else {
            let rel = path.strip_prefix(root).expect("under the root");
            files.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}
