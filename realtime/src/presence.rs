//! Presence: what each channel tracks lives in `realtime.supagate_presences` so that every
//! gateway sees the same state; joins and leaves go out as Phoenix presence diffs. Gateways
//! check in every few seconds; the presences of one that went silent are left for it.

use super::Realtime;
use super::bus;
use super::hub::Channel;
use crate::error::RealtimeError;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// Largest tracked payload (it travels in a notification).
pub const MAX_META_BYTES: usize = 6000;
const CHECK_IN: Duration = Duration::from_secs(5);
/// A gateway not seen for this long is gone.
const SILENT: &str = "15 seconds";

fn new_ref() -> String {
    use rand::Rng;
    let bytes: [u8; 12] = rand::rng().random();
    base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, bytes)
}

/// `{key: {"metas": [meta, …]}}`.
fn group(entries: impl IntoIterator<Item = (String, Value)>) -> Value {
    let mut out = Map::new();
    for (key, meta) in entries {
        let slot = out.entry(key).or_insert_with(|| json!({"metas": []}));
        slot["metas"].as_array_mut().expect("metas").push(meta);
    }
    Value::Object(out)
}

fn with_ref(payload: &Value, presence_ref: &str, prev: Option<&str>) -> Value {
    let mut meta = payload.as_object().cloned().unwrap_or_default();
    meta.insert("phx_ref".into(), presence_ref.into());
    if let Some(p) = prev {
        meta.insert("phx_ref_prev".into(), p.into());
    }
    Value::Object(meta)
}

/// The presences on a topic, as `presence_state` carries them.
pub async fn state(rt: &Realtime, sub_topic: &str, private: bool) -> Result<Value, RealtimeError> {
    let c = rt.db.get().await?;
    let rows = c
        .query(
            "SELECT key, meta FROM realtime.supagate_presences \
             WHERE topic = $1 AND private = $2 ORDER BY updated_at",
            &[&sub_topic, &private],
        )
        .await?;
    Ok(group(rows.iter().map(|r| (r.get(0), r.get(1)))))
}

/// Tracks `payload` for the channel (replacing what it tracked); unchanged payloads are no-ops.
pub async fn track(rt: &Realtime, ch: &Channel, payload: Value) -> Result<(), RealtimeError> {
    let old = ch.tracked.lock().clone();
    if old.as_ref().is_some_and(|(_, p)| *p == payload) {
        return Ok(());
    }
    let new = new_ref();
    let meta = with_ref(&payload, &new, old.as_ref().map(|(r, _)| r.as_str()));
    let c = rt.db.get().await?;
    c.execute(
        "WITH gone AS (DELETE FROM realtime.supagate_presences WHERE presence_ref = $7) \
         INSERT INTO realtime.supagate_presences (presence_ref, topic, private, key, replica, meta) \
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &new,
            &ch.sub_topic,
            &ch.private,
            &ch.presence_key,
            &rt.replica,
            &meta,
            &old.as_ref().map(|(r, _)| r.as_str()),
        ],
    )
    .await
    ?;
    *ch.tracked.lock() = Some((new, payload));
    let leaves = old.map(|(r, p)| (ch.presence_key.clone(), with_ref(&p, &r, None)));
    let diff = json!({
        "joins": group([(ch.presence_key.clone(), meta)]),
        "leaves": group(leaves),
    });
    bus::presence_diff(
        rt,
        &rt.replica,
        &ch.sub_topic,
        ch.private,
        &diff.to_string(),
    )
    .await;
    Ok(())
}

