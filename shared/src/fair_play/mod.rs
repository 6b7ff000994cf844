//! Fair play: signals that a player's right answers come from a program,
//! from what only the server knows (the time from the deal to each right
//! answer on its clock, the hand's difficulty, the answer's length). Signals
//! only: what a flag does (boards, review, bans) is the server's.
//!
//! - [`answer`]: the record of one right answer ([`Answer`]) and the token
//!   count of a formula.
//! - [`settings`]: the thresholds ([`FairPlaySettings`]), their defaults and
//!   their validation.
//! - [`fast_human`]: a fast honest person's answer times, the reference
//!   play no signal may flag.
//! - [`signals`]: the three signals and their evidence: answers under the
//!   human floor, times too regular, hard hands solved fast too often.
//! - here: [`assess`], which runs them all on the answers a reviewer has not
//!   yet cleared ([`Clearance`]) and returns a [`Flag`].
//!
//! The reasons and measurements behind the thresholds are in
//! docs/design.md ("Fair play: the signals").

pub mod answer;
pub mod fast_human;
pub mod settings;
pub mod signals;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use answer::{count_tokens, Answer};
pub use settings::{
    FairPlaySettings, FloorSettings, HardHandSettings, RegularitySettings, ThresholdError,
};
pub use signals::{
    cv_permille, hard_hands, too_regular, under_floor, Exhibit, FloorEvidence, HardEvidence,
    RegularityEvidence,
};

/// Why a player is flagged: one signal and its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "signal", rename_all = "snake_case")]
pub enum Reason {
    /// Answers faster than a person can read the hand and enter them.
    UnderFloor(FloorEvidence),
    /// Answer times too even to be a person's.
    TooRegular(RegularityEvidence),
    /// The hardest hands solved fast more often than any person does.
    HardHands(HardEvidence),
}

impl Reason {
    /// The evidence's answers.
    pub fn exhibits(&self) -> &[Exhibit] {
        match self {
            Reason::UnderFloor(e) => &e.answers,
            Reason::TooRegular(e) => &e.answers,
            Reason::HardHands(e) => &e.answers,
        }
    }

    /// The signal's name, as in the serde tag.
    pub fn signal(&self) -> &'static str {
        match self {
            Reason::UnderFloor(_) => "under_floor",
            Reason::TooRegular(_) => "too_regular",
            Reason::HardHands(_) => "hard_hands",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::UnderFloor(e) => e.fmt(f),
            Reason::TooRegular(e) => e.fmt(f),
            Reason::HardHands(e) => e.fmt(f),
        }
    }
}

/// A player's answers look like a program's: every signal that fired, with
/// its evidence. A flag is a reason for review, never a verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flag {
    /// The signals that fired, in the order floor, regularity, hard hands;
    /// never empty.
    pub reasons: Vec<Reason>,
}

impl Flag {
    /// The latest answer any of the evidence shows, in UTC milliseconds.
    pub fn through_ms(&self) -> u64 {
        self.reasons
            .iter()
            .flat_map(Reason::exhibits)
            .map(|e| e.answer.answered_at_ms)
            .max()
            .unwrap_or(0)
    }

    /// What clearing this flag clears: every answer up to the latest one
    /// its evidence shows, so that only answers given after it can flag the
    /// player again.
    pub fn clearance(&self) -> Clearance {
        Clearance {
            through_ms: Some(self.through_ms()),
        }
    }
}

/// Answers a reviewer has cleared: those given at or before `through_ms`
/// no longer count for any signal, so a cleared player is not flagged again
/// for the same evidence, and a window of evidence never mixes cleared
/// answers with new ones. Answers given after the evidence but before the
/// reviewer's decision still count: the reviewer has not seen them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clearance {
    /// The `answered_at_ms` of the last cleared answer; `None`: nothing
    /// cleared.
    pub through_ms: Option<u64>,
}

impl Clearance {
    /// Nothing cleared.
    pub const NONE: Clearance = Clearance { through_ms: None };

    /// Whether `answer` still counts: given after everything cleared.
    pub fn admits(&self, answer: &Answer) -> bool {
        self.through_ms
            .is_none_or(|through| answer.answered_at_ms > through)
    }

    /// Both clearances together: clearing is never undone, so the later one.
    pub fn and(self, other: Clearance) -> Clearance {
        Clearance {
            through_ms: self.through_ms.max(other.through_ms),
        }
    }
}

/// Runs every signal over `answers` (a player's right answers in counted
/// play, in any order; they are ordered by `answered_at_ms`) that `cleared`
/// still admits, and flags the player if any fired.
///
/// Pass at least the latest `max(floor.window, regularity.window)` answers
/// and the latest `hard_hands.window` answers to hard hands; passing more
/// only lets older evidence count. Call it after each new right answer.
pub fn assess(answers: &[Answer], settings: &FairPlaySettings, cleared: Clearance) -> Option<Flag> {
    let mut counted: Vec<Answer> = answers
        .iter()
        .filter(|a| cleared.admits(a))
        .cloned()
        .collect();
    counted.sort_by_key(|a| a.answered_at_ms);
    let floor = &settings.floor;
    let reasons: Vec<Reason> = [
        under_floor(&counted, floor).map(Reason::UnderFloor),
        too_regular(&counted, &settings.regularity, floor).map(Reason::TooRegular),
        hard_hands(&counted, &settings.hard_hands, floor).map(Reason::HardHands),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!reasons.is_empty()).then_some(Flag { reasons })
}
