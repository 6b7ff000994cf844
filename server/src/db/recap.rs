//! What a match's recap reads: the match, its players, its rounds and the
//! answers judged in them, by the match's id. Every read is bounded: a
//! match has at most 50 rounds and 32 seats plus those who joined during
//! it, and at most [`MAX_RECAP_ATTEMPTS`] attempts per round are read;
//! wrong answers past the retention are read as one count per player and
//! round (`attempt_summaries`).

use krypto_core::protocol::MAX_RECAP_ATTEMPTS;
use uuid::Uuid;

use super::rows::Rows;
use super::write_backend::{Decodes, WriteBackend};
use super::{Db, DbError};

/// A recorded match.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MatchRow {
    /// The room's code at the time.
    pub room_code: String,
    /// The settings as JSON.
    pub settings: String,
    /// `playing`, `finished` or `abandoned`.
    pub status: String,
    /// UTC ms.
    pub started_at: i64,
    /// UTC ms, once over.
    pub finished_at: Option<i64>,
}

/// A player of a recorded match, in seating order.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MatchPlayerRow {
    /// Their name now.
    pub name: String,
    /// Final score, once over.
    pub score: Option<i64>,
    /// Final rank, once over.
    pub rank: Option<i64>,
}

/// A dealt hand of a recorded match.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RoundRow {
    /// 1-based.
    pub number: i64,
    /// The value to make.
    pub objective: i64,
    /// The cards as a JSON array.
    pub cards: String,
    /// The winner's name, if someone won.
    pub winner: Option<String>,
    /// The winning formula (`None` for a claim or no winner).
    pub formula: Option<String>,
    /// Won by a right "no solution" claim.
    pub no_solution: bool,
    /// The winner's time.
    pub elapsed_ms: Option<i64>,
}

/// A judged answer of a recorded match.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct AttemptRow {
    /// The round.
    pub round: i64,
    /// Who answered.
    pub name: String,
    /// The formula as stored (`None` for a claim).
    pub formula: Option<String>,
    /// Whether it was right.
    pub accepted: bool,
    /// Why it was refused.
    pub verdict: Option<String>,
    /// From the deal.
    pub elapsed_ms: i64,
}

/// Judged answers per round.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct AttemptCount {
    /// The round.
    pub round: i64,
    /// How many.
    pub n: i64,
}

/// A player's wrong answers of a round, counted when they were pruned
/// (`db::retention`).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PrunedRow {
    /// The round.
    pub round: i64,
    /// Who answered.
    pub name: String,
    /// How many.
    pub wrong: i64,
}

/// A recorded match as the recap reads it.
#[derive(Debug, Clone)]
pub struct RecordedMatch {
    /// The match.
    pub row: MatchRow,
    /// Its players, in seating order.
    pub players: Vec<MatchPlayerRow>,
    /// Its rounds, in order.
    pub rounds: Vec<RoundRow>,
    /// Its judged answers, by round then order (at most
    /// [`MAX_RECAP_ATTEMPTS`] per round).
    pub attempts: Vec<AttemptRow>,
    /// How many judged answers each round had (pruned ones not included).
    pub counts: Vec<AttemptCount>,
    /// The pruned wrong answers, per round and player (at most one row per
    /// player and round).
    pub pruned: Vec<PrunedRow>,
}

/// Answers refused without being read: not attempts at the hand.
const JUDGED: &str = "(x.verdict IS NULL OR x.verdict NOT IN ('locked_out', 'round_over'))";

impl Db {
    /// The match `id` with everything its recap shows; `None` if no match
    /// has that id.
    pub async fn recorded_match(&self, id: Uuid) -> Result<Option<RecordedMatch>, DbError> {
        const MATCH: &str = "SELECT m.room_code, CAST(m.settings AS TEXT) AS settings, m.status,
                m.started_at, m.finished_at
            FROM matches m WHERE m.id IN (SELECT t.id FROM {rows})";
        const PLAYERS: &str = "SELECT p.name, mp.score, mp.rank
            FROM match_players mp JOIN players p ON p.id = mp.player_id
            WHERE mp.match_id IN (SELECT t.id FROM {rows})
            ORDER BY mp.seat, mp.player_id";
        const ROUNDS: &str = "SELECT r.number, r.objective, r.cards, p.name AS winner, r.formula,
                r.no_solution, r.elapsed_ms
            FROM rounds r LEFT JOIN players p ON p.id = r.winner_id
            WHERE r.match_id IN (SELECT t.id FROM {rows})
            ORDER BY r.number";
        let attempts = format!(
            "SELECT a.round, p.name, a.formula, a.accepted, a.verdict, a.elapsed_ms
            FROM (SELECT x.id, x.round, x.player_id, x.formula, x.accepted, x.verdict,
                         x.elapsed_ms,
                         ROW_NUMBER() OVER (PARTITION BY x.round ORDER BY x.id) AS n
                  FROM attempts x
                  WHERE x.match_id IN (SELECT t.id FROM {{rows}}) AND {JUDGED}) a
            JOIN players p ON p.id = a.player_id
            WHERE a.n <= {MAX_RECAP_ATTEMPTS}
            ORDER BY a.round, a.id"
        );
        let counts = format!(
            "SELECT x.round, count(*) AS n FROM attempts x
            WHERE x.match_id IN (SELECT t.id FROM {{rows}}) AND {JUDGED}
            GROUP BY x.round ORDER BY x.round"
        );
        const PRUNED: &str = "SELECT s.round, p.name, s.wrong
            FROM attempt_summaries s JOIN players p ON p.id = s.player_id
            WHERE s.match_id IN (SELECT CAST(t.id AS TEXT) FROM {rows})
            ORDER BY s.round, p.name";
        let Some(row) = self.by_match::<MatchRow>(MATCH, id).await?.pop() else {
            return Ok(None);
        };
        Ok(Some(RecordedMatch {
            row,
            players: self.by_match(PLAYERS, id).await?,
            rounds: self.by_match(ROUNDS, id).await?,
            attempts: self.by_match(&attempts, id).await?,
            counts: self.by_match(&counts, id).await?,
            pruned: self.by_match(PRUNED, id).await?,
        }))
    }

    /// Runs `sql`, whose `{rows}` is a table `t` holding the one `id`
    /// (a match's: its recap here, its rated wins for the fair-play signals).
    pub(super) async fn by_match<T>(&self, sql: &str, id: Uuid) -> Result<Vec<T>, DbError>
    where
        sqlx::Sqlite: Decodes<T>,
        sqlx::Postgres: Decodes<T>,
        T: Send,
    {
        let ids = [id];
        match self {
            Db::Sqlite(s) => {
                let mut c = s.pool.acquire().await?;
                sqlx::Sqlite::fetch(&mut c, sql, Rows::of(&ids).col("id", |id| *id).into()).await
            }
            Db::Postgres(s) => {
                let mut c = s.pool.acquire().await?;
                sqlx::Postgres::fetch(&mut c, sql, Rows::of(&ids).col("id", |id| *id).into()).await
            }
        }
    }
}
