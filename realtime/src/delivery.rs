//! Delivers recorded changes to this gateway's `postgres_changes` subscribers: bindings matched
//! on schema, table, event and filters, then row level security checked per distinct role and
//! claims in one query, as Supabase Realtime's `apply_rls` does.

use super::Realtime;
use super::hub::Channel;
use super::protocol::{Frame, message_raw};
use crate::error::RealtimeError;
use futures_util::StreamExt;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// The last change recorded (None: the database could not say).
pub async fn last_recorded(rt: &Realtime) -> Option<i64> {
    let c = rt.db.get().await.ok()?;
    c.query_one(
        "SELECT coalesce(max(id), 0) FROM realtime.supagate_changes",
        &[],
    )
    .await
    .ok()
    .map(|r| r.get(0))
}

pub fn spawn(rt: Arc<Realtime>, mut cursor: i64) {
    crate::spawn_until_shutdown(&rt.clone(), async move {
        loop {
            let wait = if rt.resumed() {
                Duration::from_secs(1)
            } else {
                Duration::from_millis(100)
            };
            let _ = tokio::time::timeout(wait, rt.wake_delivery.notified()).await;
            if !rt.resumed() {
                continue;
            }
            // Nobody here listens: move past what was recorded without reading it. The end is
            // read before the listeners are looked at: a subscriber that joined before a change
            // committed is seen then, and the change is read for it.
            if !rt.hub.has_change_listeners()
                && let Some(last) = last_recorded(&rt).await
                && !rt.hub.has_change_listeners()
            {
                cursor = last;
                continue;
            }
            loop {
                match next_batch(&rt, cursor).await {
                    Ok(batch) if batch.is_empty() => {
                        // A database reset starts the table over: follow it.
                        if cursor > 0 && last_recorded(&rt).await.is_some_and(|m| m < cursor) {
                            cursor = 0;
                            continue;
                        }
                        break;
                    }
                    Ok(batch) => {
                        // The next changes' RLS decisions run while one is being decided (each
                        // on a pooled connection of its own); the changes go out in order.
                        let rt = &rt;
                        let mut decided = futures_util::stream::iter(batch)
                            .map(|(id, change)| async move {
                                let decision = decide(rt, &change).await;
                                (id, change, decision)
                            })
                            .buffered(DECISIONS_AT_ONCE);
                        while let Some((id, change, decision)) = decided.next().await {
                            cursor = id;
                            match decision {
                                Ok(Some(decision)) => send(&change, decision),
                                Ok(None) => {}
                                Err(e) => {
                                    tracing::warn!("realtime: a change was not delivered: {e}")
                                }
                            }
                        }
                    }
                    Err(e) => {
                        tracing::debug!("realtime: reading changes failed: {e}");
                        break;
                    }
                }
            }
        }
    });
}

