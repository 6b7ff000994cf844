//! The Krypto game with no I/O in it: everything the server and the client
//! must agree on.
//!
//! - [`rational`]: exact fractions; overflow is an error, never a wrong answer.
//! - [`rules`]: the rule sets (free, integer, international, positive).
//! - [`cards`]: the 56-card deck, other variants' decks, and reproducible deals.
//! - [`formula`]: lexer, parser, expression tree, evaluator and the checker
//!   that judges a player's formula against a hand.
//! - [`solver`]: reachable values, "is it solvable", every distinct solution,
//!   APL-style chains and whole-variant censuses.
//! - [`fair_play`]: signals that right answers come from a program (answers
//!   under a human floor, times too regular, hard hands solved too fast).
//! - [`bot_pace`]: how the project's bots pace their answers (the table the
//!   bots and the fair-play tests share).
//! - [`settings`]: room settings, their defaults, ranges and editor presets.
//! - [`names`]: player names: allowed characters and the key that makes them unique.
//! - [`ratings`]: Weng-Lin ratings of a match's entrants, and who is rated.
//! - [`periods`]: the UTC calendar periods (day, week, month, all time) of boards.
//! - [`text`]: what text may be relayed to other players' screens.
//! - [`ws_frames`]: WebSocket frame headers found in a byte stream, so the
//!   server can charge every frame a client sends.
//! - [`protocol`]: the wire messages between server and clients (serde).
//! - [`modes`]: the daily Krypto, challenges and solo runs: their hands,
//!   clocks, streaks and share lines, with time and seeds as arguments.
//! - [`room`]: a room's game logic (roster, rounds, arbitration, timers) with
//!   no I/O and no clock: time is an argument.

/// `as_str` and `Display` for enums whose wire names strum derives
/// (`IntoStaticStr`, with the same spelling as their serde names, which
/// tests check): one definition of each name, no serde round trip.
macro_rules! wire_names {
    ($($t:ty),* $(,)?) => {$(
        impl $t {
            /// The name used on the wire and on command lines.
            pub fn as_str(self) -> &'static str {
                self.into()
            }
        }

        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}

/// A wire enum: the derives every one of them shares (snake_case names on the
/// wire and on command lines, any case when parsed, every value listed), then
/// `as_str` and `Display` through `wire_names!`. Extra derives and
/// attributes (`#[strum(parse_err_fn = …)]` for a typed parse error) go on
/// the enum.
macro_rules! wire_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($body:tt)* }) => {
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash,
            serde::Serialize, serde::Deserialize,
            strum::IntoStaticStr, strum::EnumString, strum::EnumIter,
        )]
        #[serde(rename_all = "snake_case")]
        #[strum(serialize_all = "snake_case", ascii_case_insensitive)]
        $(#[$meta])*
        $vis enum $name { $($body)* }
        wire_names!($name);
    };
}

pub mod bot_pace;
pub mod cards;
pub mod fair_play;
pub mod formula;
pub mod modes;
pub mod names;
pub mod periods;
pub mod protocol;
pub mod ratings;
pub mod rational;
pub mod recap;
pub mod room;
pub mod rules;
pub mod settings;
pub mod solver;
pub mod text;
pub mod ws_frames;

pub use formula::ast::{Expr, Op};
pub use rational::{ArithError, Rational};
pub use rules::Rules;
