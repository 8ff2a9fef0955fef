//! `gen types typescript`.

use super::{Prepare, with_database};
use gateway::config::Config;
use pg::connect;

pub async fn types(cfg: &Config, schemas: Vec<String>) -> Result<(), String> {
    // As the CLI: public and the API's schemas unless told which.
    let schemas = if schemas.is_empty() {
        let mut s = vec!["public".to_string()];
        s.extend(cfg.schemas.iter().cloned());
        s
    } else {
        schemas
    };
    with_database(cfg, Prepare::UnlessRunning, async |db| {
        let c = connect(&db.admin).await?;
        let ts = typegen::generate(&c, &schemas)
            .await
            .map_err(|e| e.to_string())?;
        print!("{ts}");
        Ok(())
    })
    .await
}
