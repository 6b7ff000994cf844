//! Random sequences of commands and clock jumps: the room never panics, and
//! its invariants hold after every step.

#![allow(clippy::unwrap_used)]

use std::collections::HashSet;

use krypto_core::cards::Deal;
use krypto_core::protocol::*;
use krypto_core::room::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Step {
    Join(i64, bool),
    Leave(i64),
    Disconnect(i64),
    Reconnect(i64),
    Start(i64),
    Submit(i64, u32, usize),
    Claim(i64, u32),
    Chat(i64, usize),
    Kick(i64, i64),
    Lock(i64, bool),
    Transfer(i64, i64),
    Settings(i64, u32, u32),
    Wait(u64),
}

const FORMULAS: [&str; 5] = ["1+2+3+4+5", "1+2+3+4-5", "((", "", "1/0+2+3+4+5"];

fn step() -> impl Strategy<Value = Step> {
    let p = 1i64..6;
    prop_oneof![
        (p.clone(), any::<bool>()).prop_map(|(p, s)| Step::Join(p, s)),
        p.clone().prop_map(Step::Leave),
        p.clone().prop_map(Step::Disconnect),
        p.clone().prop_map(Step::Reconnect),
        p.clone().prop_map(Step::Start),
        (p.clone(), 0u32..4, 0..FORMULAS.len()).prop_map(|(p, r, f)| Step::Submit(p, r, f)),
        (p.clone(), 0u32..4).prop_map(|(p, r)| Step::Claim(p, r)),
        (p.clone(), 0usize..300).prop_map(|(p, n)| Step::Chat(p, n)),
        (p.clone(), p.clone()).prop_map(|(a, b)| Step::Kick(a, b)),
        (p.clone(), any::<bool>()).prop_map(|(p, l)| Step::Lock(p, l)),
        (p.clone(), p.clone()).prop_map(|(a, b)| Step::Transfer(a, b)),
        (p.clone(), 0u32..5, 0u32..4).prop_map(|(p, r, m)| Step::Settings(p, r, m)),
        prop_oneof![0u64..2_000, 0u64..100_000].prop_map(Step::Wait),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn rooms_survive_any_sequence(steps in proptest::collection::vec(step(), 1..80)) {
        let hands = vec![
            Deal { objective: 15, hand: vec![1, 2, 3, 4, 5] },
            Deal { objective: 25, hand: vec![1, 1, 1, 1, 1] },
        ];
        let settings = RoomSettings {
            rounds: 3,
            round_seconds: 10,
            max_players: 3,
            deal: DealMode::Any,
            ..RoomSettings::default()
        };
        let (mut room, _) = Room::new(
            "ABCDE",
            Joiner::new(PlayerId(1), "p1"),
            settings,
            Box::new(ScriptedDealer::new(hands)),
            RoomLimits { max_spectators: 2 },
            0,
        )
        .unwrap();
        let mut now = 0u64;
        let mut matches = 0u32;
        let mut won: HashSet<(u32, u32)> = HashSet::new();
        for s in steps {
            let id = PlayerId;
            let result: Result<Effects, RoomError> = match s {
                Step::Join(p, spec) => room.join(Joiner::new(id(p), format!("p{p}")), spec, now),
                Step::Leave(p) => room.leave(id(p), now),
                Step::Disconnect(p) => Ok(room.disconnect(id(p), now)),
                Step::Reconnect(p) => room.reconnect(id(p), now),
                Step::Start(p) => room.start(id(p), now),
                Step::Submit(p, r, f) => room.submit(id(p), r, FORMULAS[f], now),
                Step::Claim(p, r) => room.claim_no_solution(id(p), r, now),
                Step::Chat(p, n) => room.chat(id(p), &"a".repeat(n), now),
                Step::Kick(a, b) => room.kick(id(a), id(b), now),
                Step::Lock(p, l) => room.lock(id(p), l, now),
                Step::Transfer(a, b) => room.transfer_host(id(a), id(b), now),
                Step::Settings(p, r, m) => room.update_settings(
                    id(p),
                    &SettingsPatch { rounds: Some(r), max_players: Some(m), ..Default::default() },
                    now,
                ),
                Step::Wait(ms) => {
                    now += ms;
                    Ok(room.tick(now))
                }
            };
            let mut batches = vec![room.tick(now)];
            if let Ok(fx) = result {
                batches.insert(0, fx);
            }
            for fx in batches {
                for e in &fx.events {
                    match e {
                        RoomEvent::MatchStarted { .. } => matches += 1,
                        RoomEvent::RoundWon { round, .. } => {
                            prop_assert!(won.insert((matches, *round)), "round {round} won twice");
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
