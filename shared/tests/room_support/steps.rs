//! Random sequences of commands and clock jumps, for the room's property
//! tests.

use krypto_core::cards::Deal;
use krypto_core::protocol::*;
use krypto_core::room::*;
use proptest::prelude::*;

/// One thing that can happen to a room.
#[derive(Debug, Clone)]
pub enum Step {
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

pub const FORMULAS: [&str; 5] = ["1+2+3+4+5", "1+2+3+4-5", "((", "", "1/0+2+3+4+5"];

/// Any step, among players 1 to 5.
pub fn step() -> impl Strategy<Value = Step> {
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

/// The hands the property tests deal, in order: one solvable, one not.
pub fn hands() -> Vec<Deal> {
    vec![
        Deal {
            objective: 15,
            hand: vec![1, 2, 3, 4, 5],
        },
        Deal {
            objective: 25,
            hand: vec![1, 1, 1, 1, 1],
        },
    ]
}

/// Small limits, so sequences reach them.
pub fn settings() -> RoomSettings {
    RoomSettings {
        rounds: 3,
        round_seconds: 10,
        max_players: 3,
        deal: DealMode::Any,
        ..RoomSettings::default()
    }
}

/// The limits of the property tests' rooms.
pub const LIMITS: RoomLimits = RoomLimits { max_spectators: 2 };

/// A room hosted by player 1 at time 0.
pub fn new_room() -> Room {
    let (room, _) = Room::new(
        "ABCDE",
        Joiner::new(PlayerId(1), "p1"),
        settings(),
        Box::new(ScriptedDealer::new(hands())),
        LIMITS,
        0,
    )
    .unwrap();
    room
}

/// Applies `step` at `*now` (a wait moves `*now` on).
pub fn apply(room: &mut Room, step: &Step, now: &mut u64) -> Result<Effects, RoomError> {
    let id = PlayerId;
    let at = *now;
    match *step {
        Step::Join(p, spec) => room.join(Joiner::new(id(p), format!("p{p}")), spec, at),
        Step::Leave(p) => room.leave(id(p), at),
        Step::Disconnect(p) => Ok(room.disconnect(id(p), at)),
        Step::Reconnect(p) => room.reconnect(id(p), at),
        Step::Start(p) => room.start(id(p), at),
        Step::Submit(p, r, f) => room.submit(id(p), r, FORMULAS[f], at),
        Step::Claim(p, r) => room.claim_no_solution(id(p), r, at),
        Step::Chat(p, n) => room.chat(id(p), &"a".repeat(n), at),
        Step::Kick(a, b) => room.kick(id(a), id(b), at),
        Step::Lock(p, l) => room.lock(id(p), l, at),
        Step::Transfer(a, b) => room.transfer_host(id(a), id(b), at),
        Step::Settings(p, r, m) => room.update_settings(
            id(p),
            &SettingsPatch {
                rounds: Some(r),
                max_players: Some(m),
                ..Default::default()
            },
            at,
        ),
        Step::Wait(ms) => {
            *now += ms;
            Ok(room.tick(*now))
        }
    }
}
