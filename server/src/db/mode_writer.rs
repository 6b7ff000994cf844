//! The writes of the daily, challenges and solo runs, in group commits.
//!
//! One task owns them, fed by a bounded queue: it takes every request
//! waiting (up to [`BATCH`]), runs them in one transaction in the order
//! they came, commits once and only then answers each through its own
//! oneshot. A rush of players asking for the daily at once costs one
//! fsync per batch instead of one per player, and holds SQLite's write
//! lock once per batch, briefly, so the recorder's group commit (new
//! players at `hello`) still gets its turn.
//!
//! A write the database refuses (not an outage) rolls the batch back and
//! replays it with each request in its own savepoint: only that request
//! gets the error. A failed commit, or an outage, answers every request of
//! the batch with it ([`DbError::Shared`]). Nothing here retries: each
//! caller's player is told to try again, as with any database failure.

use std::sync::Arc;

use krypto_core::protocol::PlayerId;
use tokio::sync::{mpsc, oneshot};

use super::mode_statements as statements;
use super::modes::{AttemptRow, ChallengeRow, DailyStored, RunBest};
use super::{Db, DbError};

/// Requests waiting for the writer at most; a sender past that waits its
/// turn (each connection has one request in flight, so the wait is
/// bounded by the connections, never by what a client sends).
pub(crate) const QUEUE: usize = 4096;

/// Requests in one transaction at most.
pub(crate) const BATCH: usize = 256;

/// One write, as the writer's queue carries it.
#[derive(Debug)]
pub(super) enum ModeWrite {
    DailyAttempt {
        player: PlayerId,
        day: String,
        now_ms: i64,
    },
    DailyMiss {
        player: PlayerId,
        day: String,
    },
    DailySolve {
        player: PlayerId,
        day: String,
        solved_ms: i64,
        elapsed_ms: i64,
        formula: String,
        rated: bool,
    },
    RunFinished {
        player: PlayerId,
        day: String,
        run: RunBest,
    },
    ChallengeInsert {
        code: String,
        player: PlayerId,
        challenge: Box<ChallengeRow>,
        now_ms: i64,
    },
    ChallengeAttempt {
        code: String,
        player: PlayerId,
        now_ms: i64,
    },
    ChallengeMiss {
        code: String,
        player: PlayerId,
    },
    ChallengeSolve {
        code: String,
        player: PlayerId,
        solved_ms: i64,
        elapsed_ms: i64,
    },
}

/// What a write produced.
#[derive(Debug)]
pub(super) enum Answer {
    /// The stored attempt (started by this write or an earlier one).
    Attempt(AttemptRow),
    /// Whether the write changed a row (a solve that counted, a code free).
    Changed(bool),
    /// A daily solve: whether it counted, and the attempt as stored after
    /// it (read in the same transaction, so the answer needs no read).
    Solved(bool, DailyStored),
    /// Done.
    Done,
}

/// A write and where its answer goes.
#[derive(Debug)]
struct Request {
    write: ModeWrite,
    reply: oneshot::Sender<Result<Answer, DbError>>,
    /// When it was queued (the batch's log says how long the oldest
    /// waited).
    queued: std::time::Instant,
}

/// The handle to the writer's task; cheap to clone. The task ends when
/// every handle is dropped.
#[derive(Debug, Clone)]
pub(crate) struct ModeWriter {
    queue: mpsc::Sender<Request>,
}

impl ModeWriter {
    /// Starts the writer on `db`.
    pub(crate) fn start(db: Db) -> ModeWriter {
        let (queue, requests) = mpsc::channel(QUEUE);
        tokio::spawn(run(db, requests));
        ModeWriter { queue }
    }

    /// Queues `write` and waits for its answer, given once its batch is
    /// committed.
    async fn write(&self, write: ModeWrite) -> Result<Answer, DbError> {
        let (reply, answer) = oneshot::channel();
        self.queue
            .send(Request {
                write,
                reply,
                queued: std::time::Instant::now(),
            })
            .await
            .map_err(|_| DbError::WriterStopped)?;
        answer.await.map_err(|_| DbError::WriterStopped)?
    }

    /// The player's attempt at `day`, started at `now_ms` unless one is
    /// stored already (then that one, with its clock).
    pub(crate) async fn daily_attempt(
        &self,
        player: PlayerId,
        day: &str,
        now_ms: i64,
    ) -> Result<AttemptRow, DbError> {
        let write = ModeWrite::DailyAttempt {
            player,
            day: day.to_owned(),
            now_ms,
        };
        attempt(self.write(write).await?)
    }

    /// Counts a wrong answer to `day`'s hand (none once solved).
    pub(crate) async fn daily_miss(&self, player: PlayerId, day: &str) -> Result<(), DbError> {
        let day = day.to_owned();
        self.write(ModeWrite::DailyMiss { player, day }).await?;
        Ok(())
    }

