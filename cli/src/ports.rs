//! `--ports auto`: ports of a project's own, so that several projects (one per checkout, git
//! worktree or coding agent) run side by side. A project gets a block of ten ports chosen from
//! a hash of its folder, laid out as the CLI's defaults are (API at +1, database +2, Studio +3,
//! mail catcher +4, its SMTP +5 and POP3 +6, like 54321…54326), checked free and remembered in its data directory: the
//! same folder gets the same ports across restarts while nothing else took them.

use crate::commands::CommandError;
use std::collections::BTreeMap;
use std::path::Path;

/// Blocks of ten from 10000, below Linux's ephemeral range (32768 up), where outgoing
/// connections take their ports.
const FIRST: u32 = 10_000;
const WIDTH: u32 = 10;
const BLOCKS: u32 = 2_270;
const FILE: &str = "ports.json";

/// The ports one project listens on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ports {
    pub api: u16,
    pub db: u16,
    pub studio: u16,
    pub mail: u16,
    /// The catcher's SMTP and POP3 ports, used when config.toml sets them.
    pub smtp: u16,
    pub pop3: u16,
}

impl Ports {
    fn of_block(block: u32) -> Ports {
        let base = FIRST + (block % BLOCKS) * WIDTH;
        let at = |n: u32| u16::try_from(base + n).expect("blocks end below 32768");
        Ports {
            api: at(1),
            db: at(2),
            studio: at(3),
            mail: at(4),
            smtp: at(5),
            pop3: at(6),
        }
    }

    fn all(&self) -> [u16; 6] {
        [
            self.api,
            self.db,
            self.studio,
            self.mail,
            self.smtp,
            self.pop3,
        ]
    }

    fn to_map(self) -> BTreeMap<String, u16> {
        ["api", "db", "studio", "mail", "smtp", "pop3"]
            .into_iter()
            .map(String::from)
            .zip(self.all())
            .collect()
    }

    fn from_map(m: &BTreeMap<String, u16>) -> Option<Ports> {
        Some(Ports {
            api: *m.get("api")?,
            db: *m.get("db")?,
            studio: *m.get("studio")?,
            mail: *m.get("mail")?,
            smtp: *m.get("smtp")?,
            pop3: *m.get("pop3")?,
        })
    }
}

/// FNV-1a over a path: stable across builds and machines (std's hasher is not).
pub fn path_hash(path: &Path) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.as_os_str().as_encoded_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn block_of(root: &Path) -> u32 {
    u32::try_from(path_hash(root) % u64::from(BLOCKS)).expect("below BLOCKS")
}

/// Whether nothing listens on `port` of this machine's loopback address now.
fn free(port: u16) -> bool {
    std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// The ports the project in `root` (its data in `data_dir`) runs on: the remembered ones when
/// they are all free, else the first free block from the folder's own, then remembered.
pub fn choose(root: &Path, data_dir: &Path) -> Result<Ports, CommandError> {
    choose_with(root, data_dir, free)
}

fn choose_with(
    root: &Path,
    data_dir: &Path,
    free: impl Fn(u16) -> bool,
) -> Result<Ports, CommandError> {
    let file = data_dir.join(FILE);
    let remembered = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| serde_json::from_str::<BTreeMap<String, u16>>(&t).ok())
        .and_then(|m| Ports::from_map(&m));
    if let Some(p) = remembered
        && p.all().into_iter().all(&free)
    {
        return Ok(p);
    }
    let first = block_of(root);
    let ports = (0..BLOCKS)
        .map(|k| Ports::of_block(first + k))
        .find(|p| p.all().into_iter().all(&free))
        .ok_or_else(|| {
            CommandError::Message("--ports auto: no block of free ports from 10000 to 32767".into())
        })?;
    if let Some(old) = remembered {
        tracing::warn!(
            "--ports auto: the ports remembered for {} ({}) are in use: now API {}, database {}",
            root.display(),
            old.api,
            ports.api,
            ports.db
        );
    }
    std::fs::create_dir_all(data_dir)
        .and_then(|()| {
            std::fs::write(
                &file,
                serde_json::to_string(&ports.to_map()).expect("ports serialise"),
            )
        })
        .map_err(|e| CommandError::io(format!("cannot write {}", file.display()), e))?;
    Ok(ports)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("supagate-ports-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_folder_keeps_its_block_and_moves_past_ports_in_use() {
        let data = scratch("keep");
        let root = Path::new("/home/dev/shop");
        let first = choose_with(root, &data, |_| true).unwrap();
        assert_eq!(first, Ports::of_block(block_of(root)));
        assert_eq!(
            (first.db, first.studio, first.mail),
            (first.api + 1, first.api + 2, first.api + 3)
        );
        assert!(first.api >= 10_001 && first.mail < 32_768);
        // Remembered: the same again, even when the folder's own block would now differ.
        assert_eq!(choose_with(root, &data, |_| true).unwrap(), first);
        // Its database port taken: the next block, remembered from then on.
        let moved = choose_with(root, &data, |p| p != first.db).unwrap();
        assert_eq!(moved.api, first.api + 10);
        assert_eq!(choose_with(root, &data, |_| true).unwrap(), moved);
        // Other folders get other blocks (here: of the two worktrees of one repository).
        assert_ne!(
            block_of(Path::new("/src/app")),
            block_of(Path::new("/src/app-feature"))
        );
        let _ = std::fs::remove_dir_all(&data);
    }

    #[test]
    fn nothing_free_is_an_error() {
        let data = scratch("none");
        let e = choose_with(Path::new("/x"), &data, |_| false).unwrap_err();
        assert!(e.to_string().contains("no block of free ports"), "{e}");
    }
}
