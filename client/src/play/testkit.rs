//! Events and apps in known states, for the state-machine and screen tests.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use krypto_core::protocol::{
    ClientMessage, LeaveReason, PlayerId, PlayerInfo, RoomPhase, RoomSettings, RoomSnapshot,
    RoundInfo, ServerEnvelope, ServerMessage, Standing, VerdictError, VerdictKind,
};

use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::app::{Action, App, Event};
use super::net::NetEvent;

pub const ME: PlayerId = PlayerId(1);
pub const BEN: PlayerId = PlayerId(2);
pub const CAT: PlayerId = PlayerId(3);
pub const CODE: &str = "KX7RB";

/// A server message as the connection task delivers it.
pub fn msg(m: ServerMessage) -> Event {
    Event::Net(NetEvent::Message {
        raw: serde_json::to_string(&m).unwrap(),
        envelope: Box::new(ServerEnvelope::new(m)),
    })
}

pub fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub fn ch(c: char) -> Event {
    key(KeyCode::Char(c))
}

pub fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        app.handle(ch(c));
    }
}

/// What typing the line `text` (in line mode, or Enter in the input)
/// sends.
pub fn line(app: &mut App, text: &str) -> Vec<ClientMessage> {
    sends(&app.handle(Event::Line(text.into())))
}

/// Typing the line `text` sends nothing, and the feed's last line says why
/// (`says`).
pub fn refused(app: &mut App, text: &str, says: &str) {
    assert_eq!(line(app, text), [], "{text}");
    let last = &app.feed.last().unwrap().text;
    assert!(last.contains(says), "{text}: {last}");
}

pub fn welcome(resumed: bool) -> Event {
    welcome_naming(resumed, &[])
}

/// A `welcome` naming the server's LAN base URLs.
pub fn welcome_naming(resumed: bool, join_urls: &[&str]) -> Event {
    msg(ServerMessage::Welcome {
        protocol: 1,
        player_id: ME,
        name: "Ann".into(),
        token: "00ff".into(),
        server_version: "0.1.0".into(),
        resumed,
        join_urls: join_urls.iter().map(|&u| u.to_owned()).collect(),
    })
}

/// The connection dropped for `reason`; the next try in 0.5 s.
pub fn dropped(reason: &str) -> Event {
    Event::Net(NetEvent::Disconnected {
        reason: reason.into(),
        retry_in: Duration::from_millis(500),
    })
}

/// The verdict on a formula for round 3 (of [`game`]) that came to
/// `value`, not 15: wrong, locked out for 5 s.
pub fn wrong_value(value: i64) -> Event {
    msg(ServerMessage::Verdict {
        round: 3,
        accepted: false,
        value: Some(value.to_string()),
        error: Some(VerdictError {
            kind: VerdictKind::WrongValue,
            message: format!("comes to {value}, not 15"),
            column: None,
        }),
        locked_out_ms: Some(5000),
    })
}

/// A hand dealt: 15 from 1 2 3 4 5, 90 s.
pub fn round_started(round: u32) -> Event {
    msg(ServerMessage::RoundStarted {
        round,
        objective: 15,
        cards: vec![1, 2, 3, 4, 5],
        duration_ms: 90_000,
    })
}

/// Round `number` of 15 from 1 2 3 4 5 (90 s) with `remaining_ms` left, as
/// a snapshot shows it.
pub fn round_info(number: u32, remaining_ms: u64) -> RoundInfo {
    RoundInfo {
        number,
        objective: 15,
        cards: vec![1, 2, 3, 4, 5],
        remaining_ms,
        duration_ms: 90_000,
        locked_out_ms: None,
        misses: Vec::new(),
    }
}

/// The text of every feed line.
pub fn feed(app: &App) -> Vec<String> {
    app.feed.iter().map(|l| l.text.clone()).collect()
}

pub fn player(id: PlayerId, name: &str, score: i64) -> PlayerInfo {
    PlayerInfo {
        id,
        name: name.into(),
        score,
        connected: true,
        spectator: false,
        waiting: false,
        bot: false,
    }
}

pub fn snapshot(state: RoomPhase, round: Option<RoundInfo>) -> RoomSnapshot {
    let mut cat = player(CAT, "Cat", 0);
    cat.spectator = true;
    let mut ben = player(BEN, "Ben", 1);
    ben.connected = state != RoomPhase::Lobby;
    RoomSnapshot {
        code: CODE.into(),
        host: ME,
        settings: RoomSettings::default(),
        state,
        locked: false,
        players: vec![player(ME, "Ann", 2), ben, cat],
        round,
        rounds_total: 10,
        next_ms: None,
        recent: vec![ServerMessage::Chat {
            from: BEN,
            name: "Ben".into(),
            text: "good luck!".into(),
        }],
        ready_check: None,
    }
}

