//! Room settings: what a host can configure, the allowed values of each,
//! what a new room starts with, and the presets an editor steps through.
//!
//! Each setting is declared once, in the [`settings!`] table below: its name,
//! type, default and values ([`values`]). From that line come the
//! [`RoomSettings`] and [`SettingsPatch`] structs (and so their wire form),
//! the [`Field`] list an editor walks, validation, stepping, showing,
//! reading a person's text, what clients may offer ([`Field::allowed`],
//! sent to the browser) and the table in `docs/protocol.md`
//! ([`docs_table`], checked by a test). The wire protocol carries these
//! types unchanged (`protocol` re-exports them).

mod values;

use std::ops::RangeInclusive;

use serde::{Deserialize, Deserializer, Serialize};
use strum::{EnumIter, EnumString, IntoStaticStr, VariantArray};

use crate::rules::Rules;
pub use values::Allowed;
use values::{Choices, Number, NumberOrNone, Toggle, Values};

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

wire_enum! {
    /// Who scores in a round.
    #[derive(Default, VariantArray)]
    pub enum Scoring {
        /// The first right answer wins the round (1 point) and ends it.
        #[default]
        First,
        /// Every right answer within the time scores by its order (3, 2, 1,
        /// then 1 each); the round goes on until every seated player has
        /// solved it or the time runs out; ties in the standings are broken
        /// by the total time of right answers.
        Everyone,
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

/// Writes the settings' types and functions from one table: each line
/// `name / Field: type = default, values;` after the setting's doc comment
/// (the comment also becomes its row in `docs/protocol.md`).
macro_rules! settings {
    ($(
        $(#[doc = $doc:literal])+
        $name:ident / $field:ident: $ty:ty = $default:expr, $values:expr;
    )+) => {
        /// Everything the host can configure about a room; sent in full in
        /// every `room_state`, `rooms` and `match_started`.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(default)]
        pub struct RoomSettings {
            $( $(#[doc = $doc])+ pub $name: $ty, )+
        }

        impl Default for RoomSettings {
            fn default() -> Self {
                RoomSettings { $( $name: $default, )+ }
            }
        }

        /// Any subset of the room settings, as `create_room` and
        /// `update_settings` carry them; absent fields keep their current
        /// value (and for `target_score`, `null` means no target).
        #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(default)]
        pub struct SettingsPatch {
            $(
                #[doc = concat!("The new `", stringify!($name), "`, if it changes.")]
                #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "present")]
                pub $name: Option<$ty>,
            )+
        }

        /// One setting, in the order an editor lists them; its string is the
        /// wire name (`round_seconds`), which is also the key of
        /// `/set key=value`.
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, IntoStaticStr, EnumString, EnumIter,
            VariantArray,
        )]
        #[strum(serialize_all = "snake_case", ascii_case_insensitive)]
        pub enum Field {
            $( #[doc = concat!("`", stringify!($name), "`.")] $field, )+
        }

        impl RoomSettings {
            /// Checks every setting against its allowed values.
            pub fn validate(&self) -> Result<(), SettingsError> {
                $(
                    $values
                        .check(&self.$name)
                        .map_err(|reason| SettingsError::new(Field::$field, reason))?;
                )+
                Ok(())
            }

            /// The settings with `patch` applied, if the result is valid;
            /// `self` is left unchanged either way.
            pub fn patched(&self, patch: &SettingsPatch) -> Result<RoomSettings, SettingsError> {
                let mut s = self.clone();
                $( if let Some(v) = &patch.$name { s.$name = v.clone(); } )+
                s.validate()?;
                Ok(s)
            }

            /// The patch that moves `field` one step in `direction`: to the
            /// next preset for rounds, target score and times (a value set
            /// between presets steps to its neighbour), by one for the
            /// penalty and seats. At either end a number stays put; choices
            /// wrap around; `public` toggles.
            pub fn step(&self, field: Field, direction: Step) -> SettingsPatch {
                let forward = direction == Step::Forward;
                let mut p = SettingsPatch::default();
                match field {
                    $( Field::$field => p.$name = Some($values.step(&self.$name, forward)), )+
                }
                p
            }

            /// A setting's value as an editor shows it ("90 s", "none", "yes").
            pub fn show(&self, field: Field) -> String {
                match field {
                    $( Field::$field => $values.show(&self.$name), )+
                }
            }
        }

        impl SettingsPatch {
            /// Sets `field` from a person's text, as `/set field=value` gives
            /// it: a number, a choice's name (any case), `none` for no target
            /// score, and yes/no, true/false or on/off for `public`. Ranges
            /// are checked later, by [`RoomSettings::patched`], against the
            /// room's other settings.
            pub fn set(&mut self, field: Field, value: &str) -> Result<(), SettingsError> {
                let value = value.trim();
                let bad = |reason| SettingsError::new(field, reason);
                match field {
                    $( Field::$field => self.$name = Some($values.parse(value).map_err(bad)?), )+
                }
                Ok(())
            }
        }

        impl Field {
            /// What a client may offer for this setting.
            pub fn allowed(self) -> Allowed {
                match self {
                    $( Field::$field => $values.allowed(), )+
                }
            }

            /// What the setting is, in words (its doc comment).
            pub fn meaning(self) -> &'static str {
                match self {
                    $( Field::$field => concat!($($doc),+), )+
                }
            }
        }
    };
}

settings! {
    /// Which game: `krypto` (5 cards from the 56-card deck, objective 1–25)
    /// or `24` (4 cards 1–13 from a 52-card deck, objective 24).
    variant / Variant: Variant = Variant::Krypto, Choices(Variant::VARIANTS);
    /// Which intermediate results are allowed: `free` (any rational),
    /// `integer` (whole numbers) or `international` (non-negative whole
    /// numbers).
    rules / Rules: Rules = Rules::Free, Choices(&ROOM_RULES);
    /// Rounds in a match.
    rounds / Rounds: u32 = 10, Number { range: ROUNDS, presets: &[1, 3, 5, 10, 15, 20, 30, 50], unit: "" };
    /// The match ends early when someone reaches this score; `null` plays
    /// all rounds.
    target_score / TargetScore: Option<i64> = None,
        NumberOrNone { range: TARGET_SCORE, presets: &[5, 10, 15, 20, 30, 50] };
    /// Length of a round, in seconds.
    round_seconds / RoundSeconds: u32 = 90,
        Number { range: ROUND_SECONDS, presets: &[10, 20, 30, 45, 60, 90, 120, 180, 300, 600], unit: " s" };
    /// How long a wrong answer locks its sender out, in seconds.
    lockout_seconds / LockoutSeconds: u32 = 5,
        Number { range: LOCKOUT_SECONDS, presets: &[0, 2, 3, 5, 10, 15, 30, 60], unit: " s" };
    /// Points a wrong answer costs.
    wrong_penalty / WrongPenalty: u32 = 0, Number { range: WRONG_PENALTY, presets: &[], unit: "" };
    /// Whether only solvable hands are dealt: `solvable` (the server re-deals
    /// hands without a solution) or `any` (claims of "no solution" allowed).
    deal / Deal: DealMode = DealMode::Solvable, Choices(DealMode::VARIANTS);
    /// Preferred difficulty of the hands, by their number of distinct
    /// solutions (see below).
    difficulty / Difficulty: Difficulty = Difficulty::Any, Choices(Difficulty::VARIANTS);
    /// Seats for players; spectators do not count.
    max_players / MaxPlayers: u32 = 8, Number { range: MAX_PLAYERS, presets: &[], unit: "" };
    /// Whether the room is listed by `list_rooms` (otherwise: code only).
    public / Public: bool = false, Toggle;
    /// Who scores: `first` (the first right answer wins the round) or
    /// `everyone` (every right answer within the time scores 3, 2, 1, then
    /// 1 each by its order; ties broken by total time of right answers).
    scoring / Scoring: Scoring = Scoring::First, Choices(Scoring::VARIANTS);
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
    fn new(field: Field, reason: String) -> Self {
        SettingsError {
            field: field.as_str(),
            reason,
        }
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

/// The settings table of `docs/protocol.md`: each setting, its values and
/// its default, as the code has them.
pub fn docs_table() -> String {
    let defaults = serde_json::to_value(RoomSettings::default()).unwrap_or_default();
    let mut table = String::from("| setting | values | default | meaning |\n|---|---|---|---|\n");
    for &field in Field::ALL {
        let values = match field.allowed() {
            Allowed::Choice { choices } => choices
                .iter()
                .map(|c| format!("`\"{c}\"`"))
                .collect::<Vec<_>>()
                .join(", "),
            Allowed::Number { min, max, nullable } => {
                format!("{min}–{max}{}", if nullable { " or `null`" } else { "" })
            }
            Allowed::Toggle => "`true`, `false`".to_owned(),
        };
        let meaning = field
            .meaning()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        table.push_str(&format!(
            "| `{}` | {values} | `{}` | {meaning} |\n",
            field.as_str(),
            defaults[field.as_str()]
        ));
    }
    table
}

/// A present field is `Some`, even when it is `null` (`Some(None)` for an
/// optional setting, so a patch can clear `target_score`); an absent one
/// stays `None` through `#[serde(default)]`.
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
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
