//! Room settings: what a host can configure, the allowed range of each, what
//! a new room starts with, and the presets an editor steps through.
//!
//! The server validates with these ranges, the lobby starts rooms with
//! [`RoomSettings::for_new_room`], and the clients' editors step with
//! [`RoomSettings::step`] and read values with [`SettingsPatch::set`], so a
//! setting's rules are written once. The wire protocol carries these types
//! unchanged (`protocol` re-exports them).

use std::ops::RangeInclusive;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};
use strum::{EnumIter, EnumString, IntoStaticStr, VariantArray};

use crate::rules::Rules;

/// Which game a room plays.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Serialize,
    Deserialize,
    IntoStaticStr,
    EnumString,
    EnumIter,
    VariantArray,
)]
#[strum(ascii_case_insensitive)]
pub enum Variant {
    /// Krypto: five cards from the 56-card deck, the objective is a sixth card.
    #[default]
    #[serde(rename = "krypto")]
    #[strum(serialize = "krypto")]
    Krypto,
    /// The 24 game: four cards from a 52-card deck (four each of 1–13), target 24.
    #[serde(rename = "24")]
    #[strum(serialize = "24")]
    TwentyFour,
}

wire_enum! {
    /// Whether the server only deals hands that have a solution.
    #[derive(Default, VariantArray)]
    pub enum DealMode {
        /// Re-deal until the hand has a solution under the room's rules.
        #[default]
        Solvable,
        /// Deal whatever comes; players may claim "no solution".
        Any,
    }
}

wire_enum! {
    /// How hard the dealt hands should be, by their number of distinct solutions.
    #[derive(Default, VariantArray)]
    pub enum Difficulty {
        /// No preference.
        #[default]
        Any,
        /// Many distinct solutions.
        Easy,
        /// A moderate number of distinct solutions.
        Medium,
        /// Few distinct solutions.
        Hard,
    }
}

wire_names!(Variant, Field);

/// The rule sets a room may play (`positive` is the Countdown game's, for
/// the solver only).
pub const ROOM_RULES: [Rules; 3] = [Rules::Free, Rules::Integer, Rules::International];

/// Rounds in a match.
pub const ROUNDS: RangeInclusive<u32> = 1..=50;
/// Length of a round, in seconds.
pub const ROUND_SECONDS: RangeInclusive<u32> = 10..=600;
/// Lockout after a wrong answer, in seconds.
pub const LOCKOUT_SECONDS: RangeInclusive<u32> = 0..=60;
/// Points a wrong answer costs.
pub const WRONG_PENALTY: RangeInclusive<u32> = 0..=10;
/// Seats for players.
pub const MAX_PLAYERS: RangeInclusive<u32> = 2..=32;
/// Score that ends a match early; more than any match can score above.
pub const TARGET_SCORE: RangeInclusive<i64> = 1..=1000;

/// Everything the host can configure about a room; sent in full in every
/// `room_state`, `rooms` and `match_started`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RoomSettings {
    /// Which game: `krypto` or `24`.
    pub variant: Variant,
    /// Which intermediate results are allowed: free, integer or international.
    pub rules: Rules,
    /// Rounds in a match ([`ROUNDS`]).
    pub rounds: u32,
    /// The match ends early when someone reaches this score ([`TARGET_SCORE`]);
    /// `null` plays all rounds.
    pub target_score: Option<i64>,
    /// Length of a round ([`ROUND_SECONDS`]).
    pub round_seconds: u32,
    /// How long a wrong answer locks its sender out ([`LOCKOUT_SECONDS`]).
    pub lockout_seconds: u32,
    /// Points a wrong answer costs ([`WRONG_PENALTY`]).
    pub wrong_penalty: u32,
    /// Whether only solvable hands are dealt.
    pub deal: DealMode,
    /// Preferred difficulty of the hands.
    pub difficulty: Difficulty,
    /// Seats for players ([`MAX_PLAYERS`]); spectators do not count.
    pub max_players: u32,
    /// Whether the room is listed in the lobby (otherwise: code only).
    pub public: bool,
}

impl Default for RoomSettings {
    fn default() -> Self {
        RoomSettings {
            variant: Variant::Krypto,
            rules: Rules::Free,
            rounds: 10,
            target_score: None,
            round_seconds: 90,
            lockout_seconds: 5,
            wrong_penalty: 0,
            deal: DealMode::Solvable,
            difficulty: Difficulty::Any,
            max_players: 8,
            public: false,
        }
    }
}

