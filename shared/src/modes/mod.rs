//! Playing without a room: the daily Krypto, challenges, solo runs and
//! practice.
//!
//! Every rule here is pure: the time (`now_ms`, milliseconds since the Unix
//! epoch, UTC), the server's secret and the seeds are arguments, and every
//! state is plain data (serde) the server stores as it is, so a restart
//! or another node of a cluster carries on from it.
//!
//! - [`daily`]: the day's number (`#1` is the server's first day, by UTC
//!   day) and the day's hand, dealt from a server secret and the date.
//! - [`clock`]: one player's timed attempt at one hand (the daily's, a
//!   challenge's): started when the hand was first sent, a penalty per
//!   wrong answer, solved once.
//! - [`streak`]: consecutive UTC days solved.
//! - [`share`]: the share line that gives nothing away.
//! - [`solutions`]: every distinct solution of a hand, with the player's
//!   own marked.
//! - [`run`]: a solo run against the clock (Puzzle Storm's rules).
//! - [`challenge`]: a solved hand sent to friends by an id, and two results
//!   side by side.
//! - [`practice`]: a table alone, unrated, with hints (the steps of one
//!   solution).
//!
//! What counts as a wrong answer is the same in all of them ([`judge`]).

pub mod challenge;
pub mod clock;
pub mod daily;
pub mod practice;
pub mod run;
pub mod share;
pub mod solutions;
pub mod streak;

use crate::cards::Deal;
use crate::protocol::VerdictError;
use crate::rational::Rational;
use crate::room::referee;
use crate::rules::Rules;

/// The rule set of the daily and of runs: `free`, any rational
/// intermediate. It is the default every room plays, the one players know
/// first, and the one [`DifficultyBands`](crate::room::DifficultyBands) was
/// calibrated on for Krypto (a median of 21 distinct solutions), so "medium"
/// means what it means in a room with default settings.
pub const RULES: Rules = Rules::Free;

/// What a wrong answer costs: 10 s added to a daily's or a challenge's
/// time, 10 s taken from a run's clock (Puzzle Storm's "a wrong move costs
/// 10 s").
pub const PENALTY_MS: u64 = 10_000;

/// A formula judged against a hand outside a room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    /// It makes the objective.
    Right {
        /// Its exact value (the objective), for the `verdict`.
        value: Rational,
        /// The formula as the checker prints it (spaced, `×` `÷`, fewest
        /// parentheses): what is shown or stored, never the text as typed.
        printed: String,
    },
    /// A complete formula over the hand's cards that is wrong (its value,
    /// a division by zero, a rule it breaks): a miss, which costs
    /// [`PENALTY_MS`].
    Wrong(VerdictError),
    /// Not an attempt at the hand at all (a syntax error, a card missing or
    /// not in the hand): refused, but it costs nothing, as a typo in a room
    /// never counts as an attempt ([`crate::room::counts_as_attempt`]).
    NotAnAttempt(VerdictError),
}

impl Judgement {
    /// Whether it made the objective.
    pub fn is_right(&self) -> bool {
        matches!(self, Judgement::Right { .. })
    }
}

/// Judges `formula` against `deal` under `rules`, with the same checker as
/// the rooms (so a verdict never differs from `krypto check`).
pub fn judge(formula: &str, deal: &Deal, rules: Rules) -> Judgement {
    match referee::check(formula, &deal.hand, deal.objective, rules) {
        Ok(accepted) => Judgement::Right {
            value: accepted.value,
            printed: accepted.printed,
        },
        Err(error) if crate::formula::uses_hand(formula, &deal.hand) => Judgement::Wrong(error),
        Err(error) => Judgement::NotAnAttempt(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_complete_formulas_over_the_hand_are_misses() {
        let deal = Deal {
            objective: 10,
            hand: vec![1, 2, 3, 4, 5],
        };
        let missed = |formula| matches!(judge(formula, &deal, RULES), Judgement::Wrong(_));
        let typo = |formula| matches!(judge(formula, &deal, RULES), Judgement::NotAnAttempt(_));
        assert!(typo("1+2+3+4"));
        assert!(missed("1+2+3+4+5"));
        assert!(typo("(1+2"));
        // A division by zero over the whole hand is a real (wrong) attempt.
        assert!(missed("5/(3-2-1)+4"));
        // A card used twice is a typo, not an attempt.
        assert!(typo("5*4/2/(3-1)*1+5"));
        match judge("(5 + 4 + 3 - 2) * 1", &deal, RULES) {
            Judgement::Right { value, printed } => {
                assert_eq!(value, Rational::from_int(10));
                assert_eq!(printed, "(5 + 4 + 3 - 2) × 1");
            }
            other => panic!("{other:?}"),
        }
    }
}
