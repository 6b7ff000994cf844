//! Recording scores: the writes the recorder applies, one function per kind,
//! each on a connection that is inside the caller's transaction.
//!
//! The leaderboards' `player_stats` summary is kept by triggers (see
//! `migrations/0002_scores.sql`) on the rows written here, in the same
//! transaction, so it can never disagree with the rows it summarises.

use std::collections::HashMap;

use krypto_core::protocol::PlayerId;
use sqlx::SqliteConnection;

use super::DbError;
use crate::ratings::{self, Skill};

/// A match that just started.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMatch {
    /// The room it is played in.
    pub room_code: String,
    /// The room settings as JSON.
    pub settings: String,
    /// The players seated at the start, in seating order.
    pub players: Vec<PlayerId>,
    /// When (UTC ms).
    pub at_ms: i64,
}

/// A hand dealt in a recorded match.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundStart {
    /// The match.
    pub match_id: i64,
    /// 1-based round number.
    pub round: u32,
    /// The value to make.
    pub objective: i64,
    /// The cards.
    pub cards: Vec<i64>,
    /// When it was dealt (UTC ms).
    pub at_ms: i64,
}

/// A judged formula or "no solution" claim.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptRecord {
    /// The match.
    pub match_id: i64,
    /// The round.
    pub round: u32,
    /// Who tried.
    pub player: PlayerId,
    /// The formula; `None` for a "no solution" claim.
    pub formula: Option<String>,
    /// Whether it won the round.
    pub accepted: bool,
    /// The refusal's kind (snake_case), if refused.
    pub verdict: Option<String>,
    /// Time since the deal.
    pub elapsed_ms: u64,
    /// When (UTC ms).
    pub at_ms: i64,
}

/// How a round ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RoundOutcome {
    /// Someone answered first.
    Won {
        /// The winner.
        winner: PlayerId,
        /// The formula; `None` for a right "no solution" claim.
        formula: Option<String>,
        /// Time from the deal to the answer.
        elapsed_ms: u64,
        /// Points awarded.
        points: i64,
    },
    /// The clock ran out.
    TimedOut {
        /// The solution revealed.
        solution: Option<String>,
        /// How many distinct solutions there were.
        solutions: u64,
    },
}

/// A round's result: the whole round, so the row is complete even if its
/// start was never written.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundResult {
    /// The deal.
    pub start: RoundStart,
    /// How it ended.
    pub outcome: RoundOutcome,
    /// When it ended (UTC ms); decides the periods it counts towards.
    pub at_ms: i64,
}

/// A player's place at the end of a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinalPlace {
    /// Who.
    pub player: PlayerId,
    /// Final score.
    pub score: i64,
    /// 1-based; ties share a rank.
    pub rank: u32,
}

/// A finished match.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchEnd {
    /// The match.
    pub match_id: i64,
    /// Rounds actually played.
    pub rounds_played: u32,
    /// Final standings.
    pub standings: Vec<FinalPlace>,
    /// When it ended (UTC ms).
    pub at_ms: i64,
}

/// One player's rating change, as shown (conservative, rounded to 0.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatingChange {
    /// Who.
    pub player: PlayerId,
    /// Before the match.
    pub before: f64,
    /// After the match.
    pub after: f64,
}

/// One thing to record.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// Answered with [`Applied::Match`].
    StartMatch(NewMatch),
    /// A hand was dealt.
    StartRound(RoundStart),
    /// A formula or claim was judged.
    Attempt(AttemptRecord),
    /// A round ended.
    RoundResult(RoundResult),
    /// A match ended; answered with [`Applied::Ratings`].
    FinishMatch(MatchEnd),
    /// Every player left; the match has no result.
    AbandonMatch {
        /// The match.
        match_id: i64,
        /// When (UTC ms).
        at_ms: i64,
    },
}

