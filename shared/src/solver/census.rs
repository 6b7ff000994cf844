//! Whole-variant censuses: how many games have no solution?
//!
//! A game is a multiset of card values and a target. Solving each of the
//! three million Krypto games separately would take minutes; instead the
//! census shares work between hands:
//!
//! 1. The reachable values of every sub-multiset of up to `N − 2` cards are
//!    computed once, layer by layer by size (each layer in parallel), and
//!    kept in a map keyed by the sorted multiset.
//! 2. Every `(N − 1)`-multiset's values are computed (not stored) and, for
//!    each card `c` that can join it, the targets `t` with `t = s op c` or
//!    `t = c op s` for some value `s` are marked on the hand: six look-ups
//!    per target (`t − c`, `t + c`, `c − t`, `t ÷ c`, `t × c`, `c ÷ t`).
//! 3. Only the targets still unmarked are tried with the other splits of the
//!    hand (`N − 2` against 2 cards, …), walking the smaller side's values and
//!    looking the needed value up on the larger side.
//!
//! Every expression over a whole hand has a root splitting the hand in two,
//! so steps 2 and 3 together try every expression. Arithmetic is exact.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::{SolveError, COMBOS, MAX_CARDS};
use crate::cards::Deck;
use crate::rational::{ArithError, Rational};
use crate::rules::Rules;

/// A named game, which fixes the deck, whether every card must be used, and
/// the default targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Krypto: five cards from the 56-card deck (or 1–25), targets 1–25.
    Krypto,
    /// The 24 game: four cards 1–13, target 24.
    TwentyFour,
    /// Countdown's numbers game: six of the 24 tiles, targets 101–999, any
    /// subset of the tiles, positive whole intermediates.
    Countdown,
}

impl Variant {
    /// The name on the command line: `krypto`, `24`, `countdown`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Krypto => "krypto",
            Variant::TwentyFour => "24",
            Variant::Countdown => "countdown",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = SolveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "krypto" => Ok(Variant::Krypto),
            "24" | "twenty_four" | "twentyfour" => Ok(Variant::TwentyFour),
            "countdown" => Ok(Variant::Countdown),
            other => Err(SolveError::InvalidCensus(format!(
                "unknown variant {other:?} (expected krypto, 24 or countdown)"
            ))),
        }
    }
}

/// Which hands (and targets) count as games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DeckMode {
    /// Every multiset of `cards` values from `1..=max` (unlimited copies),
    /// every target in the range, each game counted once.
    #[default]
    Unbounded,
    /// Only hands the variant's physical deck can deal (the 56-card Krypto
    /// deck; for 24 the 52-card deck), and for Krypto only objectives still
    /// in the deck after the hand; games are weighted by how many ways the
    /// deck deals them, which gives the probability that a deal is solvable.
    Krypto,
}

impl DeckMode {
    /// The name on the command line: `unbounded`, `krypto`.
    pub fn name(self) -> &'static str {
        match self {
            DeckMode::Unbounded => "unbounded",
            DeckMode::Krypto => "krypto",
        }
    }
}

impl fmt::Display for DeckMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DeckMode {
    type Err = SolveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "unbounded" => Ok(DeckMode::Unbounded),
            "krypto" | "deck" => Ok(DeckMode::Krypto),
            other => Err(SolveError::InvalidCensus(format!(
                "unknown deck {other:?} (expected unbounded or krypto)"
            ))),
        }
    }
}

/// What to count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CensusConfig {
    /// The game: decides the deck, the "any subset" rule and the defaults.
    pub variant: Variant,
    /// Every multiset, or only deck-dealable hands (ignored for Countdown,
    /// whose tiles are always the 24-tile set).
    pub deck: DeckMode,
    /// The rule set every operator node must obey.
    pub rules: Rules,
    /// Cards per hand.
    pub cards: usize,
    /// Largest card value in unbounded mode (values are `1..=max`).
    pub max: i64,
    /// The targets every hand is tried against.
    pub targets: RangeInclusive<i64>,
    /// Whether to list every unsolvable game in the result.
    pub collect_unsolvable: bool,
}

