//! A change as Supabase Realtime sends it, from pgoutput's messages: the record and old
//! record as `to_jsonb` gives them, the columns with their type names, the commit time, and
//! what delivery needs: the key columns (`pk`) and the committed row as PostgreSQL wrote it
//! (`row`: each column's text or null), against which row level security is decided.
//!
//! A transaction with more changes than the configured limit is not sent change by change: it
//! becomes one overflow record per table it touched, which delivery turns into a system message
//! to each subscriber of that table.

use super::listening::Interest;
use super::pgoutput::{Datum, Relation, Relations};
use super::values::{self, TypeInfo};
use crate::error::RealtimeError;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use tokio_postgres::Client;

/// A transaction being read.
pub(crate) struct Txn {
    commit_time: i64,
    pub changes: Vec<Value>,
    /// Past the limit: the changes per table, instead of the changes.
    overflow: Option<Vec<(String, String, usize)>>,
}

impl Txn {
    fn count(&mut self, schema: &str, table: &str) {
        let per_table = self.overflow.get_or_insert_with(Vec::new);
        match per_table
            .iter_mut()
            .find(|(s, t, _)| s == schema && t == table)
        {
            Some((_, _, n)) => *n += 1,
            None => per_table.push((schema.to_string(), table.to_string(), 1)),
        }
    }
}

/// Type names and element types, looked up once.
#[derive(Default)]
pub(crate) struct Catalog {
    types: HashMap<u32, TypeInfo>,
}

impl Catalog {
    pub async fn learn(&mut self, c: &Client, rel: &Relation) -> Result<(), RealtimeError> {
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

/// What delivery needs of a table beyond pgoutput's relation message.
#[derive(Debug, Clone, Default)]
pub(crate) struct TableInfo {
    /// Row level security is on.
    pub rls: bool,
    /// The primary key's columns (none when the table has no primary key).
    pub primary: Vec<String>,
}

impl TableInfo {
    async fn load(c: &Client, rel: u32) -> Result<TableInfo, RealtimeError> {
        let row = c
            .query_opt(
                "SELECT c.relrowsecurity,
                        ARRAY(SELECT a.attname::text FROM pg_index i
                              JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                              WHERE i.indrelid = c.oid AND i.indisprimary ORDER BY a.attnum)
                 FROM pg_class c WHERE c.oid = $1",
                &[&rel],
            )
            .await?;
        Ok(row.map_or_else(TableInfo::default, |r| TableInfo {
            rls: r.get(0),
            primary: r.get(1),
        }))
    }
}

/// The columns that name a row: the primary key; without one, the replica identity's index;
/// none when neither exists.
fn key_columns<'r>(rel: &'r Relation, table: &'r TableInfo) -> Vec<&'r str> {
    if !table.primary.is_empty() {
        return table.primary.iter().map(String::as_str).collect();
    }
    if rel.replica_identity == b'f' {
        return Vec::new();
    }
    rel.columns
        .iter()
        .filter(|c| c.key)
        .map(|c| c.name.as_str())
        .collect()
}

/// The committed row as PostgreSQL wrote it: each column's text, or null. A value the change
/// left out (unchanged TOAST) comes from the whole old row when there is one; without one it is
/// left out (unknown).
fn row_texts(rel: &Relation, tuple: &[Datum], whole_old: Option<&[Datum]>) -> Map<String, Value> {
    rel.columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let d = match tuple.get(i) {
                Some(Datum::Unchanged) | None => whole_old.and_then(|o| o.get(i)),
                d => d,
            };
            let v = match d? {
                Datum::Text(t) => Value::String(t.clone()),
                Datum::Null => Value::Null,
                Datum::Unchanged => return None,
            };
            Some((c.name.clone(), v))
        })
        .collect()
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
/// key columns and the committed row delivery needs.
fn change(
    rel: &Relation,
    table: &TableInfo,
    kind: &str,
    new: Option<&[Datum]>,
    old: Option<(&[Datum], bool)>,
    commit_time: i64,
    catalog: &Catalog,
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
    let keys = key_columns(rel, table);
    // Deletes cannot be checked against RLS: their old record keeps the key only.
    if kind == "DELETE"
        && table.rls
        && let Some(o) = old_rec.as_mut()
    {
        o.retain(|k, _| keys.contains(&k.as_str()));
    }
    let whole_old = old.filter(|(_, whole)| *whole).map(|(t, _)| t);
    let committed = match (new, old) {
        (Some(t), _) | (None, Some((t, _))) => row_texts(rel, t, whole_old),
        (None, None) => Map::new(),
    };
    let mut out = json!({
        "schema": rel.schema,
        "table": rel.name,
        "commit_timestamp": commit_timestamp(commit_time),
        "type": kind,
        "columns": columns,
        "errors": null,
        "pk": keys,
        "row": committed,
    });
    if let Some(r) = rec {
        out["record"] = Value::Object(r);
    }
    if kind != "INSERT" {
        out["old_record"] = Value::Object(old_rec.unwrap_or_default());
    }
    out
}

/// One peek's decoding: the relations announced so far, what delivery needs of their tables,
/// and the transaction being read.
pub(crate) struct Decoder<'a> {
    c: &'a Client,
    /// Changes of one transaction sent one by one at most.
    limit: usize,
    catalog: &'a mut Catalog,
    relations: Relations,
    tables: HashMap<u32, TableInfo>,
    open: Option<Txn>,
    /// The tables someone listens to (None: all); other tables' changes are left out.
    interest: Option<Interest>,
}

