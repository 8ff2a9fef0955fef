//! Processes and files of the embedded cluster: liveness by pid, ownership for the user
//! PostgreSQL runs as, that user's ids, and the signal that stops a postmaster.

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

/// The user and group ids of `user` in /etc/passwd: PostgreSQL's programs then start as that
/// user directly (`setgid`/`setuid` in the child, supplementary groups dropped), rather than
/// through `runuser`, whose PAM session costs tens of milliseconds a program. None when the
/// user is not listed there (another name service): `runuser` is used then.
pub(super) fn account(user: &str) -> Option<(u32, u32)> {
    account_in(&std::fs::read_to_string("/etc/passwd").ok()?, user)
}

fn account_in(passwd: &str, user: &str) -> Option<(u32, u32)> {
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        if fields.next()? != user {
            return None;
        }
        let _password = fields.next()?;
        Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
    })
}

/// Asks the postmaster `pid` for a fast shutdown (SIGINT, what `pg_ctl stop -m fast` sends):
/// clients disconnected, a checkpoint, exit.
pub(super) fn interrupt(pid: u32) -> std::io::Result<()> {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .ok_or_else(|| std::io::Error::other(format!("no such process id: {pid}")))?;
    rustix::process::kill_process(pid, rustix::process::Signal::INT).map_err(Into::into)
}

#[cfg(test)]
mod tests {
    use super::account_in;

    #[test]
    fn a_user_s_ids_come_from_its_passwd_line() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\n\
                      postgresql:x:7:7::/:/bin/false\n\
                      postgres:x:101:104:PostgreSQL administrator:/var/lib/postgresql:/bin/bash\n\
                      broken:x:notanumber:1::/:/bin/false\n";
        let cases: [(&str, Option<(u32, u32)>); 5] = [
            ("postgres", Some((101, 104))),
            ("root", Some((0, 0))),
            ("postgresql", Some((7, 7))),
            ("broken", None),
            ("nobody", None),
        ];
        for (user, ids) in cases {
            assert_eq!(account_in(passwd, user), ids, "{user}");
        }
    }
}