    /// Records the right answer; false when the day was solved already
    /// (its first result stands: one result a day), with the attempt as
    /// stored after it. `rated` is dropped for a player stored as a bot.
    pub(crate) async fn daily_solve(
        &self,
        player: PlayerId,
        day: &str,
        solved_ms: i64,
        elapsed_ms: i64,
        formula: &str,
        rated: bool,
    ) -> Result<(bool, DailyStored), DbError> {
        let write = ModeWrite::DailySolve {
            player,
            day: day.to_owned(),
            solved_ms,
            elapsed_ms,
            formula: formula.to_owned(),
            rated,
        };
        match self.write(write).await? {
            Answer::Solved(counted, stored) => Ok((counted, stored)),
            _ => Err(DbError::Invariant("a solve answered without its row")),
        }
    }

    /// Stores a finished run; it becomes the player's best of `day` when
    /// it scored more than the stored one.
    pub(crate) async fn run_finished(
        &self,
        player: PlayerId,
        day: &str,
        run: RunBest,
    ) -> Result<(), DbError> {
        let day = day.to_owned();
        self.write(ModeWrite::RunFinished { player, day, run })
            .await?;
        Ok(())
    }

    /// Stores a new challenge; false when its code is taken (draw another).
    pub(crate) async fn challenge_insert(
        &self,
        code: &str,
        player: PlayerId,
        challenge: &ChallengeRow,
        now_ms: i64,
    ) -> Result<bool, DbError> {
        let write = ModeWrite::ChallengeInsert {
            code: code.to_owned(),
            player,
            challenge: Box::new(challenge.clone()),
            now_ms,
        };
        changed(self.write(write).await?)
    }

    /// The player's attempt at a challenge, started at `now_ms` unless one
    /// is stored already.
    pub(crate) async fn challenge_attempt(
        &self,
        code: &str,
        player: PlayerId,
        now_ms: i64,
    ) -> Result<AttemptRow, DbError> {
        let write = ModeWrite::ChallengeAttempt {
            code: code.to_owned(),
            player,
            now_ms,
        };
        attempt(self.write(write).await?)
    }

    /// Counts a wrong answer to a challenge (none once solved).
    pub(crate) async fn challenge_miss(&self, code: &str, player: PlayerId) -> Result<(), DbError> {
        let code = code.to_owned();
        self.write(ModeWrite::ChallengeMiss { code, player })
            .await?;
        Ok(())
    }

    /// Records the right answer to a challenge; false when it was solved
    /// already.
    pub(crate) async fn challenge_solve(
        &self,
        code: &str,
        player: PlayerId,
        solved_ms: i64,
        elapsed_ms: i64,
    ) -> Result<bool, DbError> {
        let write = ModeWrite::ChallengeSolve {
            code: code.to_owned(),
            player,
            solved_ms,
            elapsed_ms,
        };
        changed(self.write(write).await?)
    }
}

/// A write's answer as the attempt it started or found.
fn attempt(answer: Answer) -> Result<AttemptRow, DbError> {
    match answer {
        Answer::Attempt(row) => Ok(row),
        _ => Err(DbError::Invariant("an attempt answered without its row")),
    }
}

/// A write's answer as "did it change a row".
fn changed(answer: Answer) -> Result<bool, DbError> {
    match answer {
        Answer::Changed(changed) => Ok(changed),
        _ => Err(DbError::Invariant("a write answered without its count")),
    }
}

/// The writer's task: a batch at a time, until every handle is dropped.
async fn run(db: Db, mut requests: mpsc::Receiver<Request>) {
    let mut batch = Vec::with_capacity(BATCH);
    let mut own = None;
    while requests.recv_many(&mut batch, BATCH).await > 0 {
        let started = std::time::Instant::now();
        let waited = batch.first().map(|r| started - r.queued);
        let writes: Vec<&ModeWrite> = batch.iter().map(|r| &r.write).collect();
        let results = commit(&db, &mut own, &writes).await;
        tracing::debug!(
            writes = batch.len(),
            oldest_waited_us = waited.unwrap_or_default().as_micros(),
            commit_us = started.elapsed().as_micros(),
            "mode batch"
        );
        match results {
            Ok(answers) if answers.len() == batch.len() => {
                for (request, answer) in batch.drain(..).zip(answers) {
                    // A player who left meanwhile needs no answer.
                    let _ = request.reply.send(answer);
                }
            }
            Ok(_) => answer_all(
                &mut batch,
                DbError::Invariant("a batch answered a different number of writes"),
            ),
            Err(e) => {
                tracing::warn!(error = %e, writes = batch.len(), "a batch of mode writes failed");
                answer_all(&mut batch, e);
            }
        }
    }
}

/// Answers every request of `batch` with `error`.
fn answer_all(batch: &mut Vec<Request>, error: DbError) {
    let error = Arc::new(error);
    for request in batch.drain(..) {
        let _ = request.reply.send(Err(DbError::Shared(error.clone())));
    }
}

