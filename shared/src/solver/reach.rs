//! Target-directed search over subsets of card positions, shared by
//! [`solve_one`](super::solve_one) (large hands) and
//! [`solve_subset`](super::solve_subset).
//!
//! Subsets of at most `small` cards get their full table of values. A query
//! "can subset S make t" on a larger subset splits S into two parts, walks
//! the values of the smaller part, and for each operation asks for the one
//! value the larger part would need — so the big value sets (millions of
//! values for seven cards) are never built.
//!
//! Values are exact rationals in general and plain `i64`s under the
//! whole-number rules, where no fraction can appear: no gcd to reduce, half
//! the bytes to hash.

use std::fmt::Debug;
use std::hash::Hash;

use rustc_hash::FxHashSet;

use super::{note_overflow, COMBOS};
use crate::formula::ast::{Expr, Op};
use crate::rational::Rational;
use crate::rules::Rules;

/// A value the search computes with.
pub(super) trait Value: Copy + Eq + Ord + Hash + Debug {
    fn card(c: i64) -> Self;
    /// `l op r`, or `None` when it is not a value (division by zero, a
    /// fraction where only whole numbers exist, or an overflow, which is
    /// recorded in `overflow`).
    fn combine(op: Op, l: Self, r: Self, overflow: &mut bool) -> Option<Self>;
    fn allowed(self, rules: Rules) -> bool;
    fn is_zero(self) -> bool;
}

impl Value for Rational {
    #[inline(always)]
    fn card(c: i64) -> Self {
        Rational::from_int(c)
    }

    #[inline(always)]
    fn combine(op: Op, l: Self, r: Self, overflow: &mut bool) -> Option<Self> {
        op.apply(l, r).map_err(|e| note_overflow(e, overflow)).ok()
    }

    #[inline(always)]
    fn allowed(self, rules: Rules) -> bool {
        rules.allows(self)
    }

    #[inline(always)]
    fn is_zero(self) -> bool {
        Rational::is_zero(&self)
    }
}

/// Whole numbers, for the rules that allow nothing else: a quotient that is
/// not whole is simply not a value.
impl Value for i64 {
    #[inline(always)]
    fn card(c: i64) -> Self {
        c
    }

    #[inline(always)]
    fn combine(op: Op, l: Self, r: Self, overflow: &mut bool) -> Option<Self> {
        let v = match op {
            Op::Add => l.checked_add(r),
            Op::Sub => l.checked_sub(r),
            Op::Mul => l.checked_mul(r),
            Op::Div if r == 0 || l % r != 0 => return None,
            Op::Div => l.checked_div(r),
        };
        if v.is_none() {
            *overflow = true;
        }
        v
    }

    #[inline(always)]
    fn allowed(self, rules: Rules) -> bool {
        rules.allows(Rational::from_int(self))
    }

    #[inline(always)]
    fn is_zero(self) -> bool {
        self == 0
    }
}

/// The values one subset makes, and the same values in the order they were
/// found (walked without sorting or allocating). How a value was made is not
/// kept: the rare witness is found again by asking the subset's splits.
#[derive(Debug, Clone)]
struct ValueTable<V> {
    set: FxHashSet<V>,
    list: Vec<V>,
}

impl<V: Value> ValueTable<V> {
    fn new() -> Self {
        ValueTable {
            set: FxHashSet::default(),
            list: Vec::new(),
        }
    }

    #[inline]
    fn insert(&mut self, v: V) {
        if self.set.insert(v) {
            self.list.push(v);
        }
    }
}

/// The search state: the cards, and the tables built so far by subset mask.
pub(super) struct Reach<'a, V = Rational> {
    cards: &'a [i64],
    rules: Rules,
    /// Subsets of at most this many cards are tabulated.
    small: u32,
    sets: Vec<Option<ValueTable<V>>>,
    /// Any-subset mode (see [`Reach::for_subsets`]).
    subset: bool,
    /// Some value could not be computed exactly: "not found" is unsure.
    pub(super) overflow: bool,
}

