//! Countdown's rule: any subset of the cards, each used at most once.

use rustc_hash::FxHashSet;

use super::search::solve_exact;
use super::{validate, SolveError};
use crate::formula::ast::Expr;
use crate::rational::Rational;
use crate::rules::Rules;

/// An expression using some of the cards (each at most once) that equals
/// `target` and obeys `rules`, or `None`. Smaller subsets are tried first, so
/// the witness uses as few cards as possible.
pub fn solve_subset(cards: &[i64], target: i64, rules: Rules) -> Result<Option<Expr>, SolveError> {
    validate(cards)?;
    let n = cards.len();
    let target = Rational::from_int(target);
    let mut masks: Vec<u32> = (1..1u32 << n).collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
    let mut tried: FxHashSet<Vec<i64>> = FxHashSet::default();
    let mut overflow = false;
    for m in masks {
        let mut sub: Vec<i64> = (0..n)
            .filter(|i| m >> i & 1 == 1)
            .map(|i| cards[i])
            .collect();
        sub.sort_unstable();
        if !tried.insert(sub.clone()) {
            continue;
        }
        match solve_exact(&sub, target, rules) {
            Ok(Some(e)) => return Ok(Some(e)),
            Ok(None) => {}
            Err(SolveError::Overflow) => overflow = true,
            Err(e) => return Err(e),
        }
    }
    if overflow {
        Err(SolveError::Overflow)
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_any_subset() {
        let e = solve_subset(&[100, 75, 3, 1, 1, 7], 100, Rules::Positive)
            .unwrap()
            .unwrap();
        assert_eq!(e, Expr::Card(100));
        let e = solve_subset(&[25, 50, 75, 100, 3, 6], 952, Rules::Positive)
            .unwrap()
            .unwrap();
        assert_eq!(e.value().unwrap(), Rational::from_int(952));
        assert_eq!(solve_subset(&[1, 1], 5, Rules::Positive).unwrap(), None);
    }
}
