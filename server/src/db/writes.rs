//! The statements that record play, written once for both backends: each
//! reads its rows from `{rows}`, the backend's row source ([`super::rows`])
//! named `t`. Empty inputs are never passed.
//!
//! (`WHERE true` after the row source lets SQLite's parser tell an upsert's
//! `ON CONFLICT` from a join's `ON`. Match ids come back as text, the one
//! type both backends return them as.)

use std::collections::{BTreeMap, BTreeSet};

use uuid::Uuid;

use super::rows::{Json, Rows};
use super::scores::{
    int, AttemptRecord, FirstDevice, MatchEnd, NewMatch, NewPlayer, RoundResult, RoundStart,
};
use super::summary::{PlaceRow, RatingState, Stats, WonRound};
use super::write_backend::{
    cards_json, round_number, OutcomeColumns, PlayerState, PlayerStateRow, WriteBackend,
};
use super::{DbError, PlayerRow};

/// A match id read back as text.
fn uuid(text: &str) -> Result<Uuid, DbError> {
    Uuid::parse_str(text).map_err(|_| DbError::Invariant("a match id that is not a UUID"))
}

/// Inserts players whose name keys are distinct, skipping any whose name
/// (or token) is taken; returns the rows inserted.
pub(crate) async fn insert_players<B: WriteBackend>(
    conn: &mut B::Connection,
    players: &[&NewPlayer],
) -> Result<Vec<PlayerRow>, DbError> {
    const SQL: &str = "INSERT INTO players (name, name_key, token_hash, bot)
         SELECT t.name, t.name_key, t.token_hash, t.bot FROM {rows} WHERE true
         ON CONFLICT DO NOTHING
         RETURNING id, name, name_key, bot";
    let rows = Rows::of(players)
        .col("name", |p| p.name.clone())
        .col("name_key", |p| p.name_key.clone())
        .col("token_hash", |p| p.token_hash.clone())
        .col("bot", |p| p.bot);
    B::fetch(conn, SQL, rows.into()).await
}

/// Inserts new players' first devices, each for the player holding its
/// token (none when no player does: the name was taken); a device already
/// stored (an earlier try of this batch) stays as it is.
pub(crate) async fn first_devices<B: WriteBackend>(
    conn: &mut B::Connection,
    devices: &[&FirstDevice],
) -> Result<(), DbError> {
    const SQL: &str =
        "INSERT INTO player_tokens (token_hash, player_id, label, created_ms, last_used_ms)
         SELECT t.token_hash, p.id, t.label, t.at_ms, t.at_ms
         FROM {rows} JOIN players p ON p.token_hash = t.token_hash WHERE true
         ON CONFLICT (token_hash) DO NOTHING";
    let rows = Rows::of(devices)
        .col("token_hash", |d| d.token_hash.clone())
        .col("label", |d| d.label.clone())
        .col("at_ms", |d| d.at_ms);
    B::execute(conn, SQL, rows.into()).await
}

/// Inserts matches and their starting players.
pub(crate) async fn start_matches<B: WriteBackend>(
    conn: &mut B::Connection,
    matches: &[&NewMatch],
) -> Result<(), DbError> {
    const MATCHES: &str = "INSERT INTO matches (id, room_code, settings, started_at)
         SELECT t.id, t.room_code, t.settings, t.started_at FROM {rows} WHERE true
         ON CONFLICT (id) DO NOTHING";
    const SEATS: &str = "INSERT INTO match_players (match_id, player_id, seat)
         SELECT t.match_id, t.player_id, t.seat FROM {rows} WHERE true
         ON CONFLICT (match_id, player_id) DO NOTHING";
    let heads = Rows::of(matches)
        .col("id", |m| m.id)
        .col("room_code", |m| m.room_code.clone())
        .col("settings", |m| Json(m.settings.to_string()))
        .col("started_at", |m| m.at_ms);
    B::execute(conn, MATCHES, heads.into()).await?;
    let seats: Vec<(Uuid, i64, i64)> = matches
        .iter()
        .flat_map(|m| m.players.iter().zip(0..).map(|(p, seat)| (m.id, p.0, seat)))
        .collect();
    let seats = Rows::of(&seats)
        .col("match_id", |s| s.0)
        .col("player_id", |s| s.1)
        .col("seat", |s| s.2);
    B::execute(conn, SEATS, seats.into()).await
}

