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
//! Attempts and dealt hands are sent without waiting (they announce
//! nothing); they still commit in order with the rest of their room's
//! writes, because one channel and one connection keep the order.

use sqlx::{Connection, SqliteConnection};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::db::scores::{self, Applied, MatchEnd, NewMatch, Write};
use crate::db::{begin_write, Db, DbError};

/// Requests waiting for the recorder; a room sending to a full queue waits
/// (back-pressure when the disk cannot keep up).
const QUEUE: usize = 8192;

/// Most requests in one transaction, so one commit cannot grow without end.
const MAX_BATCH: usize = 2048;

/// Why something was not recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// The database refused the write or the commit.
    #[error("recording failed: {0}")]
    Failed(String),
    /// The recorder has shut down.
    #[error("the recorder has stopped")]
    Stopped,
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
}

impl Recorder {
    /// Opens the recorder's own connection and starts its task.
    pub async fn start(db: &Db) -> Result<(Recorder, JoinHandle<()>), DbError> {
        let conn = db.connect().await?;
        let (tx, rx) = mpsc::channel(QUEUE);
        let task = tokio::spawn(run(conn, rx));
        Ok((Recorder { tx }, task))
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

async fn run(mut conn: SqliteConnection, mut rx: mpsc::Receiver<Request>) {
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
            commit_batch(&mut conn, batch).await;
        }
    }
    if let Err(e) = conn.close().await {
        tracing::warn!(error = %e, "closing the recorder's connection");
    }
    for done in closers {
        let _ = done.send(());
    }
}

/// Applies a batch in one transaction and answers its requests.
async fn commit_batch(conn: &mut SqliteConnection, batch: Vec<(Vec<Write>, Option<Reply>)>) {
    let results = match apply_batch(conn, &batch).await {
        Ok(results) => results,
        Err(e) => {
            tracing::error!(error = %e, requests = batch.len(), "a group commit failed");
            let failed = Err(RecordError::Failed(e.to_string()));
            batch.iter().map(|_| failed.clone()).collect()
        }
    };
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

type Results = Vec<Result<Vec<Applied>, RecordError>>;

/// Applies a batch in one transaction. The usual case, where every write
/// succeeds, runs without savepoints and writes the dealt hands, attempts
/// and round results of the whole batch with one statement each, then the
/// match starts and the match ends with a few statements for all of them,
/// then any abandonments. That reordering is safe
/// because those writes commute within a batch: a room waits for its
/// match's start to commit before it sends anything else about the match,
/// and a match's end touches no round rows. If any write fails, the
/// transaction is rolled back and the batch replayed in order with a
/// savepoint per request, so only the failing request is lost.
async fn apply_batch(
    conn: &mut SqliteConnection,
    batch: &[(Vec<Write>, Option<Reply>)],
) -> Result<Results, DbError> {
    let mut tx = begin_write(conn).await?;
    match apply_grouped(&mut tx, batch).await {
        Ok(results) => {
            tx.commit().await?;
            Ok(results)
        }
        Err(e) => {
            tracing::warn!(error = %e, "a write failed; replaying its batch with savepoints");
            tx.rollback().await?;
            apply_batch_isolated(conn, batch).await
        }
    }
}

/// Every write of a batch, in order.
fn all_writes(batch: &[(Vec<Write>, Option<Reply>)]) -> impl Iterator<Item = &Write> {
    batch.iter().flat_map(|(writes, _)| writes.iter())
}

/// The fast path of [`apply_batch`], inside its transaction.
async fn apply_grouped(
    conn: &mut SqliteConnection,
    batch: &[(Vec<Write>, Option<Reply>)],
) -> Result<Results, DbError> {
    let mut rounds = Vec::new();
    let mut tries = Vec::new();
    let mut results_of_rounds = Vec::new();
    for write in all_writes(batch) {
        match write {
            Write::StartRound(r) => rounds.push(r),
            Write::Attempt(a) => tries.push(a),
            Write::RoundResult(r) => results_of_rounds.push(r),
            _ => {}
        }
    }
    scores::start_rounds(conn, &rounds).await?;
    scores::attempts(conn, &tries).await?;
    scores::round_results(conn, &results_of_rounds).await?;
    // Match starts, then ends (a match never starts and ends in one batch:
    // its room waits for the start to commit), then the rest.
    let starts: Vec<&NewMatch> = all_writes(batch)
        .filter_map(|w| match w {
            Write::StartMatch(m) => Some(m),
            _ => None,
        })
        .collect();
    let mut ids = scores::start_matches(conn, &starts).await?.into_iter();
    let ends: Vec<&MatchEnd> = all_writes(batch)
        .filter_map(|w| match w {
            Write::FinishMatch(m) => Some(m),
            _ => None,
        })
        .collect();
    let mut changes = scores::finish_matches(conn, &ends).await?.into_iter();
    let mut results = Vec::with_capacity(batch.len());
    for (writes, _) in batch {
        let mut applied = Vec::with_capacity(writes.len());
        for write in writes {
            applied.push(match write {
                Write::StartRound(_) | Write::Attempt(_) | Write::RoundResult(_) => Applied::Done,
                Write::StartMatch(_) => Applied::Match(ids.next().unwrap_or_default()),
                Write::FinishMatch(_) => Applied::Ratings(changes.next().unwrap_or_default()),
                other => scores::apply(conn, other).await?,
            });
        }
        results.push(Ok(applied));
    }
    Ok(results)
}

/// Applies a batch with each request in its own savepoint.
async fn apply_batch_isolated(
    conn: &mut SqliteConnection,
    batch: &[(Vec<Write>, Option<Reply>)],
) -> Result<Results, DbError> {
    let mut tx = begin_write(conn).await?;
    let mut results = Vec::with_capacity(batch.len());
    for (writes, _) in batch {
        let mut savepoint = Connection::begin(&mut *tx).await?;
        let mut applied = Vec::with_capacity(writes.len());
        let mut failed = None;
        for write in writes {
            match scores::apply(&mut savepoint, write).await {
                Ok(a) => applied.push(a),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        match failed {
            None => {
                savepoint.commit().await?;
                results.push(Ok(applied));
            }
            Some(e) => {
                savepoint.rollback().await?;
                results.push(Err(RecordError::Failed(e.to_string())));
            }
        }
    }
    tx.commit().await?;
    Ok(results)
}
