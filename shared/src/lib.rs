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
//! - [`protocol`]: the wire messages between server and clients (serde).
//! - [`room`]: a room's game logic (roster, rounds, arbitration, timers) with
//!   no I/O and no clock: time is an argument.

pub mod cards;
pub mod formula;
pub mod names;
pub mod protocol;
pub mod rational;
pub mod room;
pub mod rules;
pub mod solver;
pub mod text;

pub use formula::ast::{Expr, Op};
pub use rational::{ArithError, Rational};
pub use rules::Rules;
