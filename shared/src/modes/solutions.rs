//! Every distinct solution of a hand, shown after it is solved, with the
//! player's own marked: the solution of the list in the same class as the
//! player's formula (equal as rational functions of the cards, the solver's
//! own notion of "distinct"), so `2 × 3 + 4` finds `4 + 3 × 2` too.

use crate::cards::Deal;
use crate::formula;
use crate::protocol::SolutionEntry;
use crate::rules::Rules;
use crate::solver::{self, SolveError};

/// The distinct solutions of `deal` under `rules`, printed as the solver
/// prints them (shortest first), with `yours` set on the one in the class
/// of `formula` (none when it is not a right answer, or does not parse).
pub fn marked_solutions(
    deal: &Deal,
    rules: Rules,
    formula: &str,
) -> Result<Vec<SolutionEntry>, SolveError> {
    let all = solver::solve_all(&deal.hand, deal.objective, rules)?;
    let player = formula::parse(formula).ok().map(|p| p.to_expr());
    let mut marked = false;
    Ok(all
        .iter()
        .map(|e| {
            // One mark at most, even if a fingerprint collision (odds about
            // 2^-122) made two classes look alike.
            let yours = !marked && player.as_ref().is_some_and(|p| solver::same_solution(p, e));
            marked |= yours;
            SolutionEntry {
                formula: e.to_string(),
                yours,
            }
        })
        .collect())
}
