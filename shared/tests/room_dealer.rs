//! Where hands come from: the random dealer meets the room's settings.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use krypto_core::cards::Deal;
use krypto_core::protocol::*;
use krypto_core::room::*;
use krypto_core::Rules;

/// Whether `d`'s objective can be made from its hand under `rules`.
fn has_solution(d: &Deal, rules: Rules) -> bool {
    krypto_core::solver::solve_one(&d.hand, d.objective, rules)
        .unwrap()
        .is_some()
}

#[test]
fn the_random_dealer_meets_the_settings() {
    for seed in 0..5 {
        let mut dealer = RandomDealer::seeded(seed);
        let solvable = RoomSettings::default();
        let d = dealer.deal(&solvable);
        assert_eq!(d.hand.len(), 5);
        assert!(has_solution(&d, Rules::Free));

        let intl = RoomSettings {
            rules: Rules::International,
            ..RoomSettings::default()
        };
        let d = dealer.deal(&intl);
        assert!(has_solution(&d, Rules::International));

        let twenty_four = RoomSettings {
            variant: Variant::TwentyFour,
            ..RoomSettings::default()
        };
        let d = dealer.deal(&twenty_four);
        assert_eq!(d.objective, 24);
        assert_eq!(d.hand.len(), 4);
        assert!(d.hand.iter().all(|c| (1..=13).contains(c)));
        assert!(has_solution(&d, Rules::Free));

        for difficulty in [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard] {
            let s = RoomSettings {
                difficulty,
                ..RoomSettings::default()
            };
            let d = dealer.deal(&s);
            let n =
                krypto_core::solver::count_solutions(&d.hand, d.objective, Rules::Free).unwrap();
            assert_eq!(
                difficulty_of(Variant::Krypto, n as u64),
                difficulty,
                "{d:?} has {n}"
            );
            let s = RoomSettings {
                variant: Variant::TwentyFour,
                difficulty,
                ..RoomSettings::default()
            };
            let d = dealer.deal(&s);
            let n = krypto_core::solver::count_solutions(&d.hand, 24, Rules::Free).unwrap();
            assert_eq!(
                difficulty_of(Variant::TwentyFour, n as u64),
                difficulty,
                "{d:?} has {n}"
            );
        }
    }
    // Same seed, same hands.
    let s = RoomSettings::default();
    assert_eq!(
        RandomDealer::seeded(9).deal(&s),
        RandomDealer::seeded(9).deal(&s)
    );
}

/// Five ones cannot make 25.
fn unsolvable() -> Deal {
    Deal {
        objective: 25,
        hand: vec![1, 1, 1, 1, 1],
    }
}

/// 1 2 3 4 5 → 15: solvable, in the band `difficulty_of` says.
fn solvable() -> Deal {
    Deal {
        objective: 15,
        hand: vec![1, 2, 3, 4, 5],
    }
}

fn band_of(deal: &Deal) -> Difficulty {
    let n = krypto_core::solver::count_solutions(&deal.hand, deal.objective, Rules::Free).unwrap();
    assert!(n > 0);
    difficulty_of(Variant::Krypto, n as u64)
}

#[test]
fn when_no_hand_of_the_band_turns_up_the_band_is_relaxed_never_solvability() {
    let other_band = match band_of(&solvable()) {
        Difficulty::Hard => Difficulty::Easy,
        _ => Difficulty::Hard,
    };
    // Unsolvable hands, and one solvable hand outside the band, over and
    // over: no hand of the band can ever come.
    let mut script = vec![unsolvable(); 7];
    script.push(solvable());
    let mut dealer = RandomDealer::over(ScriptedDealer::new(script));
    let settings = RoomSettings {
        difficulty: other_band,
        ..RoomSettings::default()
    };
    for _ in 0..3 {
        assert_eq!(dealer.deal(&settings), solvable());
    }
}

#[test]
fn a_solvable_hand_is_dealt_even_after_every_try_missed() {
    // More unsolvable hands in a row than the dealer tries for a band: the
    // old dealer settled for the last (unsolvable) one.
    let mut script = vec![unsolvable(); RandomDealer::<ScriptedDealer>::MAX_TRIES + 100];
    script.push(solvable());
    for difficulty in [Difficulty::Any, Difficulty::Hard] {
        let mut dealer = RandomDealer::over(ScriptedDealer::new(script.clone()));
        let settings = RoomSettings {
            difficulty,
            ..RoomSettings::default()
        };
        assert_eq!(dealer.deal(&settings), solvable(), "{difficulty:?}");
    }
}

#[test]
fn with_deal_any_an_unsolvable_hand_is_dealt_whatever_the_band() {
    let mut dealer = RandomDealer::over(ScriptedDealer::new(vec![unsolvable(), solvable()]));
    let settings = RoomSettings {
        deal: DealMode::Any,
        difficulty: Difficulty::Hard,
        ..RoomSettings::default()
    };
    assert_eq!(dealer.deal(&settings), unsolvable());
}
