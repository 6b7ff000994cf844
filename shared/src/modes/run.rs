//! A solo run, as lichess's Puzzle Storm plays: three minutes on the
//! clock, one hand after another, the score is the hands solved.
//!
//! - **The ladder.** Hands get harder as the run goes on, by the number of
//!   distinct solutions under [`RULES`] ([`DifficultyBands`] for Krypto):
//!   hands 1–5 are easy (more than 30 solutions), hands 6–12 medium
//!   (15–30), hand 13 on hard (1–14); see [`band_of`]. The steps fall on
//!   the combo's first two bonuses, so a clean start feels the climb and
//!   the reward together.
//! - **The combo.** Right answers in a row: reaching 5 adds 3 s, 12 adds
//!   5 s, 20 adds 7 s and 30 adds 10 s; past 30, every 10 more adds 10 s
//!   again (Storm's combo bar loops at its last level); see
//!   [`combo_bonus_ms`].
//! - **A wrong answer** (a complete formula over the hand that is wrong,
//!   [`Judgement::Wrong`]) takes [`PENALTY_MS`] off the clock, resets the
//!   combo and moves on to the next hand, as a wrong move does in Storm.
//!   A formula that is no attempt at the hand (a typo) costs nothing and
//!   stays on the hand.
//! - **No skip.** Storm has none: a player stuck on a hand moves on by
//!   answering wrong, at the price of a wrong answer. A free skip would
//!   make a run a search for easy hands.
//! - **The end.** The run is over when the clock reaches zero, and at the
//!   latest [`LONGEST_RUN_MS`] after its start whatever the bonuses, so a
//!   program answering at the rate limit cannot keep one going for ever.
//!   An answer after the end is not judged.
//!
//! Every hand comes from the run's seed (hand `n` from the ChaCha20 stream
//! `n` of the seed), so a run replays exactly from its seed, its start and
//! its answers ([`Run::replay`]): the server stores those and never takes
//! a score from a client. The seed is the server's: a client never chooses
//! it or sees it.

use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{judge, Judgement, PENALTY_MS, RULES};
use crate::cards::{secure_rng, Deal};
use crate::protocol::{Difficulty, Variant, VerdictError};
use crate::rational::Rational;
use crate::room::DifficultyBands;
use crate::solver;

/// The clock a run starts with.
pub const RUN_MS: u64 = 180_000;

/// The longest a run can last from its start, bonuses included.
pub const LONGEST_RUN_MS: u64 = 30 * 60_000;

/// Combo bonuses: reaching the combo on the left adds the time on the
/// right (Puzzle Storm's levels).
pub const COMBO_BONUSES: [(u32, u64); 4] = [(5, 3_000), (12, 5_000), (20, 7_000), (30, 10_000)];

/// Past the last level, the last bonus comes again every this many right
/// answers (30 − 20, the width of the last level, as Storm does).
pub const COMBO_REPEAT: u32 = 10;

/// The last hand of each step of the ladder, and its band; later hands are
/// hard.
pub const LADDER: [(u32, Difficulty); 2] = [(5, Difficulty::Easy), (12, Difficulty::Medium)];

/// The band of the run's hand number `hand` (1-based).
pub fn band_of(hand: u32) -> Difficulty {
    LADDER
        .iter()
        .find(|(last, _)| hand <= *last)
        .map_or(Difficulty::Hard, |(_, band)| *band)
}

/// The time added when a combo reaches `combo` (0 for most combos).
pub fn combo_bonus_ms(combo: u32) -> u64 {
    if let Some((_, bonus)) = COMBO_BONUSES.iter().find(|(at, _)| *at == combo) {
        return *bonus;
    }
    match COMBO_BONUSES.last() {
        Some(&(last, bonus)) if combo > last && (combo - last).is_multiple_of(COMBO_REPEAT) => {
            bonus
        }
        _ => 0,
    }
}

/// A run's secret seed: 32 bytes from the server's generator. `Debug` does
/// not show it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunSeed([u8; 32]);

impl RunSeed {
    /// A new seed from the operating system's generator.
    pub fn generate() -> RunSeed {
        RunSeed(secure_rng().random())
    }

