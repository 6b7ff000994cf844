//! A match from start to standings: the countdown, deals, time-outs, the
//! clock, settings and dispatch, driven through the public methods with
//! explicit times.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod room_support;

use krypto_core::protocol::*;
use krypto_core::room::*;
use krypto_core::Rules;
use room_support::*;

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
        Joiner::new(ADA, "Ada"),
        bad,
        Box::new(ScriptedDealer::new(vec![])),
        RoomLimits::default(),
        0,
    );
    assert_eq!(refused.unwrap_err().code(), ErrorCode::InvalidSettings);
}

#[test]
fn only_the_host_starts_and_only_between_matches() {
    let mut r = lobby(&[BOB], &[]);
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
    let mut r = lobby(&[], &[BOB]);
    r.leave(ADA, 0).unwrap();
    // The spectator inherits the room but cannot play alone.
    assert_eq!(r.host(), BOB);
    assert_eq!(error_code(r.start(BOB, 0)), ErrorCode::WrongState);
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

#[test]
fn the_match_ends_after_its_rounds_with_standings_and_shared_ranks() {
    let mut r = playing_easy_with(|s| s.rounds = 3);
    let fx = play_rounds(&mut r, &[Some(ADA), None, Some(BOB)]);
    let standings = sent_to(&fx, &r, CY)
        .into_iter()
        .find_map(|m| match m {
            ServerMessage::MatchOver { standings, .. } => Some(standings.clone()),
            _ => None,
        })
        .unwrap();
    let rows: Vec<(PlayerId, i64, u32)> = standings
        .iter()
        .map(|s| (s.player, s.score, s.rank))
        .collect();
    assert_eq!(rows, vec![(ADA, 1, 1), (BOB, 1, 1), (CY, 0, 3)]);
    let result = match_result(&fx);
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
    // (After the ready check, which the host cuts short.)
    r.start(ADA, 500_000).unwrap();
    r.start(ADA, 500_000).unwrap();
    assert!(r
        .snapshot_for(ADA, 500_000)
        .players
        .iter()
        .all(|p| p.score == 0));
}

#[test]
fn the_ratings_recorded_for_a_match_reach_those_who_open_the_room_later() {
    let mut r = playing_easy_with(|s| s.rounds = 1);
    let fx = play_rounds(&mut r, &[Some(ADA)]);
    let over = |recent: &[ServerMessage]| {
        recent
            .iter()
            .rev()
            .find_map(|m| match m {
                ServerMessage::MatchOver { standings, .. } => Some(standings.clone()),
                _ => None,
            })
            .unwrap()
    };
    let mut rated = match_result(&fx).standings;
    assert_eq!(over(&r.snapshot_for(CY, 200_000).recent), rated);
    for (s, after) in rated.iter_mut().zip([1658.0, 1421.0, 1421.0]) {
        s.rating_before = Some(1500.0);
        s.rating_after = Some(after);
        s.rating_provisional = true;
    }
    r.rated(&rated);
    // A reload, and someone who comes to watch afterwards.
    assert_eq!(over(&r.snapshot_for(CY, 200_000).recent), rated);
    let fx = r.join(Joiner::new(DEE, "Dee"), true, 200_000).unwrap();
    assert_eq!(over(&snapshot(&fx, DEE).recent), rated);
}

#[test]
fn reaching_the_target_score_ends_the_match_early() {
    let mut r = playing_easy_with(|s| {
        s.rounds = 10;
        s.target_score = Some(2);
    });
    let fx = play_rounds(&mut r, &[Some(BOB), Some(ADA), Some(BOB)]);
    assert_eq!(r.phase(), RoomPhase::Finished);
    let result = match_result(&fx);
    assert_eq!(result.rounds_played, 3);
    assert_eq!(result.standings[0].player, BOB);
    assert_eq!(result.standings[0].score, 2);
}

#[test]
fn the_match_is_abandoned_when_every_player_leaves() {
    let mut r = playing(RoomSettings::default(), vec![easy()]);
    r.join(Joiner::new(DEE, "Dee"), true, R1).unwrap();
    r.leave(BOB, R1 + 1).unwrap();
    r.leave(CY, R1 + 1).unwrap();
    let fx = r.leave(ADA, R1 + 1).unwrap();
    assert!(fx.events.contains(&RoomEvent::MatchAbandoned));
    assert_eq!(r.phase(), RoomPhase::Lobby);
    assert_eq!(r.host(), DEE);
}

#[test]
fn settings_change_only_by_the_host_between_matches() {
    let mut r = lobby(&[BOB], &[]);
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
    r.join(Joiner::new(CY, "Cy"), false, 0).unwrap();
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
    let mut r = lobby(&[BOB], &[]);
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
fn the_result_tells_the_ratings_who_is_a_bot_and_who_tried() {
    let settings = RoomSettings {
        rounds: 2,
        lockout_seconds: 0,
        ..RoomSettings::default()
    };
    let mut r = room(settings, vec![easy()]);
    r.join(Joiner::new(BOB, "Bot Bob").bot(true), false, 0)
        .unwrap();
    r.join(Joiner::new(CY, "Cy"), false, 0).unwrap();
    r.join(Joiner::new(DEE, "Dee"), false, 0).unwrap();
    r.start(ADA, 0).unwrap();
    r.tick(R1);
    // Round 1: Cy misses with a whole formula, then types `((` and `1+1`
    // (not attempts at the hand); the bot wins. Dee leaves after a try.
    r.submit(CY, 1, WRONG, R1 + 1).unwrap();
    r.submit(CY, 1, "((", R1 + 2).unwrap();
    r.submit(CY, 1, "1+1", R1 + 2).unwrap();
    r.submit(DEE, 1, WRONG, R1 + 3).unwrap();
    r.leave(DEE, R1 + 4).unwrap();
    r.submit(BOB, 1, RIGHT, R1 + 5).unwrap();
    // Round 2 runs out; Ada never tried anything.
    let round2 = R1 + 5 + BETWEEN_ROUNDS_MS;
    r.tick(round2);
    let fx = r.tick(round2 + 90_000);
    let result = match_result(&fx);
    assert_eq!(result.entrants.len(), result.standings.len());
    let of = |p: PlayerId| {
        let i = result.standings.iter().position(|s| s.player == p).unwrap();
        assert_eq!(result.entrants[i].player, p, "same order as the standings");
        (result.entrants[i].bot, result.entrants[i].attempts)
    };
    assert_eq!(of(ADA), (false, 0));
    assert_eq!(of(BOB), (true, 1));
    assert_eq!(of(CY), (false, 1), "only the whole formula counts");
    assert_eq!(of(DEE), (false, 1), "a leaver keeps their attempts");
    // A rematch counts afresh (the host cuts its ready check short).
    r.start(ADA, round2 + 100_000).unwrap();
    r.start(ADA, round2 + 100_000).unwrap();
    r.tick(round2 + 100_000 + COUNTDOWN_MS);
    let t = round2 + 100_000 + COUNTDOWN_MS;
    r.tick(t + 90_000);
    r.tick(t + 90_000 + BETWEEN_ROUNDS_MS);
    let fx = r.tick(t + 180_000 + BETWEEN_ROUNDS_MS);
    let result = match_result(&fx);
    assert!(result.entrants.iter().all(|e| e.attempts == 0));
}
