//! Random sequences of commands and clock jumps: the room never panics, and
//! its invariants hold after every step.

#![allow(clippy::unwrap_used)]

use std::collections::HashSet;

use krypto_core::protocol::*;
use krypto_core::room::*;
use proptest::prelude::*;

mod room_support;

use room_support::steps::{apply, new_room, step};

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn rooms_survive_any_sequence(steps in proptest::collection::vec(step(), 1..80)) {
        let mut room = new_room();
        let mut now = 0u64;
        let mut matches = 0u32;
        let mut won: HashSet<(u32, u32)> = HashSet::new();
        for s in &steps {
            let result = apply(&mut room, s, &mut now);
            let mut batches = vec![room.tick(now)];
            if let Ok(fx) = result {
                batches.insert(0, fx);
            }
            for fx in batches {
                for e in &fx.events {
                    match e {
                        RoomEvent::MatchStarted { .. } => matches += 1,
                        RoomEvent::RoundWon(win) => {
                            let round = win.round;
                            prop_assert!(won.insert((matches, round)), "round {round} won twice");
                        }
                        _ => {}
                    }
                }
            }
            if !room.members().is_empty() {
                prop_assert!(room.is_member(room.host()), "the host is in the room");
            }
            let anyone_here = room
                .snapshot_for(PlayerId(1), now)
                .players
                .iter()
                .any(|p| p.connected);
            prop_assert_eq!(room.vacant_since().is_none(), anyone_here, "vacant exactly when nobody is connected");
            prop_assert!(room.player_count() <= room.settings().max_players);
            if let Some(d) = room.next_deadline() {
                prop_assert!(d > now, "tick left a due deadline behind");
            }
            let snap = room.snapshot_for(PlayerId(1), now);
            if let Some(r) = snap.round {
                prop_assert!(r.number >= 1 && r.number <= snap.rounds_total);
                prop_assert!(r.remaining_ms <= r.duration_ms);
            }
        }
    }
}
