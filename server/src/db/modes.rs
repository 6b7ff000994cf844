//! The daily, challenges and solo runs in the database (migrations
//! `0012_modes.sql`). The SQL is the same text on both backends; days are
//! UTC dates as `YYYY-MM-DD` text and times are Unix milliseconds passed in
//! by the caller, whose clock decides.
//!
//! Each board is read through one fragment (`daily_rows!`, `run_rows!`)
//! naming the rows it may show, so a rule about who is on no board (bots
//! today) is written once for its page, its ranks and its counts.

use krypto_core::protocol::PlayerId;

use super::{on_store, Db, DbError};

/// The rows of one day's daily board (`$1` is the day): rated, solved, and
/// no bots.
macro_rules! daily_rows {
    () => {
        " FROM daily_attempts a JOIN players p ON p.id = a.player_id
          WHERE a.day = $1 AND a.rated = 1 AND a.solved_ms IS NOT NULL AND NOT p.bot
            AND NOT EXISTS (SELECT 1 FROM fair_play_flags f
                WHERE f.player_id = a.player_id AND f.status <> 'cleared') "
    };
}

/// The run bests of a span of days (`$1` to `$2`, inclusive), no bots.
macro_rules! run_rows {
    () => {
        " FROM run_bests r JOIN players p ON p.id = r.player_id
          WHERE r.day >= $1 AND r.day <= $2 AND NOT p.bot
            AND NOT EXISTS (SELECT 1 FROM fair_play_flags f
                WHERE f.player_id = r.player_id AND f.status <> 'cleared') "
    };
}

/// A player's stored attempt at a day's hand (or a challenge's).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct AttemptRow {
    /// When the hand was first sent.
    pub started_ms: i64,
    /// Wrong answers so far.
    pub misses: i64,
    /// When the right answer arrived.
    pub solved_ms: Option<i64>,
    /// The final time, penalties included.
    pub elapsed_ms: Option<i64>,
}

/// A daily attempt as stored after a right answer: the attempt, with the
/// answer and whether it counted once solved (by this answer or an
/// earlier one: the first result stands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DailyStored {
    /// The attempt.
    pub attempt: AttemptRow,
    /// The right answer as printed, once solved.
    pub formula: Option<String>,
    /// Whether the result counts (solved on its day, by a person).
    pub rated: bool,
}

/// A solved daily as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct DailyResultRow {
    /// The right answer as printed.
    pub formula: Option<String>,
    /// 1 when it counted (solved on its day).
    pub rated: i64,
}

/// One row of a board: a name and a result.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct DailyBoardRow {
    /// The player's name.
    pub name: String,
    /// Their time, penalties included.
    pub elapsed_ms: i64,
    /// Their wrong answers.
    pub misses: i64,
}

/// One row of the runs board: a player's best in the span.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RunBoardRow {
    /// The player's name.
    pub name: String,
    /// Their best score in the span.
    pub score: i64,
}

/// A stored challenge with its challenger's name.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ChallengeRow {
    /// The challenger.
    pub player_id: i64,
    /// The challenger's name.
    pub name: String,
    /// The value to make.
    pub objective: i64,
    /// The cards, a JSON array.
    pub cards: String,
    /// The rule set's wire name.
    pub rules: String,
    /// The challenger's time.
    pub elapsed_ms: i64,
    /// The challenger's misses.
    pub misses: i64,
}

/// One answer to a challenge, for its challenger's list.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ChallengeResultRow {
    /// Who answered.
    pub name: String,
    /// Their time.
    pub elapsed_ms: i64,
    /// Their misses.
    pub misses: i64,
}

/// A challenge on its challenger's profile.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct OwnChallengeRow {
    /// Its code.
    pub code: String,
    /// When it was made (Unix ms).
    pub created_ms: i64,
    /// The challenger's time.
    pub elapsed_ms: i64,
    /// The challenger's misses.
    pub misses: i64,
    /// Answers in (solved attempts).
    pub answers: i64,
}

