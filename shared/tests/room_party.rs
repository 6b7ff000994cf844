//! Reactions and the rematch's ready check, driven through the public
//! methods with explicit times.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod room_support;

use krypto_core::protocol::*;
use krypto_core::room::*;
use room_support::*;

/// Ada (host), Bob and Cy seated, a one-round match won by Ada: the room is
/// on its podium at `t`.
fn finished() -> (Room, u64) {
    let mut r = playing_easy_with(|s| s.rounds = 1);
    r.submit(ADA, 1, RIGHT, R1 + 1_000).unwrap();
    assert_eq!(r.phase(), RoomPhase::Finished);
    (r, R1 + 1_000)
}

/// [`finished`], and the host asked for a rematch at `t`: the ready check
/// is open.
fn ready_check() -> (Room, u64) {
    let (mut r, t) = finished();
    r.start(ADA, t).unwrap();
    (r, t)
}

fn match_started(fx: &Effects, room: &Room, to: PlayerId) -> bool {
    sent_to(fx, room, to)
        .iter()
        .any(|m| matches!(m, ServerMessage::MatchStarted { .. }))
}

#[test]
fn a_reaction_reaches_every_member_and_only_the_fixed_few_pass() {
    let mut r = lobby(&[BOB], &[CY]);
    // A spectator reacts too, and everyone sees it.
    let fx = r.react(CY, "🎉", 10).unwrap();
    for who in [ADA, BOB, CY] {
        assert_eq!(
            sent_to(&fx, &r, who),
            vec![&ServerMessage::Reaction {
                player: CY,
                name: "Cy".into(),
                emoji: "🎉".into()
            }]
        );
    }
    // Never free text, nor an emoji outside the list, nor a look-alike.
    for bad in ["hello", "💩", "🎉🎉", "", "\u{1b}[2J"] {
        let e = r.react(BOB, bad, 20).unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadMessage, "{bad:?}");
    }
    assert_eq!(
        r.react(DEE, "👏", 20).unwrap_err().code(),
        ErrorCode::NotInRoom
    );
    // Reactions are not part of the feed a resuming member refills from.
    assert!(r
        .snapshot_for(ADA, 30)
        .recent
        .iter()
        .all(|m| !matches!(m, ServerMessage::Reaction { .. })));
}

#[test]
fn reactions_are_rate_limited_per_member() {
    let mut r = lobby(&[BOB], &[]);
    for i in 0..REACTION_BURST as u64 {
        r.react(ADA, REACTIONS[0], 100 + i).unwrap();
    }
    let e = r.react(ADA, REACTIONS[1], 200).unwrap_err();
    assert_eq!(e.code(), ErrorCode::RateLimited);
    // Bob has his own budget; Ada's comes back once the window has passed.
    r.react(BOB, REACTIONS[2], 200).unwrap();
    r.react(ADA, REACTIONS[1], 100 + REACTION_WINDOW_MS)
        .unwrap();
}

#[test]
fn a_rematch_waits_until_every_connected_player_is_ready() {
    let (mut r, t) = finished();
    r.join(Joiner::new(DEE, "Dee"), true, t).unwrap();
    let fx = r.start(ADA, t).unwrap();
    // Everyone is asked; the host who asked is ready; nothing is dealt yet.
    for who in [ADA, BOB, CY, DEE] {
        assert!(sent_to(&fx, &r, who).contains(&&ServerMessage::ReadyCheck {
            ms: READY_CHECK_MS,
            ready: vec![ADA]
        }));
    }
    assert!(fx.events.is_empty());
    assert!(!match_started(&fx, &r, BOB));
    assert_eq!(r.phase(), RoomPhase::Finished);
    let snap = r.snapshot_for(BOB, t + 1_000);
    assert_eq!(
        snap.ready_check,
        Some(ReadyCheckInfo {
            ms: READY_CHECK_MS - 1_000,
            ready: vec![ADA]
        })
    );
    // A spectator has nothing to be ready for.
    assert_eq!(
        r.ready(DEE, t + 1).unwrap_err().code(),
        ErrorCode::NotAPlayer
    );
    let fx = r.ready(BOB, t + 2).unwrap();
    assert!(sent_to(&fx, &r, CY).contains(&&ServerMessage::PlayerReady { player: BOB }));
    assert!(!match_started(&fx, &r, CY));
    // Saying it twice changes nothing and tells nobody.
    assert!(r.ready(BOB, t + 3).unwrap().messages.is_empty());
    // The last one ready starts the match at once.
    let fx = r.ready(CY, t + 4).unwrap();
    assert!(match_started(&fx, &r, ADA));
    assert!(matches!(
        fx.events.as_slice(),
        [RoomEvent::MatchStarted { .. }]
    ));
    assert_eq!(r.phase(), RoomPhase::Countdown);
    assert_eq!(r.snapshot_for(ADA, t + 4).ready_check, None);
    assert_eq!(error_code(r.ready(BOB, t + 5)), ErrorCode::WrongState);
}

