//! Branches: copies of the served database in the same cluster (`supagate_branch_<name>`), one
//! per test worker, each served by services of its own (the gateway routes requests that carry
//! `x-supagate-branch: <name>` to them). The registry is PostgreSQL's list of databases, so
//! every gateway on the cluster knows every branch.

use crate::snapshot::{Listed, SnapshotError, check_name, listed};
use pg::Database;
use pg::migrate::copies;
use std::time::{Duration, Instant};

/// Branch databases start with this.
pub const PREFIX: &str = "supagate_branch_";

/// Where branches are made.
pub struct Cluster {
    /// The served database's logins.
    pub db: Database,
    /// Realtime is on: a branch gets its own replication slot.
    pub slot: bool,
}

impl Cluster {
    pub fn database(name: &str) -> String {
        format!("{PREFIX}{name}")
    }

    /// Copies the served database into branch `name` (replacing one of that name). Returns how
    /// long the copy took.
    pub async fn create(&self, name: &str) -> Result<Duration, SnapshotError> {
        check_name(name)?;
        let t0 = Instant::now();
        let meta = serde_json::json!({
            "created_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        })
        .to_string();
        copies::save(&self.db, &Self::database(name), &meta, true).await?;
        let took = t0.elapsed();
        if self.slot {
            let c = pg::connect(&self.db.admin_on(&Self::database(name)))
                .await
                .map_err(|e| SnapshotError::Database(e.to_string()))?;
            pg::replication::prepare_slot(&c)
                .await
                .map_err(|e| SnapshotError::Database(e.to_string()))?;
        }
        Ok(took)
    }

    pub async fn exists(&self, name: &str) -> Result<bool, SnapshotError> {
        Ok(check_name(name).is_ok() && copies::exists(&self.db, &Self::database(name)).await?)
    }

    pub async fn remove(&self, name: &str) -> Result<(), SnapshotError> {
        check_name(name)?;
        Ok(copies::remove(&self.db, &Self::database(name)).await?)
    }

    pub async fn list(&self) -> Result<Vec<Listed>, SnapshotError> {
        listed(&self.db, PREFIX).await
    }
}
