//! Who is in the room: joining, leaving, kicks, the lock, the host, seats
//! held while away, spectators and chat.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod room_support;

use krypto_core::protocol::*;
use krypto_core::room::*;
use room_support::*;

#[test]
fn a_player_who_leaves_mid_match_stays_in_the_standings() {
    let mut r = playing_easy_with(|s| s.rounds = 2);
    r.submit(CY, 1, RIGHT, R1 + 1_000).unwrap();
    r.leave(CY, R1 + 2_000).unwrap();
    r.tick(R1 + 1_000 + BETWEEN_ROUNDS_MS);
    let fx = r.submit(ADA, 2, RIGHT, R1 + 10_000).unwrap();
    let result = match_result(&fx);
    let rows: Vec<(PlayerId, u32)> = result
        .standings
        .iter()
        .map(|s| (s.player, s.rank))
        .collect();
    assert_eq!(rows, vec![(ADA, 1), (CY, 1), (BOB, 3)]);
}

#[test]
fn the_longest_seated_connected_player_succeeds_the_host() {
    let mut r = lobby(&[], &[DEE]);
    r.join(Joiner::new(BOB, "Bob"), false, 1).unwrap();
    r.join(Joiner::new(CY, "Cy"), false, 2).unwrap();
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
    let mut r = lobby(&[BOB], &[DEE]);
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
    let mut r = lobby(&[BOB, CY], &[]);
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
    // The others drop Bob from the roster they hold: one small message.
    assert_eq!(sent_to(&fx, &r, CY), vec![&notice]);
    assert_eq!(
        error_code(r.join(Joiner::new(BOB, "Bob"), false, 2)),
        ErrorCode::RoomLocked
    );
}

#[test]
fn a_locked_room_refuses_newcomers_but_not_returning_players() {
    let mut r = lobby(&[BOB], &[]);
    assert_eq!(error_code(r.lock(BOB, true, 0)), ErrorCode::NotHost);
    let fx = r.lock(ADA, true, 0).unwrap();
    assert!(snapshot(&fx, BOB).locked);
    r.disconnect(BOB, 1);
    r.join(Joiner::new(DEE, "Dee"), true, 1).unwrap_err();
    // To a stranger, a locked room reads exactly like no room at all.
    let not_found = ServerMessage::error(ErrorCode::RoomNotFound, ROOM_NOT_FOUND);
    for (who, spectator) in [(CY, false), (DEE, true)] {
        let refused = r.join(Joiner::new(who, "X"), spectator, 2).unwrap_err();
        assert_eq!(refused.to_message(), not_found);
    }
    // Bob comes back, by join or by resuming.
    let fx = r.join(Joiner::new(BOB, "Bob"), false, 3).unwrap();
    assert!(snapshot(&fx, BOB).players.iter().all(|p| p.connected));
    r.disconnect(BOB, 4);
    r.reconnect(BOB, 5).unwrap();
    r.lock(ADA, false, 6).unwrap();
    r.join(Joiner::new(CY, "Cy"), false, 7).unwrap();
}

#[test]
fn seats_and_spectator_places_are_limited() {
    let settings = RoomSettings {
        max_players: 2,
        ..RoomSettings::default()
    };
    let mut r = room(settings, vec![easy()]);
    r.join(Joiner::new(BOB, "Bob"), false, 0).unwrap();
    assert_eq!(
        error_code(r.join(Joiner::new(CY, "Cy"), false, 0)),
        ErrorCode::RoomFull
    );
    let cap = RoomLimits::default().max_spectators;
    assert_eq!(cap, 100);
    for i in 0..cap {
        let id = PlayerId(100 + i64::from(i));
        r.join(Joiner::new(id, format!("watcher {i}")), true, 0)
            .unwrap();
    }
    // The 101st spectator is refused, with a sentence saying why.
    let refused = r
        .join(Joiner::new(PlayerId(999), "late"), true, 0)
        .unwrap_err();
    assert_eq!(refused, RoomError::TooManySpectators(100));
    assert_eq!(refused.code(), ErrorCode::RoomFull);
    assert!(refused.to_string().contains("100 spectators"), "{refused}");
    // A spectator holding a place comes back; one leaving frees a place.
    r.disconnect(PlayerId(100), 1);
    r.join(Joiner::new(PlayerId(100), "watcher 0"), true, 2)
        .unwrap();
    r.leave(PlayerId(101), 3).unwrap();
    r.join(Joiner::new(PlayerId(999), "late"), true, 4).unwrap();
    assert_eq!(r.player_count(), 2);
    // As many seats as seated players is fine.
    let patch = SettingsPatch {
        max_players: Some(2),
        ..SettingsPatch::default()
    };
    r.update_settings(ADA, &patch, 0).unwrap();
}

