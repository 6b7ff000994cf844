//! A room's rules, driven through its public methods with explicit times.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use krypto_core::cards::Deal;
use krypto_core::protocol::*;
use krypto_core::room::*;
use krypto_core::Rules;

const ADA: PlayerId = PlayerId(1);
const BOB: PlayerId = PlayerId(2);
const CY: PlayerId = PlayerId(3);
const DEE: PlayerId = PlayerId(4);

/// 1+2+3+4+5 = 15 is a solution; 1+2+3+4-5 = 5 is not.
fn easy() -> Deal {
    Deal {
        objective: 15,
        hand: vec![1, 2, 3, 4, 5],
    }
}

/// Five ones cannot make 25 (the most they make is 6).
fn impossible() -> Deal {
    Deal {
        objective: 25,
        hand: vec![1, 1, 1, 1, 1],
    }
}

const RIGHT: &str = "1+2+3+4+5";
const WRONG: &str = "1+2+3+4-5";

/// Round 1 is dealt at this time (the countdown after a start at 0).
const R1: u64 = COUNTDOWN_MS;

fn room(settings: RoomSettings, hands: Vec<Deal>) -> Room {
    let (room, fx) = Room::new(
        "KXR7P",
        ADA,
        "Ada",
        settings,
        Box::new(ScriptedDealer::new(hands)),
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
fn playing(settings: RoomSettings, hands: Vec<Deal>) -> Room {
    let mut r = room(settings, hands);
    r.join(BOB, "Bob", false, 0).unwrap();
    r.join(CY, "Cy", false, 0).unwrap();
    r.start(ADA, 0).unwrap();
    let fx = r.tick(R1);
    assert!(sent_to(&fx, &r, BOB)
        .iter()
        .any(|m| matches!(m, ServerMessage::RoundStarted { round: 1, .. })));
    assert_eq!(r.phase(), RoomPhase::Playing);
    r
}

/// The messages `player` receives from `fx` (members resolved after the call).
fn sent_to<'a>(fx: &'a Effects, room: &Room, player: PlayerId) -> Vec<&'a ServerMessage> {
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

fn error_code(r: Result<Effects, RoomError>) -> ErrorCode {
    r.unwrap_err().code()
}

fn snapshot(fx: &Effects, player: PlayerId) -> RoomSnapshot {
    fx.messages
        .iter()
        .rev()
        .find_map(|o| match (&o.to, &o.message) {
            (Recipient::Player(p), ServerMessage::RoomState(s)) if *p == player => Some(s.clone()),
            _ => None,
        })
        .expect("a room_state for the player")
}

fn verdict(fx: &Effects, player: PlayerId) -> (bool, Option<VerdictKind>, Option<u64>) {
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

#[test]
fn a_new_room_starts_in_its_lobby_with_the_host_seated() {
    let r = room(RoomSettings::default(), vec![easy()]);
    assert_eq!(r.code(), "KXR7P");
    assert_eq!(r.host(), ADA);
    assert_eq!(r.phase(), RoomPhase::Lobby);
    assert_eq!(r.player_count(), 1);
    assert_eq!(r.next_deadline(), None);
    let s = r.snapshot_for(ADA, 0);
    assert_eq!(s.state, RoomPhase::Lobby);
    assert_eq!(s.players.len(), 1);
    assert!(s.round.is_none());
    let bad = RoomSettings {
        rounds: 0,
        ..RoomSettings::default()
    };
    let refused = Room::new(
        "X",
        ADA,
        "Ada",
        bad,
        Box::new(ScriptedDealer::new(vec![])),
        0,
    );
    assert_eq!(refused.unwrap_err().code(), ErrorCode::InvalidSettings);
}

#[test]
fn only_the_host_starts_and_only_between_matches() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(BOB, "Bob", false, 0).unwrap();
    assert_eq!(error_code(r.start(BOB, 0)), ErrorCode::NotHost);
    assert_eq!(error_code(r.start(DEE, 0)), ErrorCode::NotInRoom);
    let fx = r.start(ADA, 0).unwrap();
    assert!(matches!(
        fx.events.as_slice(),
        [RoomEvent::MatchStarted { players, .. }] if players == &vec![ADA, BOB]
    ));
    assert!(sent_to(&fx, &r, BOB).iter().any(|m| matches!(
        m,
        ServerMessage::MatchStarted {
            rounds_total: 10,
            countdown_ms: COUNTDOWN_MS,
            ..
        }
    )));
    assert_eq!(r.phase(), RoomPhase::Countdown);
    assert_eq!(error_code(r.start(ADA, 1)), ErrorCode::WrongState);
    // The countdown ends with the first deal.
    assert_eq!(r.next_deadline(), Some(R1));
    assert!(r.tick(R1 - 1).messages.is_empty());
    let fx = r.tick(R1);
    assert!(matches!(
        sent_to(&fx, &r, ADA).as_slice(),
        [ServerMessage::RoundStarted {
            round: 1,
            objective: 15,
            duration_ms: 90_000,
            ..
        }]
    ));
    assert_eq!(
        fx.events,
        vec![RoomEvent::RoundStarted {
            round: 1,
            objective: 15,
            cards: vec![1, 2, 3, 4, 5]
        }]
    );
    assert_eq!(r.next_deadline(), Some(R1 + 90_000));
    assert_eq!(error_code(r.start(ADA, R1 + 1)), ErrorCode::WrongState);
}

#[test]
fn a_match_needs_a_player() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(BOB, "Bob", true, 0).unwrap();
    r.leave(ADA, 0).unwrap();
    // The spectator inherits the room but cannot play alone.
    assert_eq!(r.host(), BOB);
    assert_eq!(error_code(r.start(BOB, 0)), ErrorCode::WrongState);
}

