//! Where a room's hands come from: random deals that meet the room's `deal`
//! and `difficulty` settings, or a fixed script for tests and replays; and the
//! difficulty bands that classify a hand by its number of solutions.

use std::fmt;

use rand_chacha::ChaCha20Rng;

use super::referee;
use crate::cards::{secure_rng, seeded_rng, Deal, Deck};
use crate::protocol::{DealMode, Difficulty, RoomSettings, Variant};

/// Supplies the hands of a room, so tests and replays can be deterministic.
pub trait Dealer: fmt::Debug + Send {
    /// The next hand for a room with `settings`.
    fn deal(&mut self, settings: &RoomSettings) -> Deal;
}

/// Difficulty bands by number of distinct solutions (under the room's
/// rules): `hard` up to `hard_max`, `medium` up to `medium_max`, `easy`
/// above.
///
/// Calibrated on 3,000 seeded random deals per variant (release build,
/// `count_solutions`): solvable Krypto hands have a median of 21 distinct
/// solutions (33rd percentile 15, 67th 31) under free rules and 19 (13, 28)
/// under integer and international rules; solvable 24 hands have a median of
/// 2 (33rd percentile 2, 67th 3). The bands split each variant's solvable
/// hands into roughly equal thirds; recalibrate if the solver's notion of
/// "distinct" changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DifficultyBands {
    /// Most solutions a `hard` hand has.
    pub hard_max: u64,
    /// Most solutions a `medium` hand has.
    pub medium_max: u64,
}

impl DifficultyBands {
    /// The bands for `variant`.
    pub const fn for_variant(variant: Variant) -> DifficultyBands {
        match variant {
            Variant::Krypto => DifficultyBands {
                hard_max: 14,
                medium_max: 30,
            },
            Variant::TwentyFour => DifficultyBands {
                hard_max: 1,
                medium_max: 3,
            },
        }
    }

    /// The band of a solvable hand with `solutions` distinct solutions.
    pub const fn classify(&self, solutions: u64) -> Difficulty {
        if solutions <= self.hard_max {
            Difficulty::Hard
        } else if solutions <= self.medium_max {
            Difficulty::Medium
        } else {
            Difficulty::Easy
        }
    }
}

/// The band of a solvable `variant` hand with `solutions` distinct solutions.
pub fn difficulty_of(variant: Variant, solutions: u64) -> Difficulty {
    DifficultyBands::for_variant(variant).classify(solutions)
}

/// Where a [`RandomDealer`] draws its candidate hands: a shuffled deck in
/// play, a scripted list in tests of the dealer itself.
pub trait HandSource: fmt::Debug + Send {
    /// A hand of `variant`, not yet judged.
    fn draw(&mut self, variant: Variant) -> Deal;
}

/// Draws from a freshly shuffled deck of the variant every time.
#[derive(Debug)]
pub struct ShuffledDeck {
    rng: ChaCha20Rng,
}

impl HandSource for ShuffledDeck {
    fn draw(&mut self, variant: Variant) -> Deal {
        match variant {
            Variant::Krypto => Deal::krypto(&mut self.rng),
            Variant::TwentyFour => Deal {
                objective: 24,
                hand: Deck::twenty_four().draw(4, &mut self.rng),
            },
        }
    }
}

/// Deals random hands, re-dealing until the room's `deal` and `difficulty`
/// settings are met.
///
/// Solvability is a promise to the players (`deal: solvable` means every
/// hand has an answer, and claiming "no solution" is not offered), while the
/// difficulty band is a preference: when [`RandomDealer::MAX_TRIES`] draws
/// bring no hand of the band, the dealer relaxes the band, never
/// solvability. It keeps the first solvable hand it saw outside the band,
/// or, if none was solvable, draws on until one is; that ends because at
/// least three in four raw deals of every variant have a solution.
#[derive(Debug)]
pub struct RandomDealer<S = ShuffledDeck> {
    source: S,
}

impl RandomDealer<ShuffledDeck> {
    /// Unpredictable hands, for live games.
    pub fn secure() -> Self {
        RandomDealer {
            source: ShuffledDeck { rng: secure_rng() },
        }
    }

    /// Reproducible hands, for tests and replays.
    pub fn seeded(seed: u64) -> Self {
        RandomDealer {
            source: ShuffledDeck {
                rng: seeded_rng(seed),
            },
        }
    }
}

impl<S: HandSource> RandomDealer<S> {
    /// Draws tried for a hand of the difficulty band before relaxing it.
    pub const MAX_TRIES: usize = 500;

    /// A dealer judging the hands `source` draws.
    pub fn over(source: S) -> Self {
        RandomDealer { source }
    }
}

impl<S: HandSource> Dealer for RandomDealer<S> {
    fn deal(&mut self, settings: &RoomSettings) -> Deal {
        let rules = settings.rules;
        let solvable_only = settings.deal == DealMode::Solvable;
        let mut outside_band: Option<Deal> = None;
        for _ in 0..Self::MAX_TRIES {
            let deal = self.source.draw(settings.variant);
            if settings.difficulty == Difficulty::Any {
                if !solvable_only || referee::solvable(&deal.hand, deal.objective, rules) {
                    return deal;
                }
                continue;
            }
            match referee::count(&deal.hand, deal.objective, rules) {
                // With `deal: any` an unsolvable hand is dealt whatever the
                // band: it has no solutions to count.
                Ok(0) if !solvable_only => return deal,
                Ok(0) | Err(_) => continue,
                Ok(n) if difficulty_of(settings.variant, n) == settings.difficulty => return deal,
                Ok(_) => {
                    outside_band.get_or_insert(deal);
                }
            }
        }
        if let Some(deal) = outside_band {
            return deal;
        }
        loop {
            let deal = self.source.draw(settings.variant);
            if !solvable_only || referee::solvable(&deal.hand, deal.objective, rules) {
                return deal;
            }
        }
    }
}

/// Deals a fixed list of hands in order, starting over at the end: for tests
/// and replays. An empty list deals an empty hand.
#[derive(Debug, Clone)]
pub struct ScriptedDealer {
    hands: Vec<Deal>,
    next: usize,
}

impl ScriptedDealer {
    /// Deals `hands` in order.
    pub fn new(hands: Vec<Deal>) -> Self {
        ScriptedDealer { hands, next: 0 }
    }
}

impl Dealer for ScriptedDealer {
    fn deal(&mut self, _settings: &RoomSettings) -> Deal {
        self.next_hand()
    }
}

/// A script can also feed a [`RandomDealer`], to test how it judges hands.
impl HandSource for ScriptedDealer {
    fn draw(&mut self, _variant: Variant) -> Deal {
        self.next_hand()
    }
}

impl ScriptedDealer {
    fn next_hand(&mut self) -> Deal {
        let Some(deal) = self.hands.get(self.next % self.hands.len().max(1)) else {
            return Deal {
                objective: 0,
                hand: Vec::new(),
            };
        };
        self.next += 1;
        deal.clone()
    }
}