/// A setting outside its allowed range, or a value that is none of the
/// setting's, named so the host can fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid setting {field}: {reason}")]
pub struct SettingsError {
    /// The setting's wire name ([`Field::as_str`]).
    pub field: &'static str,
    /// What is allowed.
    pub reason: String,
}

impl SettingsError {
    fn new(field: Field, reason: impl Into<String>) -> Self {
        SettingsError {
            field: field.as_str(),
            reason: reason.into(),
        }
    }
}

fn check_range<T>(field: Field, value: T, range: &RangeInclusive<T>) -> Result<(), SettingsError>
where
    T: PartialOrd + std::fmt::Display,
{
    if range.contains(&value) {
        Ok(())
    } else {
        Err(SettingsError::new(
            field,
            format!(
                "{value} is not between {} and {}",
                range.start(),
                range.end()
            ),
        ))
    }
}

impl RoomSettings {
    /// Highest `target_score` accepted.
    pub const MAX_TARGET_SCORE: i64 = *TARGET_SCORE.end();

    /// The settings a new room starts with: the defaults, then `patch`, then
    /// the `public` shorthand of `create_room` (which wins over the patch).
    pub fn for_new_room(
        patch: Option<&SettingsPatch>,
        public: Option<bool>,
    ) -> Result<RoomSettings, SettingsError> {
        let mut patch = patch.cloned().unwrap_or_default();
        if public.is_some() {
            patch.public = public;
        }
        RoomSettings::default().patched(&patch)
    }

    /// Checks every setting against its allowed range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        check_range(Field::Rounds, self.rounds, &ROUNDS)?;
        check_range(Field::RoundSeconds, self.round_seconds, &ROUND_SECONDS)?;
        check_range(
            Field::LockoutSeconds,
            self.lockout_seconds,
            &LOCKOUT_SECONDS,
        )?;
        check_range(Field::WrongPenalty, self.wrong_penalty, &WRONG_PENALTY)?;
        check_range(Field::MaxPlayers, self.max_players, &MAX_PLAYERS)?;
        if let Some(t) = self.target_score {
            if !TARGET_SCORE.contains(&t) {
                return Err(SettingsError::new(
                    Field::TargetScore,
                    format!(
                        "{t} is not between {} and {} (or null for none)",
                        TARGET_SCORE.start(),
                        TARGET_SCORE.end()
                    ),
                ));
            }
        }
        if !ROOM_RULES.contains(&self.rules) {
            return Err(SettingsError::new(
                Field::Rules,
                format!(
                    "{} is not a room rule set (free, integer or international)",
                    self.rules
                ),
            ));
        }
        Ok(())
    }

    /// The settings with `patch` applied, if the result is valid; `self` is
    /// left unchanged either way.
    pub fn patched(&self, patch: &SettingsPatch) -> Result<RoomSettings, SettingsError> {
        fn apply<T: Clone>(to: &mut T, from: &Option<T>) {
            if let Some(v) = from {
                *to = v.clone();
            }
        }
        let mut s = self.clone();
        apply(&mut s.variant, &patch.variant);
        apply(&mut s.rules, &patch.rules);
        apply(&mut s.rounds, &patch.rounds);
        apply(&mut s.target_score, &patch.target_score);
        apply(&mut s.round_seconds, &patch.round_seconds);
        apply(&mut s.lockout_seconds, &patch.lockout_seconds);
        apply(&mut s.wrong_penalty, &patch.wrong_penalty);
        apply(&mut s.deal, &patch.deal);
        apply(&mut s.difficulty, &patch.difficulty);
        apply(&mut s.max_players, &patch.max_players);
        apply(&mut s.public, &patch.public);
        s.validate()?;
        Ok(s)
    }

    /// The patch that moves `field` one step in `direction`: to the next
    /// preset for rounds, target score and times (a value set between
    /// presets steps to its neighbour), by one for the penalty and seats. At
    /// either end a number stays put; choices wrap around; `public` toggles.
    pub fn step(&self, field: Field, direction: Step) -> SettingsPatch {
        let forward = direction == Step::Forward;
        let mut p = SettingsPatch::default();
        match field {
            Field::Variant => p.variant = Some(cycle(Variant::VARIANTS, self.variant, forward)),
            Field::Rules => p.rules = Some(cycle(&ROOM_RULES, self.rules, forward)),
            Field::Rounds => p.rounds = Some(step_in(ROUNDS_PRESETS, self.rounds, forward)),
            Field::TargetScore => {
                p.target_score = Some(match (self.target_score, forward) {
                    (None, true) => TARGET_SCORE_PRESETS.first().copied(),
                    (None, false) => None,
                    (Some(t), true) => Some(step_in(TARGET_SCORE_PRESETS, t, true)),
                    // Below the lowest preset comes "no target".
                    (Some(t), false) => TARGET_SCORE_PRESETS.iter().rev().copied().find(|x| *x < t),
                })
            }
            Field::RoundSeconds => {
                p.round_seconds = Some(step_in(ROUND_SECONDS_PRESETS, self.round_seconds, forward))
            }
            Field::LockoutSeconds => {
                p.lockout_seconds = Some(step_in(
                    LOCKOUT_SECONDS_PRESETS,
                    self.lockout_seconds,
                    forward,
                ))
            }
            Field::WrongPenalty => {
                p.wrong_penalty = Some(step_by_one(&WRONG_PENALTY, self.wrong_penalty, forward))
            }
            Field::Deal => p.deal = Some(cycle(DealMode::VARIANTS, self.deal, forward)),
            Field::Difficulty => {
                p.difficulty = Some(cycle(Difficulty::VARIANTS, self.difficulty, forward))
            }
            Field::MaxPlayers => {
                p.max_players = Some(step_by_one(&MAX_PLAYERS, self.max_players, forward))
            }
            Field::Public => p.public = Some(!self.public),
        }
        p
    }

    /// A setting's value as an editor shows it ("90 s", "none", "yes").
    pub fn show(&self, field: Field) -> String {
        match field {
            Field::Variant => self.variant.as_str().to_owned(),
            Field::Rules => self.rules.name().to_owned(),
            Field::Rounds => self.rounds.to_string(),
            Field::TargetScore => self
                .target_score
                .map_or_else(|| "none".to_owned(), |t| t.to_string()),
            Field::RoundSeconds => format!("{} s", self.round_seconds),
            Field::LockoutSeconds => format!("{} s", self.lockout_seconds),
            Field::WrongPenalty => self.wrong_penalty.to_string(),
            Field::Deal => self.deal.as_str().to_owned(),
            Field::Difficulty => self.difficulty.as_str().to_owned(),
            Field::MaxPlayers => self.max_players.to_string(),
            Field::Public => if self.public { "yes" } else { "no" }.to_owned(),
        }
    }
}

