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
//!
//! `multiset.rs` packs and enumerates multisets, `value_set.rs` holds the
//! sets of values, `engine.rs` combines them.

mod engine;
mod multiset;
mod value_set;

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use self::engine::Engine;
use self::multiset::{binomial, for_each_split, key, key_with, multiset_counts, multisets};
use self::value_set::{ValueSet, WIDE_WINDOW, WINDOW};
use super::{SolveError, MAX_CARDS};
use crate::cards::Deck;
use crate::rational::Rational;
use crate::rules::Rules;

wire_enum! {
    /// A named game, which fixes the deck, whether every card must be used,
    /// and the default targets. Named `krypto`, `24`, `countdown` on the
    /// command line.
    #[strum(parse_err_ty = SolveError, parse_err_fn = unknown_variant)]
    pub enum Variant {
        /// Krypto: five cards from the 56-card deck (or 1–25), targets 1–25.
        Krypto,
        /// The 24 game: four cards 1–13, target 24.
        #[serde(rename = "24")]
        #[strum(to_string = "24", serialize = "twenty_four", serialize = "twentyfour")]
        TwentyFour,
        /// Countdown's numbers game: six of the 24 tiles, targets 101–999, any
        /// subset of the tiles, positive whole intermediates.
        Countdown,
    }
}

fn unknown_variant(name: &str) -> SolveError {
    SolveError::InvalidCensus(format!(
        "unknown variant {name:?} (expected krypto, 24 or countdown)"
    ))
}

wire_enum! {
    /// Which hands (and targets) count as games. Named `unbounded`, `krypto`
    /// on the command line.
    #[derive(Default)]
    #[strum(parse_err_ty = SolveError, parse_err_fn = unknown_deck)]
    pub enum DeckMode {
        /// Every multiset of `cards` values from `1..=max` (unlimited copies),
        /// every target in the range, each game counted once.
        #[default]
        Unbounded,
        /// Only hands the variant's physical deck can deal (the 56-card Krypto
        /// deck; for 24 the 52-card deck), and for Krypto only objectives still
        /// in the deck after the hand; games are weighted by how many ways the
        /// deck deals them, which gives the probability that a deal is solvable.
        #[strum(to_string = "krypto", serialize = "deck")]
        Krypto,
    }
}

fn unknown_deck(name: &str) -> SolveError {
    SolveError::InvalidCensus(format!(
        "unknown deck {name:?} (expected unbounded or krypto)"
    ))
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
        if width.is_none_or(|w| w >= MAX_TARGETS) {
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
        let seven = CensusConfig {
            cards: 7,
            ..CensusConfig::defaults(Variant::Krypto)
        };
        let empty = CensusConfig {
            targets: RangeInclusive::new(5, 1),
            ..CensusConfig::defaults(Variant::Krypto)
        };
        for config in [huge, seven, empty] {
            assert!(
                matches!(run(&config, &|_, _| {}), Err(SolveError::InvalidCensus(_))),
                "{config:?}"
            );
        }
        let one = CensusConfig {
            cards: 1,
            ..CensusConfig::defaults(Variant::Krypto)
        };
        assert!(run(&one, &|_, _| {}).is_err());
    }
}
