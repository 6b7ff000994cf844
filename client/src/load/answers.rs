//! What the simulated players answer for one hand: a right answer from the
//! solver and a formula that is well formed, uses every card once, and has
//! the wrong value. Worked out once per round per room, not per player, so
//! the load generator spends its CPU on sockets rather than on solving.

use krypto_core::formula::{self, ErrorKind};
use krypto_core::solver;
use krypto_core::Rules;

/// A right answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Right {
    /// A formula the solver found.
    Formula(String),
    /// The hand has no solution (only dealt with `deal: any`): claim so.
    NoSolution,
}

/// The two answers for one hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answers {
    /// Wins the round if it arrives first.
    pub right: Right,
    /// Refused with `wrong_value` (or, for odd hands where no simple
    /// arrangement misses the objective, `syntax`): a plausible mistake
    /// that the server must check in full.
    pub wrong: String,
}

/// The answers for `cards` and `objective` under `rules`. Never fails: a
/// hand the solver cannot settle (overflow; impossible with real decks) is
/// answered by claiming no solution, which the server then judges.
pub fn for_hand(cards: &[i64], objective: i64, rules: Rules) -> Answers {
    let right = match solver::solve_one(cards, objective, rules) {
        Ok(Some(expr)) => Right::Formula(expr.to_string()),
        Ok(None) | Err(_) => Right::NoSolution,
    };
    Answers {
        right,
        // Every simple arrangement hit the objective: send something
        // malformed, which is still a refused attempt with a verdict.
        wrong: wrong_formula(cards, objective, rules).unwrap_or_else(|| {
            let sum: Vec<String> = cards.iter().map(i64::to_string).collect();
            format!("{} +", sum.join(" + "))
        }),
    }
}

/// A plausible mistake: the first of a few simple arrangements of every
/// card (the sum, the product, mixes of the two) that the checker refuses
/// as `wrong_value`; `None` when each of them makes the objective. Shared
/// by the load generator and the practice bots' blunders.
pub fn wrong_formula(cards: &[i64], objective: i64, rules: Rules) -> Option<String> {
    let joined = |sep: &str| {
        cards
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(sep)
    };
    let mut candidates = vec![joined(" + "), joined(" * ")];
    if let Some((first, rest)) = cards.split_first() {
        let rest: Vec<String> = rest.iter().map(i64::to_string).collect();
        candidates.push(format!("{first} * ({})", rest.join(" + ")));
        candidates.push(format!("{first} + {}", rest.join(" * ")));
    }
    candidates.into_iter().find(|f| {
        matches!(
            formula::check(f, cards, objective, rules),
            Err(e) if e.kind == ErrorKind::WrongValue
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_right_answer_is_accepted_and_the_wrong_one_has_the_wrong_value() {
        let cards = [1, 2, 3, 4, 5];
        let answers = for_hand(&cards, 15, Rules::Free);
        // 1 + 2 + 3 + 4 + 5 = 15 is right, so the wrong answer is another one.
        assert_ne!(answers.wrong, "1 + 2 + 3 + 4 + 5");
        let err = formula::check(&answers.wrong, &cards, 15, Rules::Free).unwrap_err();
        assert_eq!(err.kind, ErrorKind::WrongValue);
        let Right::Formula(right) = answers.right else {
            panic!("a solvable hand has a formula")
        };
        assert!(formula::check(&right, &cards, 15, Rules::Free).is_ok());
    }

    #[test]
    fn an_unsolvable_hand_is_claimed() {
        // 1 × 1 × 1 × 1 × 1 can only make small numbers.
        let answers = for_hand(&[1, 1, 1, 1, 1], 25, Rules::Free);
        assert_eq!(answers.right, Right::NoSolution);
    }
}