impl CensusConfig {
    /// The variant's usual settings: Krypto 5 cards 1–25, targets 1–25, free
    /// rules; 24: 4 cards 1–13, target 24, free rules; Countdown: 6 of the 24
    /// tiles, targets 101–999, positive whole numbers, any subset.
    pub fn defaults(variant: Variant) -> CensusConfig {
        let (cards, max, targets, rules) = match variant {
            Variant::Krypto => (5, 25, 1..=25, Rules::Free),
            Variant::TwentyFour => (4, 13, 24..=24, Rules::Free),
            Variant::Countdown => (6, 100, 101..=999, Rules::Positive),
        };
        CensusConfig {
            variant,
            deck: DeckMode::Unbounded,
            rules,
            cards,
            max,
            targets,
            collect_unsolvable: false,
        }
    }
}

/// What a census found. Counts are of games (a hand and a target).
#[derive(Debug, Clone, PartialEq)]
pub struct CensusResult {
    /// Distinct card multisets considered.
    pub hands: u64,
    /// Games: hands × targets (in deck mode only objectives still dealable).
    pub games: u64,
    /// Games with at least one solution.
    pub solvable: u64,
    /// Games with none.
    pub unsolvable: u64,
    /// For deck-dealt modes (the Krypto or 24 deck, Countdown's tiles), the
    /// probability that a uniformly random deal is solvable (exact integer
    /// weights, divided once at the end; targets that are not dealt count
    /// uniformly); `None` for unbounded censuses, where nothing is dealt.
    pub solvable_probability: Option<f64>,
    /// Every unsolvable game as (sorted cards, target), if asked for.
    pub unsolvable_games: Vec<(Vec<i64>, i64)>,
}

/// The largest number of hands a census will take on (memory is a few bytes
/// per hand and target).
const MAX_HANDS: u64 = 50_000_000;

/// The widest target range (bits per hand).
const MAX_TARGETS: i64 = 1 << 16;

/// The resolved deck: distinct values, copies available, and how deals
/// are weighted.
struct Spec {
    values: Vec<i64>,
    /// Copies a hand may hold (the deck's, capped at the hand size).
    copies: Vec<u32>,
    /// Copies in the deck, for weighting deals.
    deck_copies: Vec<u32>,
    n: usize,
    any_subset: bool,
    /// Weigh hands by the deck's ways to deal them.
    weighted: bool,
    /// The objective is dealt from the same deck (Krypto deck mode).
    objective_from_deck: bool,
}

impl Spec {
    fn new(cfg: &CensusConfig) -> Result<Spec, SolveError> {
        let n = cfg.cards;
        if !(2..=MAX_CARDS).contains(&n) {
            return Err(SolveError::InvalidCensus(format!(
                "cards must be between 2 and {MAX_CARDS}, not {n}"
            )));
        }
        if cfg.targets.is_empty() {
            return Err(SolveError::InvalidCensus(
                "the target range is empty".into(),
            ));
        }
        let width = cfg.targets.end().checked_sub(*cfg.targets.start());
        if width.map_or(true, |w| w >= MAX_TARGETS) {
            return Err(SolveError::InvalidCensus(format!(
                "at most {MAX_TARGETS} targets"
            )));
        }
        let from_deck = |deck: Deck| -> (Vec<i64>, Vec<u32>) {
            deck.counts().iter().map(|&(v, c)| (v, c)).unzip()
        };
        let (values, copies, any_subset, weighted, objective_from_deck) =
            match (cfg.variant, cfg.deck) {
                (Variant::Countdown, _) => {
                    let (v, c) = from_deck(Deck::countdown());
                    (v, c, true, true, false)
                }
                (Variant::Krypto, DeckMode::Krypto) => {
                    let (v, c) = from_deck(Deck::krypto());
                    (v, c, false, true, true)
                }
                (Variant::TwentyFour, DeckMode::Krypto) => {
                    let (v, c) = from_deck(Deck::twenty_four());
                    (v, c, false, true, false)
                }
                (_, DeckMode::Unbounded) => {
                    if !(1..=255).contains(&cfg.max) {
                        return Err(SolveError::InvalidCensus(format!(
                            "max must be between 1 and 255, not {}",
                            cfg.max
                        )));
                    }
                    let values: Vec<i64> = (1..=cfg.max).collect();
                    let copies = vec![n as u32; values.len()];
                    (values, copies, false, false, false)
                }
            };
        let deck_copies = copies.clone();
        let copies = copies.into_iter().map(|c| c.min(n as u32)).collect();
        Ok(Spec {
            values,
            copies,
            deck_copies,
            n,
            any_subset,
            weighted,
            objective_from_deck,
        })
    }
}

