//! Processes and files of the embedded cluster: liveness by pid, ownership for the user
//! PostgreSQL runs as, that user's ids, the signal that stops a postmaster, and the processes a
//! dead one left behind.

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
    signal(pid, rustix::process::Signal::INT)
}

/// Sends `signal` to process `pid`.
fn signal(pid: u32, signal: rustix::process::Signal) -> std::io::Result<()> {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .ok_or_else(|| std::io::Error::other(format!("no such process id: {pid}")))?;
    rustix::process::kill_process(pid, signal).map_err(Into::into)
}

/// The processes a dead postmaster of `pgdata` left behind: PostgreSQL's server processes
/// (their title starts with `postgres: `), working in `pgdata` (every one changes into its data
/// directory), whose parent is no live PostgreSQL process. Each with its title. Their shared
/// memory keeps a new postmaster from starting ("pre-existing shared memory block is still in
/// use"). They notice the death of their postmaster only when they next wait (a backend
/// running a long statement, for one, does not): until then nothing else removes them.
pub(super) fn orphans(pgdata: &Path) -> Vec<(u32, String)> {
    let Ok(pgdata) = pgdata.canonicalize() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let title = String::from_utf8_lossy(&cmdline)
                .trim_end_matches(['\0', ' '])
                .to_string();
            if !title.starts_with("postgres: ") {
                return None;
            }
            if std::fs::read_link(format!("/proc/{pid}/cwd")).ok()? != pgdata {
                return None;
            }
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let parent: u32 = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            (liveness(parent, "postgres") == Liveness::Dead).then_some((pid, title))
        })
        .collect()
}

/// Ends `pid` at once (SIGKILL); an error when there is no such process.
pub(super) fn kill(pid: u32) -> std::io::Result<()> {
    signal(pid, rustix::process::Signal::KILL)
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