#[test]
fn a_rematch_starts_anyway_when_the_check_runs_out() {
    let (mut r, t) = ready_check();
    assert_eq!(r.next_deadline(), Some(t + READY_CHECK_MS));
    assert!(r.tick(t + READY_CHECK_MS - 1).messages.is_empty());
    let fx = r.tick(t + READY_CHECK_MS);
    // Bob and Cy never said ready: they play all the same.
    assert!(match_started(&fx, &r, BOB));
    assert!(matches!(
        fx.events.as_slice(),
        [RoomEvent::MatchStarted { players, .. }] if players == &vec![ADA, BOB, CY]
    ));
    assert_eq!(r.next_deadline(), Some(t + READY_CHECK_MS + COUNTDOWN_MS));
}

#[test]
fn the_host_can_cut_the_check_short_and_a_dropped_player_does_not_hold_it_up() {
    let (mut r, t) = ready_check();
    let fx = r.start(ADA, t + 1).unwrap();
    assert!(match_started(&fx, &r, BOB));

    let (mut r, t) = ready_check();
    r.ready(BOB, t + 1).unwrap();
    // Cy's phone goes to sleep: everyone still connected is ready.
    let fx = r.disconnect(CY, t + 2);
    assert!(match_started(&fx, &r, BOB));

    let (mut r, t) = ready_check();
    r.ready(CY, t + 1).unwrap();
    let fx = r.leave(BOB, t + 2).unwrap();
    assert!(match_started(&fx, &r, CY));
}

#[test]
fn the_first_match_and_a_match_after_new_settings_start_at_once() {
    let mut r = lobby(&[BOB], &[]);
    assert!(match_started(&r.start(ADA, 0).unwrap(), &r, BOB));

    let (mut r, t) = finished();
    let patch: SettingsPatch = serde_json::from_str(r#"{"rounds": 2}"#).unwrap();
    r.update_settings(ADA, &patch, t).unwrap();
    assert!(match_started(&r.start(ADA, t + 1).unwrap(), &r, BOB));
}

#[test]
fn changing_settings_during_the_check_closes_it() {
    let (mut r, t) = ready_check();
    let patch: SettingsPatch = serde_json::from_str(r#"{"rounds": 3}"#).unwrap();
    let fx = r.update_settings(ADA, &patch, t + 1).unwrap();
    let ServerMessage::RoomState(s) = sent_to(&fx, &r, BOB)[0] else {
        panic!("a snapshot");
    };
    assert_eq!(s.ready_check, None);
    assert_eq!(r.next_deadline(), None);
    assert_eq!(error_code(r.ready(BOB, t + 2)), ErrorCode::WrongState);
}

#[test]
fn a_ready_check_survives_a_restart_with_its_time_left() {
    let (mut r, t) = ready_check();
    r.ready(BOB, t + 1_000).unwrap();
    let saved = r.save(t + 5_000);
    let json = serde_json::to_string(&saved).unwrap();
    let saved: SavedRoom = serde_json::from_str(&json).unwrap();
    let mut back = Room::restore(
        saved,
        Box::new(ScriptedDealer::new(vec![easy()])),
        RoomLimits::default(),
        100,
    )
    .unwrap();
    assert_eq!(
        back.snapshot_for(CY, 100).ready_check,
        Some(ReadyCheckInfo {
            ms: READY_CHECK_MS - 5_000,
            ready: vec![ADA, BOB]
        })
    );
    let fx = back.ready(CY, 200).unwrap();
    assert!(match_started(&fx, &back, BOB));
}

#[test]
fn reactions_are_rate_limited_per_room_whoever_sends_them() {
    let mut r = lobby(&[BOB], &[]);
    let crowd: Vec<PlayerId> = (0..10).map(|i| PlayerId(1_000 + i)).collect();
    for (i, &id) in crowd.iter().enumerate() {
        r.join(Joiner::new(id, format!("Fan{i}")), true, 50)
            .unwrap();
    }
    // Ten fans, each within their own budget: the room relays its burst.
    let mut relayed = 0;
    for round in 0..REACTION_BURST as u64 {
        for &fan in &crowd {
            match r.react(fan, REACTIONS[0], 100 + round) {
                Ok(_) => relayed += 1,
                Err(e) => assert_eq!(e.code(), ErrorCode::RateLimited),
            }
        }
    }
    assert_eq!(relayed, ROOM_REACTION_BURST);
    // Once the room's window has passed, a fan with credit left is heard.
    let fresh = PlayerId(2_000);
    r.join(Joiner::new(fresh, "Late"), true, 60).unwrap();
    assert_eq!(
        r.react(fresh, REACTIONS[1], 101).unwrap_err().code(),
        ErrorCode::RateLimited
    );
    r.react(fresh, REACTIONS[1], 100 + ROOM_REACTION_WINDOW_MS)
        .unwrap();
}