/// Welcomed, in the lobby, at t = 0.
pub fn lobby() -> App {
    lobby_naming(&[])
}

/// [`lobby`], welcomed by a server that names its LAN base URLs.
pub fn lobby_naming(join_urls: &[&str]) -> App {
    let mut app = App::new("ws://127.0.0.1:7878/ws", "Ann");
    app.handle(welcome_naming(false, join_urls));
    app
}

/// In room [`CODE`] as its host, before a match.
pub fn room() -> App {
    let mut app = lobby();
    app.handle(msg(ServerMessage::RoomState(snapshot(
        RoomPhase::Lobby,
        None,
    ))));
    app
}

/// In round 3 of a match: 15 from 1 2 3 4 5, 80 s left.
pub fn game() -> App {
    let mut app = room();
    app.handle(msg(ServerMessage::MatchStarted {
        rounds_total: 10,
        settings: RoomSettings::default(),
        countdown_ms: 3000,
    }));
    app.handle(Event::Tick(Duration::from_secs(10)));
    app.handle(msg(ServerMessage::RoundStarted {
        round: 3,
        objective: 15,
        cards: vec![1, 2, 3, 4, 5],
        duration_ms: 90_000,
    }));
    app.handle(Event::Tick(Duration::from_secs(20)));
    app
}

/// The end of the match, with [`standings`] and, where given, the match's
/// id.
pub fn match_over(match_id: Option<&str>) -> ServerMessage {
    ServerMessage::MatchOver {
        standings: standings(),
        match_id: match_id.map(str::to_owned),
    }
}

/// Player `id`, `name`, arrived to play (a bot where `bot`).
pub fn joined(id: PlayerId, name: &str, bot: bool) -> ServerMessage {
    ServerMessage::PlayerJoined {
        player: id,
        name: name.into(),
        spectator: false,
        bot,
    }
}

/// Player `id`, `name`, left the room for `reason`.
pub fn left(id: PlayerId, name: &str, reason: LeaveReason) -> ServerMessage {
    ServerMessage::PlayerLeft {
        player: id,
        name: name.into(),
        reason,
    }
}

pub fn standings() -> Vec<Standing> {
    vec![
        Standing {
            player: ME,
            name: "Ann".into(),
            score: 5,
            rank: 1,
            rating_before: Some(1520.0),
            rating_after: Some(1580.0),
            rating_provisional: false,
            solve_ms: None,
        },
        Standing {
            player: BEN,
            name: "Ben".into(),
            score: 3,
            rank: 2,
            rating_before: Some(1510.0),
            rating_after: Some(1462.0),
            // New here: still provisional ("1462?").
            rating_provisional: true,
            solve_ms: None,
        },
        Standing::unrated(CAT, "Cat", 0, 3),
    ]
}

/// Node B of a cluster, where the tests' rooms live.
pub const NODE_B: &str = "ws://host-b:7878/ws";

/// A `redirect` to `url` for room `code`, answering the request `id`.
pub fn redirect(id: Option<&str>, url: &str, code: &str) -> Event {
    let m = ServerMessage::Redirect {
        url: url.into(),
        code: code.into(),
        ticket: None,
    };
    Event::Net(NetEvent::Message {
        raw: serde_json::to_string(&m).unwrap(),
        envelope: Box::new(ServerEnvelope {
            id: id.map(str::to_owned),
            message: m,
        }),
    })
}

/// What `pick` finds in each of `actions`, in order.
fn picked<T: Clone>(actions: &[Action], pick: impl Fn(&Action) -> Option<&T>) -> Vec<T> {
    actions.iter().filter_map(pick).cloned().collect()
}

/// The messages among `actions`, in order.
pub fn sends(actions: &[Action]) -> Vec<ClientMessage> {
    picked(actions, |a| match a {
        Action::Send(m) => Some(m),
        _ => None,
    })
}

/// The URLs the connection is moved to among `actions`, in order.
pub fn follows(actions: &[Action]) -> Vec<String> {
    picked(actions, |a| match a {
        Action::Follow(url) => Some(url),
        _ => None,
    })
}

/// The app drawn on a `width`×`height` terminal.
pub fn draw(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    terminal
}

/// The app drawn on an 80×24 terminal, as text.
pub fn screen(app: &App) -> String {
    draw(app, 80, 24).backend().to_string()
}