#[test]
fn submitting_outside_a_round_is_refused() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    assert_eq!(
        error_code(r.submit(ADA, 1, RIGHT, 0)),
        ErrorCode::WrongState
    );
    r.start(ADA, 0).unwrap();
    assert_eq!(
        error_code(r.submit(ADA, 1, RIGHT, 10)),
        ErrorCode::WrongState
    );
    assert_eq!(
        error_code(r.submit(DEE, 1, RIGHT, 10)),
        ErrorCode::NotInRoom
    );
}

#[test]
fn the_first_right_formula_wins_and_the_next_gets_round_over() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    let fx = r.submit(BOB, 1, RIGHT, R1 + 12_345).unwrap();
    assert_eq!(verdict(&fx, BOB), (true, None, None));
    let won = sent_to(&fx, &r, CY)
        .into_iter()
        .find_map(|m| match m {
            ServerMessage::RoundWon {
                winner,
                formula,
                no_solution,
                elapsed_ms,
                points,
                scores,
                ..
            } => Some((
                *winner,
                formula.clone(),
                *no_solution,
                *elapsed_ms,
                *points,
                scores.clone(),
            )),
            _ => None,
        })
        .unwrap();
    assert_eq!(won.0, BOB);
    assert_eq!(won.1.as_deref(), Some(RIGHT));
    assert!(!won.2);
    assert_eq!(won.3, 12_345);
    assert_eq!(won.4, 1);
    assert!(won.5.contains(&ScoreEntry {
        player: BOB,
        score: 1
    }));
    assert!(won.5.contains(&ScoreEntry {
        player: ADA,
        score: 0
    }));
    assert!(fx.events.contains(&RoomEvent::RoundWon {
        round: 1,
        winner: BOB,
        formula: Some(RIGHT.into()),
        no_solution: false,
        elapsed_ms: 12_345,
        points: 1
    }));
    assert!(fx.events.iter().any(|e| matches!(
        e,
        RoomEvent::Attempt {
            player: BOB,
            accepted: true,
            ..
        }
    )));
    assert_eq!(r.phase(), RoomPhase::BetweenRounds);

    // Cy's right answer arrives after Bob's: too late.
    let fx = r.submit(CY, 1, RIGHT, R1 + 12_346).unwrap();
    assert_eq!(
        verdict(&fx, CY),
        (false, Some(VerdictKind::RoundOver), None)
    );
    assert!(!fx
        .messages
        .iter()
        .any(|o| matches!(o.message, ServerMessage::RoundWon { .. })));

    // After the pause the next round is dealt.
    let next = R1 + 12_345 + BETWEEN_ROUNDS_MS;
    assert_eq!(r.next_deadline(), Some(next));
    let fx = r.tick(next);
    assert!(sent_to(&fx, &r, ADA)
        .iter()
        .any(|m| matches!(m, ServerMessage::RoundStarted { round: 2, .. })));
    assert_eq!(
        error_code(r.submit(ADA, 1, RIGHT, next + 1)),
        ErrorCode::WrongRound
    );
    assert_eq!(
        error_code(r.submit(ADA, 3, RIGHT, next + 1)),
        ErrorCode::WrongRound
    );
}

