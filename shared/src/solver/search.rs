//! "Is this hand solvable?" — one witness, as fast as possible.
//!
//! Small hands (up to [`DFS_ONLY`] cards) use a depth-first search over "pick
//! two values, combine them, recurse" with exact rationals and early exit:
//! most solvable deals are settled after a few hundred nodes. Larger hands
//! first try that search with a node budget, then fall back to a
//! target-directed search over per-subset value sets (see `reach.rs`), whose
//! cost stays bounded for the unsolvable hands where the plain depth-first
//! search would explode.

use super::reach::Reach;
use super::{note_overflow, validate, SolveError, COMBOS, MAX_CARDS};
use crate::formula::ast::{Expr, Op};
use crate::rational::Rational;
use crate::rules::Rules;

/// Up to this many cards the depth-first search alone is fast enough even
/// for unsolvable hands (about 230,000 leaf checks for five cards).
const DFS_ONLY: usize = 4;

/// Node budget of the depth-first attempt on larger hands before switching
/// to the subset search.
const DFS_BUDGET: u64 = 200;

/// Finds one expression that uses every card exactly once, obeys `rules` at
/// every operator node and equals `target`; `None` when there is none.
///
/// Returns [`SolveError::Overflow`] only when no solution was found and some
/// branch could not be computed exactly (so "none" could be wrong).
pub fn solve_one(cards: &[i64], target: i64, rules: Rules) -> Result<Option<Expr>, SolveError> {
    validate(cards)?;
    solve_exact(cards, Rational::from_int(target), rules)
}

/// [`solve_one`] for a rational target, on an already validated hand.
pub(crate) fn solve_exact(
    cards: &[i64],
    target: Rational,
    rules: Rules,
) -> Result<Option<Expr>, SolveError> {
    if cards.len() == 1 {
        // A lone card is a leaf, not an operator node: no rule applies.
        return Ok((Rational::from_int(cards[0]) == target).then(|| Expr::Card(cards[0])));
    }
    if !rules.allows(target) {
        return Ok(None);
    }
    let budget = if cards.len() <= DFS_ONLY {
        u64::MAX
    } else {
        DFS_BUDGET
    };
    let mut dfs = Dfs::new(cards, target, rules, budget);
    let n = cards.len();
    if dfs.go(n) {
        return Ok(Some(dfs.witness()));
    }
    if !dfs.exhausted {
        return if dfs.overflow {
            Err(SolveError::Overflow)
        } else {
            Ok(None)
        };
    }
    let mask = full_mask(n);
    let (found, overflow) = match (rules, target.to_integer()) {
        (Rules::Free, _) => {
            let mut reach = Reach::new(cards, rules);
            (reach.query(mask, target), reach.overflow)
        }
        // Whole-number rules: plain integers, no fractions to reduce.
        (_, Some(t)) => {
            let mut reach = Reach::<i64>::new(cards, rules);
            (reach.query(mask, t), reach.overflow)
        }
        // A fraction is never a whole-number rule's answer.
        (_, None) => (None, false),
    };
    match found {
        Some(e) => Ok(Some(e)),
        None if overflow => Err(SolveError::Overflow),
        None => Ok(None),
    }
}

fn full_mask(n: usize) -> u16 {
    ((1u32 << n) - 1) as u16
}

/// The depth-first search state: the current values and, for each, the id of
/// the node that produced it (ids below the card count are the cards).
struct Dfs<'a> {
    cards: &'a [i64],
    target: Rational,
    rules: Rules,
    vals: [Rational; MAX_CARDS],
    ids: [u16; MAX_CARDS],
    /// Operator nodes of the current path: `(op, left id, right id)`.
    nodes: Vec<(Op, u16, u16)>,
    overflow: bool,
    budget: u64,
    /// Set when the budget ran out before the search finished.
    exhausted: bool,
}

impl<'a> Dfs<'a> {
    fn new(cards: &'a [i64], target: Rational, rules: Rules, budget: u64) -> Self {
        let mut vals = [Rational::ZERO; MAX_CARDS];
        let mut ids = [0u16; MAX_CARDS];
        for (i, &c) in cards.iter().enumerate() {
            vals[i] = Rational::from_int(c);
            ids[i] = i as u16;
        }
        Dfs {
            cards,
            target,
            rules,
            vals,
            ids,
            nodes: Vec::with_capacity(MAX_CARDS),
            overflow: false,
            budget,
            exhausted: false,
        }
    }

