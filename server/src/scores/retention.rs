//! The pruner of attempts: every `--attempts-prune-every-secs`, the wrong
//! answers older than `--attempts-retention-days` are deleted in batches
//! and counted per player and round (`db::retention`), so the database
//! does not grow with wrong answers for good. Each tick deletes at most
//! [`BATCHES_PER_TICK`] batches, then yields to the next tick: a backlog
//! (a first start on an old database) is worked off over a few ticks
//! without holding the database for long.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::db::Db;

/// The pruner's settings (the server's `--attempts-*` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Days a wrong answer is kept one by one.
    pub days: u32,
    /// Time between two prunings.
    pub every: Duration,
    /// Wrong answers deleted per statement.
    pub batch: u32,
}

impl Retention {
    /// The cutoff at `now_ms`: wrong answers recorded before it go.
    pub fn cutoff_ms(&self, now_ms: u64) -> i64 {
        let kept = u64::from(self.days).saturating_mul(24 * 3600 * 1000);
        i64::try_from(now_ms.saturating_sub(kept)).unwrap_or(i64::MAX)
    }
}

/// Most batches one tick deletes.
pub(crate) const BATCHES_PER_TICK: u32 = 50;

/// Prunes on a timer until `shutdown`; the first pruning is one period
/// after the start. A failed batch is logged and the tick ends (the next
/// one tries again): the database may be away, and nothing is lost by
/// waiting.
/// `now_ms` is the server's wall clock (a manual one in tests).
pub(crate) fn spawn(
    db: Db,
    flags: Retention,
    now_ms: impl Fn() -> u64 + Send + 'static,
    shutdown: CancellationToken,
) {
    tokio::spawn(async move {
        let mut timer =
            tokio::time::interval_at(tokio::time::Instant::now() + flags.every, flags.every);
        timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                _ = timer.tick() => prune(&db, &flags, now_ms()).await,
            }
        }
    });
}

/// One tick: batches until one comes back short or the tick's bound.
async fn prune(db: &Db, flags: &Retention, now_ms: u64) {
    let cutoff = flags.cutoff_ms(now_ms);
    let (mut deleted, mut summarised) = (0_u64, 0_u64);
    for _ in 0..BATCHES_PER_TICK {
        match db.prune_attempts(cutoff, flags.batch).await {
            Ok(done) => {
                deleted += done.deleted;
                summarised += done.summarised;
                if done.deleted < u64::from(flags.batch) {
                    break;
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "old wrong answers not pruned; trying again at the next tick");
                break;
            }
        }
        tokio::task::yield_now().await;
    }
    if deleted > 0 {
        tracing::info!(
            deleted,
            summarised,
            "old wrong answers pruned (counted per player and round)"
        );
    }
}