#[test]
fn a_wrong_formula_locks_out_its_sender_and_tells_the_room_without_the_formula() {
    let settings = RoomSettings {
        wrong_penalty: 2,
        ..RoomSettings::default()
    };
    let mut r = playing(settings, vec![easy()]);
    let t = R1 + 1_000;
    let fx = r.submit(BOB, 1, WRONG, t).unwrap();
    assert_eq!(
        verdict(&fx, BOB),
        (false, Some(VerdictKind::WrongValue), Some(5_000))
    );
    // The others learn that Bob failed, and his score, but not his formula.
    let others = sent_to(&fx, &r, CY);
    assert_eq!(
        others,
        vec![&ServerMessage::AttemptFailed {
            round: 1,
            player: BOB,
            score: -2
        }]
    );
    assert!(!sent_to(&fx, &r, BOB)
        .iter()
        .any(|m| matches!(m, ServerMessage::AttemptFailed { .. })));
    assert!(fx.events.iter().any(|e| matches!(
        e,
        RoomEvent::Attempt {
            player: BOB,
            accepted: false,
            error: Some(VerdictKind::WrongValue),
            ..
        }
    )));

    // Locked out: even a right answer is refused, with the time left.
    let fx = r.submit(BOB, 1, RIGHT, t + 3_000).unwrap();
    assert_eq!(
        verdict(&fx, BOB),
        (false, Some(VerdictKind::LockedOut), Some(2_000))
    );
    assert_eq!(r.phase(), RoomPhase::Playing);
    // A syntax error names its kind and column.
    let fx = r.submit(CY, 1, "1+2+*3", t + 3_000).unwrap();
    let err = fx
        .messages
        .iter()
        .find_map(|o| match &o.message {
            ServerMessage::Verdict { error: Some(e), .. } => Some(e.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(err.kind, VerdictKind::Syntax);
    assert!(err.column.is_some());

    // A resumed snapshot shows the lockout.
    let s = r.snapshot_for(BOB, t + 4_000);
    assert_eq!(s.round.as_ref().unwrap().locked_out_ms, Some(1_000));
    assert_eq!(s.players.iter().find(|p| p.id == BOB).unwrap().score, -2);

    // Once the lockout is over, Bob may win.
    let fx = r.submit(BOB, 1, RIGHT, t + 5_000).unwrap();
    assert_eq!(verdict(&fx, BOB), (true, None, None));
}

#[test]
fn no_lockout_when_lockout_is_zero() {
    let settings = RoomSettings {
        lockout_seconds: 0,
        ..RoomSettings::default()
    };
    let mut r = playing(settings, vec![easy()]);
    let fx = r.submit(BOB, 1, WRONG, R1 + 1).unwrap();
    assert_eq!(
        verdict(&fx, BOB),
        (false, Some(VerdictKind::WrongValue), None)
    );
    let fx = r.submit(BOB, 1, RIGHT, R1 + 1).unwrap();
    assert_eq!(verdict(&fx, BOB), (true, None, None));
}

#[test]
fn a_timed_out_round_reveals_a_solution_and_the_count() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    let end = R1 + 90_000;
    assert!(r.tick(end - 1).messages.is_empty());
    let fx = r.tick(end);
    let (solution, solutions) = sent_to(&fx, &r, ADA)
        .into_iter()
        .find_map(|m| match m {
            ServerMessage::RoundTimedOut {
                round: 1,
                solution,
                solutions,
            } => Some((solution.clone(), *solutions)),
            _ => None,
        })
        .unwrap();
    let solution = solution.unwrap();
    krypto_core::formula::check(&solution, &[1, 2, 3, 4, 5], 15, Rules::Free).unwrap();
    let expected = krypto_core::solver::count_solutions(&[1, 2, 3, 4, 5], 15, Rules::Free).unwrap();
    assert_eq!(solutions, expected as u64);
    assert!(solutions >= 1);
    assert!(fx
        .events
        .iter()
        .any(|e| matches!(e, RoomEvent::RoundTimedOut { round: 1, .. })));
    assert_eq!(r.phase(), RoomPhase::BetweenRounds);
    assert_eq!(r.next_deadline(), Some(end + BETWEEN_ROUNDS_MS));
}

#[test]
fn an_answer_after_the_deadline_is_too_late_even_before_the_tick() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    let fx = r.submit(BOB, 1, RIGHT, R1 + 90_000).unwrap();
    // The timeout is processed first, then the answer is judged late.
    let kinds: Vec<&ServerMessage> = fx.messages.iter().map(|o| &o.message).collect();
    assert!(matches!(kinds[0], ServerMessage::RoundTimedOut { .. }));
    assert_eq!(
        verdict(&fx, BOB),
        (false, Some(VerdictKind::RoundOver), None)
    );
}

#[test]
fn time_passing_during_a_refused_command_is_not_lost() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    // Refused, but the round timed out meanwhile: the next tick delivers it.
    assert_eq!(
        error_code(r.submit(BOB, 7, RIGHT, R1 + 90_000)),
        ErrorCode::WrongRound
    );
    assert_eq!(r.next_deadline(), Some(0));
    let fx = r.tick(R1 + 90_000);
    assert!(fx
        .messages
        .iter()
        .any(|o| matches!(o.message, ServerMessage::RoundTimedOut { .. })));
    // handle() puts both in one batch: the timeout, then the error reply.
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    let fx = r.handle(
        BOB,
        &ClientMessage::Submit {
            round: 7,
            formula: RIGHT.into(),
        },
        R1 + 90_000,
    );
    let last = fx.messages.last().unwrap();
    assert!(last.reply);
    assert!(matches!(
        last.message,
        ServerMessage::Error {
            code: ErrorCode::WrongRound,
            ..
        }
    ));
    assert!(matches!(
        fx.messages[0].message,
        ServerMessage::RoundTimedOut { .. }
    ));
}