/// Stops tracking what the channel tracks.
pub async fn untrack(rt: &Realtime, ch: &Channel) -> Result<(), RealtimeError> {
    let Some((r, p)) = ch.tracked.lock().take() else {
        return Ok(());
    };
    let c = rt.db.get().await?;
    c.execute(
        "DELETE FROM realtime.supagate_presences WHERE presence_ref = $1",
        &[&r],
    )
    .await?;
    let diff =
        json!({"joins": {}, "leaves": group([(ch.presence_key.clone(), with_ref(&p, &r, None))])});
    bus::presence_diff(
        rt,
        &rt.replica,
        &ch.sub_topic,
        ch.private,
        &diff.to_string(),
    )
    .await;
    Ok(())
}

/// Removes a gateway's presences and tells everyone they left.
pub async fn forget_replica(rt: &Realtime, replica: &str) {
    let result = async {
        let c = rt.db.get().await?;
        let rows = c
            .query(
                "DELETE FROM realtime.supagate_presences WHERE replica = $1 \
                 RETURNING topic, private, key, meta",
                &[&replica],
            )
            .await?;
        let mut by_topic: std::collections::BTreeMap<(String, bool), Vec<(String, Value)>> =
            Default::default();
        for r in &rows {
            by_topic
                .entry((r.get(0), r.get(1)))
                .or_default()
                .push((r.get(2), r.get(3)));
        }
        for ((topic, private), leaves) in by_topic {
            let diff = json!({"joins": {}, "leaves": group(leaves)});
            bus::presence_diff(rt, replica, &topic, private, &diff.to_string()).await;
        }
        Ok::<_, RealtimeError>(())
    }
    .await;
    if let Err(e) = result {
        tracing::warn!("realtime: could not clear the presences of gateway {replica}: {e}");
    }
}

/// Checks in, leaves the presences of silent gateways, and prunes what notes and changes
/// left behind.
pub fn spawn_housekeeping(rt: Arc<Realtime>) {
    crate::spawn_until_shutdown(&rt.clone(), async move {
        let mut tick = tokio::time::interval(CHECK_IN);
        loop {
            tick.tick().await;
            let gone: Result<Vec<String>, RealtimeError> = async {
                let c = rt.db.get().await?;
                c.execute(
                    "INSERT INTO realtime.supagate_replicas (id) VALUES ($1) \
                     ON CONFLICT (id) DO UPDATE SET seen_at = now()",
                    &[&rt.replica],
                )
                .await
                ?;
                let rows = c
                    .query(
                        &format!(
                            "WITH silent AS (DELETE FROM realtime.supagate_replicas \
                               WHERE seen_at < now() - interval '{SILENT}' RETURNING id) \
                             SELECT id FROM silent UNION \
                             SELECT DISTINCT replica FROM realtime.supagate_presences p \
                               WHERE NOT EXISTS (SELECT 1 FROM realtime.supagate_replicas r \
                                                 WHERE r.id = p.replica) \
                                 AND p.updated_at < now() - interval '{SILENT}'"
                        ),
                        &[],
                    )
                    .await
                    ?;
                c.batch_execute(
                    "DELETE FROM realtime.supagate_relay WHERE created_at < now() - interval '1 minute'",
                )
                .await
                ?;
                Ok(rows.iter().map(|r| r.get(0)).collect())
            }
            .await;
            match gone {
                Ok(gone) => {
                    for replica in gone {
                        tracing::info!(
                            "realtime: gateway {replica} went silent; its presences leave"
                        );
                        forget_replica(&rt, &replica).await;
                    }
                }
                Err(e) => tracing::debug!("realtime housekeeping skipped: {e}"),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_group_metas_by_key() {
        let g = group([
            ("a".to_string(), json!({"x": 1})),
            ("a".to_string(), json!({"x": 2})),
            ("b".to_string(), json!({})),
        ]);
        assert_eq!(
            g,
            json!({"a": {"metas": [{"x": 1}, {"x": 2}]}, "b": {"metas": [{}]}})
        );
        let m = with_ref(&json!({"user": "u"}), "R2", Some("R1"));
        assert_eq!(
            m,
            json!({"user": "u", "phx_ref": "R2", "phx_ref_prev": "R1"})
        );
    }
}
