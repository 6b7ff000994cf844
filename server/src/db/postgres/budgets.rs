//! Budgets shared by the nodes of a cluster (migration `0011`): events per
//! key over a sliding window — room-code misses per address and per
//! player, new accounts per address — counted in PostgreSQL, so N nodes
//! give one budget, not N. The single-node windows are
//! the edge's `budgets::SlidingWindow`; on a cluster they stay as the fast path
//! (a key over its budget here is refused without asking the database).
//!
//! A window is cut into [`SLICES`] slices; a row counts one key's events in
//! one slice, upserted with `ON CONFLICT … DO UPDATE`. Times are the
//! database's clock, so the nodes' clocks may disagree. An event counts
//! until its slice began a whole window ago: it is forgotten between one
//! window and one window and a slice after it happened (60–65 s for the
//! default minute), never early.

use std::time::Duration;

use sqlx::PgPool;

use crate::db::{within, DbError};

/// Slices a window is cut into.
pub(crate) const SLICES: i64 = 12;

/// The database's time in milliseconds: the transaction's (`now()`), one
/// value however often a statement reads it (`clock_timestamp()` moved
/// between the two reads of a slice's start and made slices that did not
/// start on a slice boundary).
const NOW_MS: &str = "CAST(extract(epoch FROM now()) * 1000 AS BIGINT)";

/// The counts of one cluster, for one window.
#[derive(Debug, Clone)]
pub(crate) struct Budgets {
    pool: PgPool,
    /// How far back events count, in ms.
    window_ms: i64,
    /// One slice of it, in ms.
    slice_ms: i64,
    /// The longest any of its queries may take (`--database-deadline-ms`).
    deadline: Duration,
}

impl Budgets {
    /// Budgets over `window` in the database of `pool`.
    pub(crate) fn new(pool: PgPool, window: Duration, deadline: Duration) -> Budgets {
        let window_ms = i64::try_from(window.as_millis())
            .unwrap_or(i64::MAX)
            .max(SLICES);
        Budgets {
            pool,
            window_ms,
            slice_ms: window_ms / SLICES,
            deadline,
        }
    }

    /// How far back a slice's start may be for its events to count: a
    /// slice counts while its end is less than a window ago.
    fn reach_ms(&self) -> i64 {
        self.window_ms.saturating_add(self.slice_ms)
    }

    /// The events of each of `keys` within the window, in the same order.
    pub(crate) async fn counts(&self, keys: &[String]) -> Result<Vec<i64>, DbError> {
        within(self.deadline, async {
            let sql = format!(
                "SELECT COALESCE((SELECT sum(b.n) FROM budgets b
                                  WHERE b.key = k.key AND b.since_ms > {NOW_MS} - $2), 0)::BIGINT
                 FROM UNNEST($1::text[]) WITH ORDINALITY AS k(key, i) ORDER BY k.i"
            );
            Ok(sqlx::query_scalar(&sql)
                .bind(keys)
                .bind(self.reach_ms())
                .fetch_all(&self.pool)
                .await?)
        })
        .await
    }

    /// Counts one event of each of `keys`, now.
    pub(crate) async fn add(&self, keys: &[String]) -> Result<(), DbError> {
        within(self.deadline, async {
            let sql = format!(
                "INSERT INTO budgets (key, since_ms, n)
                 SELECT k, {NOW_MS} - {NOW_MS} % $2, 1 FROM UNNEST($1::text[]) AS k
                 ON CONFLICT (key, since_ms) DO UPDATE SET n = budgets.n + 1"
            );
            sqlx::query(&sql)
                .bind(keys)
                .bind(self.slice_ms)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
        .await
    }

    /// Counts one event of `key` if it had fewer than `max` in the window;
    /// whether it did. Nodes asking at once for the same key take turns (a
    /// transaction-scoped advisory lock on it), so `max` is never exceeded.
    pub(crate) async fn take(&self, key: &str, max: u32) -> Result<bool, DbError> {
        within(self.deadline, async {
            let mut tx = self.pool.begin().await?;
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))")
                .bind(key)
                .execute(&mut *tx)
                .await?;
            let sql = format!(
                "SELECT COALESCE(sum(n), 0)::BIGINT FROM budgets
                 WHERE key = $1 AND since_ms > {NOW_MS} - $2"
            );
            let used: i64 = sqlx::query_scalar(&sql)
                .bind(key)
                .bind(self.reach_ms())
                .fetch_one(&mut *tx)
                .await?;
            if used >= i64::from(max) {
                tx.rollback().await?;
                return Ok(false);
            }
            let sql = format!(
                "INSERT INTO budgets (key, since_ms, n) VALUES ($1, {NOW_MS} - {NOW_MS} % $2, 1)
                 ON CONFLICT (key, since_ms) DO UPDATE SET n = budgets.n + 1"
            );
            sqlx::query(&sql)
                .bind(key)
                .bind(self.slice_ms)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(true)
        })
        .await
    }

    /// Deletes the slices no window reaches any more (every node's
    /// heartbeat does; deleting twice is harmless).
    pub(crate) async fn sweep(&self) -> Result<u64, DbError> {
        within(self.deadline, async {
            let sql = format!("DELETE FROM budgets WHERE since_ms <= {NOW_MS} - $1");
            let done = sqlx::query(&sql)
                .bind(self.reach_ms())
                .execute(&self.pool)
                .await?;
            Ok(done.rows_affected())
        })
        .await
    }
}
