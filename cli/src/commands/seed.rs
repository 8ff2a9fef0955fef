//! `seed buckets`, as the Supabase CLI's: the buckets `[storage.buckets.*]` declares created
//! or updated in the local project, and the files under each one's `objects_path` uploaded
//! (what `start` and `db reset` do for a new database, run on its own).

use super::CommandError;
use super::{Prepare, with_database};
use crate::workflow_args::SeedCommand;
use gateway::config::Config;

pub async fn run(cfg: &Config, command: SeedCommand) -> Result<(), CommandError> {
    let SeedCommand::Buckets { local: _ } = command;
    let buckets = &cfg.project.config.storage.buckets;
    if buckets.is_empty() {
        eprintln!("No buckets are declared in [storage.buckets] of supabase/config.toml.");
        return Ok(());
    }
    with_database(cfg, Prepare::UnlessRunning, async |db| {
        let c = pg::connect(&db.admin).await?;
        let existing: Vec<String> = c
            .query("select id from storage.buckets", &[])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        for name in buckets.keys() {
            if existing.contains(name) {
                eprintln!("Updating Storage bucket: {name}");
            } else {
                eprintln!("Creating Storage bucket: {name}");
            }
        }
        pg::migrate::project::sync_buckets(&c, &cfg.project).await?;
        drop(c);
        let store = super::start::open_store(cfg)?;
        for (name, b) in buckets {
            if let Some(path) = &b.objects_path {
                eprintln!("Uploading objects of {name} from supabase/{path}...");
            }
        }
        super::start::upload_seed_objects(cfg, db, store.as_ref()).await
    })
    .await?;
    println!("Finished supagate seed buckets.");
    Ok(())
}
