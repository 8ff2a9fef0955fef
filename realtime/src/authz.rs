//! Private channels: who may read and write is what RLS on `realtime.messages` lets the
//! subscriber's role and claims do with rows of the channel's topic, checked as Supabase
//! Realtime checks it — inside a transaction that is rolled back.

use super::Realtime;
use super::protocol::UserPayload;
use super::tokens::Identity;
use crate::error::RealtimeError;
use tokio_postgres::Transaction;

/// Sets the subscriber's role, claims and the topic, transaction-locally.
async fn act_as(tx: &Transaction<'_>, who: &Identity, topic: &str) -> Result<(), RealtimeError> {
    let claims = who.claims.to_string();
    let sub = who
        .claims
        .get("sub")
        .and_then(|s| s.as_str())
        .unwrap_or("")
        .to_string();
    tx.execute(
        "SELECT set_config('role', $1, true), set_config('realtime.topic', $2, true), \
         set_config('request.jwt.claims', $3, true), set_config('request.jwt.claim.sub', $4, true), \
         set_config('request.jwt.claim.role', $1, true), set_config('request.headers', '{}', true), \
         set_config('statement_timeout', '5s', true)",
        &[&who.role, &topic, &claims, &sub],
    )
    .await?;
    Ok(())
}

/// Whether the subscriber may read broadcasts, and presences, of `topic`.
pub async fn can_read(
    rt: &Realtime,
    who: &Identity,
    topic: &str,
) -> Result<(bool, bool), RealtimeError> {
    let mut c = rt.db.get().await?;
    let tx = c.transaction().await?;
    let ids = [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()];
    tx.execute(
        "INSERT INTO realtime.messages (id, topic, extension) \
         VALUES ($1, $3, 'broadcast'), ($2, $3, 'presence')",
        &[&ids[0], &ids[1], &topic],
    )
    .await?;
    act_as(&tx, who, topic).await?;
    let seen = match tx
        .query(
            "SELECT extension FROM realtime.messages WHERE id = ANY($1)",
            &[&ids.as_slice()],
        )
        .await
    {
        Ok(rows) => rows.iter().map(|r| r.get::<_, String>(0)).collect(),
        Err(e) => {
            // A policy that fails is a policy that does not allow (Supabase: RlsPolicyError).
            tracing::warn!("realtime: read policy on realtime.messages failed for {topic}: {e}");
            Vec::new()
        }
    };
    let _ = tx.rollback().await;
    Ok((
        seen.iter().any(|e| e == "broadcast"),
        seen.iter().any(|e| e == "presence"),
    ))
}

/// Whether the subscriber may send `extension` ("broadcast" or "presence") messages on `topic`.
pub async fn can_write(
    rt: &Realtime,
    who: &Identity,
    topic: &str,
    extension: &str,
) -> Result<bool, RealtimeError> {
    let mut c = rt.db.get().await?;
    let tx = c.transaction().await?;
    act_as(&tx, who, topic).await?;
    let allowed = match tx
        .execute(
            "INSERT INTO realtime.messages (topic, extension, private) VALUES ($1, $2, true)",
            &[&topic, &extension],
        )
        .await
    {
        Ok(_) => true,
        Err(e) => {
            if e.as_db_error().map(|d| d.code().code()) != Some("42501") {
                tracing::warn!(
                    "realtime: write policy on realtime.messages failed for {topic}: {e}"
                );
            }
            false
        }
    };
    let _ = tx.rollback().await;
    Ok(allowed)
}

/// Stores a broadcast in `realtime.messages` as the subscriber (RLS decides), for replay;
/// the caller delivers it. Returns its id.
pub async fn store(
    rt: &Realtime,
    who: &Identity,
    topic: &str,
    event: &str,
    payload: &UserPayload,
) -> Result<String, RealtimeError> {
    let mut c = rt.db.get().await?;
    let tx = c.transaction().await?;
    act_as(&tx, who, topic).await?;
    tx.batch_execute("SELECT set_config('supagate.quiet', 'on', true)")
        .await?;
    let (json, binary) = match payload {
        UserPayload::Json(j) => (Some(j.as_str()), None),
        UserPayload::Binary(b) => (None, Some(b.as_ref())),
    };
    let id: String = tx
        .query_one(
            "INSERT INTO realtime.messages (topic, event, payload, binary_payload, private, extension) \
             VALUES ($1, $2, $3::text::jsonb, $4, true, 'broadcast') RETURNING id::text",
            &[&topic, &event, &json, &binary],
        )
        .await
        .map_err(|e| match e.as_db_error().map(|d| d.code().code()) {
            Some("42501") => RealtimeError::PersistDenied,
            _ => e.into(),
        })?
        .get(0);
    tx.commit().await?;
    Ok(id)
}
