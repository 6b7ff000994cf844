//! Following `redirect` in the client's state: a join or a resumed seat on
//! another node, the stale second redirect, spectators, the way home, and
//! the hostile cases (a URL that is not a WebSocket's, a loop).

#![allow(clippy::unwrap_used)]

use crossterm::event::KeyCode;
use krypto_client::redirect::MAX_IN_A_ROW;
use krypto_core::protocol::{ClientMessage, RoomPhase, ServerMessage};

use super::app::{Action, App, Conn, Event, Screen};
use super::net::NetEvent;
use super::testkit::*;

fn join(code: &str, spectator: bool) -> ClientMessage {
    ClientMessage::JoinRoom {
        code: code.into(),
        spectator,
    }
}

/// In the lobby, having asked for room [`CODE`] by its code.
fn asked_to_join() -> App {
    let mut app = lobby();
    app.handle(ch('j'));
    typed(&mut app, CODE);
    assert_eq!(sends(&app.handle(key(KeyCode::Enter))), [join(CODE, false)]);
    app
}

#[test]
fn a_join_answered_by_a_redirect_is_asked_again_on_that_node() {
    let mut app = asked_to_join();
    let actions = app.handle(redirect(None, NODE_B, CODE));
    assert_eq!(follows(&actions), [NODE_B]);
    assert!(sends(&actions).is_empty());
    assert_eq!(
        feed(&app).last().unwrap(),
        &format!("room {CODE} is on another server: moving there")
    );
    assert_eq!(app.conn, Conn::Connecting);
    assert_eq!(app.current_server(), NODE_B);
    // The node we left answers a request sent before we left: ignored.
    assert!(app.handle(redirect(None, NODE_B, CODE)).is_empty());

    let lines_before = app.feed_total;
    let actions = app.handle(welcome(false));
    assert_eq!(
        sends(&actions),
        [ClientMessage::ListRooms { after: None }, join(CODE, false)]
    );
    // The same token is kept; moving is silent ("connected to" is not said).
    assert!(actions.contains(&Action::SaveIdentity {
        name: "Ann".into(),
        token: "00ff".into()
    }));
    assert_eq!(app.feed_total, lines_before);
    assert_eq!(app.conn, Conn::Online);

    app.handle(msg(ServerMessage::RoomState(snapshot(
        RoomPhase::Lobby,
        None,
    ))));
    assert_eq!(app.screen(), Screen::Room);
    assert_eq!(app.redirects.in_a_row(), 0);
    assert_eq!(app.moving, None);
}

#[test]
fn a_spectator_is_sent_on_as_a_spectator() {
    let mut app = lobby();
    assert_eq!(
        sends(&app.handle(Event::Line(format!("/watch {CODE}")))),
        [join(CODE, true)]
    );
    app.handle(redirect(None, NODE_B, CODE));
    assert_eq!(
        sends(&app.handle(welcome(false))),
        [ClientMessage::ListRooms { after: None }, join(CODE, true)]
    );
}

#[test]
fn a_seat_held_on_another_node_is_resumed_there() {
    let mut app = game();
    app.handle(dropped("the server closed the connection"));
    // The home node does not hold the seat: `welcome` says so (and the
    // client asks for its room there), then the redirect answers the hello.
    let actions = app.handle(welcome(false));
    assert_eq!(
        sends(&actions),
        [ClientMessage::ListRooms { after: None }, join(CODE, false)]
    );
    assert_eq!(
        follows(&app.handle(redirect(Some("hello"), NODE_B, CODE))),
        [NODE_B]
    );
    // The join's own redirect, on its way before we left.
    assert!(app.handle(redirect(None, NODE_B, CODE)).is_empty());
    // Node B holds the seat: nothing to ask.
    assert_eq!(sends(&app.handle(welcome(true))), []);
    app.handle(msg(ServerMessage::RoomState(snapshot(
        RoomPhase::Lobby,
        None,
    ))));
    assert_eq!(app.screen(), Screen::Room);
    assert!(feed(&app).iter().any(|l| l == "while you were away:"));
}

#[test]
fn a_redirect_to_anything_but_a_websocket_is_refused() {
    let mut app = asked_to_join();
    for url in [
        "http://evil.example/ws",
        "file:///etc/passwd",
        "ws://user:pw@host-b/ws",
    ] {
        assert!(app.handle(redirect(None, url, CODE)).is_empty(), "{url}");
        let last = feed(&app).last().unwrap().clone();
        assert!(last.contains("not a krypto server's address"), "{last}");
        assert!(last.contains(&format!("cannot join room {CODE}")), "{last}");
        assert_eq!(app.conn, Conn::Online);
        assert_eq!(app.moving, None);
    }
}

#[test]
fn a_redirect_loop_is_given_up_with_a_sentence() {
    let mut app = asked_to_join();
    let nodes = ["ws://host-a:7878/ws", NODE_B];
    for n in 0..MAX_IN_A_ROW as usize {
        let actions = app.handle(redirect(None, nodes[n % 2], CODE));
        assert_eq!(follows(&actions), [nodes[n % 2]], "redirect {n}");
        assert_eq!(sends(&app.handle(welcome(false)))[1], join(CODE, false));
    }
    assert!(app.handle(redirect(None, NODE_B, CODE)).is_empty());
    let last = feed(&app).last().unwrap().clone();
    assert!(last.contains("giving up"), "{last}");
    assert_eq!(app.conn, Conn::Online);
    // The player's next try gets a fresh budget.
    app.handle(Event::Line(format!("/join {CODE}")));
    assert_eq!(follows(&app.handle(redirect(None, NODE_B, CODE))), [NODE_B]);
}

#[test]
fn an_unreachable_node_sends_the_client_home_to_ask_again() {
    let mut app = asked_to_join();
    app.handle(redirect(None, NODE_B, CODE));
    app.handle(Event::Net(NetEvent::Home {
        reason: "the room's server ws://host-b:7878/ws is out of reach".into(),
    }));
    let last = feed(&app).last().unwrap().clone();
    assert!(
        last.contains("going back to ws://127.0.0.1:7878/ws"),
        "{last}"
    );
    assert_eq!(app.current_server(), app.server);
    app.handle(dropped(
        "cannot reach ws://host-b:7878/ws: Connection refused",
    ));
    // Home welcomes the same token; the room is asked for there, and home
    // sends us on to wherever it is now.
    assert_eq!(
        sends(&app.handle(welcome(false))),
        [ClientMessage::ListRooms { after: None }, join(CODE, false)]
    );
    assert_eq!(
        follows(&app.handle(redirect(None, "ws://host-c:7878/ws", CODE))),
        ["ws://host-c:7878/ws"]
    );
}

#[test]
fn a_room_handed_to_another_node_mid_round_is_followed_there() {
    let mut app = game();
    // The node stops and sends its players to the room's new node.
    let actions = app.handle(redirect(None, NODE_B, CODE));
    assert_eq!(follows(&actions), [NODE_B]);
    assert!(feed(&app)
        .iter()
        .any(|l| l == &format!("room {CODE} moved to another server: following it")));
    // The seat is held there.
    assert_eq!(sends(&app.handle(welcome(true))), []);
    app.handle(msg(ServerMessage::RoomState(snapshot(
        RoomPhase::Playing,
        None,
    ))));
    assert_eq!(app.moving, None);
    assert_eq!(app.current_server(), NODE_B);
}