/// Presets for `rounds`.
const ROUNDS_PRESETS: &[u32] = &[1, 3, 5, 10, 15, 20, 30, 50];
/// Presets for `target_score`, above "none".
const TARGET_SCORE_PRESETS: &[i64] = &[5, 10, 15, 20, 30, 50];
/// Presets for `round_seconds`.
const ROUND_SECONDS_PRESETS: &[u32] = &[10, 20, 30, 45, 60, 90, 120, 180, 300, 600];
/// Presets for `lockout_seconds`.
const LOCKOUT_SECONDS_PRESETS: &[u32] = &[0, 2, 3, 5, 10, 15, 30, 60];

/// The next preset past `v` in the direction, or `v` at the end (so a value
/// set by `/set` between presets steps to its neighbour).
fn step_in<T: PartialOrd + Copy>(presets: &[T], v: T, forward: bool) -> T {
    if forward {
        presets.iter().copied().find(|p| *p > v).unwrap_or(v)
    } else {
        presets.iter().rev().copied().find(|p| *p < v).unwrap_or(v)
    }
}

fn step_by_one(range: &RangeInclusive<u32>, v: u32, forward: bool) -> u32 {
    let next = if forward {
        v.saturating_add(1)
    } else {
        v.saturating_sub(1)
    };
    next.clamp(*range.start(), *range.end())
}

/// The choice after (or before) `v`, wrapping around.
fn cycle<T: PartialEq + Copy>(all: &[T], v: T, forward: bool) -> T {
    let n = all.len();
    let i = all.iter().position(|x| *x == v).unwrap_or(0);
    let j = if forward {
        (i + 1) % n
    } else {
        (i + n - 1) % n
    };
    all.get(j).copied().unwrap_or(v)
}

/// One setting, in the order an editor lists them; its string is the wire
/// name (`round_seconds`), which is also the key of `/set key=value`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, EnumString, EnumIter, VariantArray,
)]
#[strum(serialize_all = "snake_case", ascii_case_insensitive)]
pub enum Field {
    /// `variant`: krypto or 24.
    Variant,
    /// `rules`: free, integer or international.
    Rules,
    /// `rounds`.
    Rounds,
    /// `target_score`: a number or none.
    TargetScore,
    /// `round_seconds`.
    RoundSeconds,
    /// `lockout_seconds`.
    LockoutSeconds,
    /// `wrong_penalty`.
    WrongPenalty,
    /// `deal`: solvable or any.
    Deal,
    /// `difficulty`: any, easy, medium or hard.
    Difficulty,
    /// `max_players`.
    MaxPlayers,
    /// `public`: yes or no.
    Public,
}

