//! Countdown's rule: any subset of the cards, each used at most once.
//!
//! Breadth-first over subsets, smallest first, with early exit on the first
//! subset that makes the target (so the witness uses as few cards as
//! possible). All subsets share one [`Reach`]: the value table of a small
//! subset is built once and serves every larger subset that contains it,
//! and a large subset is never tabulated, only asked for the one value a
//! split needs. Values equal to one of their operands are not kept (see
//! [`Reach::for_subsets`]), which keeps the shared tables small.

use rustc_hash::FxHashSet;

use super::search::Reach;
use super::{validate, SolveError};
use crate::formula::ast::Expr;
use crate::rational::Rational;
use crate::rules::Rules;

/// An expression using some of the cards (each at most once) that equals
/// `target` and obeys `rules`, or `None`. Smaller subsets are tried first, so
/// the witness uses as few cards as possible.
///
/// Returns [`SolveError::Overflow`] only when no solution was found and some
/// value could not be computed exactly (so "none" could be wrong).
pub fn solve_subset(cards: &[i64], target: i64, rules: Rules) -> Result<Option<Expr>, SolveError> {
    validate(cards)?;
    // A lone card is a leaf, not an operator node: no rule applies.
    if let Some(&c) = cards.iter().find(|&&c| c == target) {
        return Ok(Some(Expr::Card(c)));
    }
    let t = Rational::from_int(target);
    if !rules.allows(t) {
        return Ok(None);
    }
    let mut reach = Reach::for_subsets(cards, rules);
    for mask in distinct_subsets(cards) {
        if let Some(e) = reach.query_unbuilt(mask, t) {
            return Ok(Some(e));
        }
    }
    if reach.overflow {
        Err(SolveError::Overflow)
    } else {
        Ok(None)
    }
}

/// The subsets of at least two card positions, smallest first, one per
/// distinct multiset of values (`5 5 7` has one `5 7`, not two).
fn distinct_subsets(cards: &[i64]) -> Vec<u16> {
    let n = cards.len();
    let mut masks: Vec<u16> = (1..1u32 << n)
        .map(|m| m as u16)
        .filter(|m| m.count_ones() >= 2)
        .collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
    let mut seen: FxHashSet<Vec<i64>> = FxHashSet::default();
    masks.retain(|&m| {
        let mut values: Vec<i64> = (0..n).filter(|i| m >> i & 1 == 1).map(|i| cards[i]).collect();
        values.sort_unstable();
        seen.insert(values)
    });
    masks
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

    #[test]
    fn the_witness_uses_the_fewest_cards() {
        // 7 × 3 = 21 with two cards, though 5 cards could also make it.
        let e = solve_subset(&[1, 2, 3, 4, 7], 21, Rules::Positive)
            .unwrap()
            .unwrap();
        assert_eq!(e.cards().len(), 2);
        assert_eq!(distinct_subsets(&[5, 5, 7]).len(), 3); // 5 5, 5 7, 5 5 7
    }
}
