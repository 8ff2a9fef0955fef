//! Processes and files of the embedded cluster: liveness by pid, ownership for the user
//! PostgreSQL runs as.

use super::EmbeddedError;
use std::path::Path;

pub(super) fn is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Whether `pid` is a running (not zombie) process whose command line mentions `program`: a
/// pid file outlives its process, and pids are reused.
pub fn process_alive(pid: u32, program: &str) -> bool {
    let running = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next())
        })
        .is_some_and(|state| state != 'Z' && state != 'X');
    running
        && std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(program))
}

pub(super) fn chown(user: &str, path: &Path) -> Result<(), EmbeddedError> {
    let status = std::process::Command::new("chown")
        .arg("-R")
        .arg(format!("{user}:"))
        .arg(path)
        .status()
        .map_err(|e| EmbeddedError::Io(path.into(), e))?;
    if status.success() {
        Ok(())
    } else {
        Err(EmbeddedError::Command(
            "chown".into(),
            path.display().to_string(),
        ))
    }
}

pub(super) fn sha2_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