/// Plays a match of `rounds` rounds where `winners[i]` wins round i+1
/// (`None`: time runs out). Returns the effects of the last round.
fn play_rounds(r: &mut Room, winners: &[Option<PlayerId>]) -> Effects {
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

#[test]
fn the_match_ends_after_its_rounds_with_standings_and_shared_ranks() {
    let settings = RoomSettings {
        rounds: 3,
        ..RoomSettings::default()
    };
    let mut r = playing(settings, vec![easy()]);
    let fx = play_rounds(&mut r, &[Some(ADA), None, Some(BOB)]);
    let standings = sent_to(&fx, &r, CY)
        .into_iter()
        .find_map(|m| match m {
            ServerMessage::MatchOver { standings } => Some(standings.clone()),
            _ => None,
        })
        .unwrap();
    let rows: Vec<(PlayerId, i64, u32)> = standings
        .iter()
        .map(|s| (s.player, s.score, s.rank))
        .collect();
    assert_eq!(rows, vec![(ADA, 1, 1), (BOB, 1, 1), (CY, 0, 3)]);
    let result = fx
        .events
        .iter()
        .find_map(|e| match e {
            RoomEvent::MatchFinished(m) => Some(m.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(result.rounds_played, 3);
    assert_eq!(result.standings, standings);
    assert_eq!(r.phase(), RoomPhase::Finished);
    assert_eq!(r.next_deadline(), None);
    // Late answers after the end are "round over"; a rematch starts afresh.
    let fx = r.submit(CY, 3, RIGHT, 500_000).unwrap();
    assert_eq!(
        verdict(&fx, CY),
        (false, Some(VerdictKind::RoundOver), None)
    );
    r.start(ADA, 500_000).unwrap();
    assert!(r
        .snapshot_for(ADA, 500_000)
        .players
        .iter()
        .all(|p| p.score == 0));
}

#[test]
fn reaching_the_target_score_ends_the_match_early() {
    let settings = RoomSettings {
        rounds: 10,
        target_score: Some(2),
        ..RoomSettings::default()
    };
    let mut r = playing(settings, vec![easy()]);
    let fx = play_rounds(&mut r, &[Some(BOB), Some(ADA), Some(BOB)]);
    assert_eq!(r.phase(), RoomPhase::Finished);
    let result = fx
        .events
        .iter()
        .find_map(|e| match e {
            RoomEvent::MatchFinished(m) => Some(m.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(result.rounds_played, 3);
    assert_eq!(result.standings[0].player, BOB);
    assert_eq!(result.standings[0].score, 2);
}

#[test]
fn a_player_who_leaves_mid_match_stays_in_the_standings() {
    let settings = RoomSettings {
        rounds: 2,
        ..RoomSettings::default()
    };
    let mut r = playing(settings, vec![easy()]);
    r.submit(CY, 1, RIGHT, R1 + 1_000).unwrap();
    r.leave(CY, R1 + 2_000).unwrap();
    r.tick(R1 + 1_000 + BETWEEN_ROUNDS_MS);
    let fx = r.submit(ADA, 2, RIGHT, R1 + 10_000).unwrap();
    let result = fx
        .events
        .iter()
        .find_map(|e| match e {
            RoomEvent::MatchFinished(m) => Some(m.clone()),
            _ => None,
        })
        .unwrap();
    let rows: Vec<(PlayerId, u32)> = result
        .standings
        .iter()
        .map(|s| (s.player, s.rank))
        .collect();
    assert_eq!(rows, vec![(ADA, 1), (CY, 1), (BOB, 3)]);
}

#[test]
fn the_match_is_abandoned_when_every_player_leaves() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    r.join(DEE, "Dee", true, R1).unwrap();
    r.leave(BOB, R1 + 1).unwrap();
    r.leave(CY, R1 + 1).unwrap();
    let fx = r.leave(ADA, R1 + 1).unwrap();
    assert!(fx.events.contains(&RoomEvent::MatchAbandoned));
    assert_eq!(r.phase(), RoomPhase::Lobby);
    assert_eq!(r.host(), DEE);
}

#[test]
fn claims_of_no_solution_need_deal_any_and_are_judged_at_once() {
    let mut r = playing(RoomSettings::default(), vec![impossible()]);
    assert_eq!(
        error_code(r.claim_no_solution(BOB, 1, R1 + 1)),
        ErrorCode::WrongState
    );

    let any = RoomSettings {
        deal: DealMode::Any,
        ..RoomSettings::default()
    };
    // A wrong claim is a wrong answer that reveals nothing.
    let mut r = playing(any.clone(), vec![easy()]);
    let fx = r.claim_no_solution(BOB, 1, R1 + 1).unwrap();
    assert_eq!(
        verdict(&fx, BOB),
        (false, Some(VerdictKind::HasSolution), Some(5_000))
    );
    assert_eq!(
        sent_to(&fx, &r, CY),
        vec![&ServerMessage::AttemptFailed {
            round: 1,
            player: BOB,
            score: 0
        }]
    );
    assert!(!format!("{:?}", fx.messages).contains("1+2"));

    // A right claim wins the round.
    let mut r = playing(any, vec![impossible()]);
    let fx = r.claim_no_solution(CY, 1, R1 + 2_000).unwrap();
    assert_eq!(verdict(&fx, CY), (true, None, None));
    assert!(sent_to(&fx, &r, ADA).iter().any(|m| matches!(
        m,
        ServerMessage::RoundWon {
            winner: CY,
            formula: None,
            no_solution: true,
            elapsed_ms: 2_000,
            ..
        }
    )));
}

#[test]
fn a_timed_out_unsolvable_hand_reveals_no_solution() {
    let any = RoomSettings {
        deal: DealMode::Any,
        ..RoomSettings::default()
    };
    let mut r = playing(any, vec![impossible()]);
    let fx = r.tick(R1 + 90_000);
    assert!(sent_to(&fx, &r, ADA).iter().any(|m| matches!(
        m,
        ServerMessage::RoundTimedOut {
            solution: None,
            solutions: 0,
            ..
        }
    )));
}

#[test]
fn the_longest_seated_connected_player_succeeds_the_host() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(DEE, "Dee", true, 0).unwrap();
    r.join(BOB, "Bob", false, 1).unwrap();
    r.join(CY, "Cy", false, 2).unwrap();
    r.disconnect(BOB, 3);
    let fx = r.leave(ADA, 4).unwrap();
    assert_eq!(r.host(), CY, "Bob is away, Dee only watches");
    assert_eq!(snapshot(&fx, CY).host, CY);
    assert!(fx.removed.contains(&ADA));
    // The leaver's reply is their own departure.
    assert!(fx.messages.iter().any(|o| o.to == Recipient::Player(ADA)
        && o.reply
        && matches!(
            o.message,
            ServerMessage::PlayerLeft {
                player: ADA,
                reason: LeaveReason::Left,
                ..
            }
        )));
    assert_eq!(error_code(r.leave(ADA, 5)), ErrorCode::NotInRoom);
}

#[test]
fn the_host_can_hand_over_the_role() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(BOB, "Bob", false, 0).unwrap();
    r.join(DEE, "Dee", true, 0).unwrap();
    assert_eq!(error_code(r.transfer_host(BOB, BOB, 0)), ErrorCode::NotHost);
    assert_eq!(
        error_code(r.transfer_host(ADA, CY, 0)),
        ErrorCode::PlayerNotFound
    );
    assert_eq!(
        error_code(r.transfer_host(ADA, DEE, 0)),
        ErrorCode::NotAPlayer
    );
    let fx = r.transfer_host(ADA, BOB, 0).unwrap();
    assert_eq!(r.host(), BOB);
    assert_eq!(snapshot(&fx, DEE).host, BOB);
    assert_eq!(error_code(r.start(ADA, 0)), ErrorCode::NotHost);
}

#[test]
fn a_kicked_player_is_told_removed_and_cannot_come_back() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(BOB, "Bob", false, 0).unwrap();
    r.join(CY, "Cy", false, 0).unwrap();
    assert_eq!(error_code(r.kick(BOB, CY, 1)), ErrorCode::NotHost);
    assert_eq!(error_code(r.kick(ADA, DEE, 1)), ErrorCode::PlayerNotFound);
    assert_eq!(error_code(r.kick(ADA, ADA, 1)), ErrorCode::WrongState);
    let fx = r.kick(ADA, BOB, 1).unwrap();
    assert_eq!(fx.removed, vec![BOB]);
    assert!(!r.is_member(BOB));
    let notice = ServerMessage::PlayerLeft {
        player: BOB,
        name: "Bob".into(),
        reason: LeaveReason::Kicked,
    };
    assert!(sent_to(&fx, &r, BOB).contains(&&notice));
    assert!(sent_to(&fx, &r, CY).contains(&&notice));
    assert_eq!(snapshot(&fx, CY).players.len(), 2);
    assert_eq!(
        error_code(r.join(BOB, "Bob", false, 2)),
        ErrorCode::RoomLocked
    );
}

#[test]
fn a_locked_room_refuses_newcomers_but_not_returning_players() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(BOB, "Bob", false, 0).unwrap();
    assert_eq!(error_code(r.lock(BOB, true, 0)), ErrorCode::NotHost);
    let fx = r.lock(ADA, true, 0).unwrap();
    assert!(snapshot(&fx, BOB).locked);
    r.disconnect(BOB, 1);
    assert_eq!(
        error_code(r.join(CY, "Cy", false, 2)),
        ErrorCode::RoomLocked
    );
    assert_eq!(
        error_code(r.join(DEE, "Dee", true, 2)),
        ErrorCode::RoomLocked
    );
    // Bob comes back, by join or by resuming.
    let fx = r.join(BOB, "Bob", false, 3).unwrap();
    assert!(snapshot(&fx, BOB).players.iter().all(|p| p.connected));
    r.lock(ADA, false, 4).unwrap();
    r.join(CY, "Cy", false, 5).unwrap();
}

#[test]
fn seats_are_limited_but_spectators_are_not() {
    let settings = RoomSettings {
        max_players: 2,
        ..RoomSettings::default()
    };
    let mut r = room(settings, vec![easy()]);
    r.join(BOB, "Bob", false, 0).unwrap();
    assert_eq!(error_code(r.join(CY, "Cy", false, 0)), ErrorCode::RoomFull);
    for i in 10..50 {
        r.join(PlayerId(i), format!("watcher {i}"), true, 0)
            .unwrap();
    }
    assert_eq!(r.player_count(), 2);
    // As many seats as seated players is fine.
    let patch = SettingsPatch {
        max_players: Some(2),
        ..SettingsPatch::default()
    };
    r.update_settings(ADA, &patch, 0).unwrap();
}

#[test]
fn spectators_watch_chat_and_never_score() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    let fx = r.join(DEE, "Dee", true, 0).unwrap();
    assert!(sent_to(&fx, &r, ADA).iter().any(|m| matches!(
        m,
        ServerMessage::PlayerJoined {
            player: DEE,
            spectator: true,
            ..
        }
    )));
    r.start(ADA, 0).unwrap();
    let fx = r.tick(R1);
    assert!(sent_to(&fx, &r, DEE)
        .iter()
        .any(|m| matches!(m, ServerMessage::RoundStarted { .. })));
    assert_eq!(
        error_code(r.submit(DEE, 1, RIGHT, R1 + 1)),
        ErrorCode::NotAPlayer
    );
    r.chat(DEE, "go Ada", R1 + 1).unwrap();
    let fx = r.submit(ADA, 1, RIGHT, R1 + 2).unwrap();
    let scores = fx
        .messages
        .iter()
        .find_map(|o| match &o.message {
            ServerMessage::RoundWon { scores, .. } => Some(scores.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        scores,
        vec![ScoreEntry {
            player: ADA,
            score: 1
        }]
    );
}

#[test]
fn a_late_joiner_plays_from_the_next_round() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    let fx = r.join(DEE, "Dee", false, R1 + 1_000).unwrap();
    let s = snapshot(&fx, DEE);
    assert!(fx
        .messages
        .iter()
        .any(|o| o.reply && o.to == Recipient::Player(DEE)));
    assert_eq!(s.state, RoomPhase::Playing);
    let round = s.round.unwrap();
    assert_eq!((round.number, round.remaining_ms), (1, 89_000));
    assert!(s.players.iter().find(|p| p.id == DEE).unwrap().waiting);
    assert_eq!(
        error_code(r.submit(DEE, 1, RIGHT, R1 + 2_000)),
        ErrorCode::NotAPlayer
    );
    r.submit(ADA, 1, RIGHT, R1 + 3_000).unwrap();
    r.tick(R1 + 3_000 + BETWEEN_ROUNDS_MS);
    let fx = r.submit(DEE, 2, RIGHT, R1 + 10_000).unwrap();
    assert_eq!(verdict(&fx, DEE), (true, None, None));
}

#[test]
fn a_dropped_player_keeps_their_seat_for_a_minute_and_resumes_with_a_snapshot() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    r.submit(BOB, 1, WRONG, R1 + 1_000).unwrap();
    let fx = r.disconnect(BOB, R1 + 2_000);
    let s = snapshot(&fx, ADA);
    assert!(!s.players.iter().find(|p| p.id == BOB).unwrap().connected);
    assert!(fx.removed.is_empty());
    assert_eq!(
        r.next_deadline(),
        Some(R1 + 2_000 + SEAT_HOLD_MS).min(Some(R1 + 90_000))
    );

    let fx = r.reconnect(BOB, R1 + 3_000).unwrap();
    let s = snapshot(&fx, BOB);
    assert!(fx
        .messages
        .iter()
        .any(|o| o.reply && o.to == Recipient::Player(BOB)));
    let round = s.round.unwrap();
    assert_eq!(round.number, 1);
    assert_eq!(round.cards, vec![1, 2, 3, 4, 5]);
    assert_eq!(round.remaining_ms, 87_000);
    assert_eq!(round.locked_out_ms, Some(3_000));
    assert!(s.players.iter().all(|p| p.connected));
    assert!(!s.recent.is_empty(), "the feed is refilled");
    assert_eq!(
        error_code(r.reconnect(DEE, R1 + 3_000)),
        ErrorCode::NotInRoom
    );
}

#[test]
fn a_seat_is_released_after_a_minute_away() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(BOB, "Bob", false, 0).unwrap();
    r.disconnect(ADA, 1_000);
    assert_eq!(r.next_deadline(), Some(1_000 + SEAT_HOLD_MS));
    assert!(r.tick(1_000 + SEAT_HOLD_MS - 1).is_empty());
    let fx = r.tick(1_000 + SEAT_HOLD_MS);
    assert_eq!(fx.removed, vec![ADA]);
    assert!(sent_to(&fx, &r, BOB).iter().any(|m| matches!(
        m,
        ServerMessage::PlayerLeft {
            player: ADA,
            reason: LeaveReason::TimedOut,
            ..
        }
    )));
    assert_eq!(r.host(), BOB);
    assert!(!r.is_member(ADA));
    assert_eq!(r.is_empty_since(), None);
    // The last one out leaves an empty room the lobby may close.
    r.leave(BOB, 70_000).unwrap();
    assert_eq!(r.is_empty_since(), Some(70_000));
    assert_eq!(r.next_deadline(), None);
}

