//! Multisets of card values as sorted value indices, packed into one word
//! so they can key a map.

use crate::solver::MAX_CARDS;

/// A multiset as sorted value indices.
pub(super) type Multiset = Vec<u8>;

/// Packs a sorted multiset (at most 8 indices below 255) into one word.
pub(super) fn key(ms: &[u8]) -> u64 {
    ms.iter().fold(0u64, |k, &i| (k << 8) | (u64::from(i) + 1))
}

/// Every multiset of `k` value indices the deck allows, in lexicographic order.
pub(super) fn multisets(copies: &[u32], k: usize) -> Vec<Multiset> {
    fn go(copies: &[u32], k: usize, start: usize, cur: &mut Multiset, out: &mut Vec<Multiset>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..copies.len() {
            let have = cur.iter().rev().take_while(|&&x| x as usize == i).count();
            if have as u32 >= copies[i] {
                continue;
            }
            cur.push(i as u8);
            go(copies, k, i, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(copies, k, 0, &mut Vec::with_capacity(k), &mut out);
    out
}

/// The key of the sorted multiset `ms` with `c` added.
pub(super) fn key_with(ms: &[u8], c: u8) -> u64 {
    let pos = ms.partition_point(|&x| x <= c);
    let k = key(&ms[..pos]);
    let k = (k << 8) | (u64::from(c) + 1);
    ms[pos..]
        .iter()
        .fold(k, |k, &i| (k << 8) | (u64::from(i) + 1))
}

/// Calls `f(part key, part size, rest key, rest size)` for every way to
/// split a sorted multiset in two, each distinct part once (the empty and
/// the full part included), without allocating.
pub(super) fn for_each_split(ms: &[u8], mut f: impl FnMut(u64, usize, u64, usize)) {
    let mut runs = [(0u8, 0usize); MAX_CARDS];
    let mut n_runs = 0;
    for &i in ms {
        if n_runs > 0 && runs[n_runs - 1].0 == i {
            runs[n_runs - 1].1 += 1;
        } else if n_runs < MAX_CARDS {
            runs[n_runs] = (i, 1);
            n_runs += 1;
        }
    }
    let runs = &runs[..n_runs];
    let mut take = [0usize; MAX_CARDS];
    loop {
        let (mut ka, mut na, mut kb, mut nb) = (0u64, 0, 0u64, 0);
        for (r, &(v, c)) in runs.iter().enumerate() {
            let b = u64::from(v) + 1;
            for _ in 0..take[r] {
                ka = (ka << 8) | b;
            }
            for _ in take[r]..c {
                kb = (kb << 8) | b;
            }
            na += take[r];
            nb += c - take[r];
        }
        f(ka, na, kb, nb);
        // Next assignment, as a mixed-radix counter.
        let mut r = 0;
        while r < runs.len() && take[r] == runs[r].1 {
            take[r] = 0;
            r += 1;
        }
        if r == runs.len() {
            return;
        }
        take[r] += 1;
    }
}

/// How many multisets of each size `0..=n` the copies allow (saturating).
pub(super) fn multiset_counts(copies: &[u32], n: usize) -> Vec<u128> {
    let mut ways = vec![0u128; n + 1];
    ways[0] = 1;
    for &c in copies {
        let mut next = vec![0u128; n + 1];
        for (k, &w) in ways.iter().enumerate() {
            for take in 0..=(c as usize).min(n - k) {
                next[k + take] = next[k + take].saturating_add(w);
            }
        }
        ways = next;
    }
    ways
}

pub(super) fn binomial(n: u32, k: u32) -> u128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
}
