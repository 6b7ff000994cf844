//! Where hands come from: the random dealer meets the room's settings.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use krypto_core::protocol::*;
use krypto_core::room::*;
use krypto_core::Rules;

#[test]
fn the_random_dealer_meets_the_settings() {
    for seed in 0..5 {
        let mut dealer = RandomDealer::seeded(seed);
        let solvable = RoomSettings::default();
        let d = dealer.deal(&solvable);
        assert_eq!(d.hand.len(), 5);
        assert!(
            krypto_core::solver::solve_one(&d.hand, d.objective, Rules::Free)
                .unwrap()
                .is_some()
        );

        let intl = RoomSettings {
            rules: Rules::International,
            ..RoomSettings::default()
        };
        let d = dealer.deal(&intl);
        assert!(
            krypto_core::solver::solve_one(&d.hand, d.objective, Rules::International)
                .unwrap()
                .is_some()
        );

        let twenty_four = RoomSettings {
            variant: Variant::TwentyFour,
            ..RoomSettings::default()
        };
        let d = dealer.deal(&twenty_four);
        assert_eq!(d.objective, 24);
        assert_eq!(d.hand.len(), 4);
        assert!(d.hand.iter().all(|c| (1..=13).contains(c)));
        assert!(krypto_core::solver::solve_one(&d.hand, 24, Rules::Free)
            .unwrap()
            .is_some());

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