impl<'a> Decoder<'a> {
    /// Leaves out from now on the changes of tables `interest` does not name.
    pub fn only(&mut self, interest: Interest) {
        self.interest = Some(interest);
    }

    pub fn new(c: &'a Client, catalog: &'a mut Catalog, limit: usize) -> Self {
        Decoder {
            c,
            limit,
            catalog,
            relations: Relations::default(),
            tables: HashMap::new(),
            open: None,
            interest: None,
        }
    }

    pub fn begin(&mut self, commit_time: i64) {
        self.open = Some(Txn {
            commit_time,
            changes: Vec::new(),
            overflow: None,
        });
    }

    pub async fn relation(&mut self, r: Relation) -> Result<(), RealtimeError> {
        self.catalog.learn(self.c, &r).await?;
        self.tables
            .insert(r.id, TableInfo::load(self.c, r.id).await?);
        self.relations.insert(r);
        Ok(())
    }

    /// A row change of relation `rel`: its new tuple, and the old key or row when sent.
    pub fn row(&mut self, rel: u32, kind: &str, new: Option<&[Datum]>, old: Option<&[Datum]>) {
        let (Some(txn), Some(r)) = (self.open.as_mut(), self.relations.get(rel)) else {
            return;
        };
        if self
            .interest
            .as_ref()
            .is_some_and(|i| !i.wants(&r.schema, &r.name))
        {
            return;
        }
        if txn.overflow.is_some() || txn.changes.len() >= self.limit {
            // Too many: from now on only counted per table (the ones kept so far too).
            for c in std::mem::take(&mut txn.changes) {
                let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                txn.count(&s("schema"), &s("table"));
            }
            txn.count(&r.schema, &r.name);
            return;
        }
        let whole = r.replica_identity == b'f';
        let none = TableInfo::default();
        txn.changes.push(change(
            r,
            self.tables.get(&rel).unwrap_or(&none),
            kind,
            new,
            old.map(|o| (o, whole)),
            txn.commit_time,
            self.catalog,
        ));
    }

