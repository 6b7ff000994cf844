//! How a table's classes are found by value: by exact value, or by
//! residue in an open-addressing index.

use rustc_hash::FxHashMap;

use super::Entry;
use crate::rational::Rational;

/// A table's entries grouped by exact value: `order` lists the entry
/// indices value by value, `at` says where each value's run starts and how
/// long it is (one allocation per table instead of one per value). Only
/// built where residues cannot be used (values that are not narrow).
#[derive(Debug, Default)]
pub(super) struct ValueIndex {
    at: FxHashMap<Rational, (u32, u32)>,
    order: Vec<u32>,
}

impl ValueIndex {
    /// The index of `entries`, which start at index `first` of all entries.
    pub(super) fn new(entries: &[Entry], first: usize) -> Self {
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
    #[inline]
    pub(super) fn get(&self, v: &Rational) -> Option<&[u32]> {
        let &(start, len) = self.at.get(v)?;
        self.order.get(start as usize..(start + len) as usize)
    }
}

/// Where a table's residue index lives in [`Distinct::slots`]: open
/// addressing with linear probing, `mask + 1` slots from `start`.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Slots {
    pub(super) start: u32,
    pub(super) mask: u32,
}

/// How many slots the residue index of a table of `len` classes has: at
/// most half of them full, so probes stay short.
pub(super) fn slot_count(len: usize) -> usize {
    (2 * len).next_power_of_two().max(2)
}

/// The home slot of a residue (Fibonacci hashing: small whole numbers,
/// whose residues are themselves, spread over the slots too).
#[inline]
pub(super) fn home(res: u64, mask: u32) -> usize {
    (res.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask as usize
}
