//! A match's recap (`GET /api/matches/{id}`): the recorded match read back
//! and told round by round, with every distinct solution of each hand from
//! the solver under the match's rules. Reading is the database's part;
//! [`tell`] is pure and runs the solver, so the route runs it off the
//! async workers.

use krypto_core::protocol::{
    MatchRecap, PrunedMisses, RecapAttempt, RecapStanding, RoomSettings, RoundRecap,
    MAX_RECAP_ATTEMPTS,
};
use krypto_core::recap::recap_solutions;
use uuid::Uuid;

use crate::db::recap::RecordedMatch;
use crate::db::{Db, DbError};

/// Why there is no recap.
#[derive(Debug, thiserror::Error)]
pub enum RecapError {
    /// No match has this id.
    #[error("no match has this id")]
    NotFound,
    /// The database could not be read.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A stored row the code cannot read (a bug, not bad input).
    #[error("a stored match that cannot be read: {0}")]
    Stored(&'static str),
}

/// Recaps being told at once, server-wide: each runs the solver over up to
/// 50 hands, so a crowd asking for recaps queues here instead of taking
/// every blocking thread.
static TELLING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// The recap of the match `id`: read, then told on a blocking thread.
pub async fn recap(db: &Db, id: Uuid) -> Result<MatchRecap, RecapError> {
    let recorded = read(db, id).await?;
    let _permit = TELLING
        .acquire()
        .await
        .map_err(|_| RecapError::Stored("the recap queue closed"))?;
    tokio::task::spawn_blocking(move || tell(id, recorded))
        .await
        .map_err(|_| RecapError::Stored("telling a recap panicked"))?
}

/// Reads the match `id` back from the database.
pub async fn read(db: &Db, id: Uuid) -> Result<RecordedMatch, RecapError> {
    db.recorded_match(id).await?.ok_or(RecapError::NotFound)
}

/// The recap of `recorded`, the match `id`.
pub fn tell(id: Uuid, recorded: RecordedMatch) -> Result<MatchRecap, RecapError> {
    let RecordedMatch {
        row,
        players,
        rounds,
        attempts,
        counts,
        pruned,
    } = recorded;
    let settings: RoomSettings = serde_json::from_str(&row.settings)
        .map_err(|_| RecapError::Stored("settings that do not parse"))?;
    let mut standings: Vec<RecapStanding> = players
        .into_iter()
        .map(|p| RecapStanding {
            name: p.name,
            score: p.score,
            rank: p.rank.and_then(|r| u32::try_from(r).ok()),
        })
        .collect();
    // Stable: equal ranks keep seating order; no rank yet sorts last.
    standings.sort_by_key(|s| s.rank.unwrap_or(u32::MAX));
    let mut told = Vec::with_capacity(rounds.len());
    for r in rounds {
        let cards: Vec<i64> = serde_json::from_str(&r.cards)
            .map_err(|_| RecapError::Stored("cards that do not parse"))?;
        let mine: Vec<&_> = attempts.iter().filter(|a| a.round == r.number).collect();
        let right: Vec<&str> = mine
            .iter()
            .filter(|a| a.accepted)
            .filter_map(|a| a.formula.as_deref())
            .collect();
        let solutions = recap_solutions(
            &cards,
            r.objective,
            settings.rules,
            r.formula.as_deref(),
            &right,
        );
        let solutions = solutions.unwrap_or_else(|e| {
            tracing::warn!(match_id = %id, round = r.number, error = %e, "a recap's hand the solver refused");
            krypto_core::recap::RecapSolutions {
                solutions: Vec::new(),
                total: 0,
                marks: Default::default(),
            }
        });
        let total = counts
            .iter()
            .find(|c| c.round == r.number)
            .map_or(0, |c| u64::try_from(c.n).unwrap_or(0));
        let pruned: Vec<PrunedMisses> = pruned
            .iter()
            .filter(|p| p.round == r.number)
            .map(|p| PrunedMisses {
                who: p.name.clone(),
                wrong: u64::try_from(p.wrong).unwrap_or(0),
            })
            .collect();
        let total = total.saturating_add(pruned.iter().map(|p| p.wrong).sum::<u64>());
        told.push(RoundRecap {
            number: u32::try_from(r.number).map_err(|_| RecapError::Stored("a round number"))?,
            objective: r.objective,
            cards,
            winner: r.winner,
            elapsed_ms: r.elapsed_ms.and_then(|ms| u64::try_from(ms).ok()),
            no_solution: r.no_solution,
            attempts: mine
                .iter()
                .take(MAX_RECAP_ATTEMPTS)
                .map(|a| RecapAttempt {
                    who: a.name.clone(),
                    elapsed_ms: u64::try_from(a.elapsed_ms).unwrap_or(0),
                    right: a.accepted,
                    formula: a.formula.clone().filter(|_| a.accepted),
                    verdict: a.verdict.clone(),
                })
                .collect(),
            attempts_total: total,
            pruned,
            solutions: solutions.solutions,
            solutions_total: solutions.total,
            marks: solutions.marks,
        });
    }
    Ok(MatchRecap {
        match_id: id.to_string(),
        room: row.room_code,
        status: row.status,
        started_at_ms: row.started_at,
        finished_at_ms: row.finished_at,
        settings,
        standings,
        rounds: told,
    })
}
