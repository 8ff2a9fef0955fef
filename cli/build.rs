//! Puts the commit the binary is built from into `SUPAGATE_COMMIT` (for `--version`): `git
//! rev-parse` of the checkout; "unknown" outside git.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SUPAGATE_COMMIT={commit}");
    // Built again when HEAD moves (a commit, a checkout).
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{reference}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