#[test]
fn chat_is_limited_in_length_and_rate() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(BOB, "Bob", false, 0).unwrap();
    let fx = r.chat(BOB, "  hello  ", 0).unwrap();
    assert_eq!(
        sent_to(&fx, &r, ADA),
        vec![&ServerMessage::Chat {
            from: BOB,
            name: "Bob".into(),
            text: "hello".into()
        }]
    );
    assert_eq!(
        error_code(r.chat(BOB, &"x".repeat(201), 0)),
        ErrorCode::TooLong
    );
    r.chat(BOB, &"é".repeat(200), 0).unwrap();
    assert_eq!(error_code(r.chat(BOB, "   ", 0)), ErrorCode::BadMessage);
    assert_eq!(error_code(r.chat(DEE, "hi", 0)), ErrorCode::NotInRoom);
    for t in [1, 2, 3] {
        r.chat(BOB, "spam", t).unwrap();
    }
    assert_eq!(error_code(r.chat(BOB, "spam", 4)), ErrorCode::RateLimited);
    // Others are not affected; Bob may speak again once the window moves.
    r.chat(ADA, "calm down", 5).unwrap();
    assert_eq!(
        error_code(r.chat(BOB, "spam", CHAT_WINDOW_MS - 1)),
        ErrorCode::RateLimited
    );
    r.chat(BOB, "sorry", CHAT_WINDOW_MS).unwrap();
}

