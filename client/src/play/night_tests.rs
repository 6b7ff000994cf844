//! What a game night in the terminal ran into: a second `krypto` under the
//! same name (a `krypto challenge` beside `krypto play`) taking the
//! connection over, the challenge link a friend can open, and the server's
//! bots named once.

#![allow(clippy::unwrap_used)]

use krypto_core::protocol::{ClientMessage, PlayerId, RoomPhase, RoomSettings, ServerMessage};

use super::app::{Action, App, Conn, Event};
use super::net::NetEvent;
use super::testkit::*;

#[test]
fn a_connection_taken_over_by_another_krypto_stops_instead_of_taking_it_back() {
    let mut app = game();
    let actions = app.handle(Event::Net(NetEvent::Replaced {
        reason: "replaced by a newer connection".into(),
    }));
    assert!(actions.contains(&Action::Quit), "{actions:?}");
    assert!(matches!(app.conn, Conn::Refused(_)));
    let said = app.exit_message.clone().unwrap();
    assert!(
        said.contains("Ann is playing on another connection now (replaced by a newer connection)")
            && said.contains("run krypto play again to take it back"),
        "{said}"
    );
}

#[test]
fn the_challenge_link_is_one_a_friend_can_open() {
    let challenge = |app: &mut App| {
        app.room.as_mut().unwrap().snapshot.state = RoomPhase::BetweenRounds;
        assert_eq!(
            line(app, "/challenge"),
            [ClientMessage::ChallengeCreate { round: Some(3) }]
        );
        app.handle(msg(ServerMessage::Challenge {
            code: "K7QXM2PD".parse().unwrap(),
        }));
        app.feed.last().unwrap().text.clone()
    };
    // The address this client used…
    let shown = challenge(&mut game());
    assert_eq!(
        shown,
        "Challenge a friend: http://127.0.0.1:7878/c/K7QXM2PD in a browser, \
         or krypto challenge K7QXM2PD"
    );
    // …or the LAN address the server names, as the room's own link does.
    let mut app = lobby_naming(&["http://192.168.1.20:7878/"]);
    app.handle(msg(ServerMessage::RoomState(snapshot(
        RoomPhase::Lobby,
        None,
    ))));
    app.handle(msg(ServerMessage::MatchStarted {
        rounds_total: 10,
        settings: RoomSettings::default(),
        countdown_ms: 3000,
    }));
    app.handle(round_started(3));
    let shown = challenge(&mut app);
    assert!(
        shown.contains(" http://192.168.1.20:7878/c/K7QXM2PD in a browser"),
        "{shown}"
    );
}

#[test]
fn a_bot_the_server_named_is_marked_once() {
    let mut app = room();
    app.handle(msg(joined(PlayerId(9), "Ada (easy bot)", true)));
    let lines = feed(&app);
    assert!(
        lines.iter().any(|l| l == "Ada (easy bot) joined"),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("bot) (")), "{lines:?}");
    // A bot of `krypto bots` ("Ada-medium-bot") is still marked.
    app.handle(msg(joined(PlayerId(10), "Alan-medium-bot", true)));
    let lines = feed(&app);
    assert!(
        lines.iter().any(|l| l == "Alan-medium-bot joined (a bot)"),
        "{lines:?}"
    );
    let mut snap = snapshot(RoomPhase::Lobby, None);
    let mut bot = player(PlayerId(9), "Ada (easy bot)", 0);
    bot.bot = true;
    snap.players.push(bot);
    app.handle(msg(ServerMessage::RoomState(snap)));
    let shown = screen(&app);
    assert!(shown.contains("Ada (easy bot)"), "{shown}");
    assert!(!shown.contains("bot) (bot)"), "{shown}");
}

#[test]
fn a_bot_is_removed_by_the_name_it_was_given_or_alone_by_none() {
    let mut app = room();
    let mut snap = snapshot(RoomPhase::Lobby, None);
    for (id, name) in [(9, "Ada (easy bot)"), (10, "Alan (hard bot)")] {
        let mut bot = player(PlayerId(id), name, 0);
        bot.bot = true;
        snap.players.push(bot);
    }
    app.handle(msg(ServerMessage::RoomState(snap.clone())));
    // What the roster shows before the skill: "Ada".
    assert_eq!(
        line(&mut app, "/bot remove ada"),
        [ClientMessage::RemoveBot {
            player: PlayerId(9)
        }]
    );
    assert!(line(&mut app, "/bot remove").is_empty());
    let said = &app.feed.last().unwrap().text;
    assert!(
        said.contains("which bot?") && said.contains("Ada (easy bot), Alan (hard bot)"),
        "{said}"
    );
    // One bot left: nothing to name.
    snap.players.retain(|p| p.id != PlayerId(9));
    app.handle(msg(ServerMessage::RoomState(snap)));
    assert_eq!(
        line(&mut app, "/bot remove"),
        [ClientMessage::RemoveBot {
            player: PlayerId(10)
        }]
    );
}

#[test]
fn practice_typed_in_a_room_says_where_it_is() {
    let mut app = room();
    let actions = app.handle(Event::Line("/practice".into()));
    assert!(sends(&actions).is_empty());
    let said = &app.feed.last().unwrap().text;
    assert!(
        said.starts_with("practice is a command of its own: krypto practice")
            && said.contains("another --name"),
        "{said}"
    );
}
