//! Every distinct solution, counted the way a person would.
//!
//! Two expressions are the same solution when they are equal as rational
//! functions of the cards (equal card values being the same variable); the
//! fingerprints of `fingerprint.rs` decide that. The search works on subsets
//! of card positions:
//!
//! - Small subsets (at most `small` cards) get a full table, built level by
//!   level (all subsets of one size, then the next): one entry per class,
//!   each with its exact value, fingerprint, its value modulo the
//!   fingerprints' prime (its "residue"), the inverses of both (one batch
//!   inversion per level, so divisions never need a modular exponentiation
//!   of their own) and how it was built.
//! - "Which classes of subset S have value t" on a larger subset splits S
//!   into a smaller part (walked, from its table) and a larger part, which is
//!   asked recursively for the one value it would need. Only values that can
//!   still reach the target are ever combined.
//! - When the larger part has a table, the needed value is looked up by its
//!   residue, worked out from the residues of `t` and the walked value with
//!   one modular operation: no exact fraction (no gcd) for the many values
//!   no class has. Residues are a ring homomorphism on fractions whose
//!   denominators the prime does not divide, so equal values have equal
//!   residues and no class is missed; every residue match is then checked
//!   against the exact value, so none is added wrongly. That needs every
//!   value involved to be narrow (parts below 2^31, `NARROW`); a hand
//!   with larger values is looked up by exact value instead, as before.
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

mod combine;
mod index;
mod print;
mod query;
#[cfg(test)]
mod tests;

use std::collections::hash_map::Entry as MapEntry;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::fingerprint::{self as modp, Fp};
use super::{note_overflow, validate, SolveError, COMBOS};
use crate::formula::ast::{Expr, Op};
use crate::rational::Rational;
use crate::rules::Rules;
use combine::{combine_fp, combine_res, oriented};
use index::{home, slot_count, Slots, ValueIndex};

/// Every distinct solution: one expression per class of expressions equal to
/// `target` (as rational functions of the cards), each obeying `rules` at
/// every operator node, printed with few parentheses. Sorted by printed
/// length, then by the printed string.
pub fn solve_all(cards: &[i64], target: i64, rules: Rules) -> Result<Vec<Expr>, SolveError> {
    validate(cards)?;
    let mut d = Distinct::new(cards, rules);
    let found = d.solutions(target);
    if d.overflow {
        return Err(SolveError::Overflow);
    }
    // Every solution printed once, into one buffer, straight from the
    // tables (no `Expr` yet); only the sorted ones become `Expr`s.
    let mut printed = String::with_capacity(32 * found.len());
    let mut keys: Vec<(usize, usize, usize, Ref)> = Vec::with_capacity(found.len());
    for c in found.iter() {
        let start = printed.len();
        d.print(c.node, &mut printed);
        let chars = printed.get(start..).map_or(0, |s| s.chars().count());
        keys.push((chars, start, printed.len(), c.node));
    }
    let text = |k: &(usize, usize, usize, Ref)| printed.get(k.1..k.2).unwrap_or_default();
    keys.sort_by(|a, b| (a.0, text(a)).cmp(&(b.0, text(b))));
    Ok(keys.iter().map(|k| d.expr(k.3)).collect())
}

