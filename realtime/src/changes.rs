//! Change capture: one gateway at a time (the holder of an advisory lock) reads the database's
//! logical replication slot with the built-in `pgoutput` plugin, turns committed row changes of
//! tables in the `supabase_realtime` publication into Supabase's change payloads and records
//! them in `realtime.supagate_changes` for every gateway to deliver. The slot survives restarts:
//! what was committed while no gateway read it is delivered when one does. The slot is advanced
//! only past what was recorded, and a change recorded twice (a crash between the two) is skipped
//! by its commit position.

use super::pgoutput::{self, Datum, Message, Relation, Relations};
use super::values::{self, TypeInfo};
use super::{ChangesStatus, Realtime, bus};
use crate::error::RealtimeError;
use futures_util::{StreamExt, pin_mut};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::Client;

/// The advisory lock the capturing gateway holds (per database).
const LEADER_LOCK: i64 = 0x5347_5254;
const POLL: Duration = Duration::from_millis(100);
/// Messages read per poll (whole transactions: a larger one is read whole).
const BATCH: i32 = 5000;
/// Changes of one transaction sent at most; the rest are reported and skipped.
const MAX_PER_TRANSACTION: usize = 10_000;

async fn connect(rt: &Realtime) -> Result<Client, RealtimeError> {
    let client = rt.admin.connect().await?;
    client
        .batch_execute(
            "SET application_name = 'supagate realtime'; SET TimeZone = 'UTC'; \
             SET statement_timeout = 0",
        )
        .await?;
    Ok(client)
}

