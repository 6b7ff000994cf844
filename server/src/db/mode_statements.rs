//! The statements of [`super::mode_writer`]'s batches, written once for
//! both backends: daily starts and daily solves in a row run as one
//! statement over all their rows (the backend's row source, as the
//! recorder's batches do), every other write alone. A batch holds SQLite's
//! write lock for a few statements, however many players it answers.

use std::collections::{HashMap, HashSet};

use sqlx::Connection;

use super::mode_writer::{Answer, Answers, ModeWrite};
use super::modes::{AttemptRow, DailyStored};
use super::rows::Rows;
use super::write_backend::{Decodes, WriteBackend};
use super::DbError;

/// The statements and the batch for one backend: the same text on both,
/// type-checked once per connection type.
macro_rules! backend {
    ($module:ident, $conn:ty, $db:ty) => {
        pub(super) mod $module {
            use super::*;

            /// Applies `writes` in one transaction, in order; replayed
            /// with a savepoint per write when one is refused.
            pub(in crate::db) async fn batch(
                conn: &mut $conn,
                writes: &[&ModeWrite],
            ) -> Result<Answers, DbError> {
                let mut tx = conn.begin_with(<$db as WriteBackend>::BEGIN_WRITE).await?;
                let mut answers = Vec::with_capacity(writes.len());
                let mut refused = None;
                let mut rest = writes;
                while !rest.is_empty() {
                    let (done, kind) = segment(rest);
                    let (now, later) = rest.split_at(done);
                    rest = later;
                    let step = match kind {
                        Segment::Starts => starts::<$db>(&mut tx, now).await,
                        Segment::Solves => solves::<$db>(&mut tx, now).await,
                        Segment::One => one(&mut tx, now[0]).await.map(|a| vec![a]),
                    };
                    match step {
                        Ok(done) => answers.extend(done.into_iter().map(Ok)),
                        Err(e) => {
                            refused = Some(e);
                            break;
                        }
                    }
                }
                match refused {
                    None => {
                        tx.commit().await?;
                        Ok(answers)
                    }
                    Some(e) if e.is_unavailable() => Err(e),
                    Some(e) => {
                        tracing::warn!(error = %e, "a mode write failed; replaying its batch with savepoints");
                        tx.rollback().await?;
                        isolated(conn, writes).await
                    }
                }
            }

            /// Applies `writes` with each in its own savepoint.
            async fn isolated(conn: &mut $conn, writes: &[&ModeWrite]) -> Result<Answers, DbError> {
                let mut tx = conn.begin_with(<$db as WriteBackend>::BEGIN_WRITE).await?;
                let mut answers = Vec::with_capacity(writes.len());
                for write in writes {
                    let mut savepoint = Connection::begin(&mut *tx).await?;
                    match one(&mut savepoint, write).await {
                        Ok(answer) => {
                            savepoint.commit().await?;
                            answers.push(Ok(answer));
                        }
                        Err(e) if e.is_unavailable() => return Err(e),
                        Err(e) => {
                            savepoint.rollback().await?;
                            answers.push(Err(e));
                        }
                    }
                }
                tx.commit().await?;
                Ok(answers)
            }

            /// Runs one write inside the caller's transaction (a daily
            /// start or solve as a segment of one: the same statement).
            async fn one(conn: &mut $conn, write: &ModeWrite) -> Result<Answer, DbError> {
                Ok(match write {
                    ModeWrite::DailyAttempt { .. } => {
                        only(starts::<$db>(conn, &[write]).await?)?
                    }
                    ModeWrite::DailySolve { .. } => {
                        only(solves::<$db>(conn, &[write]).await?)?
                    }
                    ModeWrite::DailyMiss { player, day } => {
                        sqlx::query(DAILY_MISS)
                            .bind(player.0)
                            .bind(day)
                            .execute(&mut *conn)
                            .await?;
                        Answer::Done
                    }
                    ModeWrite::RunFinished { player, day, run } => {
                        sqlx::query(RUN_FINISHED)
                            .bind(player.0)
                            .bind(day)
                            .bind(run.score)
                            .bind(run.misses)
                            .bind(run.best_combo)
                            .bind(run.duration_ms)
                            .bind(run.finished_ms)
                            .execute(&mut *conn)
                            .await?;
                        Answer::Done
                    }
                    ModeWrite::ChallengeInsert {
                        code,
                        player,
                        challenge,
                        now_ms,
                    } => {
                        let done = sqlx::query(CHALLENGE_INSERT)
                            .bind(code)
                            .bind(player.0)
                            .bind(challenge.objective)
                            .bind(&challenge.cards)
                            .bind(&challenge.rules)
                            .bind(challenge.elapsed_ms)
                            .bind(challenge.misses)
                            .bind(now_ms)
                            .execute(&mut *conn)
                            .await?;
                        Answer::Changed(done.rows_affected() == 1)
                    }
                    ModeWrite::ChallengeAttempt {
                        code,
                        player,
                        now_ms,
                    } => {
                        sqlx::query(CHALLENGE_START)
                            .bind(code)
                            .bind(player.0)
                            .bind(now_ms)
                            .execute(&mut *conn)
                            .await?;
                        Answer::Attempt(
                            sqlx::query_as(CHALLENGE_READ)
                                .bind(code)
                                .bind(player.0)
                                .fetch_one(&mut *conn)
                                .await?,
                        )
                    }
                    ModeWrite::ChallengeMiss { code, player } => {
                        sqlx::query(CHALLENGE_MISS)
                            .bind(code)
                            .bind(player.0)
                            .execute(&mut *conn)
                            .await?;
                        Answer::Done
                    }
                    ModeWrite::ChallengeSolve {
                        code,
                        player,
                        solved_ms,
                        elapsed_ms,
                    } => {
                        let done = sqlx::query(CHALLENGE_SOLVE)
                            .bind(code)
                            .bind(player.0)
                            .bind(solved_ms)
                            .bind(elapsed_ms)
                            .execute(&mut *conn)
                            .await?;
                        Answer::Changed(done.rows_affected() == 1)
                    }
                })
            }
        }
    };
}