/// The columns every round row starts with, from its dealt hand.
fn round_heads<'a, T>(
    rows: super::rows::RowsOf<'a, T>,
    start: impl Fn(&T) -> &RoundStart + Copy,
) -> super::rows::RowsOf<'a, T> {
    rows.col("match_id", move |r| start(r).match_id)
        .col("number", move |r| i64::from(start(r).round))
        .col("objective", move |r| start(r).objective)
        .col("cards", move |r| cards_json(&start(r).cards))
        .col("started_at", move |r| start(r).at_ms)
}

/// Inserts dealt hands (kept if a round's result was written first).
pub(crate) async fn start_rounds<B: WriteBackend>(
    conn: &mut B::Connection,
    rounds: &[&RoundStart],
) -> Result<(), DbError> {
    const SQL: &str = "INSERT INTO rounds (match_id, number, objective, cards, started_at)
         SELECT t.match_id, t.number, t.objective, t.cards, t.started_at FROM {rows} WHERE true
         ON CONFLICT (match_id, number) DO NOTHING";
    let rows = round_heads(Rows::of(rounds), |r| r);
    B::execute(conn, SQL, rows.into()).await
}

/// Inserts attempts.
pub(crate) async fn attempts<B: WriteBackend>(
    conn: &mut B::Connection,
    attempts: &[&AttemptRecord],
) -> Result<(), DbError> {
    const SQL: &str =
        "INSERT INTO attempts (match_id, round, player_id, formula, accepted, verdict,
                                elapsed_ms, at, seq)
         SELECT t.match_id, t.round, t.player_id, t.formula, t.accepted, t.verdict,
                t.elapsed_ms, t.at, t.seq
         FROM {rows} WHERE true
         ON CONFLICT (match_id, seq) DO NOTHING";
    let rows = Rows::of(attempts)
        .col("match_id", |a| a.match_id)
        .col("round", |a| i64::from(a.round))
        .col("player_id", |a| a.player.0)
        .col("formula", |a| a.formula.clone())
        .col("accepted", |a| a.accepted)
        .col("verdict", |a| a.verdict.clone())
        .col("elapsed_ms", |a| int(a.elapsed_ms))
        .col("at", |a| a.at_ms)
        .col("seq", |a| int(a.seq));
    B::execute(conn, SQL, rows.into()).await
}

/// Writes round results over rounds still playing; returns the
/// `(match, round)` of those it wrote.
pub(crate) async fn round_results<B: WriteBackend>(
    conn: &mut B::Connection,
    results: &[&RoundResult],
) -> Result<Vec<(Uuid, u32)>, DbError> {
    const SQL: &str =
        "INSERT INTO rounds (match_id, number, objective, cards, started_at, ended_at,
                              outcome, winner_id, formula, no_solution, elapsed_ms, points,
                              solution, solutions)
         SELECT t.match_id, t.number, t.objective, t.cards, t.started_at, t.ended_at,
                t.outcome, t.winner_id, t.formula, t.no_solution, t.elapsed_ms, t.points,
                t.solution, t.solutions
         FROM {rows} WHERE true
         ON CONFLICT (match_id, number) DO UPDATE SET
             ended_at = excluded.ended_at, outcome = excluded.outcome,
             winner_id = excluded.winner_id, formula = excluded.formula,
             no_solution = excluded.no_solution, elapsed_ms = excluded.elapsed_ms,
             points = excluded.points, solution = excluded.solution,
             solutions = excluded.solutions
         WHERE rounds.outcome = 'playing'
         RETURNING CAST(match_id AS TEXT), number";
    let rows: Vec<(&RoundResult, OutcomeColumns)> = results
        .iter()
        .map(|r| (*r, OutcomeColumns::of(&r.outcome)))
        .collect();
    let rows = round_heads(Rows::of(&rows), |r| &r.0.start)
        .col("ended_at", |r| r.0.at_ms)
        .col("outcome", |r| r.1.outcome)
        .col("winner_id", |r| r.1.winner_id)
        .col("formula", |r| r.1.formula.clone())
        .col("no_solution", |r| r.1.no_solution)
        .col("elapsed_ms", |r| r.1.elapsed_ms)
        .col("points", |r| r.1.points)
        .col("solution", |r| r.1.solution.clone())
        .col("solutions", |r| r.1.solutions);
    let ended: Vec<(String, i64)> = B::fetch(conn, SQL, rows.into()).await?;
    ended
        .iter()
        .map(|(m, n)| Ok((uuid(m)?, round_number(*n)?)))
        .collect()
}

