//! The solver: reachable values, solutions, chains and censuses.
//!
//! - [`solve_one`] (in `search.rs`): "is this hand solvable", with a witness.
//! - [`solve_subset`] (in `subset.rs`): the same when any subset of the cards
//!   may be used (Countdown), with [`solve_all_subsets`] and
//!   [`count_solutions_subsets`] for every distinct solution; `reach.rs`
//!   holds the per-subset value tables both searches share.
//! - [`solve_all`], [`count_solutions`], [`all_expressions`] (in
//!   `distinct/`): every distinct solution, counted the way a person would
//!   (equal as rational functions of the cards), using the fingerprints of
//!   `fingerprint.rs`.
//! - [`same_solution`]: whether two expressions are one solution in that
//!   sense (a player's formula against the solver's list).
//! - [`chains`] (in `chain.rs`): the parenthesis-free, right-to-left chains.
//! - [`census`]: whole-variant counts of unsolvable games.
//!
//! Every value is computed exactly with [`Rational`](crate::Rational); when an
//! exact value does not fit in 64 bits the answer is [`SolveError::Overflow`],
//! never a guess.

pub mod census;
mod chain;
mod distinct;
mod fingerprint;
mod reach;
mod search;
mod subset;

pub use chain::chains;
pub use distinct::{all_expressions, count_solutions, solve_all};
pub use search::solve_one;
pub use subset::{count_solutions_subsets, solve_all_subsets, solve_subset};

use thiserror::Error;

use crate::rational::ArithError;

/// The most cards the solver accepts. Beyond eight the number of distinct
/// expressions (and so time and memory) explodes, so larger hands are refused
/// up front rather than left to run for hours.
pub const MAX_CARDS: usize = 8;

/// Why the solver could not answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SolveError {
    /// The hand was empty: there is nothing to combine.
    #[error("no cards to combine")]
    NoCards,
    /// More cards than [`MAX_CARDS`].
    #[error("too many cards: {given} (the solver takes at most {max})")]
    TooManyCards {
        /// How many cards were given.
        given: usize,
        /// The limit, [`MAX_CARDS`].
        max: usize,
    },
    /// Some exact intermediate value did not fit in 64-bit numerator and
    /// denominator, so the answer could be incomplete; the solver refuses
    /// rather than risk a wrong "no solution".
    #[error("an intermediate value is too large to compute exactly")]
    Overflow,
    /// A census configuration that cannot be run (explained in the message).
    #[error("invalid census configuration: {0}")]
    InvalidCensus(String),
}

/// Whether `a` and `b` are the same solution in the sense of [`solve_all`]:
/// equal as rational functions of the cards (equal card values being one
/// variable), decided by the same fingerprints. Used to find a player's
/// formula among the distinct solutions of a hand. An expression that
/// divides by something identically zero is no solution and matches
/// nothing.
pub fn same_solution(a: &crate::Expr, b: &crate::Expr) -> bool {
    match (fingerprint::of_expr(a), fingerprint::of_expr(b)) {
        (Some(fa), Some(fb)) => fa == fb,
        _ => false,
    }
}

/// Checks the hand size every entry point shares.
pub(crate) fn validate(cards: &[i64]) -> Result<(), SolveError> {
    if cards.is_empty() {
        return Err(SolveError::NoCards);
    }
    if cards.len() > MAX_CARDS {
        return Err(SolveError::TooManyCards {
            given: cards.len(),
            max: MAX_CARDS,
        });
    }
    Ok(())
}

/// The six ways two values combine, as `(op, swapped)`: `swapped` means the
/// second value is the left operand. Addition and multiplication commute, so
/// only one order of each is listed.
pub(crate) const COMBOS: [(crate::Op, bool); 6] = [
    (crate::Op::Add, false),
    (crate::Op::Mul, false),
    (crate::Op::Sub, false),
    (crate::Op::Sub, true),
    (crate::Op::Div, false),
    (crate::Op::Div, true),
];

/// Records an arithmetic failure: overflow poisons the search (the answer
/// may be incomplete), division by zero just means "not a value".
#[inline]
pub(crate) fn note_overflow(err: ArithError, overflow: &mut bool) {
    if err == ArithError::Overflow {
        *overflow = true;
    }
}
