//! Sets of exact values with a fast path for small whole numbers.

use rustc_hash::FxHashSet;

use crate::rational::Rational;

/// Half-width of the window of whole numbers kept in a bitmap: most values
/// (and every target of the named variants) are small integers, and a bit
/// test is several times cheaper than hashing a fraction. Krypto's look-ups
/// stay below 25 × 25; Countdown's reach 999 × 100.
pub(super) const WINDOW: i64 = 2048;
pub(super) const WIDE_WINDOW: i64 = 1 << 17;

/// A set of values: whole numbers in `-half..half` as bits, everything else
/// hashed; plus the list of members, in insertion order, to walk.
#[derive(Debug, Clone)]
pub(super) struct ValueSet {
    half: i64,
    pub(super) list: Vec<Rational>,
    bits: Vec<u64>,
    others: FxHashSet<Rational>,
}

impl ValueSet {
    /// An empty set with a bitmap for whole numbers in `-half..half`.
    pub(super) fn new(half: i64) -> Self {
        ValueSet {
            half,
            list: Vec::new(),
            bits: vec![0; (2 * half.max(0) as usize).div_ceil(64)],
            others: FxHashSet::default(),
        }
    }

    #[inline]
    pub(super) fn slot(&self, v: i64) -> Option<usize> {
        (-self.half..self.half)
            .contains(&v)
            .then(|| (v + self.half) as usize)
    }

    pub(super) fn insert(&mut self, r: Rational) {
        let fresh = match r.to_integer().and_then(|v| self.slot(v)) {
            Some(i) => {
                let (w, b) = (i / 64, i % 64);
                let fresh = self.bits[w] >> b & 1 == 0;
                self.bits[w] |= 1 << b;
                fresh
            }
            None => self.others.insert(r),
        };
        if fresh {
            self.list.push(r);
        }
    }

    #[inline]
    pub(super) fn contains_int(&self, v: i64) -> bool {
        match self.slot(v) {
            Some(i) => self.bits[i / 64] >> (i % 64) & 1 == 1,
            None => self.others.contains(&Rational::from_int(v)),
        }
    }

    #[inline]
    pub(super) fn contains(&self, r: &Rational) -> bool {
        match r.to_integer() {
            Some(v) => self.contains_int(v),
            None => self.others.contains(r),
        }
    }

    pub(super) fn clear(&mut self) {
        for r in &self.list {
            if let Some(i) = r.to_integer().and_then(|v| self.slot(v)) {
                self.bits[i / 64] = 0;
            }
        }
        self.others.clear();
        self.list.clear();
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &Rational> {
        self.list.iter()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}
