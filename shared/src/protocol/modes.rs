//! What the messages of the daily, runs and challenges carry besides
//! numbers: results, solutions and a challenge's outcome.

use serde::{Deserialize, Serialize};

/// A solved hand's result: what the daily's board ranks and challenges
/// compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Timed {
    /// The time from the hand's first sending to the right answer, plus
    /// the penalty of each wrong answer.
    pub elapsed_ms: u64,
    /// Wrong answers.
    pub misses: u32,
}

/// One distinct solution of a solved hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolutionEntry {
    /// The solution as the solver prints it (spaced, `×` `÷`, fewest
    /// parentheses).
    pub formula: String,
    /// The player's own answer is this solution (left out when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub yours: bool,
}

wire_enum! {
    /// A challenge's result, from the view of the player who took it.
    pub enum ChallengeOutcome {
        /// A lower time than the challenger's.
        Won,
        /// A higher time.
        Lost,
        /// The same time, to the millisecond.
        Tied,
    }
}
