//! Every distinct solution, counted the way a person would.
//!
//! Two expressions are the same solution when they are equal as rational
//! functions of the cards (equal card values being the same variable); the
//! fingerprints of `fingerprint.rs` decide that. The search works on subsets
//! of card positions:
//!
//! - Small subsets (at most `small` cards) get a full table: one entry per
//!   class, each with its exact value, fingerprint, the inverse of its
//!   fingerprint (computed for the whole table at once by batch inversion, so
//!   divisions never need a modular exponentiation) and how it was built.
//! - "Which classes of subset S have value t" on a larger subset splits S
//!   into a smaller part (walked, from its table) and a larger part, which is
//!   asked recursively for the one value it would need. Only values that can
//!   still reach the target are ever combined.
//!
//! Why one representative per class and subset is enough under the integer
//! and international rules: all members of a class that can be evaluated at
//! all have the same exact value (they are the same rational function at
//! the same point). If some member `L op R` of a class obeys the rules, then
//! `L` and `R` obey them too, and the kept representatives `L'`, `R'` of
//! their classes have the same values as `L`, `R` and obey the rules by
//! construction; so `L' op R'` has the same value as `L op R` (allowed) and
//! the same fingerprint. Every class with a rule-obeying member is therefore
//! found from rule-obeying representatives alone.
//!
//! Among the members found for a class the representative is the one that
//! prints with the fewest parentheses, then the fewest right-nested operands
//! of equal precedence (so `a + b + c` is kept as `(a + b) + c`), then the
//! fewest `+`/`×` nodes whose left operand has more cards, then the fewest
//! `+`/`×` operands out of ascending card order; ties keep the first found,
//! so output is deterministic.

use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::fingerprint::{batch_inverse, Fp};
use super::{note_overflow, validate, SolveError, COMBOS};
use crate::formula::ast::{Expr, Op};
use crate::rational::Rational;
use crate::rules::Rules;

/// Every distinct solution: one expression per class of expressions equal to
/// `target` (as rational functions of the cards), each obeying `rules` at
/// every operator node, printed with few parentheses. Sorted by printed
/// length, then by the printed string.
pub fn solve_all(cards: &[i64], target: i64, rules: Rules) -> Result<Vec<Expr>, SolveError> {
    validate(cards)?;
    let mut d = Distinct::new(cards, rules);
    let full = full_mask(cards.len());
    let found = d.classes(full, Rational::from_int(target));
    if d.overflow {
        return Err(SolveError::Overflow);
    }
    // Each printed form and its length in characters, worked out once.
    let mut out: Vec<(usize, String, Expr)> = found
        .iter()
        .map(|c| {
            let e = d.expr(c.node);
            let printed = e.to_string();
            (printed.chars().count(), printed, e)
        })
        .collect();
    out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    Ok(out.into_iter().map(|(_, _, e)| e).collect())
}

/// How many distinct solutions [`solve_all`] would list.
pub fn count_solutions(cards: &[i64], target: i64, rules: Rules) -> Result<usize, SolveError> {
    validate(cards)?;
    let mut d = Distinct::new(cards, rules);
    let n = d
        .classes(full_mask(cards.len()), Rational::from_int(target))
        .len();
    if d.overflow {
        return Err(SolveError::Overflow);
    }
    Ok(n)
}

/// How many distinct expressions (of any value) use every card exactly once
/// and obey `rules`. With five cards for which no sub-expression can be zero
/// (2, 30, 500, 7000, 110000) this is 27,142 (OEIS A140606), a check that
/// the notion of "distinct" is right.
pub fn all_expressions(cards: &[i64], rules: Rules) -> Result<usize, SolveError> {
    validate(cards)?;
    let mut d = Distinct::new(cards, rules);
    let full = full_mask(cards.len());
    d.ensure_table(full);
    if d.overflow {
        return Err(SolveError::Overflow);
    }
    Ok(d.tables[full as usize].as_ref().map_or(0, |t| t.len()))
}

fn full_mask(n: usize) -> u16 {
    ((1u32 << n) - 1) as u16
}