/// The bot flag and rating of each of `ids`.
pub(crate) async fn player_states<B: WriteBackend>(
    conn: &mut B::Connection,
    ids: &[i64],
) -> Result<Vec<PlayerState>, DbError> {
    // A banned player is never rated again: counted as a bot.
    const SQL: &str = "SELECT p.id, (p.bot OR EXISTS (SELECT 1 FROM fair_play_flags f
             WHERE f.player_id = p.id AND f.status = 'banned')), r.mu, r.sigma, r.matches, r.opponents
         FROM players p LEFT JOIN ratings r ON r.player_id = p.id
         WHERE p.id IN (SELECT t.id FROM {rows})";
    let rows = Rows::of(ids).col("id", |id| *id);
    let found: Vec<PlayerStateRow> = B::fetch(conn, SQL, rows.into()).await?;
    Ok(found.into_iter().map(PlayerState::from).collect())
}

/// The rounds won in matches `ids`, as recorded (results of this batch
/// included): what a rated match adds to the `rounds` and `fastest` boards
/// when it ends.
pub(crate) async fn won_rounds<B: WriteBackend>(
    conn: &mut B::Connection,
    ids: &[Uuid],
) -> Result<Vec<WonRound>, DbError> {
    const SQL: &str = "SELECT winner_id AS winner, formula IS NOT NULL AS with_formula,
                elapsed_ms, ended_at AS at_ms
         FROM rounds
         WHERE match_id IN (SELECT t.id FROM {rows}) AND outcome = 'won'";
    let rows = Rows::of(ids).col("id", |id| *id);
    B::fetch(conn, SQL, rows.into()).await
}

/// Which of `ids` are already finished (a retried or replayed end).
pub(crate) async fn finished_matches<B: WriteBackend>(
    conn: &mut B::Connection,
    ids: &[Uuid],
) -> Result<Vec<Uuid>, DbError> {
    const SQL: &str = "SELECT CAST(id AS TEXT) FROM matches
         WHERE id IN (SELECT t.id FROM {rows}) AND status = 'finished'";
    let rows = Rows::of(ids).col("id", |id| *id);
    let found: Vec<(String,)> = B::fetch(conn, SQL, rows.into()).await?;
    found.iter().map(|(id,)| uuid(id)).collect()
}

/// The players whose token hashes are among `hashes`.
pub(crate) async fn players_by_token<B: WriteBackend>(
    conn: &mut B::Connection,
    hashes: &[&str],
) -> Result<Vec<PlayerRow>, DbError> {
    const SQL: &str = "SELECT id, name, name_key, bot FROM players
         WHERE token_hash IN (SELECT t.hash FROM {rows})";
    let rows = Rows::of(hashes).col("hash", |h| *h);
    B::fetch(conn, SQL, rows.into()).await
}

