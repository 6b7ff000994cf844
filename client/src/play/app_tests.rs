#![allow(clippy::unwrap_used)]

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use krypto_core::protocol::{
    ClientMessage, LeaderboardRow, LeaveReason, Metric, Period, RoomPhase, RoomSummary, ScoreEntry,
    ServerMessage, SettingsPatch, VerdictError, VerdictKind,
};

use super::app::{Action, App, Conn, Event, InputMode, Screen};
use super::net::NetEvent;
use super::testkit::*;

fn sends(actions: &[Action]) -> Vec<ClientMessage> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Send(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn welcome_saves_the_token_and_lists_rooms() {
    let mut app = App::new("ws://h:1/ws", "ann");
    assert_eq!(app.screen(), Screen::Connecting);
    let actions = app.handle(welcome(false));
    assert_eq!(
        actions,
        vec![
            Action::SaveIdentity {
                name: "Ann".into(),
                token: "00ff".into()
            },
            Action::Send(ClientMessage::ListRooms)
        ]
    );
    assert_eq!(app.screen(), Screen::Lobby);
    assert_eq!(app.name, "Ann");
    assert_eq!(app.conn, Conn::Online);
}

#[test]
fn lobby_keys_create_join_by_code_and_pick_a_listed_room() {
    let mut app = lobby();
    assert_eq!(
        sends(&app.handle(ch('p'))),
        [ClientMessage::CreateRoom {
            settings: None,
            public: Some(true)
        }]
    );
    assert!(app.handle(ch('j')).is_empty());
    typed(&mut app, "kx7rb");
    assert_eq!(app.input, "KX7RB");
    assert_eq!(
        sends(&app.handle(key(KeyCode::Enter))),
        [ClientMessage::JoinRoom {
            code: "KX7RB".into(),
            spectator: false
        }]
    );
    assert_eq!(app.mode, InputMode::Off);

    let summary = |code: &str| RoomSummary {
        code: code.into(),
        host: "Ben".into(),
        players: 2,
        max_players: 8,
        state: RoomPhase::Lobby,
        settings: Default::default(),
    };
    app.handle(msg(ServerMessage::Rooms {
        rooms: vec![summary("AAAAA"), summary("BBBBB")],
    }));
    app.handle(key(KeyCode::Down));
    app.handle(key(KeyCode::Down));
    assert_eq!(app.room_cursor, 1);
    assert_eq!(
        sends(&app.handle(ch('s'))),
        [ClientMessage::JoinRoom {
            code: "BBBBB".into(),
            spectator: true
        }]
    );
}

#[test]
fn the_host_edits_settings_with_arrows_and_starts() {
    let mut app = room();
    assert_eq!(app.screen(), Screen::Room);
    assert!(app.is_host());
    app.handle(key(KeyCode::Down));
    app.handle(key(KeyCode::Down));
    assert_eq!(
        sends(&app.handle(key(KeyCode::Right))),
        [ClientMessage::UpdateSettings {
            settings: SettingsPatch {
                rounds: Some(15),
                ..Default::default()
            }
        }]
    );
    // Presses step from what the host sees, not from what the server last
    // confirmed: back to 10.
    assert_eq!(
        sends(&app.handle(key(KeyCode::Left))),
        [ClientMessage::UpdateSettings {
            settings: SettingsPatch {
                rounds: Some(10),
                ..Default::default()
            }
        }]
    );
    assert_eq!(sends(&app.handle(ch('s'))), [ClientMessage::Start]);
    assert_eq!(
        sends(&app.handle(ch('o'))),
        [ClientMessage::Lock { locked: true }]
    );
}

#[test]
fn someone_else_cannot_edit_settings() {
    let mut app = room();
    let mut snap = snapshot(RoomPhase::Lobby, None);
    snap.host = BEN;
    app.handle(msg(ServerMessage::RoomState(snap)));
    assert!(!app.is_host());
    assert!(sends(&app.handle(key(KeyCode::Right))).is_empty());
    assert!(app.feed.last().unwrap().text.contains("only the host"));
}

#[test]
fn a_dealt_hand_opens_the_formula_input_and_enter_submits_it() {
    let mut app = game();
    assert_eq!(app.screen(), Screen::Game);
    assert_eq!(app.mode, InputMode::Formula);
    typed(&mut app, "(1+2)x3+4-5");
    assert_eq!(app.input, "(1+2)*3+4-5");
    assert_eq!(
        sends(&app.handle(key(KeyCode::Enter))),
        [ClientMessage::Submit {
            round: 3,
            formula: "(1+2)*3+4-5".into()
        }]
    );
    // The formula stays to be fixed if it was wrong.
    assert_eq!(app.input, "(1+2)*3+4-5");
    app.handle(key(KeyCode::Esc));
    assert_eq!(app.input, "");
    assert_eq!(app.mode, InputMode::Formula);
}

#[test]
fn a_wrong_answer_locks_out_until_the_clock_passes() {
    let mut app = game();
    app.handle(msg(ServerMessage::Verdict {
        round: 3,
        accepted: false,
        value: Some("9".into()),
        error: Some(VerdictError {
            kind: VerdictKind::WrongValue,
            message: "comes to 9, not 15".into(),
            column: None,
        }),
        locked_out_ms: Some(5000),
    }));
    let verdict = app.room.as_ref().unwrap().verdict.clone().unwrap();
    assert!(!verdict.accepted);
    assert_eq!(
        verdict.text,
        "wrong (wrong value): comes to 9, not 15; locked out for 5.0s"
    );
    assert!(sends(&app.handle(Event::Line("1+2+3+4+5".into()))).is_empty());
    assert!(app.feed.last().unwrap().text.contains("locked out"));
    app.handle(Event::Tick(Duration::from_secs(26)));
    assert_eq!(
        sends(&app.handle(Event::Line("1+2+3+4+5".into()))),
        [ClientMessage::Submit {
            round: 3,
            formula: "1+2+3+4+5".into()
        }]
    );
}

#[test]
fn a_won_round_updates_scores_and_ends_the_input() {
    let mut app = game();
    app.handle(msg(ServerMessage::RoundWon {
        round: 3,
        winner: BEN,
        formula: Some("1+2+3+4+5".into()),
        no_solution: false,
        elapsed_ms: 4200,
        points: 1,
        scores: vec![
            ScoreEntry {
                player: ME,
                score: 2,
            },
            ScoreEntry {
                player: BEN,
                score: 2,
            },
        ],
    }));
    assert_eq!(app.live_round(), None);
    let room = app.room.as_ref().unwrap();
    assert_eq!(room.snapshot.players[1].score, 2);
    assert_eq!(
        room.round.as_ref().unwrap().result.as_deref(),
        Some("round 3 won by Ben in 4.2s: 1+2+3+4+5 (+1)")
    );
    // Typing a formula now is refused locally.
    assert!(sends(&app.handle(Event::Line("1+2".into()))).is_empty());
}

#[test]
fn tab_switches_to_chat_during_a_round() {
    let mut app = game();
    app.handle(key(KeyCode::Tab));
    assert_eq!(app.mode, InputMode::Chat);
    typed(&mut app, "so close");
    assert_eq!(
        sends(&app.handle(key(KeyCode::Enter))),
        [ClientMessage::Chat {
            text: "so close".into()
        }]
    );
    assert_eq!(app.mode, InputMode::Formula);
}

#[test]
fn commands_map_to_requests() {
    let mut app = game();
    let line = |app: &mut App, l: &str| sends(&app.handle(Event::Line(l.into())));
    assert_eq!(
        line(&mut app, "/kick ben"),
        [ClientMessage::Kick { player: BEN }]
    );
    assert_eq!(
        line(&mut app, "/host Cat"),
        [ClientMessage::TransferHost { player: CAT }]
    );
    assert_eq!(
        line(
            &mut app,
            "/set rounds=5 target_score=none public=true variant=24"
        ),
        [ClientMessage::UpdateSettings {
            settings: SettingsPatch {
                rounds: Some(5),
                target_score: Some(None),
                public: Some(true),
                variant: Some(krypto_core::protocol::Variant::TwentyFour),
                ..Default::default()
            }
        }]
    );
    assert!(line(&mut app, "/set colour=blue").is_empty());
    assert!(app.feed.last().unwrap().text.contains("unknown setting"));
    // Not offered where every hand has a solution.
    assert!(line(&mut app, "/nosolution").is_empty());
    assert!(app
        .feed
        .last()
        .unwrap()
        .text
        .contains("only solvable hands"));
    app.room.as_mut().unwrap().snapshot.settings.deal = krypto_core::protocol::DealMode::Any;
    assert_eq!(
        line(&mut app, "/nosolution"),
        [ClientMessage::ClaimNoSolution { round: 3 }]
    );
    assert_eq!(
        line(&mut app, "/chat hi all"),
        [ClientMessage::Chat {
            text: "hi all".into()
        }]
    );
    assert_eq!(
        line(&mut app, "/join abcde"),
        [ClientMessage::JoinRoom {
            code: "ABCDE".into(),
            spectator: false
        }]
    );
    assert_eq!(
        line(&mut app, "/spectate abcde"),
        [ClientMessage::JoinRoom {
            code: "ABCDE".into(),
            spectator: true
        }]
    );
    assert_eq!(
        line(&mut app, "/unlock"),
        [ClientMessage::Lock { locked: false }]
    );
    assert_eq!(line(&mut app, "/leave"), [ClientMessage::LeaveRoom]);
    assert!(line(&mut app, "/kick nobody").is_empty());
    assert!(line(&mut app, "/frobnicate").is_empty());
    assert_eq!(app.handle(Event::Line("/quit".into())), [Action::Quit]);
}

#[test]
fn the_leaderboard_is_asked_for_and_shown() {
    let mut app = lobby();
    assert_eq!(
        sends(&app.handle(Event::Line("/leaderboard wins week".into()))),
        [ClientMessage::Leaderboard {
            metric: Some(Metric::Wins),
            period: Some(Period::Week),
            limit: Some(20),
            around: None
        }]
    );
    assert_eq!(app.screen(), Screen::Leaderboard);
    app.handle(msg(ServerMessage::Leaderboard {
        metric: Metric::Wins,
        period: Period::Week,
        rows: vec![LeaderboardRow {
            rank: 1,
            player: BEN,
            name: "Ben".into(),
            value: 4.0,
            matches: 6,
        }],
    }));
    assert_eq!(app.board.as_ref().unwrap().rows.len(), 1);
    assert!(app
        .feed
        .iter()
        .any(|l| l.text == "  1. Ben  4  (6 matches)"));
    // m cycles the metric and asks again.
    assert_eq!(
        sends(&app.handle(ch('m'))),
        [ClientMessage::Leaderboard {
            metric: Some(Metric::Rounds),
            period: Some(Period::Week),
            limit: Some(20),
            around: None
        }]
    );
    app.handle(key(KeyCode::Esc));
    assert_eq!(app.screen(), Screen::Lobby);
}

#[test]
fn match_over_shows_the_podium_until_dismissed() {
    let mut app = game();
    app.handle(msg(ServerMessage::MatchOver {
        standings: standings(),
    }));
    assert_eq!(app.screen(), Screen::Podium);
    assert!(app
        .feed
        .iter()
        .any(|l| l.text == "  1. Ann  5 points  rating 20.0 -> 22.5"));
    app.handle(key(KeyCode::Enter));
    assert_eq!(app.screen(), Screen::Room);
}

#[test]
fn after_a_server_restart_the_client_rejoins_its_room() {
    let mut app = room();
    app.handle(Event::Net(NetEvent::Disconnected {
        reason: "the server closed the connection".into(),
        retry_in: Duration::from_millis(500),
    }));
    assert!(matches!(app.conn, Conn::Down { .. }));
    assert!(app
        .feed
        .last()
        .unwrap()
        .text
        .contains("reconnecting in 0.5s"));
    let actions = app.handle(welcome(false));
    assert_eq!(
        sends(&actions),
        [
            ClientMessage::ListRooms,
            ClientMessage::JoinRoom {
                code: CODE.into(),
                spectator: false
            }
        ]
    );
}

#[test]
fn a_resumed_seat_is_not_rejoined() {
    let mut app = room();
    app.handle(Event::Net(NetEvent::Disconnected {
        reason: "x".into(),
        retry_in: Duration::from_millis(500),
    }));
    assert_eq!(
        sends(&app.handle(welcome(true))),
        [ClientMessage::ListRooms]
    );
}

#[test]
fn being_kicked_returns_to_the_lobby() {
    let mut app = room();
    app.handle(msg(ServerMessage::PlayerLeft {
        player: ME,
        name: "Ann".into(),
        reason: LeaveReason::Kicked,
    }));
    assert_eq!(app.screen(), Screen::Lobby);
    assert!(app.feed.last().unwrap().text.contains("removed"));
}

#[test]
fn a_refused_name_quits_with_a_message() {
    let mut app = App::new("ws://h:1/ws", "Ann");
    let actions = app.handle(Event::Net(NetEvent::Refused {
        code: krypto_core::protocol::ErrorCode::NameTaken,
        message: "\"Ann\" belongs to another player".into(),
    }));
    assert_eq!(actions, [Action::Quit]);
    assert!(app
        .exit_message
        .unwrap()
        .contains("belongs to another player"));
}

#[test]
fn ctrl_c_quits_and_help_opens_and_closes() {
    let mut app = game();
    let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    // In a match, Ctrl-C asks first; a second one is the yes.
    assert!(app.handle(ctrl_c.clone()).is_empty());
    assert_eq!(app.handle(ctrl_c), [Action::Quit]);
    app.handle(ch('?'));
    assert!(app.help);
    app.handle(ch('x'));
    assert!(!app.help);
    assert_eq!(app.input, "");
    app.handle(key(KeyCode::F(1)));
    assert!(app.help);
}

#[test]
fn a_formula_outside_a_round_says_why() {
    let mut app = room();
    assert!(sends(&app.handle(Event::Line("1+2".into()))).is_empty());
    assert!(app
        .feed
        .last()
        .unwrap()
        .text
        .contains("no round is being played"));
}

#[test]
fn resuming_mid_round_restores_the_clock_and_lockout() {
    let mut app = lobby();
    app.handle(Event::Tick(Duration::from_secs(100)));
    let round = krypto_core::protocol::RoundInfo {
        number: 4,
        objective: 15,
        cards: vec![1, 2, 3, 4, 5],
        remaining_ms: 30_000,
        duration_ms: 90_000,
        locked_out_ms: Some(2000),
    };
    app.handle(msg(ServerMessage::RoomState(snapshot(
        RoomPhase::Playing,
        Some(round),
    ))));
    assert_eq!(app.screen(), Screen::Game);
    assert_eq!(app.mode, InputMode::Formula);
    let r = app.live_round().unwrap();
    assert_eq!(r.ends_at, Duration::from_secs(130));
    assert_eq!(r.locked_until, Some(Duration::from_secs(102)));
    assert!(app.feed.iter().any(|l| l.text == "[chat] Ben: good luck!"));
}
