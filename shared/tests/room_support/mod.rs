//! What the room tests share: players, hands, rooms set up at a given
//! point, and readers of a room's effects. Each test file uses a part.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod steps;

use krypto_core::cards::Deal;
use krypto_core::protocol::*;
use krypto_core::room::*;

pub const ADA: PlayerId = PlayerId(1);
pub const BOB: PlayerId = PlayerId(2);
pub const CY: PlayerId = PlayerId(3);
pub const DEE: PlayerId = PlayerId(4);

/// 1+2+3+4+5 = 15 is a solution; 1+2+3+4-5 = 5 is not.
pub fn easy() -> Deal {
    Deal {
        objective: 15,
        hand: vec![1, 2, 3, 4, 5],
    }
}

/// Five ones cannot make 25 (the most they make is 6).
pub fn impossible() -> Deal {
    Deal {
        objective: 25,
        hand: vec![1, 1, 1, 1, 1],
    }
}

pub const RIGHT: &str = "1+2+3+4+5";
pub const WRONG: &str = "1+2+3+4-5";

/// Round 1 is dealt at this time (the countdown after a start at 0).
pub const R1: u64 = COUNTDOWN_MS;

pub fn room(settings: RoomSettings, hands: Vec<Deal>) -> Room {
    let (room, fx) = Room::new(
        "KXR7P",
        Joiner::new(ADA, "Ada"),
        settings,
        Box::new(ScriptedDealer::new(hands)),
        RoomLimits::default(),
        0,
    )
    .unwrap();
    assert!(matches!(
        fx.messages.as_slice(),
        [Outgoing {
            to: Recipient::Player(ADA),
            message: ServerMessage::RoomState(_),
            reply: true
        }]
    ));
    room
}

/// A room with Ada (host), Bob and Cy seated, a match started at 0 and
/// round 1 dealt at [`R1`].
pub fn playing(settings: RoomSettings, hands: Vec<Deal>) -> Room {
    let mut r = room(settings, hands);
    r.join(Joiner::new(BOB, "Bob"), false, 0).unwrap();
    r.join(Joiner::new(CY, "Cy"), false, 0).unwrap();
    r.start(ADA, 0).unwrap();
    let fx = r.tick(R1);
    assert!(sent_to(&fx, &r, BOB)
        .iter()
        .any(|m| matches!(m, ServerMessage::RoundStarted { round: 1, .. })));
    assert_eq!(r.phase(), RoomPhase::Playing);
    r
}

/// The messages `player` receives from `fx` (members resolved after the call).
pub fn sent_to<'a>(fx: &'a Effects, room: &Room, player: PlayerId) -> Vec<&'a ServerMessage> {
    let member = room.is_member(player);
    fx.messages
        .iter()
        .filter(|o| match o.to {
            Recipient::Player(p) => p == player,
            Recipient::All => member,
            Recipient::AllExcept(p) => member && p != player,
        })
        .map(|o| &o.message)
        .collect()
}

pub fn error_code(r: Result<Effects, RoomError>) -> ErrorCode {
    r.unwrap_err().code()
}

pub fn snapshot(fx: &Effects, player: PlayerId) -> RoomSnapshot {
    fx.messages
        .iter()
        .rev()
        .find_map(|o| match (&o.to, &o.message) {
            (Recipient::Player(p), ServerMessage::RoomState(s)) if *p == player => Some(s.clone()),
            _ => None,
        })
        .expect("a room_state for the player")
}

pub fn verdict(fx: &Effects, player: PlayerId) -> (bool, Option<VerdictKind>, Option<u64>) {
    fx.messages
        .iter()
        .find_map(|o| match (&o.to, &o.message) {
            (
                Recipient::Player(p),
                ServerMessage::Verdict {
                    accepted,
                    error,
                    locked_out_ms,
                    ..
                },
            ) if *p == player => {
                assert!(o.reply, "a verdict answers the submission");
                Some((*accepted, error.as_ref().map(|e| e.kind), *locked_out_ms))
            }
            _ => None,
        })
        .expect("a verdict")
}

/// Plays a match of `rounds` rounds where `winners[i]` wins round i+1
/// (`None`: time runs out). Returns the effects of the last round.
pub fn play_rounds(r: &mut Room, winners: &[Option<PlayerId>]) -> Effects {
    let mut now = R1;
    let mut last = Effects::default();
    for (i, w) in winners.iter().enumerate() {
        let round = i as u32 + 1;
        if i > 0 {
            now += BETWEEN_ROUNDS_MS;
            r.tick(now);
        }
        match w {
            Some(p) => {
                now += 1_000;
                last = r.submit(*p, round, RIGHT, now).unwrap();
            }
            None => {
                now += 90_000;
                last = r.tick(now);
            }
        }
    }
    last
}

/// The result of the match that `fx` finished.
pub fn match_result(fx: &Effects) -> MatchResult {
    fx.events
        .iter()
        .find_map(|e| match e {
            RoomEvent::MatchFinished(m) => Some(m.clone()),
            _ => None,
        })
        .expect("the match finished")
}