/// What each write of a committed batch produced.
pub(super) type Answers = Vec<Result<Answer, DbError>>;

/// Runs `writes` in one transaction and commits: on SQLite on a
/// connection of the writer's own (`own`, opened on first use and again
/// after a failure), so a batch never queues for the read pool behind the
/// reads of a rush; on PostgreSQL on a pooled one (its pool is not the
/// bottleneck: a server connection per query, no file lock).
async fn commit(
    db: &Db,
    own: &mut Option<sqlx::SqliteConnection>,
    writes: &[&ModeWrite],
) -> Result<Answers, DbError> {
    match db {
        Db::Sqlite(s) => {
            let conn = match own {
                Some(conn) => conn,
                None => own.insert(s.connect_waiting(super::SQLITE_WRITE_WAIT).await?),
            };
            let turn = s.write_turn().await;
            let done = statements::sqlite::batch(conn, writes).await;
            drop(turn);
            if done.is_err() {
                // Whatever state it was left in (a transaction cut off,
                // a file gone), the next batch starts on a new one.
                *own = None;
            }
            done
        }
        Db::Postgres(s) => {
            let mut conn = s.pool.acquire().await?;
            statements::postgres::batch(&mut conn, writes).await
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::db::scores::NewPlayer;
    use crate::db::Created;

    #[tokio::test]
    async fn a_refused_write_fails_alone_and_the_rest_of_its_batch_is_committed() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("modes.db").display());
        let db = Db::open(&url).await.unwrap();
        let Created::Player(ada) = db
            .create_player(NewPlayer {
                name: "Ada".into(),
                name_key: "ada".into(),
                token_hash: "00".into(),
                bot: false,
            })
            .await
            .unwrap()
        else {
            panic!("Ada's name is free");
        };
        let ada = ada.player_id();
        let writer = ModeWriter::start(db.clone());
        // On this single-threaded runtime the four are queued before the
        // writer runs: one batch. The second names no player (a foreign
        // key the database refuses); the starts and the solve after them
        // are replayed one by one.
        let (first, refused, second, solved) = tokio::join!(
            writer.daily_attempt(ada, "2026-03-10", 1_000),
            writer.daily_attempt(PlayerId(999), "2026-03-10", 1_000),
            writer.daily_attempt(ada, "2026-03-11", 2_000),
            writer.daily_solve(ada, "2026-03-11", 3_000, 1_000, "3*5", false),
        );
        assert_eq!(first.unwrap().started_ms, 1_000);
        let refused = refused.unwrap_err();
        assert!(!refused.is_unavailable(), "{refused}");
        assert_eq!(second.unwrap().started_ms, 2_000);
        let (counted, stored) = solved.unwrap();
        assert!(counted);
        assert_eq!(stored.attempt.started_ms, 2_000);
        assert_eq!(stored.attempt.solved_ms, Some(3_000));
        assert_eq!(stored.formula.as_deref(), Some("3*5"));
        assert!(!stored.rated);
        // Stored: a second start keeps the first clock.
        let again = writer
            .daily_attempt(ada, "2026-03-10", 9_000)
            .await
            .unwrap();
        assert_eq!(again.started_ms, 1_000);
        // Two solves of one day in one batch (two tabs): the first counts.
        let (first, second) = tokio::join!(
            writer.daily_solve(ada, "2026-03-10", 5_000, 4_000, "1+2", true),
            writer.daily_solve(ada, "2026-03-10", 6_000, 5_000, "2+1", true),
        );
        let ((first, stored_first), (second, stored_second)) = (first.unwrap(), second.unwrap());
        assert_eq!((first, second), (true, false));
        // Both answered with the result that stands.
        assert_eq!(stored_first, stored_second);
        assert_eq!(stored_first.formula.as_deref(), Some("1+2"));
        assert!(stored_first.rated);
        let stored = db
            .daily_attempt_stored(ada, "2026-03-10")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (stored.solved_ms, stored.elapsed_ms),
            (Some(5_000), Some(4_000))
        );
    }

    #[tokio::test]
    async fn a_batch_that_cannot_reach_the_database_answers_every_request_with_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("gone.db").display());
        let db = Db::open(&url).await.unwrap();
        // The file's folder is gone: the writer's own connection cannot be
        // opened (the pool's are not used).
        drop(dir);
        let writer = ModeWriter::start(db);
        let (a, b) = tokio::join!(
            writer.daily_miss(PlayerId(1), "2026-03-10"),
            writer.daily_miss(PlayerId(2), "2026-03-10"),
        );
        for e in [a.unwrap_err(), b.unwrap_err()] {
            assert!(matches!(e, DbError::Shared(_)), "{e}");
            assert!(e.is_unavailable(), "{e}");
        }
    }
}
