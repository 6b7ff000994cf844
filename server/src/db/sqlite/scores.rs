//! Recording in SQLite: each statement writes many rows, passed as one
//! JSON array of row arrays and read with `json_each`, so a batch costs one
//! round trip to SQLite's thread per kind of write, not one per row.
//!
//! (`WHERE true` after `json_each` lets SQLite's parser tell the upsert's
//! `ON CONFLICT` from a join's `ON`.)

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};
use sqlx::{Sqlite, SqliteConnection};
use uuid::Uuid;

use crate::db::batch::{
    cards_json, round_number, OutcomeColumns, PlayerState, PlayerStateRow, Step, WriteBackend,
};
use crate::db::scores::{
    int, AttemptRecord, MatchEnd, NewMatch, NewPlayer, RoundResult, RoundStart,
};
use crate::db::summary::{PlaceRow, RatingState, Stats, WonRound};
use crate::db::{DbError, PlayerRow};

/// The rows as one JSON array, bound as a single text parameter.
fn rows(rows: impl IntoIterator<Item = Value>) -> String {
    Value::Array(rows.into_iter().collect()).to_string()
}

fn uuid(text: &str) -> Result<Uuid, DbError> {
    Uuid::parse_str(text).map_err(|_| DbError::Invariant("a match id that is not a UUID"))
}

impl WriteBackend for Sqlite {
    /// A plain (deferred) `BEGIN` starts as a reader; if another connection
    /// commits before the first write, SQLite refuses the upgrade with
    /// `SQLITE_BUSY` straight away, without waiting out `busy_timeout`. The
    /// read pool and the recorder write through different connections, so
    /// every write transaction is `IMMEDIATE`: it then waits its turn.
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";