/// Printing cost: (parentheses printed, right-nested operands of equal
/// precedence, `+`/`×` nodes whose left operand has more cards than the
/// right, `+`/`×` nodes with a left card above a right card). Smaller is
/// preferred: `1 + 2 + 3` over `1 + (2 + 3)` over `1 + 3 + 2`, `5 × (5 − 1)`
/// over `(5 − 1) × 5`.
type Cost = (u16, u16, u16, u16);

/// What a parent needs to know about a child to cost itself.
#[derive(Debug, Clone, Copy)]
struct Shape {
    cost: Cost,
    /// Precedence of the top operator (`LEAF_PREC` for a card).
    prec: u8,
    /// Smallest and largest card.
    lo: i64,
    hi: i64,
    /// Number of cards.
    n: u8,
}

/// Most classes a table makes room for up front (larger tables grow).
const MOST_PRESIZED: usize = 1 << 16;

/// Precedence of a lone card: binds tighter than any operator.
const LEAF_PREC: u8 = 3;

/// Where an expression lives: a table entry `(mask, index)` or a node made
/// while answering a query.
#[derive(Debug, Clone, Copy)]
enum Ref {
    Entry(u16, u32),
    Node(u32),
}

#[derive(Debug, Clone, Copy)]
enum Build {
    Leaf(u8),
    Bin(Op, Ref, Ref),
}

/// One class of a small subset.
#[derive(Debug, Clone, Copy)]
struct Entry {
    fp: Fp,
    /// Inverse of `fp`, for dividing by this class.
    inv: Fp,
    value: Rational,
    shape: Shape,
    build: Build,
}

/// One class found by a query (its value is the query's target).
#[derive(Debug, Clone, Copy)]
struct Cand {
    fp: Fp,
    shape: Shape,
    node: Ref,
}

fn combine_shape(op: Op, l: Shape, r: Shape) -> Shape {
    let p = op.precedence();
    let lp = u16::from(l.prec < p);
    let rp = u16::from(r.prec < p || (r.prec == p && matches!(op, Op::Sub | Op::Div)));
    let rn = u16::from(r.prec == p);
    // `+` and `×`: the operand with fewer cards first, as people write
    // `5 × (5 − 1 ÷ 5)`; then cards in ascending order, `1 + 2 + 3`.
    let commutes = matches!(op, Op::Add | Op::Mul);
    let size = u16::from(commutes && l.n > r.n);
    let order = u16::from(commutes && l.hi > r.lo);
    Shape {
        cost: (
            l.cost.0.saturating_add(r.cost.0).saturating_add(lp + rp),
            l.cost.1.saturating_add(r.cost.1).saturating_add(rn),
            l.cost.2.saturating_add(r.cost.2).saturating_add(size),
            l.cost.3.saturating_add(r.cost.3).saturating_add(order),
        ),
        prec: p,
        lo: l.lo.min(r.lo),
        hi: l.hi.max(r.hi),
        n: l.n.saturating_add(r.n),
    }
}

/// The shape of `l op r` and what to build; for `+` and `×` the cheaper of
/// the two orders (they are the same class).
fn oriented<T>(
    op: Op,
    l: (Shape, Ref),
    r: (Shape, Ref),
    make: impl Fn(Op, Ref, Ref) -> T,
) -> (Shape, T) {
    let shape = combine_shape(op, l.0, r.0);
    if matches!(op, Op::Add | Op::Mul) {
        let flipped = combine_shape(op, r.0, l.0);
        if flipped.cost < shape.cost {
            return (flipped, make(op, r.1, l.1));
        }
    }
    (shape, make(op, l.1, r.1))
}

/// The fingerprint of `l op r`; `None` when dividing by a fingerprint with
/// no inverse (probability about 2^-61, and the class is then skipped).
#[inline]
fn combine_fp(op: Op, l: Fp, r: Fp, r_inv: impl FnOnce() -> Fp) -> Option<Fp> {
    Some(match op {
        Op::Add => l.add(r),
        Op::Sub => l.sub(r),
        Op::Mul => l.mul(r),
        Op::Div => {
            if r.has_zero() {
                return None;
            }
            l.mul(r_inv())
        }
    })
}