backend!(sqlite, sqlx::SqliteConnection, sqlx::Sqlite);
backend!(postgres, sqlx::PgConnection, sqlx::Postgres);

/// How the next writes of a batch run together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Segment {
    /// Daily attempts started, one statement for all.
    Starts,
    /// Daily solves, one statement for all.
    Solves,
    /// Any other write, alone.
    One,
}

/// The answer of a segment of one write.
fn only(answers: Vec<Answer>) -> Result<Answer, DbError> {
    let mut answers = answers.into_iter();
    match (answers.next(), answers.next()) {
        (Some(answer), None) => Ok(answer),
        _ => Err(DbError::Invariant("one write answered other than once")),
    }
}

/// The longest run of writes at the head of `writes` that can run as one
/// statement: daily starts (or daily solves) in a row, each for a
/// different player and day, so running them together gives what running
/// them in turn would. Never empty for a non-empty `writes`.
fn segment(writes: &[&ModeWrite]) -> (usize, Segment) {
    let kind = match writes.first() {
        Some(ModeWrite::DailyAttempt { .. }) => Segment::Starts,
        Some(ModeWrite::DailySolve { .. }) => Segment::Solves,
        _ => return (1, Segment::One),
    };
    let mut keys = HashSet::new();
    let len = writes
        .iter()
        .take_while(|w| match (kind, w) {
            (Segment::Starts, ModeWrite::DailyAttempt { player, day, .. })
            | (Segment::Solves, ModeWrite::DailySolve { player, day, .. }) => {
                keys.insert((player.0, day.as_str()))
            }
            _ => false,
        })
        .count();
    (len.max(1), kind)
}

/// A daily attempt read back with its key.
type KeyedAttempt = (i64, String, i64, i64, Option<i64>, Option<i64>);