/// A day's best run on a profile.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RunDayRow {
    /// The UTC day, `YYYY-MM-DD`.
    pub day: String,
    /// The best score that day.
    pub score: i64,
    /// That run's wrong answers.
    pub misses: i64,
    /// That run's longest combo.
    pub best_combo: i64,
    /// Runs finished that day.
    pub runs: i64,
}

/// A finished run, to keep when it is the day's best.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunBest {
    /// Hands solved.
    pub score: i64,
    /// Wrong answers.
    pub misses: i64,
    /// The longest combo.
    pub best_combo: i64,
    /// How long it lasted.
    pub duration_ms: i64,
    /// When it ended.
    pub finished_ms: i64,
}

impl Db {
    /// The daily's secret (hex) and first day: the stored ones, or these
    /// when none is stored yet (the first node to ask stores its own; every
    /// other reads that one).
    pub async fn daily_setup(
        &self,
        secret_hex: &str,
        first_day: &str,
    ) -> Result<(String, String), DbError> {
        const INSERT: &str =
            "INSERT INTO daily_setup (id, secret_hex, first_day) VALUES (1, $1, $2)
                              ON CONFLICT (id) DO NOTHING";
        const READ: &str = "SELECT secret_hex, first_day FROM daily_setup WHERE id = 1";
        Ok(on_store!(self, s => {
            sqlx::query(INSERT).bind(secret_hex).bind(first_day).execute(&s.pool).await?;
            sqlx::query_as(READ).fetch_one(&s.pool).await?
        }))
    }

    /// The player's stored attempt at `day`, if any (never starts one).
    pub async fn daily_attempt_stored(
        &self,
        player: PlayerId,
        day: &str,
    ) -> Result<Option<AttemptRow>, DbError> {
        const READ: &str = "SELECT started_ms, misses, solved_ms, elapsed_ms FROM daily_attempts
                            WHERE player_id = $1 AND day = $2";
        Ok(on_store!(self, s =>
            sqlx::query_as(READ).bind(player.0).bind(day).fetch_optional(&s.pool).await?))
    }

    /// The stored answer and whether it counted, once `day` is solved.
    pub async fn daily_result(
        &self,
        player: PlayerId,
        day: &str,
    ) -> Result<Option<DailyResultRow>, DbError> {
        const SQL: &str = "SELECT formula, rated FROM daily_attempts
                           WHERE player_id = $1 AND day = $2 AND solved_ms IS NOT NULL";
        Ok(on_store!(self, s =>
            sqlx::query_as(SQL).bind(player.0).bind(day).fetch_optional(&s.pool).await?))
    }

    /// The rated days the player solved, from `since` on (newest first):
    /// what the streak counts.
    pub async fn daily_rated_days(
        &self,
        player: PlayerId,
        since: &str,
    ) -> Result<Vec<String>, DbError> {
        const SQL: &str = "SELECT day FROM daily_attempts
                           WHERE player_id = $1 AND day >= $2 AND rated = 1 AND solved_ms IS NOT NULL
                           ORDER BY day DESC";
        let rows: Vec<(String,)> = on_store!(self, s =>
            sqlx::query_as(SQL).bind(player.0).bind(since).fetch_all(&s.pool).await?);
        Ok(rows.into_iter().map(|(d,)| d).collect())
    }