    /// A seed as stored (or fixed, in tests and replays).
    pub const fn from_bytes(bytes: [u8; 32]) -> RunSeed {
        RunSeed(bytes)
    }

    /// The bytes to store.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Hand number `hand` of a run with this seed: drawn from the Krypto
    /// deck on the seed's stream `hand` until it is solvable and in the
    /// ladder's band for it, or after [`Run::MAX_TRIES`] draws the first
    /// solvable one seen.
    pub fn hand(&self, hand: u32) -> Deal {
        let mut rng = ChaCha20Rng::from_seed(self.0);
        rng.set_stream(u64::from(hand));
        let bands = DifficultyBands::for_variant(Variant::Krypto);
        let want = band_of(hand);
        let mut fallback = None;
        for _ in 0..Run::MAX_TRIES {
            let deal = Deal::krypto(&mut rng);
            match solver::count_solutions(&deal.hand, deal.objective, RULES) {
                Ok(0) | Err(_) => {}
                Ok(n) if bands.classify(n as u64) == want => return deal,
                Ok(_) => {
                    fallback.get_or_insert(deal);
                }
            }
        }
        if let Some(deal) = fallback {
            return deal;
        }
        loop {
            let deal = Deal::krypto(&mut rng);
            if matches!(
                solver::count_solutions(&deal.hand, deal.objective, RULES),
                Ok(1..)
            ) {
                return deal;
            }
        }
    }
}

impl fmt::Debug for RunSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RunSeed(…)")
    }
}

/// Why a run refuses an answer (the server answers with an `error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RunError {
    /// The clock has run out.
    #[error("the run is over")]
    Over,
    /// The answer names another hand than the one on the table (it crossed
    /// the next deal).
    #[error("that answer is for hand {given}; the run is on hand {current}")]
    WrongHand {
        /// The hand the answer named.
        given: u32,
        /// The hand being played.
        current: u32,
    },
}

/// What one judged answer did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    /// Right: the score grows, the combo too, and the next hand is dealt.
    Solved {
        /// The formula's value, for the `verdict`.
        value: Rational,
        /// The formula as the checker prints it.
        printed: String,
        /// Time the combo just added (0 for none).
        bonus_ms: u64,
    },
    /// Wrong: [`PENALTY_MS`] off the clock, the combo back to 0, and the
    /// next hand is dealt.
    Missed(VerdictError),
    /// Not an attempt at the hand: nothing changes.
    NotAnAttempt(VerdictError),
}

/// One judged answer, as the server stores it to replay the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunAnswer {
    /// When it arrived (ms since the Unix epoch).
    pub at_ms: u64,
    /// The hand it answered.
    pub hand: u32,
    /// The formula as sent.
    pub formula: String,
}

/// A finished run, for boards and profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunResult {
    /// Hands solved: the score.
    pub score: u32,
    /// Wrong answers.
    pub misses: u32,
    /// The longest combo.
    pub best_combo: u32,
    /// How long the run lasted, bonuses and penalties included.
    pub duration_ms: u64,
}

/// A run in play: plain data the server stores (with its seed, so never
/// sent to a client as it is).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    seed: RunSeed,
    started_ms: u64,
    /// The hand on the table, 1-based.
    hand: u32,
    deal: Deal,
    score: u32,
    misses: u32,
    combo: u32,
    best_combo: u32,
    bonus_ms: u64,
    penalty_ms: u64,
    /// Every judged answer, in order: what [`Run::replay`] replays.
    answers: Vec<RunAnswer>,
}

impl Run {
    /// Draws tried for a hand of the ladder's band before settling for the
    /// first solvable one (each band holds about a third of the solvable
    /// hands, so 500 misses never happen in practice).
    pub const MAX_TRIES: usize = 500;

    /// A run started at `now_ms`, on its first hand.
    pub fn new(seed: RunSeed, now_ms: u64) -> Run {
        let deal = seed.hand(1);
        Run {
            seed,
            started_ms: now_ms,
            hand: 1,
            deal,
            score: 0,
            misses: 0,
            combo: 0,
            best_combo: 0,
            bonus_ms: 0,
            penalty_ms: 0,
            answers: Vec::new(),
        }
    }

