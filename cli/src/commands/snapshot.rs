//! `snapshot save | restore | list | delete | export | import` (see `workbench::snapshot`).

use super::CommandError;
use super::{Prepare, with_database};
use crate::args::SnapshotCommand;
use gateway::config::Config;
use pg::Database;
use std::time::Instant;
use workbench::snapshot::State;

/// The project's state as the workbench sees it.
pub fn state<'a>(cfg: &'a Config, db: &'a Database) -> State<'a> {
    State {
        db,
        project: cfg.project.name(),
        data_dir: &cfg.data_dir,
        objects: (cfg.storage_backend == "file").then(|| cfg.data_dir.join("storage")),
        slot: cfg.realtime_enabled,
        bin_dir: super::pg_programs(cfg),
    }
}

pub async fn run(cfg: &Config, command: SnapshotCommand) -> Result<(), CommandError> {
    if !cfg.embedded() {
        return Err(CommandError::Message(
            "snapshots are kept in the embedded cluster; they never touch a DATABASE_URL server"
                .into(),
        ));
    }
    with_database(cfg, Prepare::UnlessRunning, async |db| {
        let s = state(cfg, db);
        let t0 = Instant::now();
        let ms = || t0.elapsed().as_millis();
        match command {
            SnapshotCommand::Save { name } => {
                s.save(&name).await?;
                println!("Saved snapshot {name} in {} ms.", ms());
            }
            SnapshotCommand::Restore { name } => {
                s.restore(&name).await?;
                println!("Restored snapshot {name} in {} ms.", ms());
            }
            SnapshotCommand::Delete { name } => {
                s.delete(&name).await?;
                println!("Deleted snapshot {name}.");
            }
            SnapshotCommand::List => {
                let all = s.list().await?;
                if all.is_empty() {
                    println!("No snapshots. Save one with: supagate snapshot save NAME");
                }
                for l in all {
                    println!(
                        "{:<40} {:<22} {:>8.1} MB",
                        l.name,
                        l.created_at.unwrap_or_default(),
                        l.bytes as f64 / 1e6
                    );
                }
            }
            SnapshotCommand::Export { dir } => {
                s.export(&dir).await?;
                println!("Exported the state to {} in {} ms.", dir.display(), ms());
            }
            SnapshotCommand::Import { dir } => {
                s.import(&dir).await?;
                println!("Imported {} in {} ms.", dir.display(), ms());
            }
        }
        Ok(())
    })
    .await
}
