//! The solutions part of a match's recap: every distinct solution of a
//! dealt hand, bounded, with the winner's, the shortest and one nobody
//! found pointed out (the wire form is [`crate::protocol::RoundRecap`]).

use crate::formula;
use crate::protocol::{SolutionMarks, MAX_RECAP_SOLUTIONS};
use crate::rules::Rules;
use crate::solver::{self, SolveError};
use crate::Expr;

/// A round's solutions as a recap lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecapSolutions {
    /// Printed as `krypto solve --all` prints them, in its order (shortest
    /// first): the first [`MAX_RECAP_SOLUTIONS`], then the winner's if it
    /// comes later.
    pub solutions: Vec<String>,
    /// How many distinct solutions the hand has.
    pub total: u64,
    /// Which of `solutions` to point out.
    pub marks: SolutionMarks,
}

/// The distinct solutions of `cards` (objective `objective`, `rules`);
/// `winning` is the winner's formula, `found` every right formula of the
/// round (the winner's included). Formulas that do not parse mark nothing.
pub fn recap_solutions(
    cards: &[i64],
    objective: i64,
    rules: Rules,
    winning: Option<&str>,
    found: &[&str],
) -> Result<RecapSolutions, SolveError> {
    let all = solver::solve_all(cards, objective, rules)?;
    let parse = |f: &str| formula::parse(f).ok().map(|p| p.to_expr());
    let winner_expr = winning.and_then(parse);
    let found: Vec<Expr> = found.iter().filter_map(|f| parse(f)).collect();
    let winner_at = winner_expr
        .as_ref()
        .and_then(|w| all.iter().position(|e| solver::same_solution(w, e)));
    let mut shown: Vec<usize> = (0..all.len().min(MAX_RECAP_SOLUTIONS)).collect();
    if let Some(at) = winner_at.filter(|&at| at >= MAX_RECAP_SOLUTIONS) {
        shown.push(at);
    }
    let unfound = shown
        .iter()
        .position(|&i| !found.iter().any(|f| solver::same_solution(f, &all[i])));
    let index = |i: usize| u32::try_from(i).ok();
    let marks = SolutionMarks {
        winner: winner_at
            .and_then(|at| shown.iter().position(|&i| i == at))
            .and_then(index),
        shortest: (!shown.is_empty()).then_some(0),
        unfound: unfound.and_then(index),
    };
    Ok(RecapSolutions {
        solutions: shown.iter().map(|&i| all[i].to_string()).collect(),
        total: all.len() as u64,
        marks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_winners_solution_is_marked_and_another_is_unfound() {
        // 1 2 3 4 5 → 15: 1 + 2 + 3 + 4 + 5 among others.
        let cards = [1, 2, 3, 4, 5];
        let r = recap_solutions(&cards, 15, Rules::Free, Some("5+4+3+2+1"), &["5+4+3+2+1"])
            .expect("solvable");
        assert!(r.total > 1, "{r:?}");
        assert_eq!(
            r.solutions.len() as u64,
            r.total.min(MAX_RECAP_SOLUTIONS as u64)
        );
        let w = r.marks.winner.expect("the winner's is listed") as usize;
        assert_eq!(r.solutions[w], "1 + 2 + 3 + 4 + 5");
        let u = r.marks.unfound.expect("one nobody found") as usize;
        assert_ne!(u, w);
        assert_eq!(r.marks.shortest, Some(0));
    }

    #[test]
    fn nothing_is_marked_for_a_hand_without_solutions() {
        let r = recap_solutions(&[1, 1, 1, 1], 24, Rules::Free, None, &[]).expect("solves");
        assert_eq!((r.total, r.solutions.len()), (0, 0));
        assert_eq!(r.marks, SolutionMarks::default());
    }

    #[test]
    fn the_list_is_bounded_and_keeps_a_late_winners_solution() {
        // A hand with many solutions.
        let cards = [1, 2, 3, 4, 6];
        let all = solver::solve_all(&cards, 6, Rules::Free).expect("solves");
        assert!(all.len() > MAX_RECAP_SOLUTIONS + 1, "{}", all.len());
        let last = all.last().expect("some").to_string();
        let r = recap_solutions(&cards, 6, Rules::Free, Some(&last), &[&last]).expect("solves");
        assert_eq!(r.solutions.len(), MAX_RECAP_SOLUTIONS + 1);
        assert_eq!(r.marks.winner, Some(MAX_RECAP_SOLUTIONS as u32));
        assert_eq!(r.solutions[MAX_RECAP_SOLUTIONS], last);
        assert_eq!(r.total, all.len() as u64);
    }
}
