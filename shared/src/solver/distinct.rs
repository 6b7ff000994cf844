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

use std::collections::hash_map::Entry as MapEntry;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::fingerprint::{self as modp, Fp};
use super::{note_overflow, validate, SolveError, COMBOS};
use crate::formula::ast::{Expr, Op};
use crate::rational::{ArithError, Rational};
use crate::rules::Rules;

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

/// The residue of `l op r` (the right operand's inverse for division).
#[inline]
fn combine_res(op: Op, l: u64, r: u64, r_inv: u64) -> u64 {
    match op {
        Op::Add => modp::add(l, r),
        Op::Sub => modp::sub(l, r),
        Op::Mul => modp::mul(l, r),
        Op::Div => modp::mul(l, r_inv),
    }
}

/// The value `y` with `v op y = t` (`v_left`) or `y op v = t`: exactly.
#[inline]
fn exact_need(op: Op, v_left: bool, t: Rational, v: Rational) -> Result<Rational, ArithError> {
    match (op, v_left) {
        (Op::Add, _) => t.checked_sub(v),
        (Op::Sub, true) => v.checked_sub(t),
        (Op::Sub, false) => t.checked_add(v),
        (Op::Mul, _) => t.checked_div(v),
        (Op::Div, true) => v.checked_div(t),
        (Op::Div, false) => t.checked_mul(v),
    }
}

/// [`exact_need`] modulo the prime, from residues and their inverses (`v`
/// and `t` non-zero where they divide).
#[inline]
fn residue_need(op: Op, v_left: bool, t: (u64, u64), v: (u64, u64)) -> u64 {
    match (op, v_left) {
        (Op::Add, _) => modp::sub(t.0, v.0),
        (Op::Sub, true) => modp::sub(v.0, t.0),
        (Op::Sub, false) => modp::add(t.0, v.0),
        (Op::Mul, _) => modp::mul(t.0, v.1),
        (Op::Div, true) => modp::mul(v.0, t.1),
        (Op::Div, false) => modp::mul(t.0, v.0),
    }
}

/// What a query needs from the other part of a split.
enum Need {
    Exact,
    /// Any class (non-zero ones only if set): `0 × y = 0`, `0 ÷ y = 0`.
    Any {
        nonzero: bool,
    },
}

/// A table's entries grouped by exact value: `order` lists the entry
/// indices value by value, `at` says where each value's run starts and how
/// long it is (one allocation per table instead of one per value). Only
/// built where residues cannot be used (values that are not narrow).
#[derive(Debug, Default)]
struct ValueIndex {
    at: FxHashMap<Rational, (u32, u32)>,
    order: Vec<u32>,
}

