//! The recorder: the one task that writes scores, with group commit.
//!
//! Rooms send their writes down a channel. The recorder takes whatever is
//! queued, applies it all in one transaction (each request in its own
//! savepoint, so one bad request cannot undo the others) and commits once;
//! then it answers every request that asked for an answer. While a commit
//! is on its way to the disk, the next batch queues up behind it. A room
//! that must not announce a result before it is durable waits for its own
//! answer, and never for another room's: it simply rides in the same
//! commit.
//!
//! Match starts, dealt hands and attempts are sent without waiting (they
//! announce nothing); they still commit in order with the rest of their
//! room's writes, because one channel and one connection keep the order.
//! New players go through the same group commit: a crowd of `hello`s
//! arriving together costs one transaction per batch, not one each.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::db::scores::{Applied, NewPlayer, Write};
use crate::db::{Created, Db, DbError, Writer};
pub use crate::metrics::RecorderMetrics;

/// Requests waiting for the recorder; a room sending to a full queue waits
/// (back-pressure when the disk cannot keep up).
const QUEUE: usize = 8192;

/// Most requests in one transaction, so one commit cannot grow without end.
const MAX_BATCH: usize = 2048;

/// Why something was not recorded.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RecordError {
    /// The database refused the write or the commit (shared by every
    /// request of a batch whose commit failed).
    #[error("recording failed: {0}")]
    Failed(#[source] Arc<DbError>),
    /// The recorder has shut down.
    #[error("the recorder has stopped")]
    Stopped,
    /// The recorder answered something else than the request asked for.
    #[error("the recorder answered {0:?} to a new player")]
    Unexpected(Vec<Applied>),
}

type Reply = oneshot::Sender<Result<Vec<Applied>, RecordError>>;

#[derive(Debug)]
enum Request {
    /// Writes to apply together, answered after the commit if `reply` is set.
    Write {
        writes: Vec<Write>,
        reply: Option<Reply>,
    },
    /// Finish what is queued, then stop.
    Close(oneshot::Sender<()>),
}

/// The handle rooms record through; cheap to clone.
#[derive(Debug, Clone)]
pub struct Recorder {
    tx: mpsc::Sender<Request>,
    /// Batches committed so far that changed a leaderboard: what the
    /// boards' copies compare themselves to.
    commits: Arc<AtomicU64>,
}

impl Recorder {
    /// Opens the recorder's own connection and starts its task, which
    /// counts its commits in `metrics`.
    pub async fn start(
        db: &Db,
        metrics: RecorderMetrics,
    ) -> Result<(Recorder, JoinHandle<()>), DbError> {
        let writer = db.writer().await?;
        let (tx, rx) = mpsc::channel(QUEUE);
        let commits = Arc::new(AtomicU64::new(0));
        let task = tokio::spawn(run(writer, rx, commits.clone(), metrics));
        Ok((Recorder { tx, commits }, task))
    }

    /// Requests waiting for the next group commit.
    pub fn queue_depth(&self) -> usize {
        self.tx.max_capacity() - self.tx.capacity()
    }

    /// How many committed batches changed a leaderboard (a round's result
    /// or a match's end): a board read before the count last moved may be
    /// out of date.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Acquire)
    }

    /// Records `writes` and returns once they are committed (durable), with
    /// what each produced.
    pub async fn commit(&self, writes: Vec<Write>) -> Result<Vec<Applied>, RecordError> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(Request::Write {
                writes,
                reply: Some(reply),
            })
            .await
            .map_err(|_| RecordError::Stopped)?;
        answer.await.map_err(|_| RecordError::Stopped)?
    }

    /// Creates a player, riding in the next group commit; returns once the
    /// player is committed.
    pub async fn create_player(&self, player: NewPlayer) -> Result<Created, RecordError> {
        let mut applied = self.commit(vec![Write::CreatePlayer(player)]).await?;
        match applied.pop() {
            Some(Applied::Player(created)) if applied.is_empty() => Ok(created),
            other => {
                applied.extend(other);
                Err(RecordError::Unexpected(applied))
            }
        }
    }

    /// Queues `writes` without waiting for their commit (failures are
    /// logged by the recorder).
    pub async fn submit(&self, writes: Vec<Write>) -> Result<(), RecordError> {
        self.tx
            .send(Request::Write {
                writes,
                reply: None,
            })
            .await
            .map_err(|_| RecordError::Stopped)
    }

    /// Commits everything queued so far and stops the recorder.
    pub async fn close(&self) {
        let (done, wait) = oneshot::channel();
        if self.tx.send(Request::Close(done)).await.is_ok() {
            let _ = wait.await;
        }
    }
}

async fn run(
    mut writer: Writer,
    mut rx: mpsc::Receiver<Request>,
    commits: Arc<AtomicU64>,
    metrics: RecorderMetrics,
) {
    let mut closers = Vec::new();
    while let Some(first) = rx.recv().await {
        let mut batch = Vec::new();
        let mut next = Some(first);
        while let Some(request) = next {
            match request {
                Request::Write { writes, reply } => batch.push((writes, reply)),
                Request::Close(done) => {
                    // Whatever is already queued still gets written; then
                    // `recv` ends the loop.
                    rx.close();
                    closers.push(done);
                }
            }
            next = if batch.len() < MAX_BATCH {
                rx.try_recv().ok()
            } else {
                None
            };
        }
        if !batch.is_empty() {
            commit_batch(&mut writer, batch, &commits, &metrics).await;
        }
    }
    if let Err(e) = writer.close().await {
        tracing::warn!(error = %e, "closing the recorder's connection");
    }
    for done in closers {
        let _ = done.send(());
    }
}

/// Applies a batch in one transaction and answers its requests.
/// Applies and commits one batch, counts it, then answers its requests (in
/// that order: whoever hears of a result can see that it was committed).
async fn commit_batch(
    writer: &mut Writer,
    batch: Vec<(Vec<Write>, Option<Reply>)>,
    commits: &AtomicU64,
    metrics: &RecorderMetrics,
) {
    let requests: Vec<&[Write]> = batch.iter().map(|(writes, _)| writes.as_slice()).collect();
    let started = std::time::Instant::now();
    let applied = writer.apply_batch(&requests).await;
    metrics
        .commit_seconds
        .record(started.elapsed().as_secs_f64());
    match &applied {
        Ok(_) => metrics.commits.increment(1),
        Err(_) => metrics.failed_commits.increment(1),
    }
    let results: Vec<Result<Vec<Applied>, RecordError>> = match applied {
        Ok(results) => results
            .into_iter()
            .map(|r| r.map_err(|e| RecordError::Failed(Arc::new(e))))
            .collect(),
        Err(e) => {
            tracing::error!(error = %e, requests = batch.len(), "a group commit failed");
            let failed = RecordError::Failed(Arc::new(e));
            batch.iter().map(|_| Err(failed.clone())).collect()
        }
    };
    if batch
        .iter()
        .any(|(writes, _)| writes.iter().any(Write::changes_boards))
    {
        commits.fetch_add(1, Ordering::AcqRel);
    }
    for ((writes, reply), result) in batch.into_iter().zip(results) {
        match reply {
            Some(reply) => {
                let _ = reply.send(result);
            }
            None => {
                if let Err(e) = result {
                    tracing::warn!(error = %e, ?writes, "a write was not recorded");
                }
            }
        }
    }
}