/// A multiset as sorted value indices.
type Multiset = Vec<u8>;

/// Packs a sorted multiset (at most 8 indices below 255) into one word.
fn key(ms: &[u8]) -> u64 {
    ms.iter().fold(0u64, |k, &i| (k << 8) | (u64::from(i) + 1))
}

/// Every multiset of `k` value indices the deck allows, in lexicographic order.
fn multisets(copies: &[u32], k: usize) -> Vec<Multiset> {
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
fn key_with(ms: &[u8], c: u8) -> u64 {
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
fn for_each_split(ms: &[u8], mut f: impl FnMut(u64, usize, u64, usize)) {
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

/// Half-width of the window of whole numbers kept in a bitmap: most values
/// (and every target of the named variants) are small integers, and a bit
/// test is several times cheaper than hashing a fraction. Krypto's look-ups
/// stay below 25 × 25; Countdown's reach 999 × 100.
const WINDOW: i64 = 2048;
const WIDE_WINDOW: i64 = 1 << 17;

/// A set of values: whole numbers in `-half..half` as bits, everything else
/// hashed; plus the list of members, in insertion order, to walk.
#[derive(Debug, Clone)]
struct ValueSet {
    half: i64,
    list: Vec<Rational>,
    bits: Vec<u64>,
    others: FxHashSet<Rational>,
}

impl ValueSet {
    /// An empty set with a bitmap for whole numbers in `-half..half`.
    fn new(half: i64) -> Self {
        ValueSet {
            half,
            list: Vec::new(),
            bits: vec![0; (2 * half.max(0) as usize).div_ceil(64)],
            others: FxHashSet::default(),
        }
    }

    #[inline]
    fn slot(&self, v: i64) -> Option<usize> {
        (-self.half..self.half)
            .contains(&v)
            .then(|| (v + self.half) as usize)
    }

    fn insert(&mut self, r: Rational) {
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
    fn contains_int(&self, v: i64) -> bool {
        match self.slot(v) {
            Some(i) => self.bits[i / 64] >> (i % 64) & 1 == 1,
            None => self.others.contains(&Rational::from_int(v)),
        }
    }

    #[inline]
    fn contains(&self, r: &Rational) -> bool {
        match r.to_integer() {
            Some(v) => self.contains_int(v),
            None => self.others.contains(r),
        }
    }

    fn clear(&mut self) {
        for r in &self.list {
            if let Some(i) = r.to_integer().and_then(|v| self.slot(v)) {
                self.bits[i / 64] = 0;
            }
        }
        self.others.clear();
        self.list.clear();
    }

    fn iter(&self) -> impl Iterator<Item = &Rational> {
        self.list.iter()
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// The shared work: value sets of small sub-multisets.
struct Engine<'a> {
    spec: &'a Spec,
    rules: Rules,
    store: FxHashMap<u64, ValueSet>,
    /// Half-width of every set's bitmap.
    window: i64,
    /// Stands in for a part with no stored set.
    empty: ValueSet,
    overflow: AtomicBool,
}

impl Engine<'_> {
    fn note(&self, e: ArithError) {
        if e == ArithError::Overflow {
            self.overflow.store(true, Ordering::Relaxed);
        }
    }

    /// The values of `ms` (every card used, or any subset of them in
    /// Countdown), from the stored sets of its parts.
    fn compute(&self, ms: &[u8]) -> ValueSet {
        let mut set = ValueSet::new(self.window);
        self.compute_into(ms, &mut set);
        set
    }

    /// [`Engine::compute`] into a cleared, reusable set.
    fn compute_into(&self, ms: &[u8], set: &mut ValueSet) {
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
        for (ka, kb) in pairs {
            let (sa, sb) = (get(ka), get(kb));
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

    /// Whether `t = s op c` or `t = c op s` for some `s` in `set`.
    fn reaches_with(&self, set: &ValueSet, c: Rational, t: Rational) -> bool {
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
    fn reaches_with_int(&self, set: &ValueSet, c: i64, t: i64) -> bool {
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

/// Runs a census. `progress(done, total)` is called from worker threads now
/// and then (and once at the end with `done == total`).
pub fn run(
    cfg: &CensusConfig,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<CensusResult, SolveError> {
    let spec = Spec::new(cfg)?;
    let n = spec.n;
    let lo = *cfg.targets.start();
    let width = (cfg.targets.end() - lo + 1) as usize;
    check_size(&spec, width)?;
    let hands = multisets(&spec.copies, n);
    let words = width.div_ceil(64);
    let hand_index: FxHashMap<u64, u32> = hands
        .iter()
        .enumerate()
        .map(|(i, h)| (key(h), i as u32))
        .collect();
    let subs = multisets(&spec.copies, n - 1);
    let total = (subs.len() + hands.len()) as u64;
    let done = AtomicU64::new(0);
    let tick = |k: u64| {
        let d = done.fetch_add(k, Ordering::Relaxed) + k;
        progress(d, total);
    };

    // 1. Value sets of every sub-multiset of up to n − 2 cards.
    let mut engine = Engine {
        spec: &spec,
        rules: cfg.rules,
        store: FxHashMap::default(),
        window: if spec.any_subset { WIDE_WINDOW } else { WINDOW },
        empty: ValueSet::new(0),
        overflow: AtomicBool::new(false),
    };
    for k in 1..n.saturating_sub(1) {
        let layer: Vec<(u64, ValueSet)> = multisets(&spec.copies, k)
            .par_iter()
            .map(|ms| (key(ms), engine.compute(ms)))
            .collect();
        engine.store.extend(layer);
    }
    let engine = engine;

    // 2. Hands as an (n − 1)-multiset plus one card.
    let reached: Vec<AtomicU64> = (0..hands.len() * words)
        .map(|_| AtomicU64::new(0))
        .collect();
    let targets: Vec<Rational> = cfg.targets.clone().map(Rational::from_int).collect();
    subs.par_chunks(64).for_each_init(
        || ValueSet::new(engine.window),
        |set, chunk| {
            for s in chunk {
                engine.compute_into(s, set);
                let set = &*set;
                for c in 0..spec.values.len() {
                    let have = s.iter().filter(|&&x| x as usize == c).count();
                    if have as u32 >= spec.copies[c] {
                        continue;
                    }
                    let Some(&h) = hand_index.get(&key_with(s, c as u8)) else {
                        continue;
                    };
                    let cv = Rational::from_int(spec.values[c]);
                    for w in 0..words {
                        let slot = &reached[h as usize * words + w];
                        let before = slot.load(Ordering::Relaxed);
                        let mut bits = 0u64;
                        for b in 0..64.min(width - w * 64) {
                            if before >> b & 1 == 1 {
                                continue;
                            }
                            let t = targets[w * 64 + b];
                            let root_ok = cfg.rules.allows(t);
                            let hit = (root_ok && engine.reaches_with(set, cv, t))
                                || (spec.any_subset && (set.contains(&t) || cv == t));
                            if hit {
                                bits |= 1 << b;
                            }
                        }
                        if bits != 0 {
                            slot.fetch_or(bits, Ordering::Relaxed);
                        }
                    }
                }
            }
            tick(chunk.len() as u64);
        },
    );

    // 3. The other splits, for targets still open; then the tallies.
    let deck_weight = |h: &[u8]| -> u128 {
        if !spec.weighted {
            return 1;
        }
        let mut w = 1u128;
        for (c, &copies) in spec.deck_copies.iter().enumerate() {
            let k = h.iter().filter(|&&x| x as usize == c).count() as u32;
            w *= binomial(copies, k);
        }
        w
    };
    let objective_weight = |h: &[u8], t: i64| -> u128 {
        if !spec.objective_from_deck {
            return 1;
        }
        match spec.values.iter().position(|&v| v == t) {
            Some(c) => {
                let k = h.iter().filter(|&&x| x as usize == c).count() as u32;
                u128::from(spec.deck_copies[c].saturating_sub(k))
            }
            None => 0,
        }
    };
    let tally = hands
        .par_chunks(256)
        .enumerate()
        .map(|(ci, chunk)| {
            let mut acc = Tally::default();
            // Per target of the current hand: still open after step 2?
            let mut open: Vec<bool> = vec![false; width];
            for (j, hand) in chunk.iter().enumerate() {
                let h = ci * 256 + j;
                let hw = deck_weight(hand);
                let mut n_open = 0usize;
                for (i, &tv) in targets.iter().enumerate() {
                    let word = reached[h * words + i / 64].load(Ordering::Relaxed);
                    open[i] = word >> (i % 64) & 1 == 0 && cfg.rules.allows(tv);
                    n_open += usize::from(open[i]);
                }
                if n_open > 0 {
                    let mut splits = Vec::new();
                    for_each_split(hand, |ka, na, kb, nb| {
                        if nb >= 2 && (na > nb || (na == nb && ka <= kb)) && na + 2 <= n {
                            splits.push((ka, kb));
                        }
                    });
                    for (ka, kb) in splits {
                        if n_open == 0 {
                            break;
                        }
                        n_open -= engine.close_split(ka, kb, lo, &targets, &mut open);
                    }
                }
                for (i, &tv) in targets.iter().enumerate() {
                    let t = lo + i as i64;
                    let ow = objective_weight(hand, t);
                    if ow == 0 {
                        continue;
                    }
                    let word = reached[h * words + i / 64].load(Ordering::Relaxed);
                    let ok = word >> (i % 64) & 1 == 1 || (cfg.rules.allows(tv) && !open[i]);
                    acc.games += 1;
                    acc.total_weight += hw * ow;
                    if ok {
                        acc.solvable += 1;
                        acc.solvable_weight += hw * ow;
                    } else if cfg.collect_unsolvable {
                        let cards = hand.iter().map(|&x| spec.values[x as usize]).collect();
                        acc.unsolvable_games.push((cards, t));
                    }
                }
            }
            tick(chunk.len() as u64);
            acc
        })
        .reduce(Tally::default, Tally::merge);
    if engine.overflow.load(Ordering::Relaxed) {
        return Err(SolveError::Overflow);
    }
    progress(total, total);
    let solvable_probability = (spec.weighted && tally.total_weight > 0)
        .then(|| tally.solvable_weight as f64 / tally.total_weight as f64);
    Ok(CensusResult {
        hands: hands.len() as u64,
        games: tally.games,
        solvable: tally.solvable,
        unsolvable: tally.games - tally.solvable,
        solvable_probability,
        unsolvable_games: tally.unsolvable_games,
    })
}

impl Engine<'_> {
    /// Closes the open targets (`open[i]` for target `lo + i`) that are
    /// `x op y` (either order) with `x` from the stored part `a`, `y` from
    /// the stored part `b`; returns how many it closed. With many targets
    /// open it combines the two sets outright; with few it walks the smaller
    /// set per target and looks the needed value up in the larger.
    fn close_split(
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
        if big.list.len() < n_open {
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

#[derive(Debug, Default)]
struct Tally {
    games: u64,
    solvable: u64,
    total_weight: u128,
    solvable_weight: u128,
    unsolvable_games: Vec<(Vec<i64>, i64)>,
}

impl Tally {
    fn merge(mut self, other: Tally) -> Tally {
        self.games += other.games;
        self.solvable += other.solvable;
        self.total_weight += other.total_weight;
        self.solvable_weight += other.solvable_weight;
        self.unsolvable_games.extend(other.unsolvable_games);
        self
    }
}

/// How many multisets of each size `0..=n` the copies allow (saturating).
fn multiset_counts(copies: &[u32], n: usize) -> Vec<u128> {
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

/// Refuses, before any work, a census whose hands or stored value sets
/// would not fit in memory. Stored sets are bounded by the number of
/// distinct expressions (OEIS A140606) times a few dozen bytes each.
fn check_size(spec: &Spec, width: usize) -> Result<(), SolveError> {
    const DISTINCT: [u128; 7] = [0, 1, 6, 68, 1_170, 27_142, 793_002];
    const MEMORY: u128 = 4 << 30;
    let counts = multiset_counts(&spec.copies, spec.n);
    let hands = counts[spec.n];
    if hands > u128::from(MAX_HANDS) {
        return Err(SolveError::InvalidCensus(format!(
            "{hands} hands is more than the {MAX_HANDS} a census takes on"
        )));
    }
    let bitsets = hands.saturating_mul(width.div_ceil(64) as u128 * 8);
    let stored: u128 = (1..spec.n.saturating_sub(1))
        .map(|k| {
            let per_set = DISTINCT.get(k).copied().unwrap_or(u128::MAX);
            let per_set = if spec.any_subset {
                per_set.saturating_mul(2)
            } else {
                per_set
            };
            counts[k].saturating_mul(per_set.saturating_mul(24).saturating_add(600))
        })
        .fold(0u128, u128::saturating_add);
    if bitsets.saturating_add(stored) > MEMORY {
        return Err(SolveError::InvalidCensus(
            "too large: the census would need more than 4 GiB (fewer cards, a smaller max or fewer targets)"
                .into(),
        ));
    }
    Ok(())
}

fn binomial(n: u32, k: u32) -> u128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_krypto_games() {
        // 25 × C(29, 5) games in the unbounded Krypto census.
        let cfg = CensusConfig {
            cards: 2,
            max: 4,
            targets: 1..=3,
            ..CensusConfig::defaults(Variant::Krypto)
        };
        let r = run(&cfg, &|_, _| {}).unwrap();
        assert_eq!(r.hands, 10);
        assert_eq!(r.games, 30);
        assert_eq!(r.solvable + r.unsolvable, 30);
        assert_eq!(r.solvable_probability, None);
    }

    #[test]
    fn multiset_helpers() {
        assert_eq!(multisets(&[2, 2, 2], 2).len(), 6);
        assert_eq!(multisets(&[1, 1, 1], 2).len(), 3);
        let mut n = 0;
        for_each_split(&[0, 0, 1], |ka, na, kb, nb| {
            n += 1;
            assert_eq!(na + nb, 3);
            assert_eq!(ka == 0, na == 0);
            assert_eq!(kb == 0, nb == 0);
        });
        assert_eq!(n, 6);
        assert_eq!(key_with(&[0, 2], 1), key(&[0, 1, 2]));
        assert_eq!(binomial(4, 2), 6);
        assert_eq!(multiset_counts(&[5; 25], 5)[5], 118_755);
        assert_eq!(multiset_counts(&[2, 2, 2], 2), vec![1, 3, 6]);
    }

    #[test]
    fn refuses_censuses_too_large_to_run() {
        let huge = CensusConfig {
            cards: 8,
            max: 200,
            ..CensusConfig::defaults(Variant::Krypto)
        };
        assert!(matches!(
            run(&huge, &|_, _| {}),
            Err(SolveError::InvalidCensus(_))
        ));
        let seven = CensusConfig {
            cards: 7,
            ..CensusConfig::defaults(Variant::Krypto)
        };
        assert!(matches!(
            run(&seven, &|_, _| {}),
            Err(SolveError::InvalidCensus(_))
        ));
        let empty = CensusConfig {
            targets: RangeInclusive::new(5, 1),
            ..CensusConfig::defaults(Variant::Krypto)
        };
        assert!(matches!(
            run(&empty, &|_, _| {}),
            Err(SolveError::InvalidCensus(_))
        ));
        let one = CensusConfig {
            cards: 1,
            ..CensusConfig::defaults(Variant::Krypto)
        };
        assert!(run(&one, &|_, _| {}).is_err());
    }
}