/// Starts capture: the first attempt at leadership waits (up to a few seconds) for the slot so
/// that a gateway reporting ready does not miss the changes that follow.
pub async fn start(rt: Arc<Realtime>) {
    let first = tokio::time::timeout(Duration::from_secs(5), become_leader(&rt)).await;
    let leader = match first {
        Ok(Ok(Some(c))) => Some(c),
        Ok(Ok(None)) => None,
        Ok(Err(e)) => {
            tracing::warn!("realtime: change capture not ready yet: {e}");
            None
        }
        Err(_) => {
            tracing::warn!("realtime: the replication slot is taking long to create; continuing");
            None
        }
    };
    tokio::spawn(async move {
        let mut leader = leader;
        loop {
            if let Some(c) = leader.take()
                && let Err(e) = capture(&rt, &c).await
            {
                tracing::warn!("realtime: change capture stopped: {e}");
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
            match become_leader(&rt).await {
                Ok(c) => leader = c,
                Err(e) => tracing::debug!("realtime: change capture: {e}"),
            }
        }
    });
}

/// Some(connection holding the lock, slot ready) when this gateway is to capture changes.
async fn become_leader(rt: &Realtime) -> Result<Option<Client>, RealtimeError> {
    let c = connect(rt).await?;
    let locked: bool = c
        .query_one("SELECT pg_try_advisory_lock($1)", &[&LEADER_LOCK])
        .await?
        .get(0);
    if !locked {
        // Another gateway captures; this one delivers what it records.
        if rt.changes_status() == ChangesStatus::Starting {
            rt.set_changes_status(ChangesStatus::Ready);
        }
        return Ok(None);
    }
    match pg::replication::ensure_slot(&c, &rt.slot).await {
        Ok(true) => {
            rt.set_changes_status(ChangesStatus::Ready);
            Ok(Some(c))
        }
        Ok(false) => {
            let why = "database changes are not available: the server's wal_level is not \
                       logical (set wal_level = logical and restart PostgreSQL)";
            if rt.changes_status() != ChangesStatus::Unavailable(why.into()) {
                tracing::warn!("realtime: {why}");
            }
            rt.set_changes_status(ChangesStatus::Unavailable(why.into()));
            Ok(None)
        }
        Err(e) => {
            rt.set_changes_status(ChangesStatus::Unavailable(e.to_string()));
            Err(e.into())
        }
    }
}

/// A transaction being read.
struct Txn {
    commit_time: i64,
    changes: Vec<Value>,
    dropped: usize,
}

/// Type names and element types, looked up once.
#[derive(Default)]
struct Catalog {
    types: HashMap<u32, TypeInfo>,
}

impl Catalog {
    async fn learn(&mut self, c: &Client, rel: &Relation) -> Result<(), RealtimeError> {
        let mut missing: Vec<u32> = rel
            .columns
            .iter()
            .map(|col| col.type_oid)
            .filter(|o| !self.types.contains_key(o))
            .collect();
        while !missing.is_empty() {
            let rows = c
                .query(
                    "SELECT oid, typname::text, typelem FROM pg_type WHERE oid = ANY($1)",
                    &[&missing],
                )
                .await?;
            missing.clear();
            for r in rows {
                let (oid, name, elem): (u32, String, u32) = (r.get(0), r.get(1), r.get(2));
                if elem != 0 && !self.types.contains_key(&elem) {
                    missing.push(elem);
                }
                self.types.insert(oid, TypeInfo { name, elem });
            }
        }
        Ok(())
    }

    fn name(&self, oid: u32) -> String {
        self.types
            .get(&oid)
            .map(|t| t.name.clone())
            .unwrap_or_else(|| oid.to_string())
    }
}

/// `2026-11-22T11:34:10.064Z` from microseconds since 2000-01-01.
fn commit_timestamp(micros: i64) -> String {
    const EPOCH_2000: i64 = 946_684_800;
    let t = chrono::DateTime::from_timestamp_micros(micros + EPOCH_2000 * 1_000_000)
        .unwrap_or_default();
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

fn record(
    rel: &Relation,
    tuple: &[Datum],
    catalog: &Catalog,
    keys_only: bool,
) -> Map<String, Value> {
    let types = |oid: u32| catalog.types.get(&oid).cloned();
    rel.columns
        .iter()
        .zip(tuple)
        .filter(|(col, _)| !keys_only || col.key)
        .filter_map(|(col, d)| {
            let v = match d {
                Datum::Null => Value::Null,
                Datum::Unchanged => return None,
                Datum::Text(t) => values::to_json(t, col.type_oid, &types),
            };
            Some((col.name.clone(), v))
        })
        .collect()
}

/// The payload Supabase Realtime sends for a change (`ids` are added per subscriber), plus the
/// primary key and row level security flag delivery needs.
fn change(
    rel: &Relation,
    kind: &str,
    new: Option<&[Datum]>,
    old: Option<(&[Datum], bool)>,
    commit_time: i64,
    catalog: &Catalog,
    rls: bool,
) -> Value {
    let columns: Vec<Value> = rel
        .columns
        .iter()
        .map(|c| json!({"name": c.name, "type": catalog.name(c.type_oid)}))
        .collect();
    let mut rec = new.map(|t| record(rel, t, catalog, false));
    let mut old_rec = match (old, kind) {
        // The whole old row (replica identity full), or only its key.
        (Some((t, whole)), _) => Some(record(rel, t, catalog, !whole)),
        // An update that kept the key: wal2json (Supabase's decoder) names the key.
        (None, "UPDATE") => rec.as_ref().map(|r| {
            rel.columns
                .iter()
                .filter(|c| c.key)
                .filter_map(|c| r.get(&c.name).map(|v| (c.name.clone(), v.clone())))
                .collect()
        }),
        _ => None,
    };
    // Unchanged TOASTed values are not sent; the old row has them when it is whole.
    if let (Some(r), Some(o)) = (rec.as_mut(), old_rec.as_ref()) {
        for col in &rel.columns {
            if !r.contains_key(&col.name)
                && let Some(v) = o.get(&col.name)
            {
                r.insert(col.name.clone(), v.clone());
            }
        }
    }
    // Deletes cannot be checked against RLS: their old record keeps the key only.
    if kind == "DELETE"
        && rls
        && let Some(o) = old_rec.as_mut()
    {
        let keys: Vec<&str> = rel
            .columns
            .iter()
            .filter(|c| c.key)
            .map(|c| c.name.as_str())
            .collect();
        o.retain(|k, _| keys.contains(&k.as_str()));
    }
    let key_source = if kind == "DELETE" { &old_rec } else { &rec };
    let pk: Map<String, Value> = rel
        .columns
        .iter()
        .filter(|c| c.key)
        .filter_map(|c| {
            key_source
                .as_ref()
                .and_then(|r| r.get(&c.name))
                .map(|v| (c.name.clone(), v.clone()))
        })
        .collect();
    let mut out = json!({
        "schema": rel.schema,
        "table": rel.name,
        "commit_timestamp": commit_timestamp(commit_time),
        "type": kind,
        "columns": columns,
        "errors": null,
        "pk": pk,
    });
    if let Some(r) = rec {
        out["record"] = Value::Object(r);
    }
    if kind != "INSERT" {
        out["old_record"] = Value::Object(old_rec.unwrap_or_default());
    }
    out
}

async fn rls_enabled(c: &Client, cache: &mut HashMap<u32, bool>, rel: u32) -> bool {
    if let Some(v) = cache.get(&rel) {
        return *v;
    }
    let v = c
        .query_opt(
            "SELECT relrowsecurity FROM pg_class WHERE oid = $1",
            &[&rel],
        )
        .await
        .ok()
        .flatten()
        .is_some_and(|r| r.get(0));
    cache.insert(rel, v);
    v
}

/// Reads the slot until the connection fails.
async fn capture(rt: &Realtime, c: &Client) -> Result<(), RealtimeError> {
    let mut catalog = Catalog::default();
    let mut recorded_upto: Option<String> = c
        .query_one("SELECT max(lsn)::text FROM realtime.supagate_changes", &[])
        .await?
        .get(0);
    let mut last_prune = std::time::Instant::now();
    // The WAL position an empty peek last advanced the slot to (idle polls need not repeat it).
    let mut advanced: Option<String> = None;
    loop {
        let mut relations = Relations::default();
        let mut rls: HashMap<u32, bool> = HashMap::new();
        let mut open: Option<Txn> = None;
        let mut done: Vec<(String, Vec<Value>)> = Vec::new();
        let mut advance_to: Option<String> = None;
        // Where the WAL ended before this peek. A peek that yields nothing has decoded all WAL
        // up to there without a change to publish (a bulk load of unpublished tables, which
        // pgoutput skips whole): the slot moves past it, or every poll would decode it again.
        let wal_end: String = c
            .query_one("SELECT pg_current_wal_lsn()::text", &[])
            .await?
            .get(0);
        let mut yielded = false;
        let rows = c
            .query_raw(
                "SELECT lsn::text, data FROM pg_logical_slot_peek_binary_changes($1, NULL, $2, \
                 'proto_version', '1', 'publication_names', 'supabase_realtime')",
                [
                    &rt.slot as &(dyn tokio_postgres::types::ToSql + Sync),
                    &BATCH,
                ],
            )
            .await?;
        pin_mut!(rows);
        while let Some(row) = rows.next().await {
            let row = row?;
            yielded = true;
            let lsn: String = row.get(0);
            let data: &[u8] = row.get(1);
            let msg = pgoutput::parse(data)?;
            match msg {
                Message::Begin { commit_time, .. } => {
                    open = Some(Txn {
                        commit_time,
                        changes: Vec::new(),
                        dropped: 0,
                    })
                }
                Message::Relation(r) => {
                    catalog.learn(c, &r).await?;
                    relations.insert(r);
                }
                Message::Insert { rel, new } => {
                    push(
                        c,
                        &relations,
                        &catalog,
                        &mut rls,
                        open.as_mut(),
                        rel,
                        "INSERT",
                        Some(&new),
                        None,
                    )
                    .await
                }
                Message::Update { rel, old, new } => {
                    let whole = relations
                        .get(rel)
                        .is_some_and(|r| r.replica_identity == b'f');
                    push(
                        c,
                        &relations,
                        &catalog,
                        &mut rls,
                        open.as_mut(),
                        rel,
                        "UPDATE",
                        Some(&new),
                        old.as_deref().map(|o| (o, whole)),
                    )
                    .await
                }
                Message::Delete { rel, old } => {
                    let whole = relations
                        .get(rel)
                        .is_some_and(|r| r.replica_identity == b'f');
                    push(
                        c,
                        &relations,
                        &catalog,
                        &mut rls,
                        open.as_mut(),
                        rel,
                        "DELETE",
                        None,
                        Some((&old, whole)),
                    )
                    .await
                }
                Message::Commit { .. } => {
                    if let Some(t) = open.take() {
                        if t.dropped > 0 {
                            tracing::warn!(
                                "realtime: a transaction changed {} rows; only the first {MAX_PER_TRANSACTION} were sent",
                                t.changes.len() + t.dropped
                            );
                        }
                        if !t.changes.is_empty() {
                            done.push((lsn.clone(), t.changes));
                        }
                    }
                    advance_to = Some(lsn);
                }
                Message::Other => {}
            }
        }
        let Some(upto) = advance_to else {
            if !yielded && advanced.as_ref() != Some(&wal_end) {
                c.execute(
                    "SELECT pg_replication_slot_advance($1, $2::text::pg_lsn)",
                    &[&rt.slot, &wal_end],
                )
                .await?;
                advanced = Some(wal_end);
            }
            if last_prune.elapsed() > Duration::from_secs(10) {
                prune(c).await?;
                last_prune = std::time::Instant::now();
            }
            let _ = tokio::time::timeout(POLL, rt.wake_capture.notified()).await;
            continue;
        };
        let (lsns, payloads): (Vec<String>, Vec<Value>) = done
            .into_iter()
            .flat_map(|(lsn, changes)| changes.into_iter().map(move |p| (lsn.clone(), p)))
            .unzip();
        if !payloads.is_empty() {
            c.batch_execute("BEGIN").await?;
            let inserted = c
                .execute(
                    "INSERT INTO realtime.supagate_changes (lsn, payload) \
                     SELECT l::pg_lsn, p FROM unnest($1::text[], $2::jsonb[]) AS t(l, p) \
                     WHERE $3::text IS NULL OR l::pg_lsn > $3::text::pg_lsn",
                    &[&lsns, &payloads, &recorded_upto],
                )
                .await;
            let notified = bus::changes_recorded(c).await;
            match inserted.and(notified) {
                Ok(_) => c.batch_execute("COMMIT").await?,
                Err(e) => {
                    let _ = c.batch_execute("ROLLBACK").await;
                    return Err(e.into());
                }
            }
            recorded_upto = lsns.last().cloned();
        }
        c.execute(
            "SELECT pg_replication_slot_advance($1, $2::text::pg_lsn)",
            &[&rt.slot, &upto],
        )
        .await?;
    }
}

#[allow(clippy::too_many_arguments)]
async fn push(
    c: &Client,
    relations: &Relations,
    catalog: &Catalog,
    rls: &mut HashMap<u32, bool>,
    txn: Option<&mut Txn>,
    rel: u32,
    kind: &str,
    new: Option<&[Datum]>,
    old: Option<(&[Datum], bool)>,
) {
    let (Some(txn), Some(r)) = (txn, relations.get(rel)) else {
        return;
    };
    if txn.changes.len() >= MAX_PER_TRANSACTION {
        txn.dropped += 1;
        return;
    }
    let on = rls_enabled(c, rls, rel).await;
    txn.changes
        .push(change(r, kind, new, old, txn.commit_time, catalog, on));
}

/// Recorded changes are kept a minute; stored broadcasts three days, as Supabase keeps them.
async fn prune(c: &Client) -> Result<(), RealtimeError> {
    c.batch_execute(
        "DELETE FROM realtime.supagate_changes WHERE created_at < now() - interval '1 minute';
         DELETE FROM realtime.messages WHERE inserted_at < now() - interval '3 days'",
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::pgoutput::RelColumn;
    use super::*;

    fn rel(identity: u8) -> Relation {
        let col = |name: &str, type_oid: u32, key: bool| RelColumn {
            name: name.into(),
            type_oid,
            key,
        };
        Relation {
            id: 1,
            schema: "public".into(),
            name: "todos".into(),
            replica_identity: identity,
            columns: vec![
                col("id", 20, true),
                col("task", 25, false),
                col("done", 16, false),
            ],
        }
    }

    fn t(v: &str) -> Datum {
        Datum::Text(v.into())
    }

    #[test]
    fn payloads_are_shaped_as_supabase_sends_them() {
        let cat = Catalog::default();
        let r = rel(b'd');
        let ins = change(
            &r,
            "INSERT",
            Some(&[t("1"), t("a"), t("f")]),
            None,
            0,
            &cat,
            false,
        );
        assert_eq!(ins["record"], json!({"id": 1, "task": "a", "done": false}));
        assert_eq!(ins["commit_timestamp"], "2000-01-01T00:00:00.000Z");
        assert!(ins.get("old_record").is_none());
        assert_eq!(ins["pk"], json!({"id": 1}));
        let up = change(
            &r,
            "UPDATE",
            Some(&[t("1"), t("b"), Datum::Unchanged]),
            None,
            0,
            &cat,
            false,
        );
        assert_eq!(up["old_record"], json!({"id": 1}));
        assert_eq!(up["record"], json!({"id": 1, "task": "b"}));
        let full = rel(b'f');
        let old = [t("1"), t("a"), t("t")];
        let del = change(&full, "DELETE", None, Some((&old, true)), 0, &cat, false);
        assert_eq!(
            del["old_record"],
            json!({"id": 1, "task": "a", "done": true})
        );
        assert_eq!(del["pk"], json!({"id": 1}));
        let del_rls = change(&full, "DELETE", None, Some((&old, true)), 0, &cat, true);
        assert_eq!(del_rls["old_record"], json!({"id": 1}));
        let key = [t("1"), Datum::Null, Datum::Null];
        let del_key = change(&r, "DELETE", None, Some((&key, false)), 0, &cat, false);
        assert_eq!(del_key["old_record"], json!({"id": 1}));
    }
}