/// What a query needs from the other part of a split.
enum Need {
    Exact(Rational),
    /// Any class (non-zero ones only if set): `0 × y = 0`, `0 ÷ y = 0`.
    Any {
        nonzero: bool,
    },
}

/// A table's entries grouped by exact value: `order` lists the entry
/// indices value by value, `at` says where each value's run starts and how
/// long it is (one allocation per table instead of one per value).
#[derive(Debug, Default)]
struct ValueIndex {
    at: FxHashMap<Rational, (u32, u32)>,
    order: Vec<u32>,
}

impl ValueIndex {
    fn new(entries: &[Entry]) -> Self {
        // Count each value's entries, turn counts into run starts, then fill
        // the runs in entry order (counting each run up to its length again).
        let mut at: FxHashMap<Rational, (u32, u32)> =
            FxHashMap::with_capacity_and_hasher(entries.len(), Default::default());
        for e in entries {
            at.entry(e.value).or_default().1 += 1;
        }
        let mut start = 0;
        for run in at.values_mut() {
            let len = run.1;
            *run = (start, 0);
            start += len;
        }
        let mut order = vec![0; entries.len()];
        for (i, e) in entries.iter().enumerate() {
            if let Some(run) = at.get_mut(&e.value) {
                order[(run.0 + run.1) as usize] = i as u32;
                run.1 += 1;
            }
        }
        ValueIndex { at, order }
    }

    /// The indices of the entries with value `v`.
    fn get(&self, v: &Rational) -> Option<&[u32]> {
        let &(start, len) = self.at.get(v)?;
        self.order.get(start as usize..(start + len) as usize)
    }
}

struct Distinct<'a> {
    cards: &'a [i64],
    rules: Rules,
    /// Subsets up to this size get full tables.
    small: u32,
    tables: Vec<Option<Rc<Vec<Entry>>>>,
    /// Per table: value → indices of the entries with that value.
    index: Vec<Option<Rc<ValueIndex>>>,
    nodes: Vec<(Op, Ref, Ref)>,
    memo: FxHashMap<(u16, Rational), Rc<Vec<Cand>>>,
    /// The answer of most queries, shared rather than allocated each time.
    none: Rc<Vec<Cand>>,
    overflow: bool,
}

impl<'a> Distinct<'a> {
    fn new(cards: &'a [i64], rules: Rules) -> Self {
        let n = cards.len();
        Distinct {
            cards,
            rules,
            // The walked part of a split is at most half the subset.
            small: (n as u32).div_ceil(2).max(3),
            tables: vec![None; 1 << n],
            index: vec![None; 1 << n],
            nodes: Vec::new(),
            memo: FxHashMap::default(),
            none: Rc::new(Vec::new()),
            overflow: false,
        }
    }

    fn entry(&self, mask: u16, i: u32) -> Option<&Entry> {
        self.tables[mask as usize].as_ref()?.get(i as usize)
    }

    fn expr(&self, r: Ref) -> Expr {
        let (op, l, rr) = match r {
            Ref::Entry(m, i) => match self.entry(m, i).map(|e| e.build) {
                Some(Build::Leaf(c)) => return Expr::Card(self.cards[c as usize]),
                Some(Build::Bin(op, l, r)) => (op, l, r),
                // Unreachable by construction; a harmless placeholder keeps
                // this total without a panic.
                None => return Expr::Card(0),
            },
            Ref::Node(id) => self.nodes[id as usize],
        };
        Expr::bin(op, self.expr(l), self.expr(rr))
    }