impl ValueIndex {
    /// The index of `entries`, which start at index `first` of all entries.
    fn new(entries: &[Entry], first: usize) -> Self {
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
                order[(run.0 + run.1) as usize] = (first + i) as u32;
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

/// Where a table's residue index lives in [`Distinct::slots`]: open
/// addressing with linear probing, `mask + 1` slots from `start`.
#[derive(Debug, Clone, Copy, Default)]
struct Slots {
    start: u32,
    mask: u32,
}

/// How many slots the residue index of a table of `len` classes has: at
/// most half of them full, so probes stay short.
fn slot_count(len: usize) -> usize {
    (2 * len).next_power_of_two().max(2)
}

/// The home slot of a residue (Fibonacci hashing: small whole numbers,
/// whose residues are themselves, spread over the slots too).
#[inline]
fn home(res: u64, mask: u32) -> usize {
    (res.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask as usize
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
    fn span(&self, mask: u16) -> Option<(usize, usize)> {
        self.spans[mask as usize].map(|(start, len)| (start as usize, len as usize))
    }

    fn table(&self, mask: u16) -> &[Entry] {
        self.span(mask)
            .and_then(|(start, len)| self.entries.get(start..start + len))
            .unwrap_or_default()
    }

    fn entry(&self, i: u32) -> Option<&Entry> {
        self.entries.get(i as usize)
    }

    fn expr(&self, r: Ref) -> Expr {
        let (op, l, rr) = match r {
            Ref::Entry(i) => match self.entry(i).map(|e| e.build) {
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

    /// A card or an operator node.
    fn node(&self, r: Ref) -> Result<(Op, Ref, Ref), i64> {
        match r {
            Ref::Entry(i) => match self.entry(i).map(|e| e.build) {
                Some(Build::Bin(op, l, r)) => Ok((op, l, r)),
                Some(Build::Leaf(c)) => Err(self.cards[c as usize]),
                None => Err(0),
            },
            Ref::Node(id) => Ok(self.nodes[id as usize]),
        }
    }

    /// Appends `r` printed exactly as [`Expr`]'s `Display` prints the
    /// expression [`Distinct::expr`] builds, without building it.
    fn print(&self, r: Ref, out: &mut String) {
        let prec = |r: Ref| self.node(r).map_or(u8::MAX, |(op, _, _)| op.precedence());
        let (op, l, rr) = match self.node(r) {
            Ok(bin) => bin,
            Err(card) => return push_int(out, card),
        };
        let p = op.precedence();
        self.print_child(l, prec(l) < p, out);
        out.push(' ');
        out.push_str(op.symbol());
        out.push(' ');
        let rp = prec(rr);
        self.print_child(
            rr,
            rp < p || (rp == p && matches!(op, Op::Sub | Op::Div)),
            out,
        );
    }

    fn print_child(&self, r: Ref, parens: bool, out: &mut String) {
        if parens {
            out.push('(');
            self.print(r, out);
            out.push(')');
        } else {
            self.print(r, out);
        }
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

    fn entry_cand(&self, i: u32) -> Option<Cand> {
        self.entry(i).map(|e| Cand {
            fp: e.fp,
            shape: e.shape,
            node: Ref::Entry(i),
        })
    }

    /// Every class of `mask` (non-zero ones only if asked), from its table.
    fn all_classes(&mut self, mask: u16, nonzero: bool) -> Vec<Cand> {
        self.ensure_table(mask);
        let Some((first, len)) = self.span(mask) else {
            return Vec::new();
        };
        (first..first + len)
            .filter(|&i| !nonzero || !self.entries[i].value.is_zero())
            .filter_map(|i| self.entry_cand(i as u32))
            .collect()
    }

    /// Every class of expressions over exactly the cards of `mask`, obeying
    /// the rules, with value `t` (one representative each). Subsets of up
    /// to `small` cards must have their tables built.
    fn classes(&mut self, mask: u16, t: Rational) -> Rc<Vec<Cand>> {
        if self.spans[mask as usize].is_some() {
            let ix = self.ensure_index(mask);
            return match ix.get(&t) {
                Some(is) => Rc::new(is.iter().filter_map(|&i| self.entry_cand(i)).collect()),
                None => self.none.clone(),
            };
        }
        if !self.rules.allows(t) {
            return self.none.clone();
        }
        if let Some(found) = self.memo.get(&(mask, t)) {
            return found.clone();
        }
        let t_res = (self.narrow && is_narrow(t)).then(|| modp::residue_pair(t.numer(), t.denom()));
        let mut out: Vec<Cand> = Vec::new();
        let mut seen: FxHashMap<Fp, usize> = FxHashMap::default();
        let mut a = (mask - 1) & mask;
        while a != 0 {
            let b = mask ^ a;
            let (na, nb) = (a.count_ones(), b.count_ones());
            if na < nb || (na == nb && a < b) {
                self.split(a, b, t, t_res, &mut out, &mut seen);
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

    /// Adds to `scratch` the entries of the table of `b` whose value is
    /// exactly `y`, found by `y`'s residue `key`; `y` is worked out (once)
    /// only if some entry has that residue.
    fn lookup_residue(
        &mut self,
        b: u16,
        key: u64,
        y: impl Fn() -> Result<Rational, ArithError>,
        scratch: &mut Vec<Cand>,
    ) {
        let at = self.slot_at[b as usize];
        let mut h = home(key, at.mask);
        let mut exact = None;
        loop {
            let (res, slot) = self.slots[at.start as usize + h];
            if slot == 0 {
                return;
            }
            if res == key {
                let y = match exact {
                    Some(y) => y,
                    None => match y() {
                        Ok(y) => *exact.insert(y),
                        Err(e) => {
                            // Not for narrow values; kept for safety.
                            note_overflow(e, &mut self.overflow);
                            return;
                        }
                    },
                };
                let i = slot - 1;
                if self.entry(i).is_some_and(|e| e.value == y) {
                    scratch.extend(self.entry_cand(i));
                }
            }
            h = (h + 1) & at.mask as usize;
        }
    }

    /// Adds to `out` the classes `x op y = t` (either order) with `x` from
    /// the table of `a` and `y` from the classes of `b`. `t_res` is `t`'s
    /// residue and its inverse when lookups by residue are sound.
    fn split(
        &mut self,
        a: u16,
        b: u16,
        t: Rational,
        t_res: Option<(u64, u64)>,
        out: &mut Vec<Cand>,
        seen: &mut FxHashMap<Fp, usize>,
    ) {
        let Some((first, len)) = self.span(a) else {
            return;
        };
        let b_table = self.spans[b as usize].is_some();
        // Sound while every table so far is narrow: a table built later
        // (by `ensure_table`) cannot change the entries of `b`'s.
        let by_residue = t_res.filter(|_| b_table && self.narrow);
        let b_index = (b_table && by_residue.is_none()).then(|| self.ensure_index(b));
        // Only table lookups fill `scratch`; the recursive queries of the
        // other splits take their own.
        let mut scratch = if b_table {
            std::mem::take(&mut self.scratch)
        } else {
            Vec::new()
        };
        for ia in first..first + len {
            let e = &self.entries[ia];
            let (v, v_res) = (e.value, (e.res, e.res_inv));
            let ca = Cand {
                fp: e.fp,
                shape: e.shape,
                node: Ref::Entry(ia as u32),
            };
            for (op, swapped) in COMBOS {
                // `swapped`: the walked value is the right operand.
                let v_left = !swapped;
                let need = match (op, v_left) {
                    (Op::Mul, _) if v.is_zero() => {
                        if !t.is_zero() {
                            continue;
                        }
                        Need::Any { nonzero: false }
                    }
                    (Op::Div, true) if t.is_zero() => {
                        if !v.is_zero() {
                            continue;
                        }
                        Need::Any { nonzero: true }
                    }
                    (Op::Div, _) if v.is_zero() => continue,
                    _ => Need::Exact,
                };
                let rc: Rc<Vec<Cand>>;
                let cands: &[Cand] = match (need, by_residue) {
                    // A table, narrow values: by residue (no allocation, and
                    // no exact fraction unless some residue matches).
                    (Need::Exact, Some(t_res)) => {
                        scratch.clear();
                        let key = residue_need(op, v_left, t_res, v_res);
                        self.lookup_residue(b, key, || exact_need(op, v_left, t, v), &mut scratch);
                        &scratch
                    }
                    (Need::Exact, None) => match exact_need(op, v_left, t, v) {
                        // A table: read its index directly (no allocation).
                        Ok(y) if b_index.is_some() => {
                            scratch.clear();
                            if let Some(is) = b_index.as_ref().and_then(|ix| ix.get(&y)) {
                                scratch.extend(is.iter().filter_map(|&i| self.entry_cand(i)));
                            }
                            &scratch
                        }
                        Ok(y) => {
                            rc = self.classes(b, y);
                            &rc
                        }
                        Err(e) => {
                            note_overflow(e, &mut self.overflow);
                            continue;
                        }
                    },
                    (Need::Any { nonzero }, _) => {
                        rc = Rc::new(self.all_classes(b, nonzero));
                        &rc
                    }
                };
                for cb in cands {
                    let (l, r) = if v_left { (&ca, cb) } else { (cb, &ca) };
                    let r_inv = || match r.node {
                        Ref::Entry(i) if (i as usize) < self.inverted => {
                            self.entry(i).map_or(Fp::default(), |e| e.inv)
                        }
                        Ref::Entry(_) | Ref::Node(_) => r.fp.inverse(),
                    };
                    let Some(fp) = combine_fp(op, l.fp, r.fp, r_inv) else {
                        continue;
                    };
                    let (shape, (op, ln, rn)) =
                        oriented(op, (l.shape, l.node), (r.shape, r.node), |op, l, r| {
                            (op, l, r)
                        });
                    let cand = Cand {
                        fp,
                        shape,
                        node: Ref::Node(self.nodes.len() as u32),
                    };
                    match seen.entry(fp) {
                        MapEntry::Occupied(slot) => {
                            let k = *slot.get();
                            if shape.cost >= out[k].shape.cost {
                                continue;
                            }
                            out[k] = cand;
                        }
                        MapEntry::Vacant(slot) => {
                            slot.insert(out.len());
                            out.push(cand);
                        }
                    }
                    self.nodes.push((op, ln, rn));
                }
            }
        }
        if b_table {
            self.scratch = scratch;
        }
    }
}

/// Appends `v` in decimal, as `{v}` formats it.
fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let mut digits = [0u8; 20];
    let mut n = v.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
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
