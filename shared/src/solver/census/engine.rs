//! The shared work of a census: stored value sets of small sub-multisets,
//! and the look-ups that decide whether a split of a hand makes a target.

use std::sync::atomic::{AtomicBool, Ordering};

use rustc_hash::FxHashMap;

use super::multiset::{for_each_split, key};
use super::value_set::ValueSet;
use super::Spec;
use crate::rational::{ArithError, Rational};
use crate::rules::Rules;
use crate::solver::COMBOS;

/// The shared work: value sets of small sub-multisets.
pub(super) struct Engine<'a> {
    pub(super) spec: &'a Spec,
    pub(super) rules: Rules,
    pub(super) store: FxHashMap<u64, ValueSet>,
    /// Half-width of every set's bitmap.
    pub(super) window: i64,
    /// Stands in for a part with no stored set.
    pub(super) empty: ValueSet,
    pub(super) overflow: AtomicBool,
}

impl Engine<'_> {
    pub(super) fn note(&self, e: ArithError) {
        if e == ArithError::Overflow {
            self.overflow.store(true, Ordering::Relaxed);
        }
    }

    /// The values of `ms` (every card used, or any subset of them in
    /// Countdown), from the stored sets of its parts.
    pub(super) fn compute(&self, ms: &[u8]) -> ValueSet {
        let mut set = ValueSet::new(self.window);
        self.compute_into(ms, &mut set);
        set
    }

    /// [`Engine::compute`] into a cleared, reusable set.
    pub(super) fn compute_into(&self, ms: &[u8], set: &mut ValueSet) {
        set.clear();
        if ms.len() == 1 {
            set.insert(Rational::from_int(self.spec.values[ms[0] as usize]));
            return;
        }
        let get = |k: u64| self.store.get(&k).unwrap_or(&self.empty);
        let mut pairs: Vec<(u64, u64)> = Vec::new();
        for_each_split(ms, |ka, na, kb, nb| {
            if na > 0 && nb > 0 && ka <= kb {
                pairs.push((ka, kb));
            }
        });
        let whole = self.rules != Rules::Free;
        for (ka, kb) in pairs {
            let (sa, sb) = (get(ka), get(kb));
            if whole {
                self.combine_whole(sa, sb, set);
                continue;
            }
            for &x in sa.iter() {
                for &y in sb.iter() {
                    for (op, swapped) in COMBOS {
                        let (l, r) = if swapped { (y, x) } else { (x, y) };
                        match op.apply(l, r) {
                            Ok(v) if self.rules.allows(v) => {
                                set.insert(v);
                            }
                            Ok(_) => {}
                            Err(e) => self.note(e),
                        }
                    }
                }
            }
        }
        if self.spec.any_subset {
            for (i, &x) in ms.iter().enumerate() {
                if i > 0 && ms[i - 1] == x {
                    continue;
                }
                let mut sub = ms.to_vec();
                sub.remove(i);
                for &v in get(key(&sub)).iter() {
                    set.insert(v);
                }
            }
        }
    }

    /// Adds to `set` every `x op y` (either order) the rules allow, for
    /// sets of whole numbers (whole-number rules): plain `i64` arithmetic,
    /// a quotient that is not whole being no value.
    fn combine_whole(&self, sa: &ValueSet, sb: &ValueSet, set: &mut ValueSet) {
        let ys: Vec<i64> = sb.iter().filter_map(Rational::to_integer).collect();
        let mut add = |v: Option<i64>| match v {
            Some(v) => {
                let r = Rational::from_int(v);
                if self.rules.allows(r) {
                    set.insert(r);
                }
            }
            None => self.overflow.store(true, Ordering::Relaxed),
        };
        for x in sa.iter().filter_map(Rational::to_integer) {
            for &y in &ys {
                whole_results(x, y, &mut add);
            }
        }
    }

    /// Whether `t = s op c` or `t = c op s` for some `s` in `set`.
    pub(super) fn reaches_with(&self, set: &ValueSet, c: Rational, t: Rational) -> bool {
        if c.is_zero() && t.is_zero() && !set.is_empty() {
            // 0 × s = 0 for any s.
            return true;
        }
        if let (Some(ci), Some(ti)) = (c.to_integer(), t.to_integer()) {
            return self.reaches_with_int(set, ci, ti);
        }
        let needs = [
            t.checked_sub(c),
            t.checked_add(c),
            c.checked_sub(t),
            t.checked_div(c),
            t.checked_mul(c),
            c.checked_div(t),
        ];
        needs.into_iter().enumerate().any(|(k, need)| match need {
            // s ÷ c and c ÷ s need c ≠ 0 (zero was handled above).
            Ok(s) => (k < 4 || !c.is_zero()) && set.contains(&s),
            Err(e) => {
                self.note(e);
                false
            }
        })
    }
}

