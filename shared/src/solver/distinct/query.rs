//! Queries: which classes of a subset have a given value, by splitting the
//! subset into a walked part and a looked-up part.

use std::collections::hash_map::Entry as MapEntry;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::combine::{combine_fp, exact_need, oriented, residue_need};
use super::index::home;
use super::{is_narrow, Cand, Distinct, Ref};
use crate::formula::ast::Op;
use crate::rational::{ArithError, Rational};
use crate::solver::fingerprint::{self as modp, Fp};
use crate::solver::{note_overflow, COMBOS};

/// What a query needs from the other part of a split.
enum Need {
    Exact,
    /// Any class (non-zero ones only if set): `0 × y = 0`, `0 ÷ y = 0`.
    Any {
        nonzero: bool,
    },
}

impl Distinct<'_> {
    /// Every class of `mask` (non-zero ones only if asked), from its table.
    pub(super) fn all_classes(&mut self, mask: u16, nonzero: bool) -> Vec<Cand> {
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
    pub(super) fn classes(&mut self, mask: u16, t: Rational) -> Rc<Vec<Cand>> {
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
    pub(super) fn lookup_residue(
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
    pub(super) fn split(
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
