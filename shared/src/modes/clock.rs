//! One player's timed attempt at one hand: the daily's, or a challenge's
//! (timed the same way, with this same clock).
//!
//! The clock starts at the moment the server first sent the hand to that
//! player, and it never restarts: asking for the hand again (another tab, a
//! reconnection, a server restart) resumes the stored attempt, so nobody
//! can peek at the hand and come back later for a better time. Each wrong
//! answer is counted and adds [`PENALTY_MS`]; the attempt is solved once.

use serde::{Deserialize, Serialize};

use crate::protocol::Timed;
use thiserror::Error;

use super::{judge, Judgement, PENALTY_MS};
use crate::cards::Deal;
use crate::rules::Rules;

/// Why an attempt refuses an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum AttemptError {
    /// It is solved already: its result is final.
    #[error("this hand is solved already")]
    AlreadySolved,
}

/// A timed attempt: plain data, stored by the server as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// When the hand was first sent to the player (ms since the Unix epoch).
    pub started_ms: u64,
    /// Wrong answers so far.
    pub misses: u32,
    /// When the right answer arrived, once it has.
    pub solved_ms: Option<u64>,
}

impl Attempt {
    /// An attempt whose hand is sent now.
    pub const fn start(now_ms: u64) -> Attempt {
        Attempt {
            started_ms: now_ms,
            misses: 0,
            solved_ms: None,
        }
    }

    /// The stored attempt if there is one (the same start, the clock still
    /// running), else a new one starting now: what "asking for the hand" does.
    pub fn resume(stored: Option<Attempt>, now_ms: u64) -> Attempt {
        stored.unwrap_or(Attempt::start(now_ms))
    }

    /// Whether the right answer is in.
    pub const fn is_solved(&self) -> bool {
        self.solved_ms.is_some()
    }

    /// The time on the clock at `now_ms`: the time since the start (until
    /// the solve, once solved) plus [`PENALTY_MS`] per miss. A `now_ms`
    /// before the start (a clock stepped back) counts as no time.
    pub fn elapsed_ms(&self, now_ms: u64) -> u64 {
        let end = self.solved_ms.unwrap_or(now_ms);
        end.saturating_sub(self.started_ms)
            .saturating_add(u64::from(self.misses).saturating_mul(PENALTY_MS))
    }

    /// Counts a wrong answer.
    pub fn miss(&mut self) -> Result<(), AttemptError> {
        if self.is_solved() {
            return Err(AttemptError::AlreadySolved);
        }
        self.misses = self.misses.saturating_add(1);
        Ok(())
    }

    /// Records the right answer at `now_ms`; the final time.
    pub fn solve(&mut self, now_ms: u64) -> Result<u64, AttemptError> {
        if self.is_solved() {
            return Err(AttemptError::AlreadySolved);
        }
        // A clock stepped back before the start still solves, in no time.
        self.solved_ms = Some(now_ms.max(self.started_ms));
        Ok(self.elapsed_ms(now_ms))
    }

    /// Judges an answer to `deal` under `rules` arriving at `now_ms`, and
    /// records it: a [`Judgement::Wrong`] is a miss, a right one solves the
    /// attempt, anything else costs nothing. A solved attempt takes no more
    /// answers, so its result never changes.
    pub fn answer(
        &mut self,
        deal: &Deal,
        rules: Rules,
        formula: &str,
        now_ms: u64,
    ) -> Result<Judgement, AttemptError> {
        if self.is_solved() {
            return Err(AttemptError::AlreadySolved);
        }
        let judgement = judge(formula, deal, rules);
        match &judgement {
            Judgement::Right { .. } => {
                self.solve(now_ms)?;
            }
            Judgement::Wrong(_) => self.miss()?,
            Judgement::NotAnAttempt(_) => {}
        }
        Ok(judgement)
    }

    /// The final result, once solved.
    pub fn result(&self) -> Option<Timed> {
        self.solved_ms.map(|at| Timed {
            elapsed_ms: self.elapsed_ms(at),
            misses: self.misses,
        })
    }
}