/// What a write produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Applied {
    /// Recorded; nothing to report.
    Done,
    /// The new match's id.
    Match(i64),
    /// Rating changes of a finished match (empty if it was not rated).
    Ratings(Vec<RatingChange>),
}

fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn cards_json(cards: &[i64]) -> String {
    serde_json::to_string(cards).unwrap_or_else(|_| "[]".to_owned())
}

/// Applies one write on `conn` (inside the caller's transaction).
pub async fn apply(conn: &mut SqliteConnection, write: &Write) -> Result<Applied, DbError> {
    match write {
        Write::StartMatch(m) => start_match(conn, m).await.map(Applied::Match),
        Write::StartRound(r) => start_round(conn, r).await.map(|()| Applied::Done),
        Write::Attempt(a) => attempt(conn, a).await.map(|()| Applied::Done),
        Write::RoundResult(r) => round_result(conn, r).await.map(|()| Applied::Done),
        Write::FinishMatch(m) => finish_match(conn, m).await.map(Applied::Ratings),
        Write::AbandonMatch { match_id, at_ms } => abandon_match(conn, *match_id, *at_ms)
            .await
            .map(|()| Applied::Done),
    }
}

/// Inserts a match and its starting players; returns its id.
pub async fn start_match(conn: &mut SqliteConnection, m: &NewMatch) -> Result<i64, DbError> {
    let ids = start_matches(conn, &[m]).await?;
    ids.first()
        .copied()
        .ok_or(DbError::Sqlx(sqlx::Error::RowNotFound))
}

/// Inserts matches and their starting players, in two statements; returns
/// their ids in order. The ids are assigned here, after the largest ever
/// given, because the recorder is the only writer of matches.
pub async fn start_matches(
    conn: &mut SqliteConnection,
    matches: &[&NewMatch],
) -> Result<Vec<i64>, DbError> {
    if matches.is_empty() {
        return Ok(Vec::new());
    }
    let (next,): (i64,) = sqlx::query_as(
        "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'matches'), 0),
                    coalesce((SELECT max(id) FROM matches), 0)) + 1",
    )
    .fetch_one(&mut *conn)
    .await?;
    let ids: Vec<i64> = (next..).take(matches.len()).collect();
    let rows: Vec<serde_json::Value> = matches
        .iter()
        .zip(&ids)
        .map(|(m, id)| serde_json::json!([id, m.room_code, m.settings, m.at_ms]))
        .collect();
    sqlx::query(
        "INSERT INTO matches (id, room_code, settings, started_at)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?) WHERE true",
    )
    .bind(json_rows(&rows))
    .execute(&mut *conn)
    .await?;
    let seats: Vec<serde_json::Value> = matches
        .iter()
        .zip(&ids)
        .flat_map(|(m, id)| {
            m.players
                .iter()
                .enumerate()
                .map(move |(seat, p)| serde_json::json!([id, p.0, seat]))
        })
        .collect();
    sqlx::query(
        "INSERT INTO match_players (match_id, player_id, seat)
         SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE true
         ON CONFLICT (match_id, player_id) DO NOTHING",
    )
    .bind(json_rows(&seats))
    .execute(&mut *conn)
    .await?;
    Ok(ids)
}

/// Inserts a dealt round (kept if its result was somehow written first).
pub async fn start_round(conn: &mut SqliteConnection, r: &RoundStart) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO rounds (match_id, number, objective, cards, started_at)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (match_id, number) DO NOTHING",
    )
    .bind(r.match_id)
    .bind(r.round)
    .bind(r.objective)
    .bind(cards_json(&r.cards))
    .bind(r.at_ms)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Inserts an attempt.