/// Marks matches finished, with whether each was rated.
pub(crate) async fn finish_matches<B: WriteBackend>(
    conn: &mut B::Connection,
    ends: &[&MatchEnd],
    rated: &[bool],
) -> Result<(), DbError> {
    const SQL: &str = "UPDATE matches SET status = 'finished', finished_at = t.at,
             rounds_played = t.rounds, rated = t.rated
         FROM {rows} WHERE matches.id = t.id";
    let rows: Vec<(&MatchEnd, bool)> = ends.iter().copied().zip(rated.iter().copied()).collect();
    let rows = Rows::of(&rows)
        .col("id", |(m, _)| m.match_id)
        .col("at", |(m, _)| m.at_ms)
        .col("rounds", |(m, _)| i64::from(m.rounds_played))
        .col("rated", |(_, rated)| *rated);
    B::execute(conn, SQL, rows.into()).await
}

/// Records who met whom; returns the first player of each new pair.
pub(crate) async fn add_opponents<B: WriteBackend>(
    conn: &mut B::Connection,
    pairs: &BTreeSet<(i64, i64)>,
) -> Result<Vec<i64>, DbError> {
    const SQL: &str = "INSERT INTO opponents (player_id, opponent_id)
         SELECT t.player_id, t.opponent_id FROM {rows} WHERE true
         ON CONFLICT DO NOTHING
         RETURNING player_id";
    let pairs: Vec<(i64, i64)> = pairs.iter().copied().collect();
    let rows = Rows::of(&pairs)
        .col("player_id", |p| p.0)
        .col("opponent_id", |p| p.1);
    let new: Vec<(i64,)> = B::fetch(conn, SQL, rows.into()).await?;
    Ok(new.into_iter().map(|(p,)| p).collect())
}

/// Stores ratings as of `at_ms`.
pub(crate) async fn store_ratings<B: WriteBackend>(
    conn: &mut B::Connection,
    ratings: &BTreeMap<i64, RatingState>,
    at_ms: i64,
) -> Result<(), DbError> {
    const SQL: &str = "INSERT INTO ratings (player_id, mu, sigma, matches, opponents, updated_at)
         SELECT t.player_id, t.mu, t.sigma, t.matches, t.opponents, t.updated_at
         FROM {rows} WHERE true
         ON CONFLICT (player_id) DO UPDATE SET
             mu = excluded.mu, sigma = excluded.sigma, matches = excluded.matches,
             opponents = excluded.opponents, updated_at = excluded.updated_at";
    let ratings: Vec<(i64, RatingState)> = ratings.iter().map(|(id, r)| (*id, *r)).collect();
    let rows = Rows::of(&ratings)
        .col("player_id", |r| r.0)
        .col("mu", |r| r.1.skill.mu)
        .col("sigma", |r| r.1.skill.sigma)
        .col("matches", |r| r.1.matches)
        .col("opponents", |r| r.1.opponents)
        .col("updated_at", |_| at_ms);
    B::execute(conn, SQL, rows.into()).await
}

