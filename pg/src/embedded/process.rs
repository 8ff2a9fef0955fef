//! Processes and files of the embedded cluster: liveness by pid, ownership for the user
//! PostgreSQL runs as.

use super::EmbeddedError;
use std::path::Path;

/// Whether this process runs as root (its effective user), from /proc where there is one (no
/// process to start), else from `id -u`.
pub(super) fn is_root() -> bool {
    if let Ok(status) = std::fs::read_to_string("/proc/self/status")
        && let Some(uids) = status.lines().find_map(|l| l.strip_prefix("Uid:"))
    {
        // Real, effective, saved and file system user ids.
        return uids.split_whitespace().nth(1) == Some("0");
    }
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// What can be told of a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    Alive,
    /// Gone, a zombie, or a reused pid running something else.
    Dead,
    /// Its files could not be read (out of file descriptors, say): no verdict.
    Unknown,
}

/// Whether `pid` is a running (not zombie) process whose command line mentions `program`: a
/// pid file outlives its process, and pids are reused. Only what the kernel says decides
/// "dead" (no such process); a failure to look (too many open files) decides nothing.
pub fn liveness(pid: u32, program: &str) -> Liveness {
    use std::io::ErrorKind::NotFound;
    let stat = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s,
        Err(e) if e.kind() == NotFound => return Liveness::Dead,
        Err(_) => return Liveness::Unknown,
    };
    let running = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next())
        .is_some_and(|state| state != 'Z' && state != 'X');
    if !running {
        return Liveness::Dead;
    }
    match std::fs::read(format!("/proc/{pid}/cmdline")) {
        Ok(c) if String::from_utf8_lossy(&c).contains(program) => Liveness::Alive,
        Ok(_) => Liveness::Dead,
        Err(e) if e.kind() == NotFound => Liveness::Dead,
        Err(_) => Liveness::Unknown,
    }
}

/// Whether `pid` is certainly a live `program` (an unknown answer counts as no).
pub fn process_alive(pid: u32, program: &str) -> bool {
    liveness(pid, program) == Liveness::Alive
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
