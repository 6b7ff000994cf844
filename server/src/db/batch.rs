//! Applying writes, for either backend: one transaction per batch, one
//! statement per kind of write, and what the writes add up to (ratings,
//! opponents, the leaderboards' period rows) decided once, in
//! [`super::summary`], between the statements.
//!
//! The usual case, where every write succeeds, applies the whole batch at
//! once and commits once. If any write fails, the transaction is rolled
//! back and the batch replayed with each request in its own savepoint, so
//! only the failing request is lost.

use std::collections::{BTreeSet, HashMap, HashSet};

use sqlx::Connection;
use uuid::Uuid;

use super::scores::{Applied, Grouped, NewPlayer, Write};
use super::summary::{plan_finish, RatingState, Stats};
use super::write_backend::WriteBackend;
use super::{writes, Created, DbError, PlayerRow};

/// What each request of a batch produced, or why it failed.
pub type Results = Vec<Result<Vec<Applied>, DbError>>;

/// Applies `writes` on `conn` inside the caller's transaction; what each
/// produced, in order.
pub(crate) async fn apply<B: WriteBackend>(
    conn: &mut B::Connection,
    writes: &[&Write],
) -> Result<Vec<Applied>, DbError> {
    let mut g = Grouped::of(writes);
    let created = create_players::<B>(conn, &g.players).await?;
    if !g.devices.is_empty() {
        writes::first_devices::<B>(conn, &g.devices).await?;
    }
    if !g.starts.is_empty() {
        writes::start_matches::<B>(conn, &g.starts).await?;
    }
    if !g.rounds.is_empty() {
        writes::start_rounds::<B>(conn, &g.rounds).await?;
    }
    if !g.attempts.is_empty() {
        writes::attempts::<B>(conn, &g.attempts).await?;
    }
    if !g.results.is_empty() {
        // Which results were new matters no more here: rounds reach the
        // boards with their match's end (`won_rounds`), once.
        writes::round_results::<B>(conn, &g.results).await?;
    }
    let mut done: HashSet<Uuid> = HashSet::new();
    if !g.ends.is_empty() {
        // A match already finished was recorded by an earlier try of this
        // batch (a commit whose answer was lost, a journal replayed again):
        // rating it twice would move its players' ratings twice.
        let ids: Vec<Uuid> = g.ends.iter().map(|e| e.match_id).collect();
        done = writes::finished_matches::<B>(conn, &ids)
            .await?
            .into_iter()
            .collect();
        g.ends.retain(|e| !done.contains(&e.match_id));
    }
    // The bot flags and ratings of everyone whose results count.
    let mut ids = BTreeSet::new();
    for end in &g.ends {
        ids.extend(end.standings.iter().map(|p| p.player.0));
    }
    let ids: Vec<i64> = ids.into_iter().collect();
    let states = if ids.is_empty() {
        Vec::new()
    } else {
        writes::player_states::<B>(conn, &ids).await?
    };
    let bots: HashSet<i64> = states.iter().filter(|s| s.bot).map(|s| s.id).collect();
    let stored: HashMap<i64, RatingState> = states
        .iter()
        .filter_map(|s| s.rating.map(|r| (s.id, r)))
        .collect();

    let mut stats = Stats::default();
    let mut ratings = Vec::new();
    if !g.ends.is_empty() {
        let mut plan = plan_finish(&g.ends, &stored, &bots);
        writes::finish_matches::<B>(conn, &g.ends, &plan.rated).await?;
        // Rounds count on the boards once their match is known to have
        // been a race: rated (two or more people made real attempts).
        let raced: Vec<Uuid> = g
            .ends
            .iter()
            .zip(&plan.rated)
            .filter(|(_, &rated)| rated)
            .map(|(end, _)| end.match_id)
            .collect();
        if !raced.is_empty() {
            for round in writes::won_rounds::<B>(conn, &raced).await? {
                stats.add_round(&round, &bots);
            }
        }
        if !plan.pairs.is_empty() {
            let new = writes::add_opponents::<B>(conn, &plan.pairs).await?;
            plan.count_new_opponents(new);
        }
        if !plan.ratings.is_empty() {
            let at_ms = g.ends.iter().map(|e| e.at_ms).max().unwrap_or_default();
            writes::store_ratings::<B>(conn, &plan.ratings, at_ms).await?;
        }
        let finished: HashSet<(Uuid, i64)> = writes::finish_places::<B>(conn, &plan.places)
            .await?
            .into_iter()
            .collect();
        for place in &plan.places {
            if finished.contains(&(place.match_id, place.player)) {
                let state = plan
                    .ratings
                    .get(&place.player)
                    .or_else(|| stored.get(&place.player));
                stats.add_place(place, state);
            }
        }
        ratings = plan.changes;
    }
    if !g.abandons.is_empty() {
        writes::abandon_matches::<B>(conn, &g.abandons).await?;
    }
    if !stats.is_empty() {
        writes::add_stats::<B>(conn, &stats).await?;
    }
    // A match finished earlier answers with no rating changes: they were
    // announced (or journaled) when it was first recorded.
    let mut fresh = ratings.into_iter();
    let ratings = writes
        .iter()
        .filter_map(|w| match w {
            Write::FinishMatch(end) if done.contains(&end.match_id) => Some(Vec::new()),
            Write::FinishMatch(_) => fresh.next(),
            _ => None,
        })
        .collect();
    Grouped::answers(writes, created, ratings)
}