pub async fn attempt(conn: &mut SqliteConnection, a: &AttemptRecord) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO attempts (match_id, round, player_id, formula, accepted, verdict, elapsed_ms, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(a.match_id)
    .bind(a.round)
    .bind(a.player.0)
    .bind(&a.formula)
    .bind(a.accepted)
    .bind(&a.verdict)
    .bind(int(a.elapsed_ms))
    .bind(a.at_ms)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Writes a round's result and, for a win, the winner's period stats.
pub async fn round_result(conn: &mut SqliteConnection, r: &RoundResult) -> Result<(), DbError> {
    let s = &r.start;
    let query = sqlx::query(
        "INSERT INTO rounds (match_id, number, objective, cards, started_at, ended_at, outcome,
                             winner_id, formula, no_solution, elapsed_ms, points, solution, solutions)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
         ON CONFLICT (match_id, number) DO UPDATE SET
             ended_at = excluded.ended_at, outcome = excluded.outcome,
             winner_id = excluded.winner_id, formula = excluded.formula,
             no_solution = excluded.no_solution, elapsed_ms = excluded.elapsed_ms,
             points = excluded.points, solution = excluded.solution,
             solutions = excluded.solutions",
    )
    .bind(s.match_id)
    .bind(s.round)
    .bind(s.objective)
    .bind(cards_json(&s.cards))
    .bind(s.at_ms)
    .bind(r.at_ms);
    let query = match &r.outcome {
        RoundOutcome::Won {
            winner,
            formula,
            elapsed_ms,
            points,
        } => query
            .bind("won")
            .bind(winner.0)
            .bind(formula.clone())
            .bind(formula.is_none())
            .bind(int(*elapsed_ms))
            .bind(*points)
            .bind(None::<String>)
            .bind(None::<i64>),
        RoundOutcome::TimedOut {
            solution,
            solutions,
        } => query
            .bind("timed_out")
            .bind(None::<i64>)
            .bind(None::<String>)
            .bind(false)
            .bind(None::<i64>)
            .bind(None::<i64>)
            .bind(solution.clone())
            .bind(int(*solutions)),
    };
    // The trigger `rounds_won_*` adds the win to the winner's stats.
    query.execute(&mut *conn).await?;
    Ok(())
}

/// Marks a match finished, updates the ratings (two or more players) and
/// stores the standings (the trigger `match_players_finished_*` adds them
/// to the period stats); returns the rating changes.
pub async fn finish_match(
    conn: &mut SqliteConnection,
    m: &MatchEnd,
) -> Result<Vec<RatingChange>, DbError> {
    let mut changes = finish_matches(conn, &[m]).await?;
    Ok(changes.pop().unwrap_or_default())
}