    /// The run as it was after `answers`, replayed from its seed and start:
    /// how the server checks a stored run. An answer the run would refuse
    /// (after the end, or for another hand) fails the replay.
    pub fn replay(seed: RunSeed, started_ms: u64, answers: &[RunAnswer]) -> Result<Run, RunError> {
        let mut run = Run::new(seed, started_ms);
        for a in answers {
            run.submit(a.hand, &a.formula, a.at_ms)?;
        }
        Ok(run)
    }

    /// When the run started.
    pub fn started_ms(&self) -> u64 {
        self.started_ms
    }

    /// The number of the hand on the table (1-based).
    pub fn hand(&self) -> u32 {
        self.hand
    }

    /// The hand on the table.
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// Hands solved.
    pub fn score(&self) -> u32 {
        self.score
    }

    /// Wrong answers.
    pub fn misses(&self) -> u32 {
        self.misses
    }

    /// Right answers in a row.
    pub fn combo(&self) -> u32 {
        self.combo
    }

    /// Every judged answer so far.
    pub fn answers(&self) -> &[RunAnswer] {
        &self.answers
    }

    /// When the clock reaches zero, as things stand (bonuses and penalties
    /// move it; [`LONGEST_RUN_MS`] caps it): the moment to send `run_over`.
    pub fn ends_at_ms(&self) -> u64 {
        let end = self
            .started_ms
            .saturating_add(RUN_MS)
            .saturating_add(self.bonus_ms)
            .saturating_sub(self.penalty_ms);
        end.min(self.started_ms.saturating_add(LONGEST_RUN_MS))
    }

    /// Time left at `now_ms` (never more than the run ever had: a clock
    /// stepped back before the start counts from the start).
    pub fn remaining_ms(&self, now_ms: u64) -> u64 {
        self.ends_at_ms()
            .saturating_sub(now_ms.max(self.started_ms))
    }

    /// Whether the clock has run out at `now_ms`.
    pub fn is_over(&self, now_ms: u64) -> bool {
        self.remaining_ms(now_ms) == 0
    }

    /// Judges an answer to hand `hand` arriving at `now_ms`.
    pub fn submit(
        &mut self,
        hand: u32,
        formula: &str,
        now_ms: u64,
    ) -> Result<RunOutcome, RunError> {
        if self.is_over(now_ms) {
            return Err(RunError::Over);
        }
        if hand != self.hand {
            return Err(RunError::WrongHand {
                given: hand,
                current: self.hand,
            });
        }
        let outcome = match judge(formula, &self.deal, RULES) {
            Judgement::NotAnAttempt(error) => return Ok(RunOutcome::NotAnAttempt(error)),
            Judgement::Right { value, printed } => {
                self.score = self.score.saturating_add(1);
                self.combo = self.combo.saturating_add(1);
                self.best_combo = self.best_combo.max(self.combo);
                let bonus_ms = combo_bonus_ms(self.combo);
                self.bonus_ms = self.bonus_ms.saturating_add(bonus_ms);
                RunOutcome::Solved {
                    value,
                    printed,
                    bonus_ms,
                }
            }
            Judgement::Wrong(error) => {
                self.misses = self.misses.saturating_add(1);
                self.combo = 0;
                self.penalty_ms = self.penalty_ms.saturating_add(PENALTY_MS);
                RunOutcome::Missed(error)
            }
        };
        self.answers.push(RunAnswer {
            at_ms: now_ms,
            hand,
            formula: formula.to_owned(),
        });
        self.hand = self.hand.saturating_add(1);
        self.deal = self.seed.hand(self.hand);
        Ok(outcome)
    }

    /// The run's result as it stands (final once [`Run::is_over`]).
    pub fn result(&self) -> RunResult {
        RunResult {
            score: self.score,
            misses: self.misses,
            best_combo: self.best_combo,
            duration_ms: self.ends_at_ms().saturating_sub(self.started_ms),
        }
    }
}