    /// Searches the first `k` values; on success the solution's root id is
    /// `ids[0]` and its nodes are in `self.nodes`.
    fn go(&mut self, k: usize) -> bool {
        if self.budget == 0 {
            self.exhausted = true;
            return false;
        }
        self.budget -= 1;
        if k == 2 {
            return self.last_two();
        }
        // Pairs of equal values already tried at this level: combining an
        // equal pair again leaves the same multiset of values.
        let mut tried: [(Rational, Rational); 28] = [(Rational::ZERO, Rational::ZERO); 28];
        let mut n_tried = 0;
        for i in 0..k {
            for j in i + 1..k {
                let (a, b) = (self.vals[i], self.vals[j]);
                let key = if a <= b { (a, b) } else { (b, a) };
                if tried[..n_tried].contains(&key) {
                    continue;
                }
                tried[n_tried] = key;
                n_tried += 1;
                let (ia, ib) = (self.ids[i], self.ids[j]);
                for (op, swapped) in COMBOS {
                    if swapped && a == b {
                        continue;
                    }
                    let (l, r, il, ir) = if swapped {
                        (b, a, ib, ia)
                    } else {
                        (a, b, ia, ib)
                    };
                    let v = match op.apply(l, r) {
                        Ok(v) => v,
                        Err(e) => {
                            note_overflow(e, &mut self.overflow);
                            continue;
                        }
                    };
                    if !self.rules.allows(v) {
                        continue;
                    }
                    let id = (self.cards.len() + self.nodes.len()) as u16;
                    self.nodes.push((op, il, ir));
                    // Put the result in slot i and move the last value into slot j.
                    self.vals[i] = v;
                    self.ids[i] = id;
                    self.vals[j] = self.vals[k - 1];
                    self.ids[j] = self.ids[k - 1];
                    let saved = (self.vals[k - 1], self.ids[k - 1]);
                    if self.go(k - 1) {
                        return true;
                    }
                    self.vals[k - 1] = saved.0;
                    self.ids[k - 1] = saved.1;
                    self.vals[j] = b;
                    self.ids[j] = ib;
                    self.vals[i] = a;
                    self.ids[i] = ia;
                    self.nodes.pop();
                    if self.exhausted {
                        return false;
                    }
                }
            }
        }
        false
    }

    /// The last step: does some operation on the two remaining values give
    /// the target? (The target itself was checked against the rules once.)
    fn last_two(&mut self) -> bool {
        let (a, b) = (self.vals[0], self.vals[1]);
        for (op, swapped) in COMBOS {
            if swapped && a == b {
                continue;
            }
            let (l, r) = if swapped { (b, a) } else { (a, b) };
            match op.apply(l, r) {
                Ok(v) if v == self.target => {
                    let (il, ir) = if swapped {
                        (self.ids[1], self.ids[0])
                    } else {
                        (self.ids[0], self.ids[1])
                    };
                    let id = (self.cards.len() + self.nodes.len()) as u16;
                    self.nodes.push((op, il, ir));
                    self.ids[0] = id;
                    return true;
                }
                Ok(_) => {}
                Err(e) => note_overflow(e, &mut self.overflow),
            }
        }
        false
    }

    fn witness(&self) -> Expr {
        self.build(self.ids[0])
    }

    fn build(&self, id: u16) -> Expr {
        let n = self.cards.len();
        if (id as usize) < n {
            return Expr::Card(self.cards[id as usize]);
        }
        let (op, l, r) = self.nodes[id as usize - n];
        Expr::bin(op, self.build(l), self.build(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(cards: &[i64], target: i64, rules: Rules) -> bool {
        match solve_one(cards, target, rules).unwrap() {
            Some(e) => {
                assert_eq!(e.value().unwrap(), Rational::from_int(target));
                let mut used = e.cards();
                used.sort_unstable();
                let mut want = cards.to_vec();
                want.sort_unstable();
                assert_eq!(used, want);
                true
            }
            None => false,
        }
    }

    #[test]
    fn finds_simple_solutions() {
        assert!(check(&[1, 2, 3, 4], 24, Rules::Free));
        assert!(check(&[8, 3, 8, 3], 24, Rules::Free)); // 8 ÷ (3 − 8 ÷ 3)
        assert!(!check(&[8, 3, 8, 3], 24, Rules::Integer));
        assert!(!check(&[1, 1, 1, 1], 24, Rules::Free));
        assert!(check(&[5], 5, Rules::Positive));
    }

    #[test]
    fn large_hands_use_the_subset_search() {
        assert!(check(&[1, 1, 1, 1, 1, 1, 1], 7, Rules::Positive));
        assert!(!check(&[1, 1, 1, 1, 1, 1, 1], 100, Rules::Positive));
        assert!(!check(&[1, 1, 1, 1, 1, 1], 1000, Rules::Free));
        assert!(check(&[2, 2, 2, 2, 2, 2, 2, 2], 0, Rules::International));
        assert!(check(&[3, 7, 9, 1, 4, 6], 0, Rules::Free));
    }

    #[test]
    fn zero_operands_in_the_subset_search() {
        // Only 1 - 1 = 0 times anything makes 0 under positive-free rules.
        assert!(check(&[1, 1, 5, 7, 9, 11], 0, Rules::Integer));
    }

    #[test]
    fn invalid_hands_are_errors() {
        assert_eq!(solve_one(&[], 1, Rules::Free), Err(SolveError::NoCards));
        assert!(matches!(
            solve_one(&[1; 9], 1, Rules::Free),
            Err(SolveError::TooManyCards { given: 9, .. })
        ));
    }

    #[test]
    fn overflow_is_reported_not_guessed() {
        let big = i64::MAX / 2;
        assert_eq!(
            solve_one(&[big, big, big], 7, Rules::Free),
            Err(SolveError::Overflow)
        );
        // A solution found despite overflow elsewhere is still exact.
        assert!(check(&[big, big, 1], 1, Rules::Free));
    }
}
