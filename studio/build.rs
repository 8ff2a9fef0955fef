//! Builds Studio's UI (`ui/`, Vite from the repository's node_modules) and keeps every file of
//! it gzipped for `include_bytes!` (src/assets.rs). `SUPAGATE_STUDIO_DIST` names an already
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
    let packed = out.join("assets");
    std::fs::create_dir_all(&packed).expect("OUT_DIR is writable");
    let mut table = String::from("pub static FILES: &[Asset] = &[\n");
    for (i, f) in files.iter().enumerate() {
        let bytes = std::fs::read(dist.join(f)).expect("a file of the built UI");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&bytes).expect("gzip in memory");
        let gz = gz.finish().expect("gzip in memory");
        let target = packed.join(format!("{i}.gz"));
        std::fs::write(&target, gz).expect("OUT_DIR is writable");
        table.push_str(&format!(
            "    Asset {{ path: {f:?}, content_type: {:?}, size: {}, gzip: include_bytes!({:?}) }},\n",
            content_type(f),
            bytes.len(),
            target.display().to_string()
        ));
    }
    table.push_str("];\n");
    std::fs::write(out.join("assets.rs"), table).expect("OUT_DIR is writable");
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

fn content_type(file: &str) -> &'static str {
    match file.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