    /// The player's place on `day`'s board (1 is first), if they are on it.
    ///
    /// Counted from the board's index alone, without the join that
    /// names the board's rows: every rated row is on the board but a
    /// flagged player's (a rated row is never a bot's: a solve stores a
    /// bot's result unrated, `db::mode_statements`), and flagged players
    /// are few, so their better results are counted from their flags and
    /// taken off (`CROSS JOIN`: SQLite then walks the flags and looks each
    /// one's attempt up, where it chose to walk the day's attempts). The
    /// join per better row made each answer of a rush cost time in
    /// proportion to the solvers before it, holding a pooled connection.
    pub async fn daily_rank(&self, day: &str, player: PlayerId) -> Result<Option<u64>, DbError> {
        const MINE: &str = concat!(
            "SELECT a.elapsed_ms, a.solved_ms",
            daily_rows!(),
            "AND a.player_id = $2"
        );
        // Better than (`$2`, `$3`, `$4`): less time, then solved sooner,
        // then the smaller id.
        macro_rules! better {
            () => {
                " (a.elapsed_ms < $2 OR (a.elapsed_ms = $2 AND (a.solved_ms < $3
                   OR (a.solved_ms = $3 AND a.player_id < $4)))) "
            };
        }
        const BEFORE: &str = concat!(
            "SELECT (SELECT COUNT(*) FROM daily_attempts a
                     WHERE a.day = $1 AND a.rated = 1 AND a.elapsed_ms < $2)
                  + (SELECT COUNT(*) FROM daily_attempts a
                     WHERE a.day = $1 AND a.rated = 1 AND a.elapsed_ms = $2 AND a.solved_ms < $3)
                  + (SELECT COUNT(*) FROM daily_attempts a
                     WHERE a.day = $1 AND a.rated = 1 AND a.elapsed_ms = $2 AND a.solved_ms = $3
                       AND a.player_id < $4)
                  - (SELECT COUNT(*) FROM fair_play_flags f CROSS JOIN daily_attempts a
                     WHERE a.player_id = f.player_id AND a.day = $1
                       AND f.status <> 'cleared' AND a.rated = 1 AND",
            better!(),
            ")"
        );
        let mine: Option<(i64, i64)> = on_store!(self, s =>
            sqlx::query_as(MINE).bind(day).bind(player.0).fetch_optional(&s.pool).await?);
        let Some((elapsed, solved)) = mine else {
            return Ok(None);
        };
        let (before,): (i64,) = on_store!(self, s => sqlx::query_as(BEFORE)
            .bind(day)
            .bind(elapsed)
            .bind(solved)
            .bind(player.0)
            .fetch_one(&s.pool)
            .await?);
        Ok(Some(u64::try_from(before).unwrap_or(0) + 1))
    }

    /// `limit` rows of `day`'s board from place `offset + 1`.
    pub async fn daily_board(
        &self,
        day: &str,
        offset: u64,
        limit: u32,
    ) -> Result<Vec<DailyBoardRow>, DbError> {
        const SQL: &str = concat!(
            "SELECT p.name, a.elapsed_ms, a.misses",
            daily_rows!(),
            "ORDER BY a.elapsed_ms, a.solved_ms, a.player_id LIMIT $2 OFFSET $3"
        );
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        Ok(on_store!(self, s => sqlx::query_as(SQL)
            .bind(day)
            .bind(i64::from(limit))
            .bind(offset)
            .fetch_all(&s.pool)
            .await?))
    }

    /// How many are on `day`'s board.
    pub async fn daily_solvers(&self, day: &str) -> Result<u64, DbError> {
        const SQL: &str = concat!("SELECT COUNT(*)", daily_rows!());
        let (n,): (i64,) =
            on_store!(self, s => sqlx::query_as(SQL).bind(day).fetch_one(&s.pool).await?);
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// `limit` rows of the runs board of days `from` to `to` (each
    /// player's best there), from place `offset + 1`.
    pub async fn runs_board(
        &self,
        from: &str,
        to: &str,
        offset: u64,
        limit: u32,
    ) -> Result<Vec<RunBoardRow>, DbError> {
        const SQL: &str = concat!(
            "SELECT p.name, MAX(r.score) AS score",
            run_rows!(),
            "GROUP BY r.player_id, p.name ORDER BY score DESC, r.player_id LIMIT $3 OFFSET $4"
        );
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        Ok(on_store!(self, s => sqlx::query_as(SQL)
            .bind(from)
            .bind(to)
            .bind(i64::from(limit))
            .bind(offset)
            .fetch_all(&s.pool)
            .await?))
    }

    /// The player's place on the runs board of days `from` to `to`.
    pub async fn runs_rank(
        &self,
        from: &str,
        to: &str,
        player: PlayerId,
    ) -> Result<Option<u64>, DbError> {
        const MINE: &str = concat!("SELECT MAX(r.score)", run_rows!(), "AND r.player_id = $3");
        const BEFORE: &str = concat!(
            "SELECT COUNT(*) FROM (SELECT r.player_id, MAX(r.score) AS best",
            run_rows!(),
            "GROUP BY r.player_id) b WHERE b.best > $3 OR (b.best = $3 AND b.player_id < $4)"
        );
        let (mine,): (Option<i64>,) = on_store!(self, s => sqlx::query_as(MINE)
            .bind(from)
            .bind(to)
            .bind(player.0)
            .fetch_one(&s.pool)
            .await?);
        let Some(best) = mine else {
            return Ok(None);
        };
        let (before,): (i64,) = on_store!(self, s => sqlx::query_as(BEFORE)
            .bind(from)
            .bind(to)
            .bind(best)
            .bind(player.0)
            .fetch_one(&s.pool)
            .await?);
        Ok(Some(u64::try_from(before).unwrap_or(0) + 1))
    }

    /// The challenge with that code.
    pub async fn challenge(&self, code: &str) -> Result<Option<ChallengeRow>, DbError> {
        const SQL: &str = "SELECT c.player_id, p.name, c.objective, c.cards, c.rules,
                                  c.elapsed_ms, c.misses
                           FROM challenges c JOIN players p ON p.id = c.player_id
                           WHERE c.code = $1";
        Ok(on_store!(self, s => sqlx::query_as(SQL).bind(code).fetch_optional(&s.pool).await?))
    }

    /// The first `limit` results in on a challenge, fastest first.
    pub async fn challenge_results(
        &self,
        code: &str,
        limit: u32,
    ) -> Result<Vec<ChallengeResultRow>, DbError> {
        const SQL: &str = "SELECT p.name, a.elapsed_ms, a.misses
                           FROM challenge_attempts a JOIN players p ON p.id = a.player_id
                           WHERE a.code = $1 AND a.elapsed_ms IS NOT NULL
                           ORDER BY a.elapsed_ms, a.solved_ms, a.player_id LIMIT $2";
        Ok(on_store!(self, s => sqlx::query_as(SQL)
            .bind(code)
            .bind(i64::from(limit))
            .fetch_all(&s.pool)
            .await?))
    }

    /// The player's `limit` newest challenges, with how many answers each
    /// has.
    pub async fn challenges_by(
        &self,
        player: PlayerId,
        limit: u32,
    ) -> Result<Vec<OwnChallengeRow>, DbError> {
        const SQL: &str = "SELECT c.code, c.created_ms, c.elapsed_ms, c.misses,
                (SELECT COUNT(*) FROM challenge_attempts a
                 WHERE a.code = c.code AND a.elapsed_ms IS NOT NULL) AS answers
            FROM challenges c WHERE c.player_id = $1
            ORDER BY c.created_ms DESC, c.code LIMIT $2";
        Ok(on_store!(self, s => sqlx::query_as(SQL)
            .bind(player.0)
            .bind(i64::from(limit))
            .fetch_all(&s.pool)
            .await?))
    }

    /// The player's best run of each of their `limit` latest days with one.
    pub async fn run_days(&self, player: PlayerId, limit: u32) -> Result<Vec<RunDayRow>, DbError> {
        const SQL: &str = "SELECT day, score, misses, best_combo, runs FROM run_bests
                           WHERE player_id = $1 ORDER BY day DESC LIMIT $2";
        Ok(on_store!(self, s => sqlx::query_as(SQL)
            .bind(player.0)
            .bind(i64::from(limit))
            .fetch_all(&s.pool)
            .await?))
    }
}