#[test]
fn settings_change_only_by_the_host_between_matches() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(BOB, "Bob", false, 0).unwrap();
    let patch = SettingsPatch {
        rounds: Some(3),
        rules: Some(Rules::Integer),
        ..SettingsPatch::default()
    };
    assert_eq!(
        error_code(r.update_settings(BOB, &patch, 0)),
        ErrorCode::NotHost
    );
    let bad = SettingsPatch {
        round_seconds: Some(5),
        ..SettingsPatch::default()
    };
    assert_eq!(
        error_code(r.update_settings(ADA, &bad, 0)),
        ErrorCode::InvalidSettings
    );
    let fx = r.update_settings(ADA, &patch, 0).unwrap();
    let s = snapshot(&fx, BOB);
    assert_eq!((s.settings.rounds, s.settings.rules), (3, Rules::Integer));
    assert_eq!(s.rounds_total, 3);
    let shrink = SettingsPatch {
        max_players: Some(2),
        ..SettingsPatch::default()
    };
    r.join(CY, "Cy", false, 0).unwrap();
    assert_eq!(
        error_code(r.update_settings(ADA, &shrink, 0)),
        ErrorCode::InvalidSettings
    );
    r.start(ADA, 0).unwrap();
    assert_eq!(
        error_code(r.update_settings(ADA, &patch, 1)),
        ErrorCode::WrongState
    );
    assert_eq!(r.summary().settings.rounds, 3);
    assert_eq!(r.summary().state, RoomPhase::Countdown);
    assert_eq!(r.summary().host, "Ada");
}