    /// The transaction that committed (None if its begin was not seen): its changes, or past
    /// the limit one overflow record per table it touched.
    pub fn commit(&mut self) -> Option<Txn> {
        let mut t = self.open.take()?;
        if let Some(per_table) = t.overflow.take() {
            let total: usize = per_table.iter().map(|(_, _, n)| n).sum();
            tracing::warn!(
                "realtime: a transaction changed {total} rows, more than the {} sent one by one: \
                 subscribers of its tables are told so instead",
                self.limit
            );
            t.changes = per_table
                .into_iter()
                .map(|(schema, table, count)| {
                    json!({
                        "overflow": count,
                        "schema": schema,
                        "table": table,
                        "commit_timestamp": commit_timestamp(t.commit_time),
                    })
                })
                .collect();
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgoutput::RelColumn;

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

    fn keyed(rls: bool) -> TableInfo {
        TableInfo {
            rls,
            primary: vec!["id".into()],
        }
    }

    #[test]
    fn payloads_are_shaped_as_supabase_sends_them() {
        let cat = Catalog::default();
        let r = rel(b'd');
        let t0 = keyed(false);
        let ins = change(
            &r,
            &t0,
            "INSERT",
            Some(&[t("1"), t("a"), t("f")]),
            None,
            0,
            &cat,
        );
        assert_eq!(ins["record"], json!({"id": 1, "task": "a", "done": false}));
        assert_eq!(ins["commit_timestamp"], "2000-01-01T00:00:00.000Z");
        assert!(ins.get("old_record").is_none());
        assert_eq!(ins["pk"], json!(["id"]));
        assert_eq!(ins["row"], json!({"id": "1", "task": "a", "done": "f"}));
        let up = change(
            &r,
            &t0,
            "UPDATE",
            Some(&[t("1"), t("b"), Datum::Unchanged]),
            None,
            0,
            &cat,
        );
        assert_eq!(up["old_record"], json!({"id": 1}));
        assert_eq!(up["record"], json!({"id": 1, "task": "b"}));
        let full = rel(b'f');
        let old = [t("1"), t("a"), t("t")];
        let del = change(&full, &t0, "DELETE", None, Some((&old, true)), 0, &cat);
        assert_eq!(
            del["old_record"],
            json!({"id": 1, "task": "a", "done": true})
        );
        assert_eq!(del["pk"], json!(["id"]));
        let del_rls = change(
            &full,
            &keyed(true),
            "DELETE",
            None,
            Some((&old, true)),
            0,
            &cat,
        );
        assert_eq!(del_rls["old_record"], json!({"id": 1}));
        let key = [t("1"), Datum::Null, Datum::Null];
        let del_key = change(&r, &t0, "DELETE", None, Some((&key, false)), 0, &cat);
        assert_eq!(del_key["old_record"], json!({"id": 1}));
    }

    #[test]
    fn the_committed_row_comes_as_postgresql_wrote_it() {
        let cat = Catalog::default();
        let full = rel(b'f');
        // pgoutput flags every column of a replica identity full table as part of the key.
        let mut flagged = full.clone();
        for c in &mut flagged.columns {
            c.key = true;
        }
        let row = [t("7"), Datum::Null, t("f")];
        let ins = change(&flagged, &keyed(true), "INSERT", Some(&row), None, 0, &cat);
        assert_eq!(ins["pk"], json!(["id"]));
        assert_eq!(ins["row"], json!({"id": "7", "task": null, "done": "f"}));
        let bare = TableInfo::default();
        let ins = change(&flagged, &bare, "INSERT", Some(&row), None, 0, &cat);
        assert_eq!(ins["pk"], json!([]));
        // An unchanged TOASTed value comes from the whole old row.
        let old = [t("7"), t("long text"), t("f")];
        let new = [t("7"), Datum::Unchanged, t("t")];
        let up = change(
            &flagged,
            &bare,
            "UPDATE",
            Some(&new),
            Some((&old, true)),
            0,
            &cat,
        );
        assert_eq!(
            up["row"],
            json!({"id": "7", "task": "long text", "done": "t"})
        );
        // A delete's row is the old one; under RLS its old record keeps the key only.
        let rls = TableInfo {
            rls: true,
            primary: vec![],
        };
        let del = change(&flagged, &rls, "DELETE", None, Some((&old, true)), 0, &cat);
        assert_eq!(del["old_record"], json!({}));
        assert_eq!(
            del["row"],
            json!({"id": "7", "task": "long text", "done": "f"})
        );
    }
}
