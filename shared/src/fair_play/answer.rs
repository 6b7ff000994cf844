//! One right answer as the fair-play signals see it: a small plain record the
//! server fills from what only it knows and stores as it is.

use serde::{Deserialize, Serialize};

use crate::cards::Deal;
use crate::formula::lexer::{Lexer, TokenKind};
use crate::formula::FormulaError;
use crate::room::difficulty_of;
use crate::settings::{Difficulty, Variant};

/// A player's right answer in play that counts for the public boards
/// (rated matches, the daily, challenges, solo runs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// When the server accepted the answer, in UTC milliseconds on its own
    /// clock: it orders a player's answers and places a reviewer's
    /// [`Clearance`](super::Clearance).
    pub answered_at_ms: u64,
    /// From the moment the server sent the hand to the moment the answer
    /// arrived, on the server's clock. Network delay only adds to it, so a
    /// player's real time is never longer than this.
    pub elapsed_ms: u64,
    /// The hand answered, for the reviewer.
    pub deal: Deal,
    /// The hand's number of distinct solutions under the room's rules.
    pub solutions: u64,
    /// The hand's difficulty band (`krypto_core::room::difficulty_of`).
    pub band: Difficulty,
    /// The answer's length in tokens: numbers, operators and parentheses,
    /// as the formula lexer reads them.
    pub tokens: u32,
}

impl Answer {
    /// The record of `formula`, a right answer to `deal` (a `variant` hand
    /// with `solutions` distinct solutions), accepted at `answered_at_ms`,
    /// `elapsed_ms` after the deal. Fails only if `formula` does not lex,
    /// which a right answer always does.
    pub fn new(
        answered_at_ms: u64,
        elapsed_ms: u64,
        deal: Deal,
        variant: Variant,
        solutions: u64,
        formula: &str,
    ) -> Result<Answer, FormulaError> {
        Ok(Answer {
            answered_at_ms,
            elapsed_ms,
            deal,
            solutions,
            band: difficulty_of(variant, solutions),
            tokens: count_tokens(formula)?,
        })
    }
}

/// The number of tokens in `formula` (numbers, operators and parentheses):
/// what a player has to type or tap to enter it, not counting the key or
/// button that sends it. A two-digit card is one token though it takes two
/// keys, which keeps the count at or below the keys pressed.
pub fn count_tokens(formula: &str) -> Result<u32, FormulaError> {
    let mut lexer = Lexer::new(formula);
    let mut count: u32 = 0;
    loop {
        if lexer.next_token()?.kind == TokenKind::End {
            return Ok(count);
        }
        count = count.saturating_add(1);
    }
}
