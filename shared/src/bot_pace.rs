//! How the project's bots (`krypto bots`) pace their answers: a median
//! thinking time by skill and by the hand's band, a jitter around it, and a
//! chance of a wrong first answer. Kept here, with no I/O, so the bots and
//! the tests proving that the fair-play signals never flag them read one
//! table. The table's reasons are in docs/design.md.

use std::ops::RangeInclusive;

use crate::room::difficulty_of;
use crate::settings::{Difficulty, Variant};

/// How well a bot plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BotSkill {
    /// Slow, and sometimes wrong.
    Easy,
    /// About as fast as a good player.
    Medium,
    /// Fast and never wrong.
    Hard,
}

impl BotSkill {
    /// Every skill, weakest first.
    pub const ALL: [BotSkill; 3] = [BotSkill::Easy, BotSkill::Medium, BotSkill::Hard];

    fn row(self) -> usize {
        match self {
            BotSkill::Easy => 0,
            BotSkill::Medium => 1,
            BotSkill::Hard => 2,
        }
    }
}

/// The median thinking time, in seconds, of a bot of each skill (rows:
/// easy, medium, hard) on a hand of each difficulty band (columns: easy,
/// medium, hard hands; see [`difficulty_of`]). A medium bot takes about as
/// long as a casual player on a typical hand (35 s), an easy bot is beaten
/// by most people, a hard bot by quick ones.
pub const THINK_SECONDS: [[u64; 3]; 3] = [[40, 60, 80], [22, 35, 50], [9, 14, 20]];

/// People are not clocks: a bot's time is its median times a percentage
/// drawn uniformly from this range.
pub const JITTER_PERCENT: RangeInclusive<u32> = 70..=130;

/// Being sure a hand has no solution takes longer than the hardest hand,
/// in tenths of the hardest hand's time.
const NO_SOLUTION_FACTOR_TENTHS: u64 = 15;

/// The column of [`THINK_SECONDS`] for a hand of `band`.
pub fn band_column(band: Difficulty) -> usize {
    match band {
        Difficulty::Easy | Difficulty::Any => 0,
        Difficulty::Medium => 1,
        Difficulty::Hard => 2,
    }
}

/// How long, in milliseconds, a bot of `skill` thinks (the median, before
/// jitter and pace) before answering a `variant` hand with `solutions`
/// distinct solutions: the fewer ways there are, the longer it takes, as
/// for people.
pub fn think_ms(skill: BotSkill, variant: Variant, solutions: u64) -> u64 {
    let row = THINK_SECONDS[skill.row()];
    let hardest = row[2] * 1000;
    if solutions == 0 {
        return hardest * NO_SOLUTION_FACTOR_TENTHS / 10;
    }
    row[band_column(difficulty_of(variant, solutions))] * 1000
}

/// The chance (in percent) that a bot of `skill` first answers wrong.
pub fn blunder_percent(skill: BotSkill) -> u32 {
    match skill {
        BotSkill::Easy => 30,
        BotSkill::Medium => 5,
        BotSkill::Hard => 0,
    }
}
