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

/// The name each test player joins with.
pub fn name(player: PlayerId) -> &'static str {
    match player {
        ADA => "Ada",
        BOB => "Bob",
        CY => "Cy",
        DEE => "Dee",
        _ => panic!("{player:?} is not one of the test players"),
    }
}

/// `players` take seats, then `spectators` come to watch, all at 0.
pub fn join_at_0(r: &mut Room, players: &[PlayerId], spectators: &[PlayerId]) {
    let seated = players.iter().map(|&p| (p, false));
    for (p, spectator) in seated.chain(spectators.iter().map(|&p| (p, true))) {
        r.join(Joiner::new(p, name(p)), spectator, 0).unwrap();
    }
}

/// A room in its lobby under the default settings, dealing easy hands,
/// hosted by Ada, where `players` sat down and `spectators` came to watch
/// at 0.
pub fn lobby(players: &[PlayerId], spectators: &[PlayerId]) -> Room {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    join_at_0(&mut r, players, spectators);
    r
}

/// A room with Ada (host), Bob and Cy seated, a match started at 0 and
/// round 1 dealt at [`R1`].
pub fn playing(settings: RoomSettings, hands: Vec<Deal>) -> Room {
    let mut r = room(settings, hands);
    join_at_0(&mut r, &[BOB, CY], &[]);
    r.start(ADA, 0).unwrap();
    let fx = r.tick(R1);
    assert!(sent_to(&fx, &r, BOB)
        .iter()
        .any(|m| matches!(m, ServerMessage::RoundStarted { round: 1, .. })));
    assert_eq!(r.phase(), RoomPhase::Playing);
    r
}

/// [`playing`] easy hands under the default settings changed by `change`
/// (the one setting a test is about).
pub fn playing_easy_with(change: impl FnOnce(&mut RoomSettings)) -> Room {
    let mut settings = RoomSettings::default();
    change(&mut settings);
    playing(settings, vec![easy()])
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

/// The round `fx` ended: how it was won and everyone's score after it.
pub fn round_won(fx: &Effects) -> Option<(&RoundWin, &[ScoreEntry])> {
    fx.messages.iter().find_map(|o| match &o.message {
        ServerMessage::RoundWon { win, scores } => Some((win, scores.as_slice())),
        _ => None,
    })
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