    fn insert_players<'c>(
        conn: &'c mut SqliteConnection,
        players: &'c [&'c NewPlayer],
    ) -> Step<'c, Vec<PlayerRow>> {
        Box::pin(async move {
            let rows = rows(
                players
                    .iter()
                    .map(|p| json!([p.name, p.name_key, p.token_hash, p.bot])),
            );
            Ok(sqlx::query_as(
                "INSERT INTO players (name, name_key, token_hash, bot)
                 SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3
                 FROM json_each($1) WHERE true
                 ON CONFLICT DO NOTHING
                 RETURNING id, name, name_key, bot",
            )
            .bind(rows)
            .fetch_all(&mut *conn)
            .await?)
        })
    }

    fn start_matches<'c>(
        conn: &'c mut SqliteConnection,
        matches: &'c [&'c NewMatch],
    ) -> Step<'c, ()> {
        Box::pin(async move {
            let heads = rows(matches.iter().map(|m| {
                json!([
                    m.id.to_string(),
                    m.room_code,
                    m.settings.to_string(),
                    m.at_ms
                ])
            }));
            sqlx::query(
                "INSERT INTO matches (id, room_code, settings, started_at)
                 SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3
                 FROM json_each($1) WHERE true
                 ON CONFLICT (id) DO NOTHING",
            )
            .bind(heads)
            .execute(&mut *conn)
            .await?;
            let seats = rows(matches.iter().flat_map(|m| {
                m.players
                    .iter()
                    .enumerate()
                    .map(move |(seat, p)| json!([m.id.to_string(), p.0, seat]))
            }));
            sqlx::query(
                "INSERT INTO match_players (match_id, player_id, seat)
                 SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each($1) WHERE true
                 ON CONFLICT (match_id, player_id) DO NOTHING",
            )
            .bind(seats)
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn start_rounds<'c>(
        conn: &'c mut SqliteConnection,
        rounds: &'c [&'c RoundStart],
    ) -> Step<'c, ()> {
        Box::pin(async move {
            let rows = rows(rounds.iter().map(|r| {
                json!([
                    r.match_id.to_string(),
                    r.round,
                    r.objective,
                    cards_json(&r.cards),
                    r.at_ms
                ])
            }));
            sqlx::query(
                "INSERT INTO rounds (match_id, number, objective, cards, started_at)
                 SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4
                 FROM json_each($1) WHERE true
                 ON CONFLICT (match_id, number) DO NOTHING",
            )
            .bind(rows)
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn attempts<'c>(
        conn: &'c mut SqliteConnection,
        attempts: &'c [&'c AttemptRecord],
    ) -> Step<'c, ()> {
        Box::pin(async move {
            let rows = rows(attempts.iter().map(|a| {
                json!([
                    a.match_id.to_string(),
                    a.round,
                    a.player.0,
                    a.formula,
                    a.accepted,
                    a.verdict,
                    int(a.elapsed_ms),
                    a.at_ms,
                    int(a.seq)
                ])
            }));
            sqlx::query(
                "INSERT INTO attempts (match_id, round, player_id, formula, accepted, verdict,
                                       elapsed_ms, at, seq)
                 SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
                        value ->> 5, value ->> 6, value ->> 7, value ->> 8
                 FROM json_each($1) WHERE true
                 ON CONFLICT (match_id, seq) DO NOTHING",
            )
            .bind(rows)
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn round_results<'c>(
        conn: &'c mut SqliteConnection,
        results: &'c [&'c RoundResult],
    ) -> Step<'c, Vec<(Uuid, u32)>> {
        Box::pin(async move {
            let rows = rows(results.iter().map(|r| {
                let s = &r.start;
                let head = [
                    json!(s.match_id.to_string()),
                    json!(s.round),
                    json!(s.objective),
                    json!(cards_json(&s.cards)),
                    json!(s.at_ms),
                    json!(r.at_ms),
                ];
                let o = OutcomeColumns::of(&r.outcome);
                let tail = [
                    json!(o.outcome),
                    json!(o.winner_id),
                    json!(o.formula),
                    json!(o.no_solution),
                    json!(o.elapsed_ms),
                    json!(o.points),
                    json!(o.solution),
                    json!(o.solutions),
                ];
                Value::Array(head.into_iter().chain(tail).collect())
            }));
            let ended: Vec<(String, i64)> = sqlx::query_as(
                "INSERT INTO rounds (match_id, number, objective, cards, started_at, ended_at,
                                     outcome, winner_id, formula, no_solution, elapsed_ms, points,
                                     solution, solutions)
                 SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
                        value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9,
                        value ->> 10, value ->> 11, value ->> 12, value ->> 13
                 FROM json_each($1) WHERE true
                 ON CONFLICT (match_id, number) DO UPDATE SET
                     ended_at = excluded.ended_at, outcome = excluded.outcome,
                     winner_id = excluded.winner_id, formula = excluded.formula,
                     no_solution = excluded.no_solution, elapsed_ms = excluded.elapsed_ms,
                     points = excluded.points, solution = excluded.solution,
                     solutions = excluded.solutions
                 WHERE rounds.outcome = 'playing'
                 RETURNING match_id, number",
            )
            .bind(rows)
            .fetch_all(&mut *conn)
            .await?;
            ended
                .iter()
                .map(|(m, n)| Ok((uuid(m)?, round_number(*n)?)))
                .collect()
        })
    }

    fn player_states<'c>(
        conn: &'c mut SqliteConnection,
        ids: &'c [i64],
    ) -> Step<'c, Vec<PlayerState>> {
        Box::pin(async move {
            let found: Vec<PlayerStateRow> = sqlx::query_as(
                "SELECT p.id, p.bot, r.mu, r.sigma, r.matches, r.opponents
                 FROM players p LEFT JOIN ratings r ON r.player_id = p.id
                 WHERE p.id IN (SELECT value FROM json_each($1))",
            )
            .bind(json!(ids).to_string())
            .fetch_all(&mut *conn)
            .await?;
            Ok(found.into_iter().map(PlayerState::from).collect())
        })
    }

    fn finished_matches<'c>(
        conn: &'c mut SqliteConnection,
        ids: &'c [Uuid],
    ) -> Step<'c, Vec<Uuid>> {
        Box::pin(async move {
            let ids = rows(ids.iter().map(|id| json!(id.to_string())));
            let found: Vec<(String,)> = sqlx::query_as(
                "SELECT id FROM matches
                 WHERE id IN (SELECT value FROM json_each($1)) AND status = 'finished'",
            )
            .bind(ids)
            .fetch_all(&mut *conn)
            .await?;
            found.iter().map(|(id,)| uuid(id)).collect()
        })
    }

    fn players_by_token<'c>(
        conn: &'c mut SqliteConnection,
        hashes: &'c [&'c str],
    ) -> Step<'c, Vec<PlayerRow>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
                "SELECT id, name, name_key, bot FROM players
                 WHERE token_hash IN (SELECT value FROM json_each($1))",
            )
            .bind(json!(hashes).to_string())
            .fetch_all(&mut *conn)
            .await?)
        })
    }

    fn finish_matches<'c>(
        conn: &'c mut SqliteConnection,
        ends: &'c [&'c MatchEnd],
        rated: &'c [bool],
    ) -> Step<'c, ()> {
        Box::pin(async move {
            let rows = rows(ends.iter().zip(rated).map(|(m, rated)| {
                json!([m.match_id.to_string(), m.at_ms, m.rounds_played, rated])
            }));
            sqlx::query(
                "UPDATE matches SET status = 'finished', finished_at = j.value ->> 1,
                     rounds_played = j.value ->> 2, rated = j.value ->> 3
                 FROM json_each($1) AS j WHERE matches.id = j.value ->> 0",
            )
            .bind(rows)
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn add_opponents<'c>(
        conn: &'c mut SqliteConnection,
        pairs: &'c BTreeSet<(i64, i64)>,
    ) -> Step<'c, Vec<i64>> {
        Box::pin(async move {
            let rows = rows(pairs.iter().map(|(a, b)| json!([a, b])));
            let new: Vec<(i64,)> = sqlx::query_as(
                "INSERT INTO opponents (player_id, opponent_id)
                 SELECT value ->> 0, value ->> 1 FROM json_each($1) WHERE true
                 ON CONFLICT DO NOTHING
                 RETURNING player_id",
            )
            .bind(rows)
            .fetch_all(&mut *conn)
            .await?;
            Ok(new.into_iter().map(|(p,)| p).collect())
        })
    }

    fn store_ratings<'c>(
        conn: &'c mut SqliteConnection,
        ratings: &'c BTreeMap<i64, RatingState>,
        at_ms: i64,
    ) -> Step<'c, ()> {
        Box::pin(async move {
            let rows = rows(
                ratings
                    .iter()
                    .map(|(id, r)| json!([id, r.skill.mu, r.skill.sigma, r.matches, r.opponents])),
            );
            sqlx::query(
                "INSERT INTO ratings (player_id, mu, sigma, matches, opponents, updated_at)
                 SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, $2
                 FROM json_each($1) WHERE true
                 ON CONFLICT (player_id) DO UPDATE SET
                     mu = excluded.mu, sigma = excluded.sigma, matches = excluded.matches,
                     opponents = excluded.opponents, updated_at = excluded.updated_at",
            )
            .bind(rows)
            .bind(at_ms)
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn finish_places<'c>(
        conn: &'c mut SqliteConnection,
        places: &'c [PlaceRow],
    ) -> Step<'c, Vec<(Uuid, i64)>> {
        Box::pin(async move {
            let rows = rows(places.iter().map(|p| {
                json!([
                    p.match_id.to_string(),
                    p.player,
                    p.score,
                    p.rank,
                    p.rating_before,
                    p.rating_after,
                    p.finished_at
                ])
            }));
            // Players who joined during the match are seated after the rest.
            let finished: Vec<(String, i64)> = sqlx::query_as(
                "INSERT INTO match_players (match_id, player_id, seat, score, rank,
                                            rating_before, rating_after, finished_at)
                 SELECT j.value ->> 0, j.value ->> 1,
                        (SELECT coalesce(max(seat), -1) + 1 FROM match_players
                         WHERE match_id = j.value ->> 0) + j.key,
                        j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6
                 FROM json_each($1) AS j WHERE true
                 ON CONFLICT (match_id, player_id) DO UPDATE SET
                     score = excluded.score, rank = excluded.rank,
                     rating_before = excluded.rating_before, rating_after = excluded.rating_after,
                     finished_at = excluded.finished_at
                 WHERE match_players.finished_at IS NULL
                 RETURNING match_id, player_id",
            )
            .bind(rows)
            .fetch_all(&mut *conn)
            .await?;
            finished.iter().map(|(m, p)| Ok((uuid(m)?, *p))).collect()
        })
    }

    fn abandon_matches<'c>(
        conn: &'c mut SqliteConnection,
        abandons: &'c [(Uuid, i64)],
    ) -> Step<'c, ()> {
        Box::pin(async move {
            let rows = rows(
                abandons
                    .iter()
                    .map(|(id, at_ms)| json!([id.to_string(), at_ms])),
            );
            sqlx::query(
                "UPDATE matches SET status = 'abandoned', finished_at = j.value ->> 1
                 FROM json_each($1) AS j
                 WHERE matches.id = j.value ->> 0 AND matches.status = 'playing'",
            )
            .bind(rows)
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn add_stats<'c>(conn: &'c mut SqliteConnection, stats: &'c Stats) -> Step<'c, ()> {
        Box::pin(async move {
            let rows = rows(stats.rows().map(|r| {
                let d = r.delta;
                json!([
                    r.period,
                    r.start,
                    r.player,
                    d.played,
                    d.matches,
                    d.wins,
                    d.rounds_won,
                    d.fastest_ms,
                    d.rating,
                    d.rated_total,
                    d.opponents
                ])
            }));
            sqlx::query(
                "INSERT INTO player_stats (period, period_start, player_id, played, matches, wins,
                                           rounds_won, fastest_ms, rating, rated_total, opponents)
                 SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
                        value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9,
                        value ->> 10
                 FROM json_each($1) WHERE true
                 ON CONFLICT (period, period_start, player_id) DO UPDATE SET
                     played = played + excluded.played,
                     matches = matches + excluded.matches,
                     wins = wins + excluded.wins,
                     rounds_won = rounds_won + excluded.rounds_won,
                     fastest_ms = coalesce(min(fastest_ms, excluded.fastest_ms),
                                           fastest_ms, excluded.fastest_ms),
                     rating = coalesce(excluded.rating, rating),
                     rated_total = max(rated_total, excluded.rated_total),
                     opponents = max(opponents, excluded.opponents)",
            )
            .bind(rows)
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn won_rounds<'c>(conn: &'c mut SqliteConnection, ids: &'c [Uuid]) -> Step<'c, Vec<WonRound>> {
        Box::pin(async move {
            let ids = rows(ids.iter().map(|id| json!(id.to_string())));
            Ok(sqlx::query_as(
                "SELECT winner_id AS winner, formula IS NOT NULL AS with_formula,
                        elapsed_ms, ended_at AS at_ms
                 FROM rounds
                 WHERE match_id IN (SELECT value FROM json_each($1)) AND outcome = 'won'",
            )
            .bind(ids)
            .fetch_all(&mut *conn)
            .await?)
        })
    }
}
