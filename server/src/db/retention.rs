//! The retention of attempts (migrations `0016_attempt_summaries.sql`): a
//! wrong answer recorded before a cutoff is deleted, and, when it was
//! judged (not refused unread: locked out, too late), counted first per
//! player and round in `attempt_summaries`, in the same transaction — a
//! recap then tells "Ann: 12 wrong answers" where it told each one. Right
//! answers are kept: one per player and round at most, they are the recap's
//! marks and the boards' history.
//!
//! One call prunes one bounded batch: `DELETE … RETURNING` takes each row
//! once even when two nodes of a cluster prune at the same time.

use std::collections::HashMap;

use super::{on_store, Db, DbError};

/// What one batch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Wrong answers deleted.
    pub deleted: u64,
    /// Of them, judged ones now counted in `attempt_summaries`.
    pub summarised: u64,
}

/// A deleted attempt, as summarised.
#[derive(Debug, sqlx::FromRow)]
struct Gone {
    match_id: String,
    round: i64,
    player_id: i64,
    verdict: Option<String>,
}

/// Verdicts of answers refused without being read: deleted, never counted.
fn unread(verdict: Option<&str>) -> bool {
    matches!(verdict, Some("locked_out" | "round_over"))
}

impl Db {
    /// Deletes at most `batch` wrong answers recorded before `cutoff_ms`
    /// (oldest first), counting the judged ones per player and round.
    pub async fn prune_attempts(&self, cutoff_ms: i64, batch: u32) -> Result<Pruned, DbError> {
        const DELETE: &str = "DELETE FROM attempts WHERE id IN (
                SELECT id FROM attempts WHERE NOT accepted AND at < $1 ORDER BY at, id LIMIT $2)
            RETURNING CAST(match_id AS TEXT) AS match_id, round, player_id, verdict";
        const COUNT: &str = "INSERT INTO attempt_summaries (match_id, round, player_id, wrong)
            VALUES ($1, $2, $3, $4)
            ON CONFLICT (match_id, round, player_id)
            DO UPDATE SET wrong = attempt_summaries.wrong + excluded.wrong";
        Ok(on_store!(self, s => {
            let mut tx = s.pool.begin().await?;
            let gone: Vec<Gone> = sqlx::query_as(DELETE)
                .bind(cutoff_ms)
                .bind(i64::from(batch))
                .fetch_all(&mut *tx)
                .await?;
            let mut counts: HashMap<(String, i64, i64), i64> = HashMap::new();
            for g in &gone {
                if !unread(g.verdict.as_deref()) {
                    *counts.entry((g.match_id.clone(), g.round, g.player_id)).or_insert(0) += 1;
                }
            }
            let mut summarised = 0_u64;
            for ((match_id, round, player), wrong) in counts {
                sqlx::query(COUNT)
                    .bind(match_id)
                    .bind(round)
                    .bind(player)
                    .bind(wrong)
                    .execute(&mut *tx)
                    .await?;
                summarised += u64::try_from(wrong).unwrap_or(0);
            }
            tx.commit().await?;
            Pruned {
                deleted: u64::try_from(gone.len()).unwrap_or(u64::MAX),
                summarised,
            }
        }))
    }
}