#[test]
fn the_spectator_cap_is_the_servers_to_set() {
    let (mut r, _) = Room::new(
        "KXR7P",
        Joiner::new(ADA, "Ada"),
        RoomSettings::default(),
        Box::new(ScriptedDealer::new(vec![easy()])),
        RoomLimits { max_spectators: 1 },
        0,
    )
    .unwrap();
    r.join(Joiner::new(BOB, "Bob"), true, 0).unwrap();
    assert_eq!(
        r.join(Joiner::new(CY, "Cy"), true, 0).unwrap_err(),
        RoomError::TooManySpectators(1)
    );
    // Seats are not spectator places.
    r.join(Joiner::new(CY, "Cy"), false, 0).unwrap();
}

/// A room with Ada hosting and `n` spectators, all connected.
fn crowded(n: i64) -> Room {
    let (mut r, _) = Room::new(
        "KXR7P",
        Joiner::new(ADA, "Ada"),
        RoomSettings::default(),
        Box::new(ScriptedDealer::new(vec![easy()])),
        RoomLimits {
            max_spectators: 1_000,
        },
        0,
    )
    .unwrap();
    for i in 0..n {
        r.join(Joiner::new(PlayerId(100 + i), format!("w{i}")), true, 0)
            .unwrap();
    }
    r
}

#[test]
fn joining_costs_each_member_one_small_message_whatever_the_room_size() {
    for n in [1, 10, 300] {
        let mut r = crowded(n);
        for (joiner, spectator) in [(BOB, false), (CY, true)] {
            let fx = r.join(Joiner::new(joiner, "New"), spectator, 1).unwrap();
            // The joiner alone gets the full picture, as the reply.
            let to_joiner: Vec<_> = fx
                .messages
                .iter()
                .filter(|o| o.to == Recipient::Player(joiner))
                .collect();
            assert_eq!(to_joiner.len(), 1);
            assert!(to_joiner[0].reply);
            assert!(matches!(to_joiner[0].message, ServerMessage::RoomState(_)));
            // Everyone else: one `player_joined`, in one broadcast.
            assert_eq!(fx.messages.len(), 2, "room of {n}");
            for member in r.members().into_iter().filter(|&m| m != joiner) {
                assert_eq!(
                    sent_to(&fx, &r, member),
                    vec![&ServerMessage::PlayerJoined {
                        player: joiner,
                        name: "New".into(),
                        spectator,
                        bot: false,
                    }],
                    "room of {n}"
                );
            }
        }
    }
}

#[test]
fn spectators_leaving_dropping_and_returning_cost_the_room_little() {
    let mut r = crowded(50);
    let watcher = PlayerId(100);
    // A spectator's connection is nobody else's business.
    assert!(r.disconnect(watcher, 1).is_empty());
    let fx = r.reconnect(watcher, 2).unwrap();
    assert_eq!(fx.messages.len(), 1);
    assert!(fx.messages[0].reply);
    // Leaving: one `player_left` for everyone, and the leaver's own notice.
    let fx = r.leave(watcher, 3).unwrap();
    assert_eq!(fx.messages.len(), 2);
    assert!(fx
        .messages
        .iter()
        .all(|o| matches!(o.message, ServerMessage::PlayerLeft { .. })));
    // The host leaving changes what everyone must draw: then a snapshot.
    let fx = r.leave(ADA, 4).unwrap();
    let new_host = r.host();
    assert_ne!(new_host, ADA);
    assert_eq!(snapshot(&fx, PlayerId(120)).host, new_host);
}

