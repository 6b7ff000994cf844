//! How the project's bots (`krypto bots`) pace their answers: a median
//! thinking time by skill and by the hand's band, a jitter around it, and a
//! chance of a wrong first answer. Kept here, with no I/O, so the bots and
//! the tests proving that the fair-play signals never flag them read one
//! table. The table's reasons are in docs/design.md.

use std::ops::RangeInclusive;

use rand::Rng;

use crate::formula;
use crate::room::difficulty_of;
use crate::rules::Rules;
use crate::settings::{DealMode, Difficulty, RoomSettings, Variant};

wire_enum! {
    /// How well a bot plays (`add_bot`'s `skill` on the wire).
    pub enum BotSkill {
        /// Slow, and sometimes wrong.
        Easy,
        /// About as fast as a good player.
        Medium,
        /// Fast and never wrong.
        Hard,
    }
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

/// What a bot answers to a hand, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotAnswer {
    /// Milliseconds after the deal it sends its first answer: the table's
    /// median for the hand with the jitter applied.
    pub after_ms: u64,
    /// The first answer: a formula, or `None` for "no solution".
    pub first: Option<String>,
    /// After a deliberate wrong first answer, the right one it tries once
    /// the lockout is over.
    pub then: Option<String>,
}

/// How a bot of `skill` answers the hand `cards` → `objective` dealt in a
/// room with `settings`, given the hand's distinct `solutions` (from
/// [`crate::solver::solve_all`]): one of them picked at random, after
/// [`think_ms`] with the [`JITTER_PERCENT`] jitter, sometimes a wrong
/// formula first ([`blunder_percent`]). A hand with no solution is claimed
/// only where the room deals unsolvable hands (`deal: any`); otherwise, and
/// when no wrong formula can be made, the bot answers nothing or straight.
pub fn answer<R: Rng + ?Sized>(
    skill: BotSkill,
    settings: &RoomSettings,
    cards: &[i64],
    objective: i64,
    solutions: &[String],
    rng: &mut R,
) -> Option<BotAnswer> {
    let count = u64::try_from(solutions.len()).unwrap_or(u64::MAX);
    let median = think_ms(skill, settings.variant, count);
    let after_ms = median * u64::from(rng.random_range(JITTER_PERCENT)) / 100;
    if solutions.is_empty() {
        return (settings.deal == DealMode::Any).then_some(BotAnswer {
            after_ms,
            first: None,
            then: None,
        });
    }
    let pick = solutions[rng.random_range(0..solutions.len())].clone();
    let blunder = rng.random_range(0..100u32) < blunder_percent(skill);
    let wrong = blunder
        .then(|| wrong_formula(cards, objective, settings.rules))
        .flatten();
    Some(match wrong {
        Some(wrong) => BotAnswer {
            after_ms,
            first: Some(wrong),
            then: Some(pick),
        },
        None => BotAnswer {
            after_ms,
            first: Some(pick),
            then: None,
        },
    })
}

/// A formula using every card that does not make `objective` (a player's
/// slip): the cards added up, else multiplied, else subtracted in turn;
/// `None` when all three happen to be right.
pub fn wrong_formula(cards: &[i64], objective: i64, rules: Rules) -> Option<String> {
    ["+", "*", "-"].into_iter().find_map(|op| {
        let text = cards
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(&format!(" {op} "));
        formula::check(&text, cards, objective, rules)
            .is_err()
            .then_some(text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    const CARDS: [i64; 5] = [1, 2, 3, 4, 5];

    fn solutions() -> Vec<String> {
        ["1 + 2 + 3 + 4 + 5", "(1 + 2) * 5 + 4 - 3 - 1"]
            .map(str::to_owned)
            .to_vec()
    }

    /// A bot of `skill`'s answer to 1 2 3 4 5 → 15 in a default room, from
    /// `seed`.
    fn answer_seeded(skill: BotSkill, seed: u64) -> Option<BotAnswer> {
        let mut rng = StdRng::seed_from_u64(seed);
        answer(
            skill,
            &RoomSettings::default(),
            &CARDS,
            15,
            &solutions(),
            &mut rng,
        )
    }

    #[test]
    fn an_answer_comes_within_the_jitter_of_the_median() {
        let settings = RoomSettings::default();
        let median = think_ms(BotSkill::Medium, settings.variant, 2);
        for seed in 0..50 {
            let a = answer_seeded(BotSkill::Medium, seed)
                .unwrap_or_else(|| panic!("seed {seed}: no answer"));
            assert!(a.after_ms >= median * 70 / 100 && a.after_ms <= median * 130 / 100);
        }
    }

    #[test]
    fn hard_bots_never_blunder_and_easy_ones_sometimes_do_and_then_answer_right() {
        let settings = RoomSettings::default();
        let mut easy_blunders = 0;
        for seed in 0..60 {
            let hard = answer_seeded(BotSkill::Hard, seed);
            assert!(hard.is_some_and(|a| a.then.is_none()));
            let easy = answer_seeded(BotSkill::Easy, seed);
            if let Some(BotAnswer {
                first: Some(wrong),
                then: Some(right),
                ..
            }) = easy
            {
                easy_blunders += 1;
                assert!(formula::check(&wrong, &CARDS, 15, settings.rules).is_err());
                assert!(solutions().contains(&right));
            }
        }
        assert!(easy_blunders > 0, "an easy bot never slipped in 60 hands");
    }

    #[test]
    fn no_solution_is_claimed_only_where_the_room_deals_any_hand() {
        let mut settings = RoomSettings::default();
        let mut rng = StdRng::seed_from_u64(7);
        assert_eq!(
            answer(BotSkill::Hard, &settings, &[1; 5], 100, &[], &mut rng),
            None
        );
        settings.deal = DealMode::Any;
        let claim = answer(BotSkill::Hard, &settings, &[1; 5], 100, &[], &mut rng);
        assert!(claim.is_some_and(|a| a.first.is_none() && a.then.is_none()));
    }

    #[test]
    fn the_wrong_formula_is_wrong_and_uses_every_card() {
        // The sum is right here: the product is offered.
        assert_eq!(
            wrong_formula(&CARDS, 15, Rules::Free).as_deref(),
            Some("1 * 2 * 3 * 4 * 5")
        );
        assert_eq!(
            wrong_formula(&CARDS, 16, Rules::Free).as_deref(),
            Some("1 + 2 + 3 + 4 + 5")
        );
    }
}