impl Engine<'_> {
    /// [`Engine::reaches_with`] for a whole card and target, in plain `i64`.
    #[inline]
    pub(super) fn reaches_with_int(&self, set: &ValueSet, c: i64, t: i64) -> bool {
        let hit = |v: Option<i64>| match v {
            Some(v) => set.contains_int(v),
            None => {
                self.overflow.store(true, Ordering::Relaxed);
                false
            }
        };
        if hit(t.checked_sub(c)) || hit(t.checked_add(c)) || hit(c.checked_sub(t)) {
            return true;
        }
        if c == 0 {
            // s × 0 = t needs t = 0, handled by the caller; s ÷ 0, 0 ÷ s never.
            return false;
        }
        if hit(t.checked_mul(c)) {
            return true;
        }
        // Fractions can only be in the set under free rules.
        let fractions = self.rules == Rules::Free;
        let quotient = |num: i64, den: i64| -> bool {
            match num.checked_rem(den) {
                Some(0) => hit(num.checked_div(den)),
                Some(_) => fractions && Rational::new(num, den).is_ok_and(|q| set.contains(&q)),
                None => hit(None),
            }
        };
        quotient(t, c) || (t != 0 && quotient(c, t))
    }
}

impl Engine<'_> {
    /// Closes the open targets (`open[i]` for target `lo + i`) that are
    /// `x op y` (either order) with `x` from the stored part `a`, `y` from
    /// the stored part `b`; returns how many it closed. With many targets
    /// open it combines the two sets outright; with few it walks the smaller
    /// set per target and looks the needed value up in the larger.
    pub(super) fn close_split(
        &self,
        a: u64,
        b: u64,
        lo: i64,
        targets: &[Rational],
        open: &mut [bool],
    ) -> usize {
        let (Some(sa), Some(sb)) = (self.store.get(&a), self.store.get(&b)) else {
            return 0;
        };
        let (big, small) = if sa.list.len() >= sb.list.len() {
            (sa, sb)
        } else {
            (sb, sa)
        };
        let n_open = open.iter().filter(|&&o| o).count();
        let mut closed = 0;
        if big.list.len() < n_open && self.rules != Rules::Free {
            // Whole-number rules: every value is an integer, and a quotient
            // that is not whole is no value, so plain `i64` arithmetic
            // (no fraction built and reduced only to be refused).
            let ints = |set: &ValueSet| -> Vec<i64> {
                set.iter().filter_map(Rational::to_integer).collect()
            };
            let (xs, ys) = (ints(big), ints(small));
            let mut close = |v: Option<i64>| {
                let Some(v) = v else {
                    self.overflow.store(true, Ordering::Relaxed);
                    return;
                };
                // `open` only holds targets the rules allow at the root.
                if let Some(slot) = v
                    .checked_sub(lo)
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| open.get_mut(i))
                {
                    if *slot {
                        *slot = false;
                        closed += 1;
                    }
                }
            };
            for &x in &xs {
                for &y in &ys {
                    whole_results(x, y, &mut close);
                }
            }
        } else if big.list.len() < n_open {
            for &x in big.iter() {
                for &y in small.iter() {
                    for (op, swapped) in COMBOS {
                        let (l, r) = if swapped { (y, x) } else { (x, y) };
                        let v = match op.apply(l, r) {
                            Ok(v) => v,
                            Err(e) => {
                                self.note(e);
                                continue;
                            }
                        };
                        let Some(i) = v
                            .to_integer()
                            .and_then(|v| v.checked_sub(lo))
                            .and_then(|i| usize::try_from(i).ok())
                        else {
                            continue;
                        };
                        if i < open.len() && open[i] && self.rules.allows(v) {
                            open[i] = false;
                            closed += 1;
                        }
                    }
                }
            }
        } else {
            for (i, &t) in targets.iter().enumerate() {
                if open[i] && small.iter().any(|&y| self.reaches_with(big, y, t)) {
                    open[i] = false;
                    closed += 1;
                }
            }
        }
        closed
    }
}

/// Hands `f` every `x op y` and `y op x` in whole numbers: `None` for an
/// overflow; a quotient that is not whole (or a division by zero) is no
/// value and is left out.
#[inline(always)]
fn whole_results(x: i64, y: i64, f: &mut impl FnMut(Option<i64>)) {
    f(x.checked_add(y));
    f(x.checked_mul(y));
    f(x.checked_sub(y));
    f(y.checked_sub(x));
    for (a, b) in [(x, y), (y, x)] {
        // `checked_rem` fails only for a zero divisor (no value) and for
        // i64::MIN ÷ −1 (an overflow).
        match a.checked_rem(b) {
            Some(0) => f(a.checked_div(b)),
            None if b != 0 => f(None),
            _ => {}
        }
    }
}
