//! A finished match told round by round, as `GET /api/matches/{id}`
//! serves it and `krypto match ID` and the `/m/ID` page read it.
//!
//! Every list is bounded whatever was played: at most
//! [`MAX_RECAP_ATTEMPTS`] attempts and [`MAX_RECAP_SOLUTIONS`] solutions
//! per round are listed, with the totals beside them.

use serde::{Deserialize, Serialize};

use crate::settings::RoomSettings;

/// Most attempts listed per round (the first ones, in the order they were
/// judged); `attempts_total` counts them all.
pub const MAX_RECAP_ATTEMPTS: usize = 200;

/// Most distinct solutions listed per round: the first ones in the order
/// `krypto solve --all` prints them (shortest first), plus the winner's
/// when it comes later; `solutions_total` counts them all.
pub const MAX_RECAP_SOLUTIONS: usize = 60;

/// A match, round by round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchRecap {
    /// The match's id (a UUID), as `match_over` carries it.
    #[serde(rename = "match")]
    pub match_id: String,
    /// The room's code at the time.
    pub room: String,
    /// `playing`, `finished` or `abandoned`.
    pub status: String,
    /// When it started (UTC ms).
    pub started_at_ms: i64,
    /// When it ended (UTC ms), once it did.
    pub finished_at_ms: Option<i64>,
    /// The settings it was played with.
    pub settings: RoomSettings,
    /// The players, best first once the match is over (seating order
    /// before).
    pub standings: Vec<RecapStanding>,
    /// The rounds dealt, in order.
    pub rounds: Vec<RoundRecap>,
}

/// A player's place in a recapped match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecapStanding {
    /// Their name.
    pub name: String,
    /// Final score (`null` before the end).
    pub score: Option<i64>,
    /// Final rank, ties sharing one (`null` before the end).
    pub rank: Option<u32>,
}

/// One round of a recapped match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundRecap {
    /// 1-based.
    pub number: u32,
    /// The value to make.
    pub objective: i64,
    /// The hand.
    pub cards: Vec<i64>,
    /// Who answered right first; `null` when nobody did.
    pub winner: Option<String>,
    /// The winner's time from the deal; `null` when nobody won.
    pub elapsed_ms: Option<u64>,
    /// The round was won by a right "no solution" claim.
    #[serde(default)]
    pub no_solution: bool,
    /// The answers judged on the hand, in order (at most
    /// [`MAX_RECAP_ATTEMPTS`]): answers refused unread (locked out, too
    /// late) are left out.
    pub attempts: Vec<RecapAttempt>,
    /// How many such answers there were (those in `pruned` included).
    pub attempts_total: u64,
    /// Wrong answers past the server's retention, no longer kept one by
    /// one: how many each player made (at most one entry per player).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pruned: Vec<PrunedMisses>,
    /// The distinct solutions of the hand under the match's rules, as
    /// `krypto solve --all` lists them (at most [`MAX_RECAP_SOLUTIONS`]).
    pub solutions: Vec<String>,
    /// How many distinct solutions the hand has.
    pub solutions_total: u64,
    /// Which of `solutions` to point out.
    pub marks: SolutionMarks,
}

/// One judged answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecapAttempt {
    /// Who answered.
    pub who: String,
    /// When, from the deal.
    pub elapsed_ms: u64,
    /// Whether it was right.
    pub right: bool,
    /// A right formula as the checker prints it (a wrong one's text is
    /// never shown to others; `null` for a "no solution" claim).
    pub formula: Option<String>,
    /// Why a wrong answer was refused (`wrong_value`, `has_solution`, …).
    pub verdict: Option<String>,
}

/// A player's wrong answers in a round, counted once their details were
/// pruned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrunedMisses {
    /// Who answered.
    pub who: String,
    /// How many judged wrong answers.
    pub wrong: u64,
}

/// Indexes into a round's `solutions`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SolutionMarks {
    /// The solution the winner's formula is (the same as a rational
    /// function of the cards).
    pub winner: Option<u32>,
    /// The shortest: the first listed.
    pub shortest: Option<u32>,
    /// A listed solution nobody answered right.
    pub unfound: Option<u32>,
}