async fn next_batch(rt: &Realtime, cursor: i64) -> Result<Vec<(i64, Value)>, RealtimeError> {
    let c = rt.db.get().await?;
    let rows = c
        .query(
            "SELECT id, payload FROM realtime.supagate_changes WHERE id > $1 ORDER BY id LIMIT 500",
            &[&cursor],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// One channel's interest in a change: the bindings it matched, grouped by column selection.
struct Interest {
    ch: Arc<Channel>,
    identity: usize,
    groups: Vec<(Option<Vec<String>>, Vec<u32>)>,
}

/// How many changes of a batch have their RLS decision under way at once.
const DECISIONS_AT_ONCE: usize = 2;

/// Who sees a change: the channels that want it, and which of their identities RLS lets see
/// its row (decided by PostgreSQL, as the subscribers' own requests would be).
struct Decision {
    interests: Vec<Interest>,
    shown: Vec<bool>,
    started: std::time::Instant,
    decided: Duration,
}

/// The channels that want `change` and what RLS lets each see; None when nobody wants it.
async fn decide(rt: &Realtime, change: &Value) -> Result<Option<Decision>, RealtimeError> {
    let listeners = rt.hub.change_listeners();
    if listeners.is_empty() {
        return Ok(None);
    }
    let started = std::time::Instant::now();
    let s = |k: &str| change.get(k).and_then(Value::as_str).unwrap_or_default();
    let overflow = change.get("overflow").and_then(Value::as_u64);
    let (schema, table) = (s("schema"), s("table"));
    let kind = if overflow.is_some() {
        "OVERFLOW"
    } else {
        s("type")
    };
    let empty = Map::new();
    let record = change
        .get("record")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let now = chrono::Utc::now().timestamp();
    // Each distinct role and claims once, numbered in order of first sight (a map: a thousand
    // subscribers compared each with all the others cost milliseconds a change).
    let mut identities: HashMap<(String, String), usize> = HashMap::new();
    let mut interests = Vec::new();
    for ch in listeners {
        let access = ch.access();
        if access.exp.is_some_and(|e| e <= now) {
            continue;
        }
        let mut groups: Vec<(Option<Vec<String>>, Vec<u32>)> = Vec::new();
        for b in &ch.bindings {
            // Deletes pass every filter, as in Supabase (their old record may lack the column);
            // an overflow reaches every binding on the table.
            let wanted = match overflow {
                Some(_) => b.watches(schema, table),
                None => {
                    b.wants(schema, table, kind) && (kind == "DELETE" || b.filter.matches(record))
                }
            };
            if wanted {
                match groups.iter_mut().find(|(s, _)| *s == b.select) {
                    Some((_, ids)) => ids.push(b.id),
                    None => groups.push((b.select.clone(), vec![b.id])),
                }
            }
        }
        if groups.is_empty() {
            continue;
        }
        let next = identities.len();
        let identity = *identities
            .entry((access.role, access.claims))
            .or_insert(next);
        interests.push(Interest {
            ch,
            identity,
            groups,
        });
    }
    if interests.is_empty() {
        return Ok(None);
    }
    let mut list: Vec<String> = vec![String::new(); identities.len()];
    for ((role, claims), i) in &identities {
        list[*i] = format!(
            "{{\"role\":{},\"claims\":{claims}}}",
            serde_json::to_string(role).expect("string")
        );
    }
    let list = format!("[{}]", list.join(","));
    let committed = change.get("row").cloned().unwrap_or(Value::Null);
    let c = rt.db.get().await?;
    let visible: Vec<i32> = c
        .query_one(
            "SELECT realtime.supagate_visible(format('%I.%I', $1::text, $2::text)::regclass, \
             $3, $4, $5::text::jsonb)",
            &[&schema, &table, &kind, &committed, &list],
        )
        .await?
        .get(0);
    drop(c);
    let decided = started.elapsed();
    let mut shown = vec![false; identities.len()];
    for i in visible {
        if let Some(seen) = usize::try_from(i).ok().and_then(|i| shown.get_mut(i)) {
            *seen = true;
        }
    }
    Ok(Some(Decision {
        interests,
        shown,
        started,
        decided,
    }))
}

/// Sends `change` to the channels its decision lets see it.
fn send(change: &Value, decision: Decision) {
    let Decision {
        interests,
        shown,
        started,
        decided,
    } = decision;
    let s = |k: &str| change.get(k).and_then(Value::as_str).unwrap_or_default();
    let overflow = change.get("overflow").and_then(Value::as_u64);
    let (schema, table) = (s("schema"), s("table"));
    let mut payloads: HashMap<Option<Vec<String>>, String> = HashMap::new();
    let mut sent = 0;
    let interested = interests.len();
    for i in interests {
        if !shown[i.identity] {
            continue;
        }
        sent += 1;
        if let Some(count) = overflow {
            i.ch.push(
                "system",
                &overflow_message(schema, table, count, &i.ch.sub_topic),
            );
            continue;
        }
        for (select, ids) in i.groups {
            let data = payloads
                .entry(select.clone())
                .or_insert_with(|| data(change, select.as_deref()));
            let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
            let payload = format!("{{\"ids\":[{}],\"data\":{data}}}", ids.join(","));
            i.ch.out.send(Frame::Text(message_raw(
                i.ch.vsn,
                None,
                None,
                &i.ch.topic,
                "postgres_changes",
                &payload,
            )));
        }
    }
    if tracing::enabled!(tracing::Level::DEBUG) {
        // How late: since the commit (its time as recorded, to the millisecond), the RLS
        // decision, the sending.
        let committed = s("commit_timestamp")
            .parse::<chrono::DateTime<chrono::Utc>>()
            .map(|t| (chrono::Utc::now() - t).num_milliseconds());
        tracing::debug!(
            "realtime: a change of {schema}.{table} to {sent} of {interested} channels, {} ms \
             after its commit, RLS decided in {} ms, sent in {} ms",
            committed.map_or_else(|_| "?".to_string(), |ms| ms.to_string()),
            decided.as_millis(),
            (started.elapsed() - decided).as_millis()
        );
    }
}

/// What a subscriber of a table hears of a transaction too large to send change by change.
fn overflow_message(schema: &str, table: &str, count: u64, channel: &str) -> Value {
    serde_json::json!({
        "extension": "postgres_changes",
        "status": "error",
        "message": format!(
            "{count} changes to {schema}.{table} were committed in one transaction, too many to \
             send one by one: read the table again"
        ),
        "channel": channel,
    })
}

/// The change as subscribers get it: without delivery's bookkeeping (key columns, row),
/// limited to the selected columns (and the key) when the binding selects some.
fn data(change: &Value, select: Option<&[String]>) -> String {
    let mut d = change.clone();
    let mut pk: Vec<String> = Vec::new();
    if let Some(o) = d.as_object_mut() {
        o.remove("row");
        if let Some(Value::Array(keys)) = o.remove("pk") {
            pk = keys
                .into_iter()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect();
        }
    }
    if let Some(cols) = select {
        let keep = |name: &str| cols.iter().any(|c| c == name) || pk.iter().any(|k| k == name);
        for key in ["record", "old_record"] {
            if let Some(Value::Object(m)) = d.get_mut(key) {
                m.retain(|k, _| keep(k));
            }
        }
        if let Some(Value::Array(cs)) = d.get_mut("columns") {
            cs.retain(|c| c["name"].as_str().is_some_and(keep));
        }
    }
    d.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selected_columns_keep_the_key() {
        let change = json!({
            "schema": "public", "table": "t", "type": "UPDATE", "pk": ["id"], "row": {"id": "1", "a": "x", "b": "y"},
            "columns": [{"name": "id", "type": "int8"}, {"name": "a", "type": "text"}, {"name": "b", "type": "text"}],
            "record": {"id": 1, "a": "x", "b": "y"}, "old_record": {"id": 1}
        });
        let all: Value = serde_json::from_str(&data(&change, None)).unwrap();
        assert!(all.get("pk").is_none() && all.get("row").is_none());
        assert_eq!(all["record"], json!({"id": 1, "a": "x", "b": "y"}));
        let some: Value = serde_json::from_str(&data(&change, Some(&["a".to_string()]))).unwrap();
        assert_eq!(some["record"], json!({"id": 1, "a": "x"}));
        assert_eq!(some["columns"].as_array().unwrap().len(), 2);
    }
}