#[test]
fn a_bot_is_marked_in_the_roster_and_its_arrival() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    let fx = r.join(Joiner::new(BOB, "Bob").bot(true), false, 0).unwrap();
    assert_eq!(
        sent_to(&fx, &r, ADA),
        vec![&ServerMessage::PlayerJoined {
            player: BOB,
            name: "Bob".into(),
            spectator: false,
            bot: true,
        }]
    );
    let roster = snapshot(&fx, BOB).players;
    let bot_of = |id| roster.iter().find(|p| p.id == id).unwrap().bot;
    assert!(bot_of(BOB));
    assert!(!bot_of(ADA));
}

#[test]
fn a_bot_is_never_made_host_and_never_inherits_the_role_before_a_person() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.join(Joiner::new(ADA, "Ada"), false, 0).unwrap();
    r.join(Joiner::new(BOB, "Bob").bot(true), false, 0).unwrap();
    r.join(Joiner::new(CY, "Cy"), false, 0).unwrap();
    assert_eq!(
        error_code(r.transfer_host(ADA, BOB, 0)),
        ErrorCode::NotAPlayer,
        "a bot never starts a match: the room would be stuck"
    );
    assert_eq!(r.host(), ADA);
    // Bob joined before Cy, yet the person takes over when Ada leaves.
    r.leave(ADA, 1).unwrap();
    assert_eq!(r.host(), CY);
}

#[test]
fn spectators_watch_chat_and_never_score() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    let fx = r.join(Joiner::new(DEE, "Dee"), true, 0).unwrap();
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
    let (_, scores) = round_won(&fx).unwrap();
    assert_eq!(
        scores,
        vec![ScoreEntry {
            player: ADA,
            score: 1
        }]
    );
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
    let mut r = lobby(&[BOB], &[]);
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
    assert_eq!(r.vacant_since(), None);
    // The last one out leaves a vacant room the server may close.
    r.leave(BOB, 70_000).unwrap();
    assert_eq!(r.vacant_since(), Some(70_000));
    assert_eq!(r.next_deadline(), None);
}

#[test]
fn a_room_everyone_dropped_from_is_vacant_since_the_last_drop() {
    let mut r = lobby(&[BOB], &[DEE]);
    r.disconnect(ADA, 1_000);
    r.disconnect(DEE, 2_000);
    assert_eq!(r.vacant_since(), None, "Bob is still here");
    r.disconnect(BOB, 3_000);
    assert_eq!(r.vacant_since(), Some(3_000));
    // A held seat timing out does not make the room any emptier.
    r.tick(1_000 + SEAT_HOLD_MS);
    assert_eq!(r.vacant_since(), Some(3_000));
    r.reconnect(DEE, 1_000 + SEAT_HOLD_MS).unwrap();
    assert_eq!(r.vacant_since(), None);
}

#[test]
fn someone_joining_an_emptied_room_becomes_its_host() {
    let mut r = room(RoomSettings::default(), vec![easy()]);
    r.leave(ADA, 0).unwrap();
    assert_eq!(r.vacant_since(), Some(0));
    let fx = r.join(Joiner::new(BOB, "Bob"), false, 5).unwrap();
    assert_eq!(r.host(), BOB);
    assert_eq!(snapshot(&fx, BOB).host, BOB);
    assert_eq!(r.vacant_since(), None);
}

#[test]
fn chat_that_could_act_on_a_terminal_is_refused_and_not_relayed() {
    let mut r = lobby(&[BOB], &[]);
    for sneaky in [
        "\u{1b}]52;c;aGk=\u{7}",
        "\u{1b}[2J",
        "hi\r\nSERVER: you won!",
        "gnp\u{202e}exe.png",
        "a\tb",
    ] {
        let refused = r.chat(BOB, sneaky, 1).unwrap_err();
        assert!(matches!(refused, RoomError::HiddenText(_)), "{sneaky:?}");
        assert_eq!(refused.code(), ErrorCode::BadMessage);
        assert!(!refused.to_string().contains('\u{1b}'));
    }
    // Nothing went out, and the flood limit was not spent on them.
    for i in 0..CHAT_BURST {
        r.chat(BOB, &format!("hello {i}"), 2).unwrap();
    }
}

#[test]
fn chat_is_limited_in_length_and_rate() {
    let mut r = lobby(&[BOB], &[]);
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