/// [`finish_match`] for many matches in four statements; the rating changes
/// of each, in order. Matches are rated one after another, so a player in
/// two of them is rated on the result of the first.
pub async fn finish_matches(
    conn: &mut SqliteConnection,
    ends: &[&MatchEnd],
) -> Result<Vec<Vec<RatingChange>>, DbError> {
    if ends.is_empty() {
        return Ok(Vec::new());
    }
    let rated = |m: &MatchEnd| m.standings.len() >= 2;
    let rows: Vec<serde_json::Value> = ends
        .iter()
        .map(|m| serde_json::json!([m.match_id, m.at_ms, m.rounds_played, i64::from(rated(m))]))
        .collect();
    sqlx::query(
        "UPDATE matches SET status = 'finished', finished_at = j.value ->> 1,
             rounds_played = j.value ->> 2, rated = j.value ->> 3
         FROM json_each(?) AS j WHERE matches.id = j.value ->> 0",
    )
    .bind(json_rows(&rows))
    .execute(&mut *conn)
    .await?;

    // Ratings before, for everyone in a rated match.
    let ids: Vec<i64> = ends
        .iter()
        .filter(|m| rated(m))
        .flat_map(|m| m.standings.iter().map(|p| p.player.0))
        .collect();
    let mut skills: HashMap<i64, (Skill, i64)> = HashMap::new();
    if !ids.is_empty() {
        let stored: Vec<(i64, f64, f64, i64)> = sqlx::query_as(
            "SELECT player_id, mu, sigma, matches FROM ratings
             WHERE player_id IN (SELECT value FROM json_each(?))",
        )
        .bind(serde_json::to_string(&ids).unwrap_or_else(|_| "[]".to_owned()))
        .fetch_all(&mut *conn)
        .await?;
        for (id, mu, sigma, n) in stored {
            skills.insert(id, (Skill { mu, sigma }, n));
        }
    }

    let mut all_changes = Vec::with_capacity(ends.len());
    let mut places = Vec::new();
    for m in ends {
        let mut changes = Vec::new();
        if rated(m) {
            let before: Vec<(Skill, i64)> = m
                .standings
                .iter()
                .map(|p| {
                    skills
                        .get(&p.player.0)
                        .copied()
                        .unwrap_or((Skill::default(), 0))
                })
                .collect();
            let input: Vec<(Skill, u32)> = before
                .iter()
                .zip(&m.standings)
                .map(|((s, _), p)| (*s, p.rank))
                .collect();
            let after = ratings::free_for_all(&input);
            for ((p, (old, n)), new) in m.standings.iter().zip(&before).zip(&after) {
                skills.insert(p.player.0, (*new, n + 1));
                changes.push(RatingChange {
                    player: p.player,
                    before: old.shown(),
                    after: new.shown(),
                });
            }
        }
        for p in &m.standings {
            let change = changes.iter().find(|c| c.player == p.player);
            places.push(serde_json::json!([
                m.match_id,
                p.player.0,
                p.score,
                p.rank,
                change.map(|c| c.before),
                change.map(|c| c.after),
                m.at_ms
            ]));
        }
        all_changes.push(changes);
    }

    // The ratings first: the standings' trigger reads the rated-match count.
    let updated: Vec<serde_json::Value> = skills
        .iter()
        .filter(|(id, _)| ids.contains(id))
        .map(|(id, (s, n))| serde_json::json!([id, s.mu, s.sigma, n]))
        .collect();
    if !updated.is_empty() {
        sqlx::query(
            "INSERT INTO ratings (player_id, mu, sigma, matches, updated_at)
             SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, ?2 FROM json_each(?1)
             WHERE true
             ON CONFLICT (player_id) DO UPDATE SET
                 mu = excluded.mu, sigma = excluded.sigma,
                 matches = excluded.matches, updated_at = excluded.updated_at",
        )
        .bind(json_rows(&updated))
        .bind(ends.iter().map(|m| m.at_ms).max().unwrap_or(0))
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query(
        "INSERT INTO match_players (match_id, player_id, seat, score, rank,
                                    rating_before, rating_after, finished_at)
         SELECT j.value ->> 0, j.value ->> 1,
                (SELECT coalesce(max(seat), -1) + 1 FROM match_players
                 WHERE match_id = j.value ->> 0) + j.key,
                j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6
         FROM json_each(?) AS j WHERE true
         ON CONFLICT (match_id, player_id) DO UPDATE SET
             score = excluded.score, rank = excluded.rank,
             rating_before = excluded.rating_before, rating_after = excluded.rating_after,
             finished_at = excluded.finished_at",
    )
    .bind(json_rows(&places))
    .execute(&mut *conn)
    .await?;
    Ok(all_changes)
}