/// How many distinct solutions [`solve_all`] would list.
pub fn count_solutions(cards: &[i64], target: i64, rules: Rules) -> Result<usize, SolveError> {
    validate(cards)?;
    let mut d = Distinct::new(cards, rules);
    let n = d.solutions(target).len();
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
    d.build_tables(cards.len() as u32, false);
    if d.overflow {
        return Err(SolveError::Overflow);
    }
    Ok(d.span(full_mask(cards.len())).map_or(0, |(_, len)| len))
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

/// Values whose numerator and denominator are at most this (in absolute
/// value) are "narrow": any value a query computes from two of them fits in
/// 64 bits, and none of the parts is a multiple of the fingerprints' prime,
/// so such values can be looked up by their residue modulo that prime (see
/// [`Distinct::narrow`]).
const NARROW: u64 = (1 << 31) - 1;

#[inline]
fn is_narrow(v: Rational) -> bool {
    v.numer().unsigned_abs() <= NARROW && v.denom().unsigned_abs() <= NARROW
}

/// Where an expression lives: a table entry (its index among all entries)
/// or a node made while answering a query.
#[derive(Debug, Clone, Copy)]
enum Ref {
    Entry(u32),
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
    /// `value` modulo the fingerprints' prime, and its inverse: the same
    /// arithmetic as the fingerprints, evaluated at the cards themselves.
    /// Meaningful only while every value is narrow.
    res: u64,
    res_inv: u64,
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

struct Distinct<'a> {
    cards: &'a [i64],
    rules: Rules,
    /// Subsets up to this size get full tables.
    small: u32,
    /// Every table's classes, table after table, level (subset size) after
    /// level.
    entries: Vec<Entry>,
    /// Per subset mask: where its table starts in `entries` and how many
    /// classes it has, once built.
    spans: Vec<Option<(u32, u32)>>,
    /// Per table: its residue index, `(residue, entry index + 1)` with 0 for
    /// an empty slot, in `slots`.
    slot_at: Vec<Slots>,
    slots: Vec<(u64, u32)>,
    /// The entries before this index have their inverses.
    inverted: usize,
    /// Whether every table value is narrow (then queries with a narrow
    /// target look values up by residue: one modular operation and one
    /// probe instead of an exact fraction and a hash; only matches are
    /// checked exactly).
    narrow: bool,
    /// Per table: value → indices of the entries with that value, for
    /// queries that cannot use residues.
    index: Vec<Option<Rc<ValueIndex>>>,
    nodes: Vec<(Op, Ref, Ref)>,
    memo: FxHashMap<(u16, Rational), Rc<Vec<Cand>>>,
    /// The answer of most queries, shared rather than allocated each time.
    none: Rc<Vec<Cand>>,
    /// The classes one table lookup found, reused from lookup to lookup.
    scratch: Vec<Cand>,
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
            entries: Vec::new(),
            spans: vec![None; 1 << n],
            slot_at: vec![Slots::default(); 1 << n],
            slots: Vec::new(),
            inverted: 0,
            narrow: true,
            index: vec![None; 1 << n],
            nodes: Vec::new(),
            memo: FxHashMap::default(),
            none: Rc::new(Vec::new()),
            scratch: Vec::new(),
            overflow: false,
        }
    }

    /// The classes equal to `target` over all the cards.
    fn solutions(&mut self, target: i64) -> Rc<Vec<Cand>> {
        let n = self.cards.len();
        self.build_tables(self.small.min(n as u32), true);
        self.classes(full_mask(n), Rational::from_int(target))
    }

    /// Where the table of `mask` is in `entries`, if built.
    #[inline]
    fn span(&self, mask: u16) -> Option<(usize, usize)> {
        self.spans[mask as usize].map(|(start, len)| (start as usize, len as usize))
    }

    #[inline]
    fn table(&self, mask: u16) -> &[Entry] {
        self.span(mask)
            .and_then(|(start, len)| self.entries.get(start..start + len))
            .unwrap_or_default()
    }

    #[inline]
    fn entry(&self, i: u32) -> Option<&Entry> {
        self.entries.get(i as usize)
    }

    /// Builds the tables of every subset of up to `most` cards, smallest
    /// first, with their residue indexes if asked (a lone card is never
    /// looked up); the inverses of each level's fingerprints and residues
    /// come from one batch inversion for the whole level.
    fn build_tables(&mut self, most: u32, index: bool) {
        let n = self.cards.len();
        let mut seen: FxHashMap<Fp, u32> = FxHashMap::default();
        let mut fresh: Vec<Entry> = Vec::new();
        let mut scratch: Vec<u64> = Vec::new();
        let mut prefix: Vec<u64> = Vec::new();
        for size in 1..=most {
            let first = self.entries.len();
            let masks = (1..1u32 << n).filter(|m| m.count_ones() == size);
            // One allocation per level, not a doubling per table.
            self.entries
                .reserve(masks.map(|m| self.bound(m as u16)).sum());
            for mask in 1..1u32 << n {
                if mask.count_ones() == size {
                    self.build_table(mask as u16, &mut seen, &mut fresh);
                }
            }
            // The largest tables are never walked when no split of the hand
            // has a part that large, so their inverses are needed only to
            // divide by the few classes queries find (worked out then).
            if size < most || n as u32 / 2 >= most || !index {
                self.invert_from(first, &mut scratch, &mut prefix);
            }
            let slots = (1..1u32 << n)
                .filter(|m| m.count_ones() == size)
                .filter_map(|m| self.span(m as u16))
                .map(|(_, len)| slot_count(len))
                .sum();
            self.slots.reserve(if index { slots } else { 0 });
            for mask in 1..1u32 << n {
                if index && size > 1 && mask.count_ones() == size {
                    self.index_residues(mask as u16);
                }
            }
        }
    }

    /// Gives the entries from index `first` on their inverses, with one
    /// batch inversion for all of them.
    fn invert_from(&mut self, first: usize, scratch: &mut Vec<u64>, prefix: &mut Vec<u64>) {
        self.inverted = self.entries.len();
        let fresh = self.entries.get_mut(first..).unwrap_or_default();
        scratch.clear();
        for e in fresh.iter() {
            scratch.extend([e.fp.0, e.fp.1, e.res]);
        }
        modp::invert_all(scratch, prefix);
        for (e, inv) in fresh.iter_mut().zip(scratch.chunks_exact(3)) {
            e.inv = Fp(inv[0], inv[1]);
            e.res_inv = inv[2];
        }
    }

    /// Builds the table of a subset larger than the tabulated ones (and
    /// first those of its subsets), for the rare query that needs every
    /// class of it (`0 × y`, `0 ÷ y`).
    fn ensure_table(&mut self, mask: u16) {
        if self.spans[mask as usize].is_some() {
            return;
        }
        if self.inverted < self.entries.len() {
            self.invert_from(self.inverted, &mut Vec::new(), &mut Vec::new());
        }
        let low = mask & mask.wrapping_neg();
        let mut a = (mask - 1) & mask;
        while a != 0 {
            if a & low != 0 {
                self.ensure_table(a);
                self.ensure_table(mask ^ a);
            }
            a = (a - 1) & mask;
        }
        let first = self.entries.len();
        self.build_table(mask, &mut FxHashMap::default(), &mut Vec::new());
        self.invert_from(first, &mut Vec::new(), &mut Vec::new());
        self.index_residues(mask);
    }

    /// Builds the table of `mask` from the tables of its splits (built
    /// already), without the inverses ([`Distinct::build_tables`] adds
    /// them). `seen` and `fresh` are scratch space.
    fn build_table(&mut self, mask: u16, seen: &mut FxHashMap<Fp, u32>, fresh: &mut Vec<Entry>) {
        let start = self.entries.len() as u32;
        if mask.count_ones() == 1 {
            let c = mask.trailing_zeros() as u8;
            let v = self.cards[c as usize];
            let value = Rational::from_int(v);
            self.narrow &= is_narrow(value);
            self.entries.push(Entry {
                fp: Fp::card(v),
                inv: Fp::default(),
                value,
                res: modp::residue(v),
                res_inv: 0,
                shape: Shape {
                    cost: (0, 0, 0, 0),
                    prec: LEAF_PREC,
                    lo: v,
                    hi: v,
                    n: 1,
                },
                build: Build::Leaf(c),
            });
            self.spans[mask as usize] = Some((start, 1));
            return;
        }
        let low = mask & mask.wrapping_neg();
        let bound = self.bound(mask);
        seen.clear();
        seen.reserve(bound);
        fresh.clear();
        fresh.reserve(bound);
        let rules = self.rules;
        let (mut overflow, mut narrow) = (false, true);
        let mut a = (mask - 1) & mask;
        while a != 0 {
            if a & low != 0 {
                let b = mask ^ a;
                let (Some((sa, _)), Some((sb, _))) = (self.span(a), self.span(b)) else {
                    continue;
                };
                for (ia, ea) in self.table(a).iter().enumerate() {
                    for (ib, eb) in self.table(b).iter().enumerate() {
                        let ra = Ref::Entry((sa + ia) as u32);
                        let rb = Ref::Entry((sb + ib) as u32);
                        for (op, swapped) in COMBOS {
                            let (l, r, rl, rr) = if swapped {
                                (eb, ea, rb, ra)
                            } else {
                                (ea, eb, ra, rb)
                            };
                            let value = match op.apply(l.value, r.value) {
                                Ok(v) if rules.allows(v) => v,
                                Ok(_) => continue,
                                Err(e) => {
                                    note_overflow(e, &mut overflow);
                                    continue;
                                }
                            };
                            let Some(fp) = combine_fp(op, l.fp, r.fp, || r.inv) else {
                                continue;
                            };
                            let (shape, build) =
                                oriented(op, (l.shape, rl), (r.shape, rr), Build::Bin);
                            match seen.entry(fp) {
                                MapEntry::Vacant(slot) => {
                                    slot.insert(fresh.len() as u32);
                                    narrow &= is_narrow(value);
                                    fresh.push(Entry {
                                        fp,
                                        inv: Fp::default(),
                                        value,
                                        res: combine_res(op, l.res, r.res, r.res_inv),
                                        res_inv: 0,
                                        shape,
                                        build,
                                    });
                                }
                                MapEntry::Occupied(slot) => {
                                    let old = &mut fresh[*slot.get() as usize];
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
        self.overflow |= overflow;
        self.narrow &= narrow;
        self.entries.extend_from_slice(fresh);
        self.spans[mask as usize] = Some((start, fresh.len() as u32));
    }

    /// At most one class per combination of the classes of a split: the
    /// most classes the table of `mask` can have (capped), so that its
    /// storage is sized once and never rehashed.
    fn bound(&self, mask: u16) -> usize {
        if mask.count_ones() == 1 {
            return 1;
        }
        let low = mask & mask.wrapping_neg();
        let mut bound = 0;
        let mut a = (mask - 1) & mask;
        while a != 0 {
            if a & low != 0 {
                bound += self.table(a).len() * self.table(mask ^ a).len() * COMBOS.len();
            }
            a = (a - 1) & mask;
        }
        bound.min(MOST_PRESIZED)
    }

    /// Builds the residue index of the (built) table of `mask`.
    fn index_residues(&mut self, mask: u16) {
        let Some((first, len)) = self.span(mask) else {
            return;
        };
        let slots = slot_count(len);
        let at = Slots {
            start: self.slots.len() as u32,
            mask: (slots - 1) as u32,
        };
        self.slots.resize(self.slots.len() + slots, (0, 0));
        // In entry order, so the entries of one residue are probed in
        // entry order (as the exact index lists them).
        for i in first..first + len {
            let res = self.entries[i].res;
            let mut h = home(res, at.mask);
            while self.slots[at.start as usize + h].1 != 0 {
                h = (h + 1) & at.mask as usize;
            }
            self.slots[at.start as usize + h] = (res, i as u32 + 1);
        }
        self.slot_at[mask as usize] = at;
    }

    fn ensure_index(&mut self, mask: u16) -> Rc<ValueIndex> {
        if let Some(ix) = &self.index[mask as usize] {
            return ix.clone();
        }
        let first = self.span(mask).map_or(0, |(start, _)| start);
        let ix = Rc::new(ValueIndex::new(self.table(mask), first));
        self.index[mask as usize] = Some(ix.clone());
        ix
    }

    #[inline]
    fn entry_cand(&self, i: u32) -> Option<Cand> {
        self.entry(i).map(|e| Cand {
            fp: e.fp,
            shape: e.shape,
            node: Ref::Entry(i),
        })
    }
}