/// Creates players; the first request for a name in a batch gets it, the
/// others (and names already taken) get [`Created::NameTaken`].
async fn create_players<B: WriteBackend>(
    conn: &mut B::Connection,
    players: &[&NewPlayer],
) -> Result<Vec<Created>, DbError> {
    if players.is_empty() {
        return Ok(Vec::new());
    }
    let mut seen = HashSet::new();
    let distinct: Vec<&NewPlayer> = players
        .iter()
        .copied()
        .filter(|p| seen.insert(p.name_key.as_str()))
        .collect();
    let mut rows: HashMap<String, PlayerRow> = writes::insert_players::<B>(conn, &distinct)
        .await?
        .into_iter()
        .map(|row| (row.name_key.clone(), row))
        .collect();
    // A name refused because the same token already holds it was created
    // by an earlier try of this batch whose commit answer was lost: it is
    // this player's, not someone else's.
    let refused: Vec<&str> = distinct
        .iter()
        .filter(|p| !rows.contains_key(&p.name_key))
        .map(|p| p.token_hash.as_str())
        .collect();
    if !refused.is_empty() {
        for row in writes::players_by_token::<B>(conn, &refused).await? {
            if distinct.iter().any(|p| p.name_key == row.name_key) {
                rows.insert(row.name_key.clone(), row);
            }
        }
    }
    Ok(players
        .iter()
        .map(|p| match rows.remove(&p.name_key) {
            Some(row) => Created::Player(row),
            None => Created::NameTaken,
        })
        .collect())
}

/// Applies `writes` in a transaction of their own.
pub(crate) async fn apply_once<B: WriteBackend>(
    conn: &mut B::Connection,
    writes: &[&Write],
) -> Result<Vec<Applied>, DbError> {
    let mut tx = conn.begin_with(B::BEGIN_WRITE).await?;
    let applied = apply::<B>(&mut tx, writes).await?;
    tx.commit().await?;
    Ok(applied)
}

/// Applies the requests of `batch` in one transaction and commits.
pub(crate) async fn apply_batch<B: WriteBackend>(
    conn: &mut B::Connection,
    batch: &[&[Write]],
) -> Result<Results, DbError> {
    let all: Vec<&Write> = batch.iter().flat_map(|writes| writes.iter()).collect();
    let mut tx = conn.begin_with(B::BEGIN_WRITE).await?;
    match apply::<B>(&mut tx, &all).await {
        Ok(applied) => {
            tx.commit().await?;
            let mut applied = applied.into_iter();
            Ok(batch
                .iter()
                .map(|writes| Ok(applied.by_ref().take(writes.len()).collect()))
                .collect())
        }
        // The connection, not a write, failed: the caller retries the
        // whole batch later (every write in it is idempotent).
        Err(e) if e.is_unavailable() => Err(e),
        Err(e) => {
            tracing::warn!(error = %e, "a write failed; replaying its batch with savepoints");
            tx.rollback().await?;
            apply_isolated::<B>(conn, batch).await
        }
    }
}

/// Applies a batch with each request in its own savepoint.
async fn apply_isolated<B: WriteBackend>(
    conn: &mut B::Connection,
    batch: &[&[Write]],
) -> Result<Results, DbError> {
    let mut tx = conn.begin_with(B::BEGIN_WRITE).await?;
    let mut results = Vec::with_capacity(batch.len());
    for writes in batch {
        let writes: Vec<&Write> = writes.iter().collect();
        let mut savepoint = Connection::begin(&mut *tx).await?;
        match apply::<B>(&mut savepoint, &writes).await {
            Ok(applied) => {
                savepoint.commit().await?;
                results.push(Ok(applied));
            }
            Err(e) => {
                savepoint.rollback().await?;
                results.push(Err(e));
            }
        }
    }
    tx.commit().await?;
    Ok(results)
}
