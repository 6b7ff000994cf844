//! The checker and the solver, behind the few calls the room makes: the
//! same checker as `krypto check`, so a verdict never differs from it.

use crate::protocol::{VerdictError, VerdictKind};
use crate::rational::Rational;
use crate::rules::Rules;
use crate::solver::SolveError;
use crate::{formula, solver};

/// A formula the checker accepted.
pub(crate) struct Accepted {
    /// What it comes to.
    pub(crate) value: Rational,
    /// The formula as the parser prints it (spaced, `×` and `÷`, fewest
    /// parentheses): what the room shows others, so nothing a player typed
    /// beyond the formula itself reaches anyone's screen.
    pub(crate) printed: String,
}

/// Judges a formula; the error is already in wire form.
pub(crate) fn check(
    formula: &str,
    cards: &[i64],
    target: i64,
    rules: Rules,
) -> Result<Accepted, VerdictError> {
    let value = formula::check(formula, cards, target, rules).map_err(to_wire)?;
    let printed = formula::parse(formula)
        .map_err(to_wire)?
        .to_expr()
        .to_string();
    Ok(Accepted { value, printed })
}

fn to_wire(e: formula::FormulaError) -> VerdictError {
    VerdictError {
        kind: VerdictKind::from_name(e.kind.as_str()),
        message: e.message,
        column: e.column,
    }
}

/// One solution, printed, or `None` when there is none.
pub(super) fn solve_one(
    cards: &[i64],
    target: i64,
    rules: Rules,
) -> Result<Option<String>, SolveError> {
    solver::solve_one(cards, target, rules).map(|found| found.map(|e| e.to_string()))
}

/// Whether the hand has a solution (a solver failure counts as no).
pub(super) fn solvable(cards: &[i64], target: i64, rules: Rules) -> bool {
    matches!(solver::solve_one(cards, target, rules), Ok(Some(_)))
}

/// The number of distinct solutions.
pub(super) fn count(cards: &[i64], target: i64, rules: Rules) -> Result<u64, SolveError> {
    solver::count_solutions(cards, target, rules).map(|n| n as u64)
}
