//! The logical replication slot realtime reads changes from: one per database, made when the
//! database is (re)created so that nothing committed before a gateway captures is lost.

use tokio_postgres::Client;

#[derive(Debug, thiserror::Error)]
pub enum SlotError {
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
    #[error(
        "cannot create the replication slot {slot}: {}",
        crate::error::describe_db_error(source, None)
    )]
    Create {
        slot: String,
        source: tokio_postgres::Error,
    },
}

/// The slot of a database (slot names are per cluster): `supagate_<db>_<hash>`.
pub fn slot_name(dbname: &str) -> String {
    let clean: String = dbname
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let hash = project::sha256_hex(dbname.as_bytes());
    format!("supagate_{clean}_{}", &hash[..8])
}

/// Creates the slot if missing. Ok(false): the server cannot decode (wal_level).
pub async fn ensure_slot(c: &Client, slot: &str) -> Result<bool, SlotError> {
    let level: String = c.query_one("SHOW wal_level", &[]).await?.get(0);
    if level != "logical" {
        return Ok(false);
    }
    // A slot the server gave up on (behind by more than max_slot_wal_keep_size) can decode
    // nothing any more: it is made again, and what it held back is lost, loudly.
    let status: Option<Option<String>> = c
        .query_opt(
            "SELECT wal_status FROM pg_replication_slots WHERE slot_name = $1",
            &[&slot],
        )
        .await?
        .map(|r| r.get(0));
    if let Some(Some(lost)) = &status
        && lost == "lost"
    {
        tracing::error!(
            "realtime: replication slot {slot} fell too far behind and was invalidated: \
             changes committed while it lagged are lost; making it again"
        );
        c.execute("SELECT pg_drop_replication_slot($1)", &[&slot])
            .await?;
    }
    let exists = matches!(&status, Some(s) if s.as_deref() != Some("lost"));
    if !exists {
        match c
            .execute(
                "SELECT pg_create_logical_replication_slot($1, 'pgoutput')",
                &[&slot],
            )
            .await
        {
            Ok(_) => tracing::info!("realtime: created replication slot {slot}"),
            // Made meanwhile by another session (a gateway's capture while `snapshot import`
            // or `db reset` makes the database again): the slot is there, as wanted.
            Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::DUPLICATE_OBJECT) => {}
            Err(source) => {
                return Err(SlotError::Create {
                    slot: slot.to_string(),
                    source,
                });
            }
        }
    }
    Ok(true)
}

/// Creates the replication slot of the database `c` is connected to, when the server can
/// decode.
pub async fn prepare_slot(c: &Client) -> Result<(), SlotError> {
    let dbname: String = c.query_one("SELECT current_database()", &[]).await?.get(0);
    ensure_slot(c, &slot_name(&dbname)).await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_names_are_valid_and_distinct() {
        let a = slot_name("postgres");
        let b = slot_name("Postgres");
        assert!(a.starts_with("supagate_postgres_") && a != b && a.len() <= 63);
        assert!(
            slot_name(&"x-".repeat(60))
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        );
    }
}
