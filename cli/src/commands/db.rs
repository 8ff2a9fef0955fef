//! `db reset` and `migration new`.

use super::{Prepare, with_database};
use gateway::config::Config;
use pg::migrate::template;
use std::time::Instant;

pub async fn reset(cfg: &Config) -> Result<(), String> {
    if !cfg.embedded() {
        return Err(
            "db reset rebuilds the embedded database; it never touches a DATABASE_URL server"
                .into(),
        );
    }
    with_database(cfg, Prepare::Never, async |db| {
        let t0 = Instant::now();
        template::reset(&cfg.project, db, cfg.realtime_enabled)
            .await
            .map_err(|e| e.to_string())?;
        // Bytes of the old database's objects mean nothing now.
        if cfg.storage_backend == "file" {
            let versions = cfg.data_dir.join("storage/versions");
            if versions.exists() {
                std::fs::remove_dir_all(&versions)
                    .map_err(|e| format!("cannot clear {}: {e}", versions.display()))?;
            }
        }
        let store = super::start::open_store(cfg)?;
        super::start::upload_seed_objects(cfg, db, store.as_ref()).await?;
        println!(
            "Reset the database of {} in {} ms.",
            cfg.project.name(),
            t0.elapsed().as_millis()
        );
        Ok(())
    })
    .await
}

pub fn new_migration(cfg: &Config, name: &str) -> Result<(), String> {
    let stamp = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let path = cfg
        .project
        .new_migration(name, &stamp)
        .map_err(|e| e.to_string())?;
    println!("Created new migration at {}", cfg.project.relative(&path));
    Ok(())
}