/// Marks a match abandoned.
pub async fn abandon_match(
    conn: &mut SqliteConnection,
    match_id: i64,
    at_ms: i64,
) -> Result<(), DbError> {
    sqlx::query(
        "UPDATE matches SET status = 'abandoned', finished_at = ? WHERE id = ? AND status = 'playing'",
    )
    .bind(at_ms)
    .bind(match_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

// ---------------------------------------------------------------------------
// Bulk writes: one statement for many rows, each row a JSON array, so the
// recorder pays one round trip to SQLite's thread per kind per batch
// instead of one per row. Same rows and same triggers as the writes above.
// ---------------------------------------------------------------------------

fn json_rows(rows: &[serde_json::Value]) -> String {
    serde_json::Value::Array(rows.to_vec()).to_string()
}

/// Inserts dealt rounds, as [`start_round`] does for each.
pub async fn start_rounds(
    conn: &mut SqliteConnection,
    rounds: &[&RoundStart],
) -> Result<(), DbError> {
    if rounds.is_empty() {
        return Ok(());
    }
    let rows: Vec<serde_json::Value> = rounds
        .iter()
        .map(|r| {
            serde_json::json!([
                r.match_id,
                r.round,
                r.objective,
                cards_json(&r.cards),
                r.at_ms
            ])
        })
        .collect();
    sqlx::query(
        "INSERT INTO rounds (match_id, number, objective, cards, started_at)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4
         FROM json_each(?) WHERE true
         ON CONFLICT (match_id, number) DO NOTHING",
    )
    .bind(json_rows(&rows))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Inserts attempts, as [`attempt`] does for each.
pub async fn attempts(
    conn: &mut SqliteConnection,
    attempts: &[&AttemptRecord],
) -> Result<(), DbError> {
    if attempts.is_empty() {
        return Ok(());
    }
    let rows: Vec<serde_json::Value> = attempts
        .iter()
        .map(|a| {
            serde_json::json!([
                a.match_id,
                a.round,
                a.player.0,
                a.formula,
                i64::from(a.accepted),
                a.verdict,
                int(a.elapsed_ms),
                a.at_ms
            ])
        })
        .collect();
    sqlx::query(
        "INSERT INTO attempts (match_id, round, player_id, formula, accepted, verdict, elapsed_ms, at)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5,
                value ->> 6, value ->> 7
         FROM json_each(?) WHERE true",
    )
    .bind(json_rows(&rows))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Writes round results, as [`round_result`] does for each.
pub async fn round_results(
    conn: &mut SqliteConnection,
    results: &[&RoundResult],
) -> Result<(), DbError> {
    if results.is_empty() {
        return Ok(());
    }
    let rows: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            let s = &r.start;
            let head = serde_json::json!([
                s.match_id,
                s.round,
                s.objective,
                cards_json(&s.cards),
                s.at_ms,
                r.at_ms
            ]);
            let tail = match &r.outcome {
                RoundOutcome::Won {
                    winner,
                    formula,
                    elapsed_ms,
                    points,
                } => serde_json::json!([
                    "won",
                    winner.0,
                    formula,
                    i64::from(formula.is_none()),
                    int(*elapsed_ms),
                    points,
                    null,
                    null
                ]),
                RoundOutcome::TimedOut {
                    solution,
                    solutions,
                } => serde_json::json!([
                    "timed_out",
                    null,
                    null,
                    0,
                    null,
                    null,
                    solution,
                    int(*solutions)
                ]),
            };
            let mut row = head.as_array().cloned().unwrap_or_default();
            row.extend(tail.as_array().cloned().unwrap_or_default());
            serde_json::Value::Array(row)
        })
        .collect();
    sqlx::query(
        "INSERT INTO rounds (match_id, number, objective, cards, started_at, ended_at, outcome,
                             winner_id, formula, no_solution, elapsed_ms, points, solution, solutions)
         SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5,
                value ->> 6, value ->> 7, value ->> 8, value ->> 9, value ->> 10, value ->> 11,
                value ->> 12, value ->> 13
         FROM json_each(?) WHERE true
         ON CONFLICT (match_id, number) DO UPDATE SET
             ended_at = excluded.ended_at, outcome = excluded.outcome,
             winner_id = excluded.winner_id, formula = excluded.formula,
             no_solution = excluded.no_solution, elapsed_ms = excluded.elapsed_ms,
             points = excluded.points, solution = excluded.solution,
             solutions = excluded.solutions",
    )
    .bind(json_rows(&rows))
    .execute(&mut *conn)
    .await?;
    Ok(())
}
