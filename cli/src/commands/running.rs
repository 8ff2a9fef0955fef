//! Every project running on this machine, for `list` and `stop --all`: a started gateway
//! records its project folder and data directory in a file of its own under
//! `$XDG_STATE_HOME/supagate/running` (else `~/.local/state/supagate/running`), removed when it
//! stops. A record whose gateway no longer runs (killed) is removed by the next `list`.

use super::CommandError;
use super::status::{self, Values};
use crate::args::ListOutput;
use pg::database::owner_pid;
use std::path::{Path, PathBuf};

/// The folder of the records, when the environment names a home for it.
fn registry() -> Option<PathBuf> {
    let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    non_empty("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| non_empty("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .map(|d| d.join("supagate/running"))
}

fn record_file(dir: &Path, data_dir: &Path) -> PathBuf {
    dir.join(format!("{:016x}.json", crate::ports::path_hash(data_dir)))
}

/// Records this gateway (serving `root` from `data_dir`); a failure only loses it from `list`.
pub fn register(root: &Path, data_dir: &Path) {
    let Some(dir) = registry() else { return };
    let record = serde_json::json!({
        "project": root.display().to_string(),
        "data_dir": data_dir.display().to_string(),
    });
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(record_file(&dir, data_dir), record.to_string()));
    if let Err(e) = written {
        tracing::warn!(
            "cannot record the running project in {} (`supagate list` will not show it): {e}",
            dir.display()
        );
    }
}

/// Removes this gateway's record.
pub fn unregister(data_dir: &Path) {
    if let Some(dir) = registry() {
        let _ = std::fs::remove_file(record_file(&dir, data_dir));
    }
}

/// One running project.
struct Running {
    project: String,
    data_dir: PathBuf,
    pid: u32,
    values: Values,
}

/// The projects running now, by folder; records of gateways that are gone are removed.
fn running() -> Vec<Running> {
    let Some(dir) = registry() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let record = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        let field = |k: &str| {
            record
                .as_ref()
                .and_then(|r| r.get(k))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let (Some(project), Some(data_dir)) = (field("project"), field("data_dir")) else {
            continue;
        };
        let data_dir = PathBuf::from(data_dir);
        let values = std::fs::read_to_string(status::state_file(&data_dir))
            .ok()
            .and_then(|t| serde_json::from_str::<Values>(&t).ok());
        match (owner_pid(&data_dir), values) {
            (Some(pid), Some(values)) => found.push(Running {
                project,
                data_dir,
                pid,
                values,
            }),
            // Starting (not ready yet): not listed, the record stays.
            (Some(_), None) => {}
            (None, _) => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    found.sort_by(|a, b| a.project.cmp(&b.project));
    found
}

/// The URLs `list` shows of each project, in this order.
const URLS: [(&str, &str); 5] = [
    ("API_URL", "API"),
    ("DB_URL", "Database"),
    ("STUDIO_URL", "Studio"),
    ("MAILPIT_URL", "Mailpit"),
    ("FUNCTIONS_URL", "Functions"),
];

/// `list`: every running project with its URLs (`-o json`: an array of objects).
pub fn list(output: ListOutput) -> Result<(), CommandError> {
    let all = running();
    if output == ListOutput::Json {
        let rows: Vec<serde_json::Value> = all
            .iter()
            .map(|r| {
                let mut o = serde_json::Map::new();
                o.insert("project".into(), r.project.clone().into());
                o.insert("data_dir".into(), r.data_dir.display().to_string().into());
                o.insert("pid".into(), r.pid.into());
                for (k, _) in URLS {
                    if let Some(v) = r.values.get(k) {
                        o.insert(k.into(), v.clone().into());
                    }
                }
                o.into()
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("json serialises")
        );
        return Ok(());
    }
    if all.is_empty() {
        println!("No supagate project is running.");
        return Ok(());
    }
    for r in &all {
        println!("{} (pid {})", r.project, r.pid);
        for (k, name) in URLS {
            if let Some(v) = r.values.get(k) {
                println!("  {name:<10} {v}");
            }
        }
    }
    Ok(())
}

/// `stop --all`: stops every running project (all asked at once, then waited for).
pub fn stop_all() -> Result<(), CommandError> {
    let all = running();
    if all.is_empty() {
        println!("No supagate project is running.");
        return Ok(());
    }
    let mut failed = Vec::new();
    let mut asked = Vec::new();
    for r in &all {
        match status::signal_stop(r.pid) {
            Ok(()) => asked.push(r),
            Err(e) => failed.push(format!("{}: {e}", r.project)),
        }
    }
    for r in asked {
        match status::wait_stopped(r.pid) {
            Ok(()) => println!("Stopped supagate for {}.", r.project),
            Err(e) => failed.push(format!("{}: {e}", r.project)),
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CommandError::Message(failed.join("; ")))
    }
}