impl Field {
    /// Every setting, in the editor's order.
    pub const ALL: &'static [Field] = Field::VARIANTS;
}

/// Which way an editor steps a setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// To the previous preset or choice.
    Back,
    /// To the next preset or choice.
    Forward,
}

/// Any subset of the room settings, as `create_room` and `update_settings`
/// carry them; absent fields keep their current value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SettingsPatch {
    /// New variant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
    /// New rule set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<Rules>,
    /// New number of rounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// Absent: unchanged; `null`: no target; a number: the new target.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_or_null"
    )]
    pub target_score: Option<Option<i64>>,
    /// New round length in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round_seconds: Option<u32>,
    /// New lockout after a wrong answer, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lockout_seconds: Option<u32>,
    /// New penalty for a wrong answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrong_penalty: Option<u32>,
    /// New deal mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deal: Option<DealMode>,
    /// New difficulty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<Difficulty>,
    /// New number of seats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_players: Option<u32>,
    /// New visibility.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public: Option<bool>,
}

impl SettingsPatch {
    /// Sets `field` from a person's text, as `/set field=value` gives it:
    /// a number, a choice's name (any case), `none` for no target score, and
    /// yes/no, true/false or on/off for `public`. Ranges are checked later,
    /// by [`RoomSettings::patched`], against the room's other settings.
    pub fn set(&mut self, field: Field, value: &str) -> Result<(), SettingsError> {
        let value = value.trim();
        let bad = |allowed: &str| SettingsError::new(field, format!("{value:?} is not {allowed}"));
        let number = || value.parse::<u32>().map_err(|_| bad("a whole number"));
        match field {
            Field::Variant => {
                self.variant = Some(Variant::from_str(value).map_err(|_| bad("krypto or 24"))?)
            }
            Field::Rules => {
                let rules = Rules::from_str(value)
                    .ok()
                    .filter(|r| ROOM_RULES.contains(r))
                    .ok_or_else(|| bad("free, integer or international"))?;
                self.rules = Some(rules);
            }
            Field::Rounds => self.rounds = Some(number()?),
            Field::TargetScore => {
                self.target_score = Some(match value.to_ascii_lowercase().as_str() {
                    "none" | "null" | "off" | "no" => None,
                    _ => Some(
                        value
                            .parse::<i64>()
                            .map_err(|_| bad("a whole number or none"))?,
                    ),
                })
            }
            Field::RoundSeconds => self.round_seconds = Some(number()?),
            Field::LockoutSeconds => self.lockout_seconds = Some(number()?),
            Field::WrongPenalty => self.wrong_penalty = Some(number()?),
            Field::Deal => {
                self.deal = Some(DealMode::from_str(value).map_err(|_| bad("solvable or any"))?)
            }
            Field::Difficulty => {
                self.difficulty = Some(
                    Difficulty::from_str(value).map_err(|_| bad("any, easy, medium or hard"))?,
                )
            }
            Field::MaxPlayers => self.max_players = Some(number()?),
            Field::Public => {
                self.public = Some(match value.to_ascii_lowercase().as_str() {
                    "yes" | "true" | "on" => true,
                    "no" | "false" | "off" => false,
                    _ => return Err(bad("yes or no")),
                })
            }
        }
        Ok(())
    }
}

