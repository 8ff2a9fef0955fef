//! Change capture: one gateway at a time (the holder of an advisory lock) reads the database's
//! logical replication slot with the built-in `pgoutput` plugin, turns committed row changes of
//! tables in the `supabase_realtime` publication into Supabase's change payloads and records
//! them in `realtime.supagate_changes` for every gateway to deliver. The slot survives restarts:
//! what was committed while no gateway read it is delivered when one does. The slot is advanced
//! only past what was recorded, and a change recorded twice (a crash between the two) is skipped
//! by its commit position.

use super::listening::Interest;
use super::payload::{Catalog, Decoder};
use super::pgoutput::{self, Message};
use super::{ChangesStatus, Realtime, bus};
use crate::error::RealtimeError;
use futures_util::{StreamExt, pin_mut};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::Client;

/// The advisory lock the capturing gateway holds (per database).
const LEADER_LOCK: i64 = 0x5347_5254;
const POLL: Duration = Duration::from_millis(100);
/// How often while changes are flowing (for [`BUSY_FOR`] after the last one): a change
/// committed outside this gateway waits for the next read, so this bounds most of its latency;
/// as often as reads may be. A read finds nothing to decode cheaply: the slot is only read when
/// the WAL has moved since it was last found empty.
const BUSY_POLL: Duration = MIN_GAP;
const BUSY_FOR: Duration = Duration::from_secs(10);
/// Least time between two reads of the slot. Writes through this gateway wake capture at once;
/// under a stream of them each read would start logical decoding for a transaction or two, a
/// fixed cost PostgreSQL pays per read. Reads at most this often take what accumulated meanwhile
/// in one go, for at most this much more latency.
const MIN_GAP: Duration = Duration::from_millis(10);
/// Messages read per poll (whole transactions: a larger one is read whole).
const BATCH: i32 = 5000;

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
    crate::spawn_until_shutdown(&rt.clone(), async move {
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

/// Reads the slot until the connection fails. The slot's messages stream in while they are
/// decoded; what the decoder must look up (types, keys, RLS) is asked on a connection of its
/// own, since the streaming one answers nothing else until its rows are all read.
async fn capture(rt: &Realtime, c: &Client) -> Result<(), RealtimeError> {
    let lookups = connect(rt).await?;
    let mut catalog = Catalog::default();
    let mut recorded_upto: Option<String> = c
        .query_one(
            "SELECT greatest((SELECT max(lsn) FROM realtime.supagate_changes),
                             (SELECT recorded_upto FROM realtime.supagate_capture WHERE slot = $1))::text",
            &[&rt.slot],
        )
        .await?
        .get(0);
    let mut last_prune = std::time::Instant::now();
    // The WAL position an empty peek last advanced the slot to (idle polls need not repeat it).
    let mut advanced: Option<String> = None;
    let mut last_lag_check = std::time::Instant::now();
    let mut last_read = std::time::Instant::now();
    let mut last_change: Option<std::time::Instant> = None;
    loop {
        if let Some(wait) = MIN_GAP.checked_sub(last_read.elapsed()) {
            tokio::time::sleep(wait).await;
        }
        last_read = std::time::Instant::now();
        if last_lag_check.elapsed() > Duration::from_secs(30) {
            lag_alarm(c, &rt.slot).await?;
            last_lag_check = std::time::Instant::now();
        }
        let mut decoder = Decoder::new(&lookups, &mut catalog, rt.settings.max_transaction_changes);
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
        // Nothing written since the slot was last found empty: nothing to decode.
        let nothing_new = advanced.as_ref() == Some(&wal_end);
        if !nothing_new {
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
                // The server has decoded the slot whole before its first row: subscriptions
                // confirmed before any change it holds committed are in the table by now.
                if !yielded && rt.settled() {
                    decoder.only(Interest::read(&lookups).await?);
                }
                yielded = true;
                let lsn: String = row.get(0);
                let data: &[u8] = row.get(1);
                let msg = pgoutput::parse(data)?;
                match msg {
                    Message::Begin { commit_time, .. } => decoder.begin(commit_time),
                    Message::Relation(r) => decoder.relation(r).await?,
                    Message::Insert { rel, new } => decoder.row(rel, "INSERT", Some(&new), None),
                    Message::Update { rel, old, new } => {
                        decoder.row(rel, "UPDATE", Some(&new), old.as_deref())
                    }
                    Message::Delete { rel, old } => decoder.row(rel, "DELETE", None, Some(&old)),
                    Message::Commit { .. } => {
                        if let Some(t) = decoder.commit()
                            && !t.changes.is_empty()
                        {
                            done.push((lsn.clone(), t.changes));
                        }
                        advance_to = Some(lsn);
                    }
                    Message::Other => {}
                }
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
            let poll = if last_change.is_some_and(|t| t.elapsed() < BUSY_FOR) {
                BUSY_POLL
            } else {
                POLL
            };
            let _ = tokio::time::timeout(poll, rt.wake_capture.notified()).await;
            continue;
        };
        let (lsns, payloads): (Vec<String>, Vec<Value>) = done
            .into_iter()
            .flat_map(|(lsn, changes)| changes.into_iter().map(move |p| (lsn.clone(), p)))
            .unzip();
        if !payloads.is_empty() {
            last_change = Some(std::time::Instant::now());
            c.batch_execute("BEGIN").await?;
            let inserted = c
                .execute(
                    "INSERT INTO realtime.supagate_changes (lsn, payload) \
                     SELECT l::pg_lsn, p FROM unnest($1::text[], $2::jsonb[]) AS t(l, p) \
                     WHERE $3::text IS NULL OR l::pg_lsn > $3::text::pg_lsn",
                    &[&lsns, &payloads, &recorded_upto],
                )
                .await;
            let marked = c
                .execute(
                    "INSERT INTO realtime.supagate_capture (slot, recorded_upto)
                     VALUES ($1, $2::text::pg_lsn)
                     ON CONFLICT (slot) DO UPDATE SET recorded_upto = EXCLUDED.recorded_upto",
                    &[&rt.slot, &lsns.last()],
                )
                .await;
            let notified = bus::changes_recorded(c).await;
            match inserted.and(marked).and(notified) {
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

/// How far behind the slot may fall before the log says so (the server gives it up at
/// max_slot_wal_keep_size, 1 GB for the embedded cluster).
const LAG_ALARM: i64 = 256 * 1024 * 1024;

/// Says so in the log when the slot holds back more WAL than [`LAG_ALARM`].
async fn lag_alarm(c: &Client, slot: &str) -> Result<(), RealtimeError> {
    let lag: Option<i64> = c
        .query_opt(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint
             FROM pg_replication_slots WHERE slot_name = $1",
            &[&slot],
        )
        .await?
        .and_then(|r| r.get(0));
    if let Some(bytes) = lag.filter(|b| *b > LAG_ALARM) {
        tracing::warn!(
            "realtime: change capture is {} MB behind the database (slot {slot}); changes are \
             delayed, and past max_slot_wal_keep_size they are lost",
            bytes / (1024 * 1024)
        );
    }
    Ok(())
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
