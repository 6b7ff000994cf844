//! "Is this hand solvable?" — one witness, as fast as possible.
//!
//! Small hands (up to [`DFS_ONLY`] cards) use a depth-first search over "pick
//! two values, combine them, recurse" with exact rationals and early exit:
//! most solvable deals are settled after a few hundred nodes. Larger hands
//! first try that search with a node budget, then fall back to a
//! target-directed search over per-subset value sets (see [`Reach`]), whose
//! cost stays bounded for the unsolvable hands where the plain depth-first
//! search would explode.

use rustc_hash::FxHashSet;

use super::{note_overflow, validate, SolveError, COMBOS, MAX_CARDS};
use crate::formula::ast::{Expr, Op};
use crate::rational::{ArithError, Rational};
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
    let mut reach = Reach::new(cards, rules);
    let found = reach.query(full_mask(n), target);
    match found {
        Some(e) => Ok(Some(e)),
        None if reach.overflow => Err(SolveError::Overflow),
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

/// Target-directed search over subsets of card positions.
///
/// Subsets of at most `small` cards get their full value set (each value
/// with how it was made). A query "can subset S make t" on a larger subset
/// splits S into two parts, walks the values of the smaller part, and for
/// each operation asks for the one value the larger part would need — so the
/// big value sets (millions of values for seven cards) are never built.
pub(super) struct Reach<'a> {
    cards: &'a [i64],
    rules: Rules,
    small: u32,
    sets: Vec<Option<ValueTable>>,
    /// Any-subset mode (see [`Reach::for_subsets`]).
    subset: bool,
    pub(super) overflow: bool,
}

/// The values one subset makes, and the same values in the order they were
/// found (walked without sorting or allocating). How a value was made is not
/// kept: the rare witness is found again by asking the subset's splits.
#[derive(Debug, Clone, Default)]
struct ValueTable {
    set: FxHashSet<Rational>,
    list: Vec<Rational>,
}

impl ValueTable {
    #[inline]
    fn insert(&mut self, v: Rational) {
        if self.set.insert(v) {
            self.list.push(v);
        }
    }
}

/// `l op r`, inlined into the loops that combine tables.
#[inline(always)]
fn apply(op: Op, l: Rational, r: Rational) -> Result<Rational, ArithError> {
    match op {
        Op::Add => l.checked_add(r),
        Op::Sub => l.checked_sub(r),
        Op::Mul => l.checked_mul(r),
        Op::Div => l.checked_div(r),
    }
}

impl<'a> Reach<'a> {
    fn new(cards: &'a [i64], rules: Rules) -> Self {
        let n = cards.len();
        // Larger tables cost more to build; smaller ones mean more queries.
        let small = match n {
            0..=5 => 3,
            6 | 7 => 4,
            _ => 5,
        };
        Reach {
            cards,
            rules,
            small,
            sets: vec![None; 1 << n],
            subset: false,
            overflow: false,
        }
    }

    /// A search where any subset of the cards may be used, so a value equal
    /// to one of its own operands (`x × 1`, `x ÷ 1`, `2x − x`, `x² ÷ x`) is
    /// not kept: the operand alone, over fewer cards, already makes it, and
    /// anything built on it can be built on the operand instead. The tables
    /// shrink; the answer to "does some subset make t" does not change as
    /// long as every subset is asked (as `solve_subset` does).
    pub(super) fn for_subsets(cards: &'a [i64], rules: Rules) -> Self {
        Reach {
            subset: true,
            ..Reach::new(cards, rules)
        }
    }

    /// Builds the value set of `mask` (and, first, of its subsets).
    fn ensure(&mut self, mask: u16) {
        if self.sets[mask as usize].is_some() {
            return;
        }
        let mut set = ValueTable::default();
        if mask.count_ones() == 1 {
            set.insert(Rational::from_int(self.cards[mask.trailing_zeros() as usize]));
            self.sets[mask as usize] = Some(set);
            return;
        }
        let low = mask & mask.wrapping_neg();
        // Unordered splits: the left part holds the lowest card.
        let mut a = (mask - 1) & mask;
        while a != 0 {
            if a & low != 0 {
                let b = mask ^ a;
                self.ensure(a);
                self.ensure(b);
                let (sa, sb) = (&self.sets[a as usize], &self.sets[b as usize]);
                if let (Some(sa), Some(sb)) = (sa, sb) {
                    set.set.reserve(sa.list.len() * sb.list.len());
                    for &x in &sa.list {
                        for &y in &sb.list {
                            for (op, swapped) in COMBOS {
                                let (l, r) = if swapped { (y, x) } else { (x, y) };
                                match apply(op, l, r) {
                                    Ok(v) if self.subset && (v == l || v == r) => {}
                                    Ok(v) if self.rules.allows(v) => set.insert(v),
                                    Ok(_) => {}
                                    Err(e) => note_overflow(e, &mut self.overflow),
                                }
                            }
                        }
                    }
                }
            }
            a = (a - 1) & mask;
        }
        self.sets[mask as usize] = Some(set);
    }

