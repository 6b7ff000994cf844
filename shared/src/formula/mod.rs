//! Formulas as players type them: lexing, parsing, exact evaluation and the
//! checker that judges a formula against a hand.
//!
//! - [`lexer`]: characters to tokens, with 1-based columns in characters.
//! - [`parser`]: tokens to a spanned parse tree ([`Parsed`]), with the length
//!   and nesting limits that keep any input harmless.
//! - [`ast`]: the plain expression tree ([`Expr`](ast::Expr)) shared with the solver.
//! - [`check()`] and [`analyze()`]: judging a formula against a hand and a rule
//!   set, strictly for a round or leniently for a live preview.
//! - [`FormulaError`]: every refusal, with its kind and column.

pub mod ast;
mod check;
pub(crate) mod error;
pub mod lexer;
pub mod parser;

pub use check::{analyze, check, uses_hand, Analysis};
pub use error::{ErrorKind, FormulaError};
pub use parser::{parse, Parsed};

/// The longest formula accepted, in characters: room for any sensible
/// solution with generous spacing, small enough to judge in microseconds.
pub const MAX_LEN: usize = 200;

/// The deepest nesting of parentheses accepted. Parsing recurses once per
/// level, so this bound is what makes stack overflow impossible.
pub const MAX_DEPTH: usize = 32;
