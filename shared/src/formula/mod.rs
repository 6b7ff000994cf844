//! Formulas as players type them: lexing, parsing, exact evaluation and the
//! checker that judges a formula against a hand.

pub mod ast;