    /// An expression over exactly the cards of `mask` for `value`, a member
    /// of its (built) table: found again through the splits.
    fn rebuild(&mut self, mask: u16, value: Rational) -> Option<Expr> {
        if mask.count_ones() == 1 {
            let c = self.cards[mask.trailing_zeros() as usize];
            return (Rational::from_int(c) == value).then_some(Expr::Card(c));
        }
        if !self.sets[mask as usize].as_ref()?.set.contains(&value) {
            return None;
        }
        self.query_by_splits(mask, value)
    }

    /// Any expression over `mask` (non-zero if asked), for the rare case of
    /// a zero operand (`0 × x = 0`, `0 ÷ x = 0`).
    fn any(&mut self, mask: u16, nonzero: bool) -> Option<Expr> {
        self.ensure(mask);
        let v = *self.sets[mask as usize]
            .as_ref()?
            .list
            .iter()
            .filter(|v| !nonzero || !v.is_zero())
            .min()?;
        self.rebuild(mask, v)
    }

    /// An expression over exactly the cards of `mask` with value `t`.
    fn query(&mut self, mask: u16, t: Rational) -> Option<Expr> {
        let size = mask.count_ones();
        if size == 1 {
            let c = self.cards[mask.trailing_zeros() as usize];
            return (Rational::from_int(c) == t).then_some(Expr::Card(c));
        }
        if !self.rules.allows(t) {
            return None;
        }
        if size <= self.small {
            self.ensure(mask);
            return self.rebuild(mask, t);
        }
        self.query_by_splits(mask, t)
    }

    /// [`Reach::query`] for a subset of at least two cards whose table may
    /// not be built: looked up if it is, asked split by split if not.
    pub(super) fn query_unbuilt(&mut self, mask: u16, t: Rational) -> Option<Expr> {
        if self.sets[mask as usize].is_some() {
            return self.rebuild(mask, t);
        }
        self.query_by_splits(mask, t)
    }

    /// [`Reach::query`] on a subset of at least two cards without building
    /// its table: every split, walking the smaller part's values.
    fn query_by_splits(&mut self, mask: u16, t: Rational) -> Option<Expr> {
        // Each unordered split once, `a` the smaller part.
        let mut a = (mask - 1) & mask;
        while a != 0 {
            let b = mask ^ a;
            let (na, nb) = (a.count_ones(), b.count_ones());
            if na < nb || (na == nb && a < b) {
                if let Some(e) = self.query_split(a, b, t) {
                    return Some(e);
                }
            }
            a = (a - 1) & mask;
        }
        None
    }

    /// Does `t = x op y` (either order) with `x` from subset `a` (small,
    /// walked) and `y` from subset `b` (asked for the needed value)?
    fn query_split(&mut self, a: u16, b: u16, t: Rational) -> Option<Expr> {
        self.ensure(a);
        let len = self.sets[a as usize].as_ref()?.list.len();
        for i in 0..len {
            // `a`'s table is complete and no longer changes; only other
            // subsets' tables are built while `b` is asked.
            let v = self.sets[a as usize].as_ref()?.list[i];
            // (needed y, op, v is the left operand)
            let needs = [
                (t.checked_sub(v), Op::Add, true),
                (t.checked_add(v), Op::Sub, false),
                (v.checked_sub(t), Op::Sub, true),
                (t.checked_div(v), Op::Mul, true),
                (t.checked_mul(v), Op::Div, false),
                (v.checked_div(t), Op::Div, true),
            ];
            for (need, op, v_left) in needs {
                let y = match need {
                    Ok(y) => y,
                    Err(e) => {
                        note_overflow(e, &mut self.overflow);
                        continue;
                    }
                };
                // v ÷ y = t needs y ≠ 0 (and y = v ÷ t is zero only if v is).
                if op == Op::Div && !v_left && v.is_zero() {
                    continue;
                }
                if op == Op::Div && v_left && y.is_zero() {
                    continue;
                }
                if let Some(ey) = self.query(b, y) {
                    let ev = self.rebuild(a, v)?;
                    return Some(if v_left {
                        Expr::bin(op, ev, ey)
                    } else {
                        Expr::bin(op, ey, ev)
                    });
                }
            }
            // Zero operands: 0 × y = 0 for any y, 0 ÷ y = 0 for any y ≠ 0.
            if v.is_zero() && t.is_zero() {
                if let Some(ey) = self.any(b, false) {
                    let ev = self.rebuild(a, v)?;
                    return Some(Expr::bin(Op::Mul, ev, ey));
                }
                if let Some(ey) = self.any(b, true) {
                    let ev = self.rebuild(a, v)?;
                    return Some(Expr::bin(Op::Div, ev, ey));
                }
            }
        }
        None
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