    /// Builds the table of `mask` (and first those of its subsets).
    fn ensure_table(&mut self, mask: u16) {
        if self.tables[mask as usize].is_some() {
            return;
        }
        if mask.count_ones() == 1 {
            let c = mask.trailing_zeros() as u8;
            let v = self.cards[c as usize];
            let fp = Fp::card(v);
            let e = Entry {
                fp,
                inv: fp.inverse(),
                value: Rational::from_int(v),
                shape: Shape {
                    cost: (0, 0, 0, 0),
                    prec: LEAF_PREC,
                    lo: v,
                    hi: v,
                    n: 1,
                },
                build: Build::Leaf(c),
            };
            self.tables[mask as usize] = Some(Rc::new(vec![e]));
            return;
        }
        let low = mask & mask.wrapping_neg();
        // At most one class per combination: sized once, never rehashed.
        let mut bound = 0;
        let mut a = (mask - 1) & mask;
        while a != 0 {
            if a & low != 0 {
                self.ensure_table(a);
                self.ensure_table(mask ^ a);
                let size = |m: u16| self.tables[m as usize].as_ref().map_or(0, |t| t.len());
                bound += size(a) * size(mask ^ a) * COMBOS.len();
            }
            a = (a - 1) & mask;
        }
        let bound = bound.min(MOST_PRESIZED);
        let mut entries: Vec<Entry> = Vec::with_capacity(bound);
        let mut seen: FxHashMap<Fp, u32> =
            FxHashMap::with_capacity_and_hasher(bound, Default::default());
        let mut a = (mask - 1) & mask;
        while a != 0 {
            if a & low != 0 {
                let b = mask ^ a;
                self.ensure_table(a);
                self.ensure_table(b);
                let (Some(ta), Some(tb)) = (
                    self.tables[a as usize].clone(),
                    self.tables[b as usize].clone(),
                ) else {
                    continue;
                };
                for (ia, ea) in ta.iter().enumerate() {
                    for (ib, eb) in tb.iter().enumerate() {
                        let ra = Ref::Entry(a, ia as u32);
                        let rb = Ref::Entry(b, ib as u32);
                        for (op, swapped) in COMBOS {
                            let (l, r, rl, rr) = if swapped {
                                (eb, ea, rb, ra)
                            } else {
                                (ea, eb, ra, rb)
                            };
                            let value = match op.apply(l.value, r.value) {
                                Ok(v) if self.rules.allows(v) => v,
                                Ok(_) => continue,
                                Err(e) => {
                                    note_overflow(e, &mut self.overflow);
                                    continue;
                                }
                            };
                            let Some(fp) = combine_fp(op, l.fp, r.fp, || r.inv) else {
                                continue;
                            };
                            let (shape, build) =
                                oriented(op, (l.shape, rl), (r.shape, rr), Build::Bin);
                            match seen.get(&fp) {
                                None => {
                                    seen.insert(fp, entries.len() as u32);
                                    entries.push(Entry {
                                        fp,
                                        inv: Fp::default(),
                                        value,
                                        shape,
                                        build,
                                    });
                                }
                                Some(&k) => {
                                    let old = &mut entries[k as usize];
                                    if shape.cost < old.shape.cost {
                                        old.shape = shape;
                                        old.build = build;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            a = (a - 1) & mask;
        }
        let fps: Vec<Fp> = entries.iter().map(|e| e.fp).collect();
        for (e, inv) in entries.iter_mut().zip(batch_inverse(&fps)) {
            e.inv = inv;
        }
        self.tables[mask as usize] = Some(Rc::new(entries));
    }

    fn ensure_index(&mut self, mask: u16) -> Rc<ValueIndex> {
        if let Some(ix) = &self.index[mask as usize] {
            return ix.clone();
        }
        self.ensure_table(mask);
        let ix = self.tables[mask as usize]
            .as_deref()
            .map_or_else(ValueIndex::default, |t| ValueIndex::new(t));
        let ix = Rc::new(ix);
        self.index[mask as usize] = Some(ix.clone());
        ix
    }

    fn entry_cand(&self, mask: u16, i: u32) -> Option<Cand> {
        self.entry(mask, i).map(|e| Cand {
            fp: e.fp,
            shape: e.shape,
            node: Ref::Entry(mask, i),
        })
    }

    /// Every class of `mask` (non-zero ones only if asked), from its table.
    fn all_classes(&mut self, mask: u16, nonzero: bool) -> Vec<Cand> {
        self.ensure_table(mask);
        let Some(t) = self.tables[mask as usize].clone() else {
            return Vec::new();
        };
        t.iter()
            .enumerate()
            .filter(|(_, e)| !nonzero || !e.value.is_zero())
            .filter_map(|(i, _)| self.entry_cand(mask, i as u32))
            .collect()
    }

    /// Every class of expressions over exactly the cards of `mask`, obeying
    /// the rules, with value `t` (one representative each).
    fn classes(&mut self, mask: u16, t: Rational) -> Rc<Vec<Cand>> {
        let size = mask.count_ones();
        if size <= self.small || self.tables[mask as usize].is_some() {
            let ix = self.ensure_index(mask);
            return match ix.get(&t) {
                Some(is) => Rc::new(
                    is.iter()
                        .filter_map(|&i| self.entry_cand(mask, i))
                        .collect(),
                ),
                None => self.none.clone(),
            };
        }
        if !self.rules.allows(t) {
            return self.none.clone();
        }
        if let Some(found) = self.memo.get(&(mask, t)) {
            return found.clone();
        }
        let mut out: Vec<Cand> = Vec::new();
        let mut seen: FxHashMap<Fp, usize> = FxHashMap::default();
        let mut a = (mask - 1) & mask;
        while a != 0 {
            let b = mask ^ a;
            let (na, nb) = (a.count_ones(), b.count_ones());
            if na < nb || (na == nb && a < b) {
                self.split(a, b, t, &mut out, &mut seen);
            }
            a = (a - 1) & mask;
        }
        let out = if out.is_empty() {
            self.none.clone()
        } else {
            Rc::new(out)
        };
        self.memo.insert((mask, t), out.clone());
        out
    }

    /// Adds to `out` the classes `x op y = t` (either order) with `x` from
    /// the table of `a` and `y` from the classes of `b`.
    fn split(
        &mut self,
        a: u16,
        b: u16,
        t: Rational,
        out: &mut Vec<Cand>,
        seen: &mut FxHashMap<Fp, usize>,
    ) {
        self.ensure_table(a);
        let Some(ta) = self.tables[a as usize].clone() else {
            return;
        };
        let b_index = (b.count_ones() <= self.small || self.tables[b as usize].is_some())
            .then(|| self.ensure_index(b));
        let mut scratch: Vec<Cand> = Vec::new();
        for (ia, ea) in ta.iter().enumerate() {
            let v = ea.value;
            let ca = Cand {
                fp: ea.fp,
                shape: ea.shape,
                node: Ref::Entry(a, ia as u32),
            };
            for (op, swapped) in COMBOS {
                // `swapped`: the walked value is the right operand.
                let v_left = !swapped;
                let need = match (op, v_left) {
                    (Op::Add, _) => t.checked_sub(v).map(Need::Exact),
                    (Op::Sub, true) => v.checked_sub(t).map(Need::Exact),
                    (Op::Sub, false) => t.checked_add(v).map(Need::Exact),
                    (Op::Mul, _) if v.is_zero() => {
                        if !t.is_zero() {
                            continue;
                        }
                        Ok(Need::Any { nonzero: false })
                    }
                    (Op::Mul, _) => t.checked_div(v).map(Need::Exact),
                    (Op::Div, true) if t.is_zero() => {
                        if !v.is_zero() {
                            continue;
                        }
                        Ok(Need::Any { nonzero: true })
                    }
                    (Op::Div, true) if v.is_zero() => continue,
                    (Op::Div, true) => v.checked_div(t).map(Need::Exact),
                    (Op::Div, false) if v.is_zero() => continue,
                    (Op::Div, false) => t.checked_mul(v).map(Need::Exact),
                };
                let rc: Rc<Vec<Cand>>;
                let cands: &[Cand] = match need {
                    // A table: read its index directly (no allocation).
                    Ok(Need::Exact(y)) if b_index.is_some() => {
                        scratch.clear();
                        if let Some(is) = b_index.as_ref().and_then(|ix| ix.get(&y)) {
                            scratch.extend(is.iter().filter_map(|&i| self.entry_cand(b, i)));
                        }
                        &scratch
                    }
                    Ok(Need::Exact(y)) => {
                        rc = self.classes(b, y);
                        &rc
                    }
                    Ok(Need::Any { nonzero }) => {
                        rc = Rc::new(self.all_classes(b, nonzero));
                        &rc
                    }
                    Err(e) => {
                        note_overflow(e, &mut self.overflow);
                        continue;
                    }
                };
                for cb in cands {
                    let (l, r) = if v_left { (&ca, cb) } else { (cb, &ca) };
                    let r_inv = || match r.node {
                        Ref::Entry(m, i) => self.entry(m, i).map_or(Fp::default(), |e| e.inv),
                        Ref::Node(_) => r.fp.inverse(),
                    };
                    let Some(fp) = combine_fp(op, l.fp, r.fp, r_inv) else {
                        continue;
                    };
                    let (shape, (op, ln, rn)) =
                        oriented(op, (l.shape, l.node), (r.shape, r.node), |op, l, r| {
                            (op, l, r)
                        });
                    let better = match seen.get(&fp) {
                        None => true,
                        Some(&k) => shape.cost < out[k].shape.cost,
                    };
                    if !better {
                        continue;
                    }
                    let id = self.nodes.len() as u32;
                    self.nodes.push((op, ln, rn));
                    let cand = Cand {
                        fp,
                        shape,
                        node: Ref::Node(id),
                    };
                    match seen.get(&fp) {
                        Some(&k) => out[k] = cand,
                        None => {
                            seen.insert(fp, out.len());
                            out.push(cand);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(cards: &[i64], target: i64, rules: Rules) -> Vec<String> {
        solve_all(cards, target, rules)
            .unwrap()
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn counts_expressions_like_oeis_a140606() {
        let cards = [2, 30, 500, 7000, 110000];
        for (n, want) in [(1, 1), (2, 6), (3, 68), (4, 1170), (5, 27142)] {
            assert_eq!(
                all_expressions(&cards[..n], Rules::Free).unwrap(),
                want,
                "{n} cards"
            );
        }
    }

    #[test]
    fn commuted_and_regrouped_forms_are_one_solution() {
        assert_eq!(strings(&[8, 2], 10, Rules::Free), vec!["2 + 8"]);
        // 2 + 2 and 2 × 2 are different solutions.
        assert_eq!(strings(&[2, 2], 4, Rules::Free), vec!["2 + 2", "2 × 2"]);
        // Representatives read naturally.
        assert_eq!(
            strings(&[5, 1, 5, 5], 24, Rules::Free),
            vec!["5 × (5 - 1 ÷ 5)"]
        );
        assert_eq!(strings(&[3, 2, 1], 6, Rules::Integer)[0], "1 + 2 + 3");
        // a + b + c, a × b × c and c ÷ a × b.
        assert_eq!(count_solutions(&[1, 2, 3], 6, Rules::Free).unwrap(), 3);
        // a - (b - c) and a + c - b are one solution.
        assert_eq!(count_solutions(&[9, 2, 3], 10, Rules::Free).unwrap(), 1);
    }

    #[test]
    fn rules_filter_intermediates() {
        // 8 ÷ (3 − 8 ÷ 3) = 24 needs a fraction.
        assert_eq!(count_solutions(&[3, 3, 8, 8], 24, Rules::Free).unwrap(), 1);
        assert_eq!(
            count_solutions(&[3, 3, 8, 8], 24, Rules::Integer).unwrap(),
            0
        );
        assert!(count_solutions(&[1, 5], -4, Rules::Integer).unwrap() == 1);
        assert!(count_solutions(&[1, 5], -4, Rules::International).unwrap() == 0);
    }

    #[test]
    fn every_solution_is_exact_and_deterministic() {
        let cards = [4, 9, 9, 13, 21];
        let a = solve_all(&cards, 11, Rules::Free).unwrap();
        assert!(!a.is_empty());
        for e in &a {
            assert_eq!(e.value().unwrap(), Rational::from_int(11));
        }
        assert_eq!(a, solve_all(&cards, 11, Rules::Free).unwrap());
        assert_eq!(a.len(), count_solutions(&cards, 11, Rules::Free).unwrap());
    }
}