/// Writes players' final places over places not yet finished; returns the
/// `(match, player)` of those it wrote.
pub(crate) async fn finish_places<B: WriteBackend>(
    conn: &mut B::Connection,
    places: &[PlaceRow],
) -> Result<Vec<(Uuid, i64)>, DbError> {
    // Players who joined during the match are seated after the rest, in
    // the order of the rows (`t.ord`).
    const SQL: &str = "INSERT INTO match_players (match_id, player_id, seat, score, rank,
                                     rating_before, rating_after, finished_at)
         SELECT t.match_id, t.player_id,
                (SELECT coalesce(max(seat), -1) + 1 FROM match_players
                 WHERE match_id = t.match_id) + t.ord,
                t.score, t.rank, t.rating_before, t.rating_after, t.finished_at
         FROM {rows} WHERE true
         ON CONFLICT (match_id, player_id) DO UPDATE SET
             score = excluded.score, rank = excluded.rank,
             rating_before = excluded.rating_before, rating_after = excluded.rating_after,
             finished_at = excluded.finished_at
         WHERE match_players.finished_at IS NULL
         RETURNING CAST(match_id AS TEXT), player_id";
    let places: Vec<(i64, &PlaceRow)> = (0..).zip(places).collect();
    let rows = Rows::of(&places)
        .col("match_id", |(_, p)| p.match_id)
        .col("player_id", |(_, p)| p.player)
        .col("ord", |(ord, _)| *ord)
        .col("score", |(_, p)| p.score)
        .col("rank", |(_, p)| i64::from(p.rank))
        .col("rating_before", |(_, p)| p.rating_before)
        .col("rating_after", |(_, p)| p.rating_after)
        .col("finished_at", |(_, p)| p.finished_at);
    let finished: Vec<(String, i64)> = B::fetch(conn, SQL, rows.into()).await?;
    finished.iter().map(|(m, p)| Ok((uuid(m)?, *p))).collect()
}

/// Marks matches still playing abandoned.
pub(crate) async fn abandon_matches<B: WriteBackend>(
    conn: &mut B::Connection,
    abandons: &[(Uuid, i64)],
) -> Result<(), DbError> {
    const SQL: &str = "UPDATE matches SET status = 'abandoned', finished_at = t.at
         FROM {rows} WHERE matches.id = t.id AND matches.status = 'playing'";
    let rows = Rows::of(abandons).col("id", |a| a.0).col("at", |a| a.1);
    B::execute(conn, SQL, rows.into()).await
}

/// Adds to the leaderboards' period rows. The best time and the largest
/// totals are picked with `CASE` (SQLite's `min` of a `NULL` is `NULL`,
/// PostgreSQL's `LEAST` skips it).
pub(crate) async fn add_stats<B: WriteBackend>(
    conn: &mut B::Connection,
    stats: &Stats,
) -> Result<(), DbError> {
    const SQL: &str = "INSERT INTO player_stats (period, period_start, player_id, played, matches,
                                    wins, rounds_won, fastest_ms, rating, rated_total, opponents)
         SELECT t.period, t.period_start, t.player_id, t.played, t.matches, t.wins,
                t.rounds_won, t.fastest_ms, t.rating, t.rated_total, t.opponents
         FROM {rows} WHERE true
         ON CONFLICT (period, period_start, player_id) DO UPDATE SET
             played = player_stats.played + excluded.played,
             matches = player_stats.matches + excluded.matches,
             wins = player_stats.wins + excluded.wins,
             rounds_won = player_stats.rounds_won + excluded.rounds_won,
             fastest_ms = CASE
                 WHEN excluded.fastest_ms IS NULL
                      OR player_stats.fastest_ms <= excluded.fastest_ms
                 THEN player_stats.fastest_ms ELSE excluded.fastest_ms END,
             rating = coalesce(excluded.rating, player_stats.rating),
             rated_total = CASE WHEN player_stats.rated_total >= excluded.rated_total
                 THEN player_stats.rated_total ELSE excluded.rated_total END,
             opponents = CASE WHEN player_stats.opponents >= excluded.opponents
                 THEN player_stats.opponents ELSE excluded.opponents END";
    let stats: Vec<_> = stats.rows().collect();
    let rows = Rows::of(&stats)
        .col("period", |r| r.period)
        .col("period_start", |r| r.start)
        .col("player_id", |r| r.player)
        .col("played", |r| r.delta.played)
        .col("matches", |r| r.delta.matches)
        .col("wins", |r| r.delta.wins)
        .col("rounds_won", |r| r.delta.rounds_won)
        .col("fastest_ms", |r| r.delta.fastest_ms)
        .col("rating", |r| r.delta.rating)
        .col("rated_total", |r| r.delta.rated_total)
        .col("opponents", |r| r.delta.opponents);
    B::execute(conn, SQL, rows.into()).await
}
