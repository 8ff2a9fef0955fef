//! Rate limits in fixed windows shared by every gateway replica (the counters live in
//! PostgreSQL).

use crate::error::Result;
use tokio_postgres::GenericClient;

/// Counts one event under `key`; false when the window's limit is exceeded.
pub async fn allow(
    c: &impl GenericClient,
    key: &str,
    limit: u32,
    window_secs: i32,
) -> Result<bool> {
    allow_n(c, key, limit, window_secs, 1).await
}

/// Counts `n` events under `key` at once; false when they take the window past its limit.
pub async fn allow_n(
    c: &impl GenericClient,
    key: &str,
    limit: u32,
    window_secs: i32,
    n: usize,
) -> Result<bool> {
    let n = i32::try_from(n).unwrap_or(i32::MAX);
    let count: i32 = c
        .query_one(
            "INSERT INTO auth.rate_limits AS r (key, window_start, count) VALUES ($1, now(), $3)
             ON CONFLICT (key) DO UPDATE SET
               count = CASE WHEN r.window_start < now() - make_interval(secs => $2) THEN $3 ELSE r.count + $3 END,
               window_start = CASE WHEN r.window_start < now() - make_interval(secs => $2) THEN now() ELSE r.window_start END
             RETURNING count",
            &[&key, &(window_secs as f64), &n],
        )
        .await?
        .get(0);
    Ok(i64::from(count) <= i64::from(limit))
}

/// Deletes counters whose windows ended (an hour covers every window in use).
pub async fn prune(c: &impl GenericClient) -> Result<u64> {
    Ok(c.execute(
        "DELETE FROM auth.rate_limits WHERE window_start < now() - interval '1 hour'",
        &[],
    )
    .await?)
}
