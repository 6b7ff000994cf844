//! Saving a room's whole state and restoring it, as a server restarting
//! gracefully does: nothing a player relies on changes, and a round resumes
//! with the time it had left.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod room_support;

use krypto_core::protocol::*;
use krypto_core::room::*;
use proptest::prelude::*;
use room_support::steps::{self, apply, new_room, step};
use room_support::*;

/// Runs `steps` on a fresh room, delivering everything after each; returns
/// the room, its clock and how many hands it dealt.
fn run(steps: &[steps::Step]) -> (Room, u64, usize) {
    let mut room = new_room();
    let mut now = 0;
    let mut dealt = 0;
    for s in steps {
        let fx = apply(&mut room, s, &mut now).ok();
        for fx in fx.into_iter().chain([room.tick(now)]) {
            dealt += fx
                .events
                .iter()
                .filter(|e| matches!(e, RoomEvent::RoundStarted { .. }))
                .count();
        }
    }
    (room, now, dealt)
}

/// A dealer that goes on where the saved room's dealer was.
fn dealer_after(dealt: usize) -> Box<dyn Dealer> {
    let mut hands = steps::hands();
    let n = hands.len();
    hands.rotate_left(dealt % n);
    Box::new(ScriptedDealer::new(hands))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn save_restore_save_is_identity(
        steps in proptest::collection::vec(step(), 0..80),
        later in 0u64..1_000_000,
    ) {
        let (room, now, dealt) = run(&steps);
        let saved = room.save(now);
        // It survives storage as JSON.
        let json = serde_json::to_string(&saved).unwrap();
        let back: SavedRoom = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &saved);
        let restored = Room::restore(back, dealer_after(dealt), steps::LIMITS, now + later).unwrap();
        prop_assert_eq!(restored.save(now + later), saved);
    }

    #[test]
    fn a_restored_room_behaves_as_if_it_never_stopped(
        before in proptest::collection::vec(step(), 0..60),
        after in proptest::collection::vec(step(), 1..60),
        shift in 0u64..1_000_000,
    ) {
        let (mut a, mut now_a, dealt) = run(&before);
        let saved = a.save(now_a);
        let mut now_b = now_a + shift;
        let mut b = Room::restore(saved, dealer_after(dealt), steps::LIMITS, now_b).unwrap();
        for s in &after {
            prop_assert_eq!(apply(&mut a, s, &mut now_a), apply(&mut b, s, &mut now_b));
            prop_assert_eq!(a.tick(now_a), b.tick(now_b));
            prop_assert_eq!(a.next_deadline().map(|t| t + shift), b.next_deadline());
            prop_assert_eq!(a.vacant_since().map(|t| t + shift), b.vacant_since());
            prop_assert_eq!(a.save(now_a), b.save(now_b));
        }
    }
}

#[test]
fn a_round_resumes_with_the_time_it_had_left_on_a_fresh_clock() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    // Bob misses 20 s into the round and is locked out for 5 s; Cy chats.
    r.submit(BOB, 1, WRONG, R1 + 20_000).unwrap();
    r.chat(CY, "hm", R1 + 21_000).unwrap();
    r.disconnect(CY, R1 + 21_500);
    let saved_at = R1 + 22_000;
    let before = r.snapshot_for(BOB, saved_at);
    let saved = r.save(saved_at);

    // The new server's room clock starts again near zero.
    let at = 7;
    let mut back = Room::restore(
        saved,
        Box::new(ScriptedDealer::new(vec![easy()])),
        RoomLimits::default(),
        at,
    )
    .unwrap();
    let after = back.snapshot_for(BOB, at);
    assert_eq!(
        after.round, before.round,
        "same hand, time left and lockout"
    );
    assert_eq!(after.round.as_ref().unwrap().remaining_ms, 68_000);
    assert_eq!(after.players, before.players);
    assert_eq!(after.recent, before.recent);
    assert_eq!(back.phase(), RoomPhase::Playing);

    // Bob is still locked out for 3 s; Cy's seat is held 59.5 s more.
    let (accepted, kind, _) = verdict(&back.submit(BOB, 1, RIGHT, at + 2_999).unwrap(), BOB);
    assert_eq!((accepted, kind), (false, Some(VerdictKind::LockedOut)));
    assert_eq!(back.next_deadline(), Some(at + 59_500));
    // Ada wins, and the time is counted from the deal, across the restart.
    let fx = back.submit(ADA, 1, RIGHT, at + 3_000).unwrap();
    assert!(fx.events.iter().any(|e| matches!(
        e,
        RoomEvent::RoundWon(RoundWin {
            winner: ADA,
            elapsed_ms: 25_000,
            ..
        })
    )));
}

#[test]
fn a_stored_room_with_broken_settings_is_refused() {
    let r = room(RoomSettings::default(), vec![easy()]);
    let mut saved = r.save(0);
    saved.settings.rounds = 0;
    let refused = Room::restore(
        saved,
        Box::new(ScriptedDealer::new(vec![easy()])),
        RoomLimits::default(),
        0,
    );
    assert_eq!(refused.unwrap_err().code(), ErrorCode::InvalidSettings);
}