#[test]
fn handle_dispatches_room_messages_and_answers_refusals() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(BOB, "Bob", false, 0).unwrap();
    let fx = r.handle(BOB, &ClientMessage::Start, 0);
    assert_eq!(fx.messages.len(), 1);
    assert!(fx.messages[0].reply);
    assert!(matches!(
        fx.messages[0].message,
        ServerMessage::Error {
            code: ErrorCode::NotHost,
            ..
        }
    ));
    let fx = r.handle(ADA, &ClientMessage::Start, 0);
    assert!(fx
        .messages
        .iter()
        .any(|o| matches!(o.message, ServerMessage::MatchStarted { .. })));
    let fx = r.handle(ADA, &ClientMessage::Ping, 0);
    assert!(matches!(
        fx.messages[0].message,
        ServerMessage::Error {
            code: ErrorCode::WrongState,
            ..
        }
    ));
}

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

#[test]
fn someone_joining_an_emptied_room_becomes_its_host() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.leave(ADA, 0).unwrap();
    assert_eq!(r.is_empty_since(), Some(0));
    let fx = r.join(BOB, "Bob", false, 5).unwrap();
    assert_eq!(r.host(), BOB);
    assert_eq!(snapshot(&fx, BOB).host, BOB);
    assert_eq!(r.is_empty_since(), None);
}