impl<'a, V: Value> Reach<'a, V> {
    pub(super) fn new(cards: &'a [i64], rules: Rules) -> Self {
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
            sets: (0..1usize << n).map(|_| None).collect(),
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

    /// Builds the value table of `mask` (and, first, of its subsets).
    fn ensure(&mut self, mask: u16) {
        if self.sets[mask as usize].is_some() {
            return;
        }
        let mut set = ValueTable::new();
        if mask.count_ones() == 1 {
            set.insert(V::card(self.cards[mask.trailing_zeros() as usize]));
            self.sets[mask as usize] = Some(set);
            return;
        }
        let low = mask & mask.wrapping_neg();
        // Unordered splits: the left part holds the lowest card.
        let mut splits: Vec<(u16, u16)> = Vec::new();
        let mut a = (mask - 1) & mask;
        while a != 0 {
            if a & low != 0 {
                splits.push((a, mask ^ a));
            }
            a = (a - 1) & mask;
        }
        let mut pairs = 0;
        for &(a, b) in &splits {
            self.ensure(a);
            self.ensure(b);
            pairs += self.len(a) * self.len(b);
        }
        // About two distinct values per pair of operands: one allocation
        // instead of a rehash per doubling.
        set.set.reserve(2 * pairs);
        set.list.reserve(2 * pairs);
        for (a, b) in splits {
            let (Some(sa), Some(sb)) = (&self.sets[a as usize], &self.sets[b as usize]) else {
                continue;
            };
            for &x in &sa.list {
                for &y in &sb.list {
                    for (op, swapped) in COMBOS {
                        let (l, r) = if swapped { (y, x) } else { (x, y) };
                        match V::combine(op, l, r, &mut self.overflow) {
                            Some(v) if self.subset && (v == l || v == r) => {}
                            Some(v) if v.allowed(self.rules) => set.insert(v),
                            _ => {}
                        }
                    }
                }
            }
        }
        self.sets[mask as usize] = Some(set);
    }

    /// How many values the (built) table of `mask` holds.
    fn len(&self, mask: u16) -> usize {
        self.sets[mask as usize]
            .as_ref()
            .map_or(0, |t| t.list.len())
    }

    /// An expression over exactly the cards of `mask` for `value`, a member
    /// of its (built) table: found again through the splits.
    fn rebuild(&mut self, mask: u16, value: V) -> Option<Expr> {
        if mask.count_ones() == 1 {
            let c = self.cards[mask.trailing_zeros() as usize];
            return (V::card(c) == value).then_some(Expr::Card(c));
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
    pub(super) fn query(&mut self, mask: u16, t: V) -> Option<Expr> {
        let size = mask.count_ones();
        if size == 1 {
            let c = self.cards[mask.trailing_zeros() as usize];
            return (V::card(c) == t).then_some(Expr::Card(c));
        }
        if !t.allowed(self.rules) {
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
    pub(super) fn query_unbuilt(&mut self, mask: u16, t: V) -> Option<Expr> {
        if self.sets[mask as usize].is_some() {
            return self.rebuild(mask, t);
        }
        self.query_by_splits(mask, t)
    }

    /// [`Reach::query`] on a subset of at least two cards without building
    /// its table: every split, walking the smaller part's values.
    fn query_by_splits(&mut self, mask: u16, t: V) -> Option<Expr> {
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
    fn query_split(&mut self, a: u16, b: u16, t: V) -> Option<Expr> {
        self.ensure(a);
        let len = self.sets[a as usize].as_ref()?.list.len();
        for i in 0..len {
            // `a`'s table is complete and no longer changes; only other
            // subsets' tables are built while `b` is asked.
            let v = self.sets[a as usize].as_ref()?.list[i];
            // (the y that t = v op y or y op v needs, op, v is the left operand)
            let needs = [
                (Op::Sub, t, v, Op::Add, true),
                (Op::Add, t, v, Op::Sub, false),
                (Op::Sub, v, t, Op::Sub, true),
                (Op::Div, t, v, Op::Mul, true),
                (Op::Mul, t, v, Op::Div, false),
                (Op::Div, v, t, Op::Div, true),
            ];
            for (inverse, l, r, op, v_left) in needs {
                let Some(y) = V::combine(inverse, l, r, &mut self.overflow) else {
                    continue;
                };
                // y ÷ v = t needs v ≠ 0, v ÷ y = t needs y ≠ 0.
                if op == Op::Div && (if v_left { y.is_zero() } else { v.is_zero() }) {
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
