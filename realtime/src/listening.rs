//! Which tables change subscribers listen to, shared through the database
//! (`realtime.supagate_listening`, one row per gateway) so that the capturing gateway decodes and
//! records only changes someone may receive.
//!
//! A gateway writes its row before it confirms a subscription to a table its row did not name,
//! and renews it every [`RENEW`] while it has subscribers; a row counts for [`KEEP_SECS`] after
//! its last renewal, so subscribers reconnecting to another gateway after one stops are still
//! counted meanwhile. Capture reads the rows after the slot's changes were decoded by the
//! server: a subscription confirmed before a change committed is therefore seen.

use super::Realtime;
use super::hub::{Binding, Channel};
use crate::error::RealtimeError;
use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::Client;

/// How often a gateway with subscribers renews its row.
pub(crate) const RENEW: Duration = Duration::from_secs(10);
/// How long a row counts after it was written.
const KEEP_SECS: f64 = 30.0;

/// (schema, table) pairs; `*` for all.
pub(crate) type Tables = BTreeSet<(String, String)>;

fn of_binding(b: &Binding) -> (String, String) {
    (
        b.schema.clone(),
        b.table.clone().unwrap_or_else(|| "*".into()),
    )
}

/// What `channels` listen to.
pub(crate) fn tables_of(channels: &[Arc<Channel>]) -> Tables {
    channels
        .iter()
        .flat_map(|c| c.bindings.iter().map(of_binding))
        .collect()
}

/// Writes this gateway's row (or removes it when nothing is listened to).
async fn write(rt: &Realtime, tables: &Tables) -> Result<(), RealtimeError> {
    let c = rt.db.get().await?;
    if tables.is_empty() {
        c.execute(
            "DELETE FROM realtime.supagate_listening WHERE replica = $1",
            &[&rt.replica],
        )
        .await?;
    } else {
        let (schemas, names): (Vec<&str>, Vec<&str>) =
            tables.iter().map(|(s, t)| (s.as_str(), t.as_str())).unzip();
        c.execute(
            "INSERT INTO realtime.supagate_listening (replica, schemas, tables, until)
             VALUES ($1, $2, $3, now() + make_interval(secs => $4))
             ON CONFLICT (replica) DO UPDATE
               SET schemas = EXCLUDED.schemas, tables = EXCLUDED.tables, until = EXCLUDED.until",
            &[&rt.replica, &schemas, &names, &KEEP_SECS],
        )
        .await?;
    }
    Ok(())
}

/// Before a subscription with `bindings` is confirmed: the row names their tables.
pub(crate) async fn announce(rt: &Realtime, bindings: &[Binding]) -> Result<(), RealtimeError> {
    let new: Vec<_> = bindings.iter().map(of_binding).collect();
    let mut written = rt.listening.lock().await;
    if new.iter().all(|t| written.contains(t)) {
        return Ok(());
    }
    let mut all = tables_of(&rt.hub.change_listeners());
    all.extend(written.iter().cloned());
    all.extend(new);
    write(rt, &all).await?;
    *written = all;
    Ok(())
}

/// Renews the row with what is listened to now (every [`RENEW`]).
pub(crate) async fn renew(rt: &Realtime) -> Result<(), RealtimeError> {
    let now = tables_of(&rt.hub.change_listeners());
    let mut written = rt.listening.lock().await;
    if now.is_empty() && written.is_empty() {
        return Ok(());
    }
    write(rt, &now).await?;
    *written = now;
    Ok(())
}

/// The tables some gateway listens to.
pub(crate) struct Interest {
    all_schemas: bool,
    schemas: HashSet<String>,
    tables: HashSet<(String, String)>,
}

impl Interest {
    pub(crate) async fn read(c: &Client) -> Result<Interest, RealtimeError> {
        let rows = c
            .query(
                "SELECT s, t FROM realtime.supagate_listening, unnest(schemas, tables) AS u(s, t)
                 WHERE until > now()",
                &[],
            )
            .await?;
        let mut i = Interest {
            all_schemas: false,
            schemas: HashSet::new(),
            tables: HashSet::new(),
        };
        for r in rows {
            let (s, t): (String, String) = (r.get(0), r.get(1));
            match (s.as_str(), t.as_str()) {
                ("*", _) => i.all_schemas = true,
                (_, "*") => {
                    i.schemas.insert(s);
                }
                _ => {
                    i.tables.insert((s, t));
                }
            }
        }
        Ok(i)
    }

    pub(crate) fn wants(&self, schema: &str, table: &str) -> bool {
        self.all_schemas
            || self.schemas.contains(schema)
            || self
                .tables
                .contains(&(schema.to_string(), table.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_cover_schemas_and_tables() {
        let i = Interest {
            all_schemas: false,
            schemas: ["audit".to_string()].into(),
            tables: [("public".to_string(), "orders".to_string())].into(),
        };
        let cases = [
            ("public", "orders", true),
            ("public", "products", false),
            ("audit", "anything", true),
            ("private", "orders", false),
        ];
        for (schema, table, wanted) in cases {
            assert_eq!(i.wants(schema, table), wanted, "{schema}.{table}");
        }
        let every = Interest {
            all_schemas: true,
            ..i
        };
        assert!(every.wants("private", "orders"));
    }
}
