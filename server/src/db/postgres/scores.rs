//! Recording in PostgreSQL: each statement writes many rows, passed as one
//! array per column and unpacked with `UNNEST`, so a batch costs one round
//! trip per kind of write, not one per row.

use std::collections::{BTreeMap, BTreeSet};

use sqlx::{PgConnection, Postgres};
use uuid::Uuid;

use crate::db::batch::{
    cards_json, round_number, OutcomeColumns, PlayerState, PlayerStateRow, Step, WriteBackend,
};
use crate::db::scores::{
    int, AttemptRecord, MatchEnd, NewMatch, NewPlayer, RoundResult, RoundStart,
};
use crate::db::summary::{PlaceRow, RatingState, Stats, WonRound};
use crate::db::PlayerRow;

/// The column of `rows` that `f` picks.
fn col<T, U>(rows: &[T], f: impl Fn(&T) -> U) -> Vec<U> {
    rows.iter().map(f).collect()
}

impl WriteBackend for Postgres {
    const BEGIN_WRITE: &'static str = "BEGIN";

    fn insert_players<'c>(
        conn: &'c mut PgConnection,
        players: &'c [&'c NewPlayer],
    ) -> Step<'c, Vec<PlayerRow>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
                "INSERT INTO players (name, name_key, token_hash, bot)
                 SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::bool[])
                 ON CONFLICT DO NOTHING
                 RETURNING id, name, name_key, bot",
            )
            .bind(col(players, |p| p.name.clone()))
            .bind(col(players, |p| p.name_key.clone()))
            .bind(col(players, |p| p.token_hash.clone()))
            .bind(col(players, |p| p.bot))
            .fetch_all(&mut *conn)
            .await?)
        })
    }

    fn start_matches<'c>(conn: &'c mut PgConnection, matches: &'c [&'c NewMatch]) -> Step<'c, ()> {
        Box::pin(async move {
            sqlx::query(
                "INSERT INTO matches (id, room_code, settings, started_at)
                 SELECT t.id, t.code, t.settings::jsonb, t.at
                 FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::int8[])
                     AS t(id, code, settings, at)
                 ON CONFLICT (id) DO NOTHING",
            )
            .bind(col(matches, |m| m.id))
            .bind(col(matches, |m| m.room_code.clone()))
            .bind(col(matches, |m| m.settings.to_string()))
            .bind(col(matches, |m| m.at_ms))
            .execute(&mut *conn)
            .await?;
            let seats: Vec<(Uuid, i64, i64)> = matches
                .iter()
                .flat_map(|m| {
                    m.players
                        .iter()
                        .zip(0..)
                        .map(move |(p, seat)| (m.id, p.0, seat))
                })
                .collect();
            sqlx::query(
                "INSERT INTO match_players (match_id, player_id, seat)
                 SELECT * FROM UNNEST($1::uuid[], $2::int8[], $3::int8[])
                 ON CONFLICT (match_id, player_id) DO NOTHING",
            )
            .bind(col(&seats, |s| s.0))
            .bind(col(&seats, |s| s.1))
            .bind(col(&seats, |s| s.2))
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn start_rounds<'c>(conn: &'c mut PgConnection, rounds: &'c [&'c RoundStart]) -> Step<'c, ()> {
        Box::pin(async move {
            sqlx::query(
                "INSERT INTO rounds (match_id, number, objective, cards, started_at)
                 SELECT * FROM UNNEST($1::uuid[], $2::int8[], $3::int8[], $4::text[], $5::int8[])
                 ON CONFLICT (match_id, number) DO NOTHING",
            )
            .bind(col(rounds, |r| r.match_id))
            .bind(col(rounds, |r| i64::from(r.round)))
            .bind(col(rounds, |r| r.objective))
            .bind(col(rounds, |r| cards_json(&r.cards)))
            .bind(col(rounds, |r| r.at_ms))
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn attempts<'c>(conn: &'c mut PgConnection, attempts: &'c [&'c AttemptRecord]) -> Step<'c, ()> {
        Box::pin(async move {
            sqlx::query(
                "INSERT INTO attempts (match_id, round, player_id, formula, accepted, verdict,
                                       elapsed_ms, at, seq)
                 SELECT * FROM UNNEST($1::uuid[], $2::int8[], $3::int8[], $4::text[],
                                      $5::bool[], $6::text[], $7::int8[], $8::int8[], $9::int8[])
                 ON CONFLICT (match_id, seq) DO NOTHING",
            )
            .bind(col(attempts, |a| a.match_id))
            .bind(col(attempts, |a| i64::from(a.round)))
            .bind(col(attempts, |a| a.player.0))
            .bind(col(attempts, |a| a.formula.clone()))
            .bind(col(attempts, |a| a.accepted))
            .bind(col(attempts, |a| a.verdict.clone()))
            .bind(col(attempts, |a| int(a.elapsed_ms)))
            .bind(col(attempts, |a| a.at_ms))
            .bind(col(attempts, |a| int(a.seq)))
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn round_results<'c>(
        conn: &'c mut PgConnection,
        results: &'c [&'c RoundResult],
    ) -> Step<'c, Vec<(Uuid, u32)>> {
        Box::pin(async move {
            let outcomes: Vec<OutcomeColumns> = results
                .iter()
                .map(|r| OutcomeColumns::of(&r.outcome))
                .collect();
            let ended: Vec<(Uuid, i64)> = sqlx::query_as(
                "INSERT INTO rounds (match_id, number, objective, cards, started_at, ended_at,
                                     outcome, winner_id, formula, no_solution, elapsed_ms, points,
                                     solution, solutions)
                 SELECT * FROM UNNEST($1::uuid[], $2::int8[], $3::int8[], $4::text[], $5::int8[],
                                      $6::int8[], $7::text[], $8::int8[], $9::text[], $10::bool[],
                                      $11::int8[], $12::int8[], $13::text[], $14::int8[])
                 ON CONFLICT (match_id, number) DO UPDATE SET
                     ended_at = excluded.ended_at, outcome = excluded.outcome,
                     winner_id = excluded.winner_id, formula = excluded.formula,
                     no_solution = excluded.no_solution, elapsed_ms = excluded.elapsed_ms,
                     points = excluded.points, solution = excluded.solution,
                     solutions = excluded.solutions
                 WHERE rounds.outcome = 'playing'
                 RETURNING match_id, number",
            )
            .bind(col(results, |r| r.start.match_id))
            .bind(col(results, |r| i64::from(r.start.round)))
            .bind(col(results, |r| r.start.objective))
            .bind(col(results, |r| cards_json(&r.start.cards)))
            .bind(col(results, |r| r.start.at_ms))
            .bind(col(results, |r| r.at_ms))
            .bind(col(&outcomes, |o| o.outcome.to_owned()))
            .bind(col(&outcomes, |o| o.winner_id))
            .bind(col(&outcomes, |o| o.formula.clone()))
            .bind(col(&outcomes, |o| o.no_solution))
            .bind(col(&outcomes, |o| o.elapsed_ms))
            .bind(col(&outcomes, |o| o.points))
            .bind(col(&outcomes, |o| o.solution.clone()))
            .bind(col(&outcomes, |o| o.solutions))
            .fetch_all(&mut *conn)
            .await?;
            ended
                .into_iter()
                .map(|(m, n)| Ok((m, round_number(n)?)))
                .collect()
        })
    }

    fn player_states<'c>(conn: &'c mut PgConnection, ids: &'c [i64]) -> Step<'c, Vec<PlayerState>> {
        Box::pin(async move {
            let found: Vec<PlayerStateRow> = sqlx::query_as(
                "SELECT p.id, p.bot, r.mu, r.sigma, r.matches, r.opponents
                 FROM players p LEFT JOIN ratings r ON r.player_id = p.id
                 WHERE p.id = ANY($1)",
            )
            .bind(ids)
            .fetch_all(&mut *conn)
            .await?;
            Ok(found.into_iter().map(PlayerState::from).collect())
        })
    }

    fn finished_matches<'c>(conn: &'c mut PgConnection, ids: &'c [Uuid]) -> Step<'c, Vec<Uuid>> {
        Box::pin(async move {
            let found: Vec<(Uuid,)> =
                sqlx::query_as("SELECT id FROM matches WHERE id = ANY($1) AND status = 'finished'")
                    .bind(ids)
                    .fetch_all(&mut *conn)
                    .await?;
            Ok(found.into_iter().map(|(id,)| id).collect())
        })
    }

    fn players_by_token<'c>(
        conn: &'c mut PgConnection,
        hashes: &'c [&'c str],
    ) -> Step<'c, Vec<PlayerRow>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
                "SELECT id, name, name_key, bot FROM players WHERE token_hash = ANY($1)",
            )
            .bind(hashes)
            .fetch_all(&mut *conn)
            .await?)
        })
    }

    fn finish_matches<'c>(
        conn: &'c mut PgConnection,
        ends: &'c [&'c MatchEnd],
        rated: &'c [bool],
    ) -> Step<'c, ()> {
        Box::pin(async move {
            sqlx::query(
                "UPDATE matches m SET status = 'finished', finished_at = t.at,
                     rounds_played = t.rounds, rated = t.rated
                 FROM UNNEST($1::uuid[], $2::int8[], $3::int8[], $4::bool[])
                     AS t(id, at, rounds, rated)
                 WHERE m.id = t.id",
            )
            .bind(col(ends, |m| m.match_id))
            .bind(col(ends, |m| m.at_ms))
            .bind(col(ends, |m| i64::from(m.rounds_played)))
            .bind(rated)
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn add_opponents<'c>(
        conn: &'c mut PgConnection,
        pairs: &'c BTreeSet<(i64, i64)>,
    ) -> Step<'c, Vec<i64>> {
        Box::pin(async move {
            let new: Vec<(i64,)> = sqlx::query_as(
                "INSERT INTO opponents (player_id, opponent_id)
                 SELECT * FROM UNNEST($1::int8[], $2::int8[])
                 ON CONFLICT DO NOTHING
                 RETURNING player_id",
            )
            .bind(pairs.iter().map(|p| p.0).collect::<Vec<_>>())
            .bind(pairs.iter().map(|p| p.1).collect::<Vec<_>>())
            .fetch_all(&mut *conn)
            .await?;
            Ok(new.into_iter().map(|(p,)| p).collect())
        })
    }

    fn store_ratings<'c>(
        conn: &'c mut PgConnection,
        ratings: &'c BTreeMap<i64, RatingState>,
        at_ms: i64,
    ) -> Step<'c, ()> {
        Box::pin(async move {
            let rows: Vec<(&i64, &RatingState)> = ratings.iter().collect();
            sqlx::query(
                "INSERT INTO ratings (player_id, mu, sigma, matches, opponents, updated_at)
                 SELECT t.p, t.mu, t.sigma, t.n, t.o, $6
                 FROM UNNEST($1::int8[], $2::float8[], $3::float8[], $4::int8[], $5::int8[])
                     AS t(p, mu, sigma, n, o)
                 ON CONFLICT (player_id) DO UPDATE SET
                     mu = excluded.mu, sigma = excluded.sigma, matches = excluded.matches,
                     opponents = excluded.opponents, updated_at = excluded.updated_at",
            )
            .bind(col(&rows, |r| *r.0))
            .bind(col(&rows, |r| r.1.skill.mu))
            .bind(col(&rows, |r| r.1.skill.sigma))
            .bind(col(&rows, |r| r.1.matches))
            .bind(col(&rows, |r| r.1.opponents))
            .bind(at_ms)
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn finish_places<'c>(
        conn: &'c mut PgConnection,
        places: &'c [PlaceRow],
    ) -> Step<'c, Vec<(Uuid, i64)>> {
        Box::pin(async move {
            // Players who joined during the match are seated after the rest.
            Ok(sqlx::query_as(
                "INSERT INTO match_players (match_id, player_id, seat, score, rank,
                                            rating_before, rating_after, finished_at)
                 SELECT t.m, t.p,
                        (SELECT coalesce(max(seat), -1) + 1 FROM match_players
                         WHERE match_id = t.m) + t.ord - 1,
                        t.score, t.rank, t.rb, t.ra, t.fin
                 FROM UNNEST($1::uuid[], $2::int8[], $3::int8[], $4::int8[], $5::float8[],
                             $6::float8[], $7::int8[])
                     WITH ORDINALITY AS t(m, p, score, rank, rb, ra, fin, ord)
                 ON CONFLICT (match_id, player_id) DO UPDATE SET
                     score = excluded.score, rank = excluded.rank,
                     rating_before = excluded.rating_before, rating_after = excluded.rating_after,
                     finished_at = excluded.finished_at
                 WHERE match_players.finished_at IS NULL
                 RETURNING match_id, player_id",
            )
            .bind(col(places, |p| p.match_id))
            .bind(col(places, |p| p.player))
            .bind(col(places, |p| p.score))
            .bind(col(places, |p| i64::from(p.rank)))
            .bind(col(places, |p| p.rating_before))
            .bind(col(places, |p| p.rating_after))
            .bind(col(places, |p| p.finished_at))
            .fetch_all(&mut *conn)
            .await?)
        })
    }

    fn abandon_matches<'c>(
        conn: &'c mut PgConnection,
        abandons: &'c [(Uuid, i64)],
    ) -> Step<'c, ()> {
        Box::pin(async move {
            sqlx::query(
                "UPDATE matches m SET status = 'abandoned', finished_at = t.at
                 FROM UNNEST($1::uuid[], $2::int8[]) AS t(id, at)
                 WHERE m.id = t.id AND m.status = 'playing'",
            )
            .bind(col(abandons, |a| a.0))
            .bind(col(abandons, |a| a.1))
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn add_stats<'c>(conn: &'c mut PgConnection, stats: &'c Stats) -> Step<'c, ()> {
        Box::pin(async move {
            let rows: Vec<_> = stats.rows().collect();
            sqlx::query(
                "INSERT INTO player_stats (period, period_start, player_id, played, matches, wins,
                                           rounds_won, fastest_ms, rating, rated_total, opponents)
                 SELECT * FROM UNNEST($1::text[], $2::int8[], $3::int8[], $4::int8[], $5::int8[],
                                      $6::int8[], $7::int8[], $8::int8[], $9::float8[],
                                      $10::int8[], $11::int8[])
                 ON CONFLICT (period, period_start, player_id) DO UPDATE SET
                     played = player_stats.played + excluded.played,
                     matches = player_stats.matches + excluded.matches,
                     wins = player_stats.wins + excluded.wins,
                     rounds_won = player_stats.rounds_won + excluded.rounds_won,
                     fastest_ms = LEAST(player_stats.fastest_ms, excluded.fastest_ms),
                     rating = coalesce(excluded.rating, player_stats.rating),
                     rated_total = GREATEST(player_stats.rated_total, excluded.rated_total),
                     opponents = GREATEST(player_stats.opponents, excluded.opponents)",
            )
            .bind(col(&rows, |r| r.period.to_owned()))
            .bind(col(&rows, |r| r.start))
            .bind(col(&rows, |r| r.player))
            .bind(col(&rows, |r| r.delta.played))
            .bind(col(&rows, |r| r.delta.matches))
            .bind(col(&rows, |r| r.delta.wins))
            .bind(col(&rows, |r| r.delta.rounds_won))
            .bind(col(&rows, |r| r.delta.fastest_ms))
            .bind(col(&rows, |r| r.delta.rating))
            .bind(col(&rows, |r| r.delta.rated_total))
            .bind(col(&rows, |r| r.delta.opponents))
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    fn won_rounds<'c>(conn: &'c mut PgConnection, ids: &'c [Uuid]) -> Step<'c, Vec<WonRound>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
                "SELECT winner_id AS winner, formula IS NOT NULL AS with_formula,
                        elapsed_ms, ended_at AS at_ms
                 FROM rounds WHERE match_id = ANY($1) AND outcome = 'won'",
            )
            .bind(ids)
            .fetch_all(&mut *conn)
            .await?)
        })
    }
}