/// Starts the daily attempts of `writes` (all `DailyAttempt`, each for a
/// different player and day) and reads every one back.
async fn starts<B: WriteBackend + Decodes<KeyedAttempt>>(
    conn: &mut B::Connection,
    writes: &[&ModeWrite],
) -> Result<Vec<Answer>, DbError> {
    const INSERT: &str = "INSERT INTO daily_attempts (player_id, day, started_ms)
         SELECT t.player_id, t.day, t.started_ms FROM {rows} WHERE true
         ON CONFLICT (player_id, day) DO NOTHING";
    const READ: &str = "SELECT a.player_id, a.day, a.started_ms, a.misses, a.solved_ms,
                               a.elapsed_ms
         FROM {rows} JOIN daily_attempts a ON a.player_id = t.player_id AND a.day = t.day";
    let keys: Vec<(i64, &str, i64)> = all_of(
        writes,
        "a batch of starts with another write",
        |w| match w {
            ModeWrite::DailyAttempt {
                player,
                day,
                now_ms,
            } => Some((player.0, day.as_str(), *now_ms)),
            _ => None,
        },
    )?;
    let rows: Rows = Rows::of(&keys)
        .col("player_id", |k| k.0)
        .col("day", |k| k.1)
        .col("started_ms", |k| k.2)
        .into();
    B::execute(conn, INSERT, rows.clone()).await?;
    let found: Vec<KeyedAttempt> = B::fetch(conn, READ, rows).await?;
    let stored = in_order(
        found
            .into_iter()
            .map(|(player, day, started, misses, solved, elapsed)| {
                (
                    (player, day),
                    attempt_row((started, misses, solved, elapsed)),
                )
            }),
        keys.iter().map(|k| (k.0, k.1)),
        "a started attempt not read back",
    )?;
    Ok(stored.into_iter().map(Answer::Attempt).collect())
}

