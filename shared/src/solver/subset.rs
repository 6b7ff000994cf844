//! Countdown's rule: any subset of the cards, each used at most once.
//!
//! Breadth-first over subsets, smallest first, with early exit on the first
//! subset that makes the target (so the witness uses as few cards as
//! possible). All subsets share one [`Reach`]: the value table of a small
//! subset is built once and serves every larger subset that contains it,
//! and a large subset is never tabulated, only asked for the one value a
//! split needs. Values equal to one of their operands are not kept (see
//! [`Reach::for_subsets`]), which keeps the shared tables small.

use super::reach::{Reach, Value};
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
    let (found, overflow) = if rules == Rules::Free {
        first_hit(Reach::for_subsets(cards, rules), cards, t)
    } else {
        // Whole-number rules: plain integers, no fractions to reduce.
        first_hit(Reach::<i64>::for_subsets(cards, rules), cards, target)
    };
    if let Some(e) = found {
        return Ok(Some(e));
    }
    if overflow {
        Err(SolveError::Overflow)
    } else {
        Ok(None)
    }
}

/// Every distinct solution that uses some of the cards: for each distinct
/// sub-multiset of the cards (smallest first, then in card order), its
/// distinct solutions as [`solve_all`](super::solve_all) lists them. An
/// expression that uses each of its cards once depends on every one of them,
/// so solutions over different sub-multisets are never equal as functions of
/// the cards and the lists do not overlap.
pub fn solve_all_subsets(
    cards: &[i64],
    target: i64,
    rules: Rules,
) -> Result<Vec<Expr>, SolveError> {
    validate(cards)?;
    let mut out = Vec::new();
    for mask in distinct_subsets(cards, 1) {
        out.extend(super::solve_all(&pick(cards, mask), target, rules)?);
    }
    Ok(out)
}

/// How many solutions [`solve_all_subsets`] would list.
pub fn count_solutions_subsets(
    cards: &[i64],
    target: i64,
    rules: Rules,
) -> Result<usize, SolveError> {
    validate(cards)?;
    distinct_subsets(cards, 1)
        .into_iter()
        .map(|mask| super::count_solutions(&pick(cards, mask), target, rules))
        .sum()
}

/// The cards at the positions of `mask`.
fn pick(cards: &[i64], mask: u16) -> Vec<i64> {
    (0..cards.len())
        .filter(|i| mask >> i & 1 == 1)
        .map(|i| cards[i])
        .collect()
}

/// The first subset, smallest first, that makes `t`, and whether some value
/// overflowed on the way.
fn first_hit<V: Value>(mut reach: Reach<'_, V>, cards: &[i64], t: V) -> (Option<Expr>, bool) {
    let found = distinct_subsets(cards, 2)
        .into_iter()
        .find_map(|mask| reach.query_unbuilt(mask, t));
    (found, reach.overflow)
}

/// The subsets of at least `least` card positions, smallest first, one per
/// distinct multiset of values (`5 5 7` has one `5 7`, not two): among equal
/// cards a subset takes the first ones.
fn distinct_subsets(cards: &[i64], least: u32) -> Vec<u16> {
    let n = cards.len();
    // For each position, the positions before it holding the same value.
    let earlier: Vec<u16> = (0..n)
        .map(|j| {
            (0..j)
                .filter(|&i| cards[i] == cards[j])
                .fold(0, |m, i| m | 1 << i)
        })
        .collect();
    let mut masks: Vec<u16> = (1..1u32 << n)
        .map(|m| m as u16)
        .filter(|m| m.count_ones() >= least)
        .filter(|&m| (0..n).all(|j| m >> j & 1 == 0 || m & earlier[j] == earlier[j]))
        .collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
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
    fn every_solution_over_every_subset() {
        // 3 + 4 over two cards, then every solution over all three.
        let all = solve_all_subsets(&[3, 4, 1], 7, Rules::Positive).unwrap();
        let own = super::super::solve_all(&[3, 4, 1], 7, Rules::Positive).unwrap();
        assert_eq!(all[0].to_string(), "3 + 4");
        assert_eq!(all.len(), 1 + own.len());
        assert_eq!(
            count_solutions_subsets(&[3, 4, 1], 7, Rules::Positive),
            Ok(all.len())
        );
        // The lone 7 once, though there are two; 7 and 7 make no 7.
        assert_eq!(
            solve_all_subsets(&[7, 7], 7, Rules::Positive)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn the_witness_uses_the_fewest_cards() {
        // 7 × 3 = 21 with two cards, though 5 cards could also make it.
        let e = solve_subset(&[1, 2, 3, 4, 7], 21, Rules::Positive)
            .unwrap()
            .unwrap();
        assert_eq!(e.cards().len(), 2);
        assert_eq!(distinct_subsets(&[5, 5, 7], 2).len(), 3); // 5 5, 5 7, 5 5 7
        assert_eq!(distinct_subsets(&[5, 5, 7], 1).len(), 5); // and 5, 7
    }
}