/// Tells a present `null` (`Some(None)`) from an absent field (`None`, via
/// `#[serde(default)]`), so a patch can clear `target_score`.
fn present_or_null<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stepped(s: &RoomSettings, field: Field, direction: Step) -> RoomSettings {
        match s.patched(&s.step(field, direction)) {
            Ok(next) => next,
            Err(e) => panic!("stepping {field:?} {direction:?} from {s:?}: {e}"),
        }
    }

    #[test]
    fn every_step_from_every_preset_stays_valid() {
        for &field in Field::ALL {
            for direction in [Step::Back, Step::Forward] {
                let mut s = RoomSettings::default();
                // Walk well past either end: a walk never leaves the ranges.
                for _ in 0..40 {
                    s = stepped(&s, field, direction);
                }
            }
        }
    }

    #[test]
    fn numbers_step_through_presets_and_stop_at_the_ends() {
        let s = RoomSettings::default();
        assert_eq!(s.step(Field::Rounds, Step::Forward).rounds, Some(15));
        assert_eq!(s.step(Field::Rounds, Step::Back).rounds, Some(5));
        assert_eq!(
            s.step(Field::RoundSeconds, Step::Forward).round_seconds,
            Some(120)
        );
        let top = RoomSettings {
            rounds: 50,
            ..RoomSettings::default()
        };
        assert_eq!(top.step(Field::Rounds, Step::Forward).rounds, Some(50));
        // A value set between presets steps to its neighbours.
        let odd = RoomSettings {
            rounds: 7,
            ..RoomSettings::default()
        };
        assert_eq!(odd.step(Field::Rounds, Step::Forward).rounds, Some(10));
        assert_eq!(odd.step(Field::Rounds, Step::Back).rounds, Some(5));
    }

    #[test]
    fn target_score_steps_between_none_and_its_presets() {
        let s = RoomSettings::default();
        assert_eq!(
            s.step(Field::TargetScore, Step::Forward).target_score,
            Some(Some(5))
        );
        assert_eq!(
            s.step(Field::TargetScore, Step::Back).target_score,
            Some(None)
        );
        let five = stepped(&s, Field::TargetScore, Step::Forward);
        assert_eq!(
            five.step(Field::TargetScore, Step::Back).target_score,
            Some(None)
        );
        assert_eq!(five.show(Field::TargetScore), "5");
        assert_eq!(s.show(Field::TargetScore), "none");
    }

    #[test]
    fn choices_wrap_around() {
        let s = RoomSettings::default();
        assert_eq!(
            s.step(Field::Variant, Step::Forward).variant,
            Some(Variant::TwentyFour)
        );
        assert_eq!(
            s.step(Field::Variant, Step::Back).variant,
            Some(Variant::TwentyFour)
        );
        assert_eq!(
            s.step(Field::Rules, Step::Back).rules,
            Some(Rules::International)
        );
        assert_eq!(
            s.step(Field::Difficulty, Step::Forward).difficulty,
            Some(Difficulty::Easy)
        );
        assert_eq!(s.step(Field::Public, Step::Back).public, Some(true));
        let mut walked = s.clone();
        for _ in 0..ROOM_RULES.len() {
            walked = stepped(&walked, Field::Rules, Step::Forward);
        }
        assert_eq!(walked.rules, s.rules);
    }

    #[test]
    fn a_new_room_takes_the_patch_and_the_public_shorthand() {
        assert_eq!(
            RoomSettings::for_new_room(None, None),
            Ok(RoomSettings::default())
        );
        let patch = SettingsPatch {
            rounds: Some(3),
            public: Some(false),
            ..SettingsPatch::default()
        };
        let s = RoomSettings::for_new_room(Some(&patch), Some(true)).unwrap_or_default();
        assert_eq!((s.rounds, s.public), (3, true));
        let bad = SettingsPatch {
            rounds: Some(51),
            ..SettingsPatch::default()
        };
        let err = RoomSettings::for_new_room(Some(&bad), None).err();
        assert_eq!(err.map(|e| e.field), Some("rounds"));
    }

    #[test]
    fn set_reads_what_people_type() {
        let mut p = SettingsPatch::default();
        for (field, value) in [
            (Field::Variant, "24"),
            (Field::Rules, "Integer"),
            (Field::Rounds, "5"),
            (Field::TargetScore, "none"),
            (Field::Deal, "ANY"),
            (Field::Difficulty, "hard"),
            (Field::Public, "yes"),
        ] {
            assert_eq!(p.set(field, value), Ok(()), "{field:?}={value}");
        }
        assert_eq!(p.variant, Some(Variant::TwentyFour));
        assert_eq!(p.rules, Some(Rules::Integer));
        assert_eq!(p.target_score, Some(None));
        assert_eq!(p.deal, Some(DealMode::Any));
        assert_eq!(p.public, Some(true));
        for (field, value) in [
            (Field::Rules, "positive"),
            (Field::Rounds, "-1"),
            (Field::Variant, "chess"),
            (Field::Public, "maybe"),
            (Field::TargetScore, "lots"),
        ] {
            let err = p.set(field, value).err();
            assert_eq!(err.map(|e| e.field), Some(field.as_str()), "{value}");
        }
    }

    #[test]
    fn field_names_are_the_wire_keys() {
        let json = serde_json::to_value(RoomSettings::default()).unwrap_or_default();
        let keys: Vec<&str> = json
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let mut names: Vec<&str> = Field::ALL.iter().map(|f| f.as_str()).collect();
        let mut keys = keys;
        keys.sort_unstable();
        names.sort_unstable();
        assert_eq!(names, keys);
        assert_eq!("round_seconds".parse::<Field>(), Ok(Field::RoundSeconds));
    }
}