/// What `pick` takes from each of `writes`, a segment of one kind of
/// write; a write it takes nothing from breaks an invariant (`other`).
fn all_of<'w, T>(
    writes: &[&'w ModeWrite],
    other: &'static str,
    pick: impl Fn(&'w ModeWrite) -> Option<T>,
) -> Result<Vec<T>, DbError> {
    writes
        .iter()
        .map(|w| pick(w).ok_or(DbError::Invariant(other)))
        .collect()
}

/// The rows read back with their (player, day) keys, in the order of
/// `keys`; a key with no row breaks an invariant (`missing` says which).
fn in_order<'k, T>(
    found: impl Iterator<Item = ((i64, String), T)>,
    keys: impl Iterator<Item = (i64, &'k str)>,
    missing: &'static str,
) -> Result<Vec<T>, DbError> {
    let mut stored: HashMap<(i64, String), T> = found.collect();
    keys.map(|(player, day)| {
        stored
            .remove(&(player, day.to_owned()))
            .ok_or(DbError::Invariant(missing))
    })
    .collect()
}

/// An attempt read back: started, misses, solved, elapsed.
type AttemptColumns = (i64, i64, Option<i64>, Option<i64>);

/// The stored attempt of [`AttemptColumns`].
fn attempt_row((started_ms, misses, solved_ms, elapsed_ms): AttemptColumns) -> AttemptRow {
    AttemptRow {
        started_ms,
        misses,
        solved_ms,
        elapsed_ms,
    }
}

/// A solved daily read back: started, misses, solved, elapsed, formula,
/// rated.
type SolvedColumns = (i64, i64, Option<i64>, Option<i64>, Option<String>, i64);

/// A solved daily read back with its key.
type KeyedSolved = (
    i64,
    String,
    i64,
    i64,
    Option<i64>,
    Option<i64>,
    Option<String>,
    i64,
);

/// The stored attempt of [`SolvedColumns`].
fn daily_stored(
    (started_ms, misses, solved_ms, elapsed_ms, formula, rated): SolvedColumns,
) -> DailyStored {
    DailyStored {
        attempt: attempt_row((started_ms, misses, solved_ms, elapsed_ms)),
        formula,
        rated: rated == 1,
    }
}

/// Records the daily solves of `writes` (all `DailySolve`, each for a
/// different player and day); each answers whether it counted, with the
/// attempt as stored after the statement (the earlier result where one
/// stood already), read back in the same transaction.
async fn solves<B: WriteBackend + Decodes<(i64, String)> + Decodes<KeyedSolved>>(
    conn: &mut B::Connection,
    writes: &[&ModeWrite],
) -> Result<Vec<Answer>, DbError> {
    const SQL: &str = "UPDATE daily_attempts
         SET solved_ms = t.solved_ms, elapsed_ms = t.elapsed_ms, formula = t.formula,
             rated = CASE WHEN EXISTS (SELECT 1 FROM players p WHERE p.id = t.player_id AND p.bot)
                     THEN 0 ELSE t.rated END
         FROM {rows}
         WHERE daily_attempts.player_id = t.player_id AND daily_attempts.day = t.day
           AND daily_attempts.solved_ms IS NULL
         RETURNING daily_attempts.player_id, daily_attempts.day";
    const READ: &str = "SELECT a.player_id, a.day, a.started_ms, a.misses, a.solved_ms,
                               a.elapsed_ms, a.formula, a.rated
         FROM {rows} JOIN daily_attempts a ON a.player_id = t.player_id AND a.day = t.day";
    let solves: Vec<(i64, &str, i64, i64, &str, bool)> = all_of(
        writes,
        "a batch of solves with another write",
        |w| match w {
            ModeWrite::DailySolve {
                player,
                day,
                solved_ms,
                elapsed_ms,
                formula,
                rated,
            } => Some((
                player.0,
                day.as_str(),
                *solved_ms,
                *elapsed_ms,
                formula.as_str(),
                *rated,
            )),
            _ => None,
        },
    )?;
    let rows: Rows = Rows::of(&solves)
        .col("player_id", |s| s.0)
        .col("day", |s| s.1)
        .col("solved_ms", |s| s.2)
        .col("elapsed_ms", |s| s.3)
        .col("formula", |s| s.4)
        .col("rated", |s| i64::from(s.5))
        .into();
    let counted: HashSet<(i64, String)> = B::fetch(conn, SQL, rows.clone())
        .await?
        .into_iter()
        .collect();
    let found: Vec<KeyedSolved> = B::fetch(conn, READ, rows).await?;
    let stored = in_order(
        found.into_iter().map(
            |(player, day, started, misses, solved, elapsed, formula, rated)| {
                let row = daily_stored((started, misses, solved, elapsed, formula, rated));
                ((player, day), row)
            },
        ),
        solves.iter().map(|s| (s.0, s.1)),
        "a solved attempt not read back",
    )?;
    Ok(solves
        .iter()
        .zip(stored)
        .map(|(s, row)| Answer::Solved(counted.contains(&(s.0, s.1.to_owned())), row))
        .collect())
}

const DAILY_MISS: &str = "UPDATE daily_attempts SET misses = misses + 1
                          WHERE player_id = $1 AND day = $2 AND solved_ms IS NULL";
const RUN_FINISHED: &str = "INSERT INTO run_bests
        (player_id, day, score, misses, best_combo, duration_ms, finished_ms, runs)
    VALUES ($1, $2, $3, $4, $5, $6, $7, 1)
    ON CONFLICT (player_id, day) DO UPDATE SET
        runs = run_bests.runs + 1,
        misses = CASE WHEN excluded.score > run_bests.score
                 THEN excluded.misses ELSE run_bests.misses END,
        best_combo = CASE WHEN excluded.score > run_bests.score
                     THEN excluded.best_combo ELSE run_bests.best_combo END,
        duration_ms = CASE WHEN excluded.score > run_bests.score
                      THEN excluded.duration_ms ELSE run_bests.duration_ms END,
        finished_ms = CASE WHEN excluded.score > run_bests.score
                      THEN excluded.finished_ms ELSE run_bests.finished_ms END,
        score = CASE WHEN excluded.score > run_bests.score
                THEN excluded.score ELSE run_bests.score END";
const CHALLENGE_INSERT: &str = "INSERT INTO challenges
        (code, player_id, objective, cards, rules, elapsed_ms, misses, created_ms)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (code) DO NOTHING";
const CHALLENGE_START: &str = "INSERT INTO challenge_attempts (code, player_id, started_ms)
    VALUES ($1, $2, $3) ON CONFLICT (code, player_id) DO NOTHING";
const CHALLENGE_READ: &str =
    "SELECT started_ms, misses, solved_ms, elapsed_ms FROM challenge_attempts
     WHERE code = $1 AND player_id = $2";
const CHALLENGE_MISS: &str = "UPDATE challenge_attempts SET misses = misses + 1
                              WHERE code = $1 AND player_id = $2 AND solved_ms IS NULL";
const CHALLENGE_SOLVE: &str = "UPDATE challenge_attempts SET solved_ms = $3, elapsed_ms = $4
                               WHERE code = $1 AND player_id = $2 AND solved_ms IS NULL";
