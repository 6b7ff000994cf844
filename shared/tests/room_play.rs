//! Answers: formulas and "no solution" claims, lockouts and wins.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod room_support;

use krypto_core::protocol::*;
use krypto_core::room::*;
use room_support::*;

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
            ServerMessage::RoundWon { win, scores } => Some((win.clone(), scores.clone())),
            _ => None,
        })
        .unwrap();
    let win = RoundWin {
        round: 1,
        winner: BOB,
        formula: Some("1 + 2 + 3 + 4 + 5".into()),
        no_solution: false,
        elapsed_ms: 12_345,
        points: 1,
    };
    assert_eq!(won.0, win);
    assert!(won.1.contains(&ScoreEntry {
        player: BOB,
        score: 1
    }));
    assert!(won.1.contains(&ScoreEntry {
        player: ADA,
        score: 0
    }));
    assert!(fx.events.contains(&RoomEvent::RoundWon(win)));
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
    let mut r = playing_easy_with(|s| s.wrong_penalty = 2);
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
    let mut r = playing_easy_with(|s| s.lockout_seconds = 0);
    let fx = r.submit(BOB, 1, WRONG, R1 + 1).unwrap();
    assert_eq!(
        verdict(&fx, BOB),
        (false, Some(VerdictKind::WrongValue), None)
    );
    let fx = r.submit(BOB, 1, RIGHT, R1 + 1).unwrap();
    assert_eq!(verdict(&fx, BOB), (true, None, None));
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
            win: RoundWin {
                winner: CY,
                formula: None,
                no_solution: true,
                elapsed_ms: 2_000,
                ..
            },
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
fn a_late_joiner_plays_from_the_next_round() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    let fx = r.join(Joiner::new(DEE, "Dee"), false, R1 + 1_000).unwrap();
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
fn others_see_the_winning_formula_as_the_parser_prints_it_never_as_typed() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    let typed = "(( (1+2) + 3)+4)  +5";
    let fx = r.submit(BOB, 1, typed, R1 + 1).unwrap();
    assert!(verdict(&fx, BOB).0, "{typed}");
    let printed = Some("1 + 2 + 3 + 4 + 5".to_owned());
    let won = round_won(&fx).map(|(win, _)| win.formula.clone());
    assert_eq!(won, Some(printed.clone()));
    assert!(fx.events.iter().any(|e| matches!(
        e,
        RoomEvent::RoundWon(win) if win.formula == printed
    )));
    // A later joiner's feed replays it the same way.
    let fx = r.join(Joiner::new(DEE, "Dee"), true, R1 + 2).unwrap();
    let recent = snapshot(&fx, DEE).recent;
    assert!(recent.iter().any(|m| matches!(
        m,
        ServerMessage::RoundWon { win, .. } if win.formula == printed
    )));
    // A formula with a tab or a control character is refused, not relayed.
    let mut r = playing_easy_with(|s| s.lockout_seconds = 0);
    for sneaky in [
        "1+2+3+4+5\t",
        "1+2+3+4+5\u{1b}[2J",
        "1+2+3+4+5\r\nSERVER: you won",
    ] {
        let fx = r.submit(CY, 1, sneaky, R1 + 1).unwrap();
        assert_eq!(verdict(&fx, CY).1, Some(VerdictKind::Syntax), "{sneaky:?}");
        assert!(!fx
            .messages
            .iter()
            .any(|o| matches!(o.message, ServerMessage::RoundWon { .. })));
    }
}

#[test]
fn a_real_attempt_is_a_whole_formula_or_a_right_claim() {
    use krypto_core::room::counts_as_attempt;
    let hand = [1, 2, 3, 4, 5];
    assert!(counts_as_attempt(Some(RIGHT), true, &hand));
    assert!(counts_as_attempt(Some(WRONG), false, &hand));
    assert!(counts_as_attempt(None, true, &hand), "a right claim");
    assert!(!counts_as_attempt(None, false, &hand), "a wrong claim");
    for puppet in ["1+1", "1", "((", "1+2+3+4+5+1"] {
        assert!(!counts_as_attempt(Some(puppet), false, &hand), "{puppet}");
    }
}

#[test]
fn a_snapshot_shows_who_has_missed_this_round_and_who_is_locked_out() {
    let mut r = playing(RoomSettings::default(), vec![easy(), easy()]);
    let t = R1 + 1_000;
    r.submit(BOB, 1, WRONG, t).unwrap();
    r.submit(CY, 1, WRONG, t + 1_000).unwrap();
    r.submit(BOB, 1, WRONG, t + 5_000).unwrap();
    // Refused while locked out: not judged, so not a miss.
    r.submit(CY, 1, WRONG, t + 2_000).unwrap();

    // Anyone's snapshot (a TV joining now) shows both, in seating order,
    // with how often and how long each is still locked out; no formulas.
    let round = r.snapshot_for(ADA, t + 6_000).round.unwrap();
    assert_eq!(
        round.misses,
        vec![
            RoundMisses {
                player: BOB,
                count: 2,
                locked_out_ms: Some(4_000)
            },
            RoundMisses {
                player: CY,
                count: 1,
                locked_out_ms: None
            },
        ]
    );

    // The next round starts with nobody having tried.
    r.submit(ADA, 1, RIGHT, t + 7_000).unwrap();
    r.tick(t + 7_000 + BETWEEN_ROUNDS_MS);
    assert_eq!(r.phase(), RoomPhase::Playing);
    let round = r
        .snapshot_for(ADA, t + 7_000 + BETWEEN_ROUNDS_MS)
        .round
        .unwrap();
    assert_eq!(round.number, 2);
    assert!(round.misses.is_empty());
}
