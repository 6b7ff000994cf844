//! Decks and deals.
//!
//! A deal shuffles a fresh deck and takes its first cards: for Krypto the
//! first is the objective and the next five are the hand, so the objective is
//! always a physical card the hand did not take. Deals are reproducible from a
//! seed (tests, replays, `krypto deal --seed`) and unpredictable without one.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

/// A physical deck: card values with their multiplicities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deck {
    /// `(value, copies)`, ascending by value.
    counts: Vec<(i64, u32)>,
}

impl Deck {
    /// The 56-card Krypto deck: three each of 1–6, four each of 7–10, two
    /// each of 11–17 and one each of 18–25.
    pub fn krypto() -> Deck {
        let copies = |v: i64| match v {
            1..=6 => 3,
            7..=10 => 4,
            11..=17 => 2,
            _ => 1,
        };
        Deck {
            counts: (1..=25).map(|v| (v, copies(v))).collect(),
        }
    }

    /// The 52-card deck of the 24 game: four each of 1–13.
    pub fn twenty_four() -> Deck {
        Deck {
            counts: (1..=13).map(|v| (v, 4)).collect(),
        }
    }

    /// The 24 Countdown number tiles: 1–10 twice, and 25, 50, 75, 100.
    pub fn countdown() -> Deck {
        let mut counts: Vec<(i64, u32)> = (1..=10).map(|v| (v, 2)).collect();
        counts.extend([25, 50, 75, 100].map(|v| (v, 1)));
        Deck { counts }
    }

    /// `(value, copies)` for every value in the deck, ascending.
    pub fn counts(&self) -> &[(i64, u32)] {
        &self.counts
    }

    /// How many copies of `value` the deck holds.
    pub fn copies(&self, value: i64) -> u32 {
        self.counts
            .iter()
            .find(|(v, _)| *v == value)
            .map_or(0, |(_, c)| *c)
    }

    /// Number of cards in the deck.
    pub fn len(&self) -> usize {
        self.counts.iter().map(|(_, c)| *c as usize).sum()
    }

    /// Whether the deck has no cards.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every card, one entry per physical card, ascending.
    pub fn cards(&self) -> Vec<i64> {
        self.counts
            .iter()
            .flat_map(|&(v, c)| std::iter::repeat_n(v, c as usize))
            .collect()
    }

    /// Shuffles a fresh copy of the deck and returns its first `n` cards.
    pub fn draw<R: Rng + ?Sized>(&self, n: usize, rng: &mut R) -> Vec<i64> {
        let mut cards = self.cards();
        let n = n.min(cards.len());
        let (drawn, _) = cards.partial_shuffle(rng, n);
        drawn.to_vec()
    }
}

/// One Krypto deal: the objective and the five cards to combine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deal {
    /// The value the hand must make.
    pub objective: i64,
    /// The cards to combine, each used exactly once, in the order dealt.
    pub hand: Vec<i64>,
}

impl Deal {
    /// Deals six cards from a shuffled 56-card deck: objective then hand.
    pub fn krypto<R: Rng + ?Sized>(rng: &mut R) -> Deal {
        Self::from_deck(&Deck::krypto(), 5, rng)
    }

    /// Deals `hand_size + 1` cards from `deck`: the first is the objective.
    pub fn from_deck<R: Rng + ?Sized>(deck: &Deck, hand_size: usize, rng: &mut R) -> Deal {
        let mut drawn = deck.draw(hand_size + 1, rng);
        let objective = if drawn.is_empty() { 0 } else { drawn.remove(0) };
        Deal {
            objective,
            hand: drawn,
        }
    }

    /// A reproducible Krypto deal: the same seed always gives the same deal.
    pub fn from_seed(seed: u64) -> Deal {
        Self::krypto(&mut seeded_rng(seed))
    }

    /// An unpredictable Krypto deal, from a generator seeded by the OS.
    pub fn random() -> Deal {
        Self::krypto(&mut secure_rng())
    }
}

/// The deterministic generator behind seeded deals (ChaCha20, stable across
/// platforms and releases of `rand_chacha`).
pub fn seeded_rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// A cryptographically secure generator seeded from the OS, for live games.
pub fn secure_rng() -> ChaCha20Rng {
    ChaCha20Rng::from_os_rng()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn krypto_deck_has_56_cards() {
        let deck = Deck::krypto();
        assert_eq!(deck.len(), 56);
        assert_eq!(deck.copies(5), 3);
        assert_eq!(deck.copies(9), 4);
        assert_eq!(deck.copies(13), 2);
        assert_eq!(deck.copies(25), 1);
        assert_eq!(deck.copies(26), 0);
        assert_eq!(Deck::twenty_four().len(), 52);
        assert_eq!(Deck::countdown().len(), 24);
    }

    #[test]
    fn seeded_deals_repeat_and_respect_the_deck() {
        assert_eq!(Deal::from_seed(42), Deal::from_seed(42));
        let deck = Deck::krypto();
        for seed in 0..2000 {
            let deal = Deal::from_seed(seed);
            assert_eq!(deal.hand.len(), 5);
            let mut all = deal.hand.clone();
            all.push(deal.objective);
            for v in &all {
                let used = all.iter().filter(|w| *w == v).count() as u32;
                assert!(used <= deck.copies(*v), "{deal:?} uses {v} too often");
            }
        }
    }

    #[test]
    fn random_deals_differ() {
        let deals: Vec<Deal> = (0..20).map(|_| Deal::random()).collect();
        assert!(deals.iter().any(|d| *d != deals[0]));
    }
}
