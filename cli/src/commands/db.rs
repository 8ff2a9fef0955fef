//! `db reset` and `migration new`.

use super::CommandError;
use super::{Prepare, with_database};
use gateway::config::Config;
use pg::migrate::template;
use std::time::Instant;

pub async fn reset(cfg: &Config) -> Result<(), CommandError> {
    if !cfg.embedded() {
        return Err(CommandError::Message(
            "db reset rebuilds the embedded database; it never touches a DATABASE_URL server"
                .into(),
        ));
    }
    with_database(cfg, Prepare::Never, async |db| {
        let t0 = Instant::now();
        template::reset(&cfg.project, db, cfg.realtime_enabled).await?;
        // Bytes of the old database's objects mean nothing now.
        if cfg.storage_backend == "file" {
            let versions = cfg.data_dir.join("storage/versions");
            if versions.exists() {
                std::fs::remove_dir_all(&versions).map_err(|e| {
                    CommandError::io(format!("cannot clear {}", versions.display()), e)
                })?;
            }
        }
        let store = super::start::open_store(cfg)?;
        // What the tidying runs is worked out while the seed's objects are uploaded.
        let (uploaded, left) = tokio::join!(
            super::start::upload_seed_objects(cfg, db, store.as_ref()),
            tidy_plan(cfg, db)
        );
        uploaded?;
        println!(
            "Reset the database of {} in {} ms.",
            cfg.project.name(),
            t0.elapsed().as_millis()
        );
        tidy(cfg, db, left).await;
        Ok(())
    })
    .await
}

/// What a psql left running is to do after the reset when a running gateway owns the cluster
/// (see [`tidy`]), and that psql; None when this command runs the cluster itself.
async fn tidy_plan(cfg: &Config, db: &pg::Database) -> Option<(Vec<String>, std::path::PathBuf)> {
    if db.embedded.is_some() {
        return None;
    }
    let c = pg::connect(&db.admin_on("template1")).await.ok()?;
    let statements = template::tidy_statements(&c, Some(&cfg.project))
        .await
        .unwrap_or_default();
    Some((statements, super::pg_programs(cfg).join("psql")))
}

/// What is left after a reset (the old database dropped, a clone made ahead of the next reset:
/// [`template::tidy_statements`]): done here when this command runs the cluster itself, else by
/// a psql left running on its own (`left`, from [`tidy_plan`]), so that the command ends without
/// waiting for it (what it does not get done, the next `start` or reset does).
async fn tidy(cfg: &Config, db: &pg::Database, left: Option<(Vec<String>, std::path::PathBuf)>) {
    if db.embedded.is_some() {
        if let Err(e) = template::tidy(db, Some(&cfg.project)).await {
            tracing::warn!("could not drop the reset's old database: {e}");
        }
        return;
    }
    let Some((statements, psql)) = left else {
        return;
    };
    if statements.is_empty() {
        return;
    }
    let mut psql = std::process::Command::new(psql);
    psql.args(["-X", "-q", "-d", &db.url_of("template1")]);
    // Named from its connection on, not from its first statement: a reset that starts at once
    // must see what it is doing (see template::TIDY_APP).
    psql.env("PGAPPNAME", template::TIDY_APP);
    for s in &statements {
        psql.arg("-c").arg(s);
    }
    use std::os::unix::process::CommandExt;
    let spawned = psql
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        tracing::debug!("psql to tidy after the reset: {e}; the next start does it");
    }
}

pub fn new_migration(cfg: &Config, name: &str) -> Result<(), CommandError> {
    let stamp = chrono::Utc::now().format("%Y%m%d%H%M%S").to_string();
    let path = cfg.project.new_migration(name, &stamp)?;
    println!("Created new migration at {}", cfg.project.relative(&path));
    Ok(())
}
