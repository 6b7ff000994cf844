#![allow(clippy::unwrap_used)]

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use krypto_core::protocol::{
    ClientMessage, LeaderboardRow, LeaveReason, Metric, Period, PlayerId, ReadyCheckInfo,
    RoomPhase, RoomSettings, RoomSummary, RoundWin, ScoreEntry, ServerMessage, SettingsPatch,
};

use super::app::{Action, App, Confirm, Conn, Event, InputMode, Screen, SITTING_OUT};
use super::net::NetEvent;
use super::testkit::*;

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
            Action::Send(ClientMessage::ListRooms { after: None })
        ]
    );
    assert_eq!(app.screen(), Screen::Lobby);
    assert_eq!(app.name, "Ann");
    assert_eq!(app.conn, Conn::Online);
}

#[test]
fn the_lobby_pages_on_through_the_public_rooms_and_back_to_the_first() {
    let mut app = lobby();
    let summary = |code: String| RoomSummary {
        code,
        host: "Ben".into(),
        players: 1,
        max_players: 8,
        state: RoomPhase::Lobby,
        settings: Default::default(),
    };
    let page = |from: usize, n: usize| {
        (from..from + n)
            .map(|i| summary(format!("R{i:04}")))
            .collect()
    };
    app.handle(msg(ServerMessage::Rooms {
        rooms: page(0, 50),
        next: Some("R0049".into()),
    }));
    assert_eq!((app.rooms.len(), app.rooms_page), (50, 1));
    for _ in 0..10 {
        app.handle(key(KeyCode::Down));
    }
    assert_eq!(app.room_cursor, 10);
    // n asks for the rooms after the last one listed.
    assert_eq!(
        sends(&app.handle(ch('n'))),
        [ClientMessage::ListRooms {
            after: Some("R0049".into())
        }]
    );
    app.handle(msg(ServerMessage::Rooms {
        rooms: page(50, 3),
        next: None,
    }));
    assert_eq!(app.rooms_page, 2);
    assert_eq!(app.rooms[0].code, "R0050");
    assert_eq!(app.room_cursor, 0, "a new page starts at its top");
    // The last page: n says so and asks nothing.
    assert!(app.handle(ch('n')).is_empty());
    assert!(app
        .feed
        .last()
        .is_some_and(|l| l.text.contains("last page")));
    // r goes back to the first page.
    assert_eq!(
        sends(&app.handle(ch('r'))),
        [ClientMessage::ListRooms { after: None }]
    );
    app.handle(msg(ServerMessage::Rooms {
        rooms: page(0, 50),
        next: Some("R0049".into()),
    }));
    assert_eq!(app.rooms_page, 1);
    // The same from the command line.
    assert_eq!(
        line(&mut app, "/rooms more"),
        [ClientMessage::ListRooms {
            after: Some("R0049".into())
        }]
    );
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
        next: None,
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
    let sets_rounds = |rounds| {
        [ClientMessage::UpdateSettings {
            settings: SettingsPatch {
                rounds: Some(rounds),
                ..Default::default()
            },
        }]
    };
    assert_eq!(sends(&app.handle(key(KeyCode::Right))), sets_rounds(15));
    // Presses step from what the host sees, not from what the server last
    // confirmed: back to 10.
    assert_eq!(sends(&app.handle(key(KeyCode::Left))), sets_rounds(10));
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
    app.handle(wrong_value(9));
    let verdict = app.room.as_ref().unwrap().verdict.clone().unwrap();
    assert!(!verdict.accepted);
    assert_eq!(
        verdict.text,
        "wrong (wrong value): comes to 9, not 15; locked out for 5.0s"
    );
    refused(&mut app, "1+2+3+4+5", "locked out");
    app.handle(Event::Tick(Duration::from_secs(26)));
    assert_eq!(
        line(&mut app, "1+2+3+4+5"),
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
        win: RoundWin {
            round: 3,
            winner: BEN,
            formula: Some("1+2+3+4+5".into()),
            no_solution: false,
            elapsed_ms: 4200,
            points: 1,
        },
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
    assert!(line(&mut app, "1+2").is_empty());
}

#[test]
fn ctrl_u_and_ctrl_w_edit_the_line_and_no_ctrl_key_types_a_letter() {
    let mut app = game();
    typed(&mut app, "3+11+12");
    let ctrl = |c| Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
    app.handle(ctrl('w'));
    assert_eq!(app.input, "3+11+");
    app.handle(ctrl('w'));
    assert_eq!(app.input, "3+11");
    app.handle(ctrl('k'));
    assert_eq!(app.input, "3+11", "Ctrl-K typed a letter");
    app.handle(ctrl('u'));
    assert_eq!(app.input, "");
}

#[test]
fn a_win_announced_after_its_winner_left_still_names_them() {
    let mut app = game();
    app.handle(msg(left(BEN, "Ben", LeaveReason::Left)));
    won_by_ben(&mut app, 3);
    assert!(
        app.feed
            .iter()
            .any(|l| l.text.starts_with("round 3 won by Ben in 4.2s")),
        "{:?}",
        app.feed
    );
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
fn bot_commands_add_by_skill_and_remove_bots_by_name_but_never_people() {
    let mut app = game();
    let bot = PlayerId(9);
    let mut row = player(bot, "Kurt (medium bot)", 0);
    row.bot = true;
    app.room.as_mut().unwrap().snapshot.players.push(row);
    assert_eq!(
        line(&mut app, "/bot add hard"),
        [ClientMessage::AddBot {
            skill: krypto_core::bot_pace::BotSkill::Hard
        }]
    );
    assert_eq!(
        line(&mut app, "/bot add"),
        [ClientMessage::AddBot {
            skill: krypto_core::bot_pace::BotSkill::Medium
        }],
        "medium when the skill is not said"
    );
    refused(&mut app, "/bot add genius", "easy, medium or hard");
    assert_eq!(
        line(&mut app, "/bot remove kurt (MEDIUM bot)"),
        [ClientMessage::RemoveBot { player: bot }]
    );
    refused(&mut app, "/bot remove Ben", "/kick");
    refused(&mut app, "/bot remove Zed", "no bot called");
    refused(&mut app, "/bot dance", "usage: /bot");
}

#[test]
fn commands_map_to_requests() {
    let mut app = game();
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
    refused(&mut app, "/set colour=blue", "unknown setting");
    // Not offered where every hand has a solution.
    refused(&mut app, "/nosolution", "only solvable hands");
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
fn challenge_sends_the_round_once_it_is_over_and_shows_the_link() {
    let mut app = game();
    // Not while the round is raced: there is nothing solved to send yet.
    refused(&mut app, "/challenge", "once it is over");
    app.room.as_mut().unwrap().snapshot.state = RoomPhase::BetweenRounds;
    assert_eq!(
        line(&mut app, "/challenge"),
        [ClientMessage::ChallengeCreate { round: Some(3) }]
    );
    app.handle(msg(ServerMessage::Challenge {
        code: "K7QXM2PD".parse().unwrap(),
    }));
    let shown = &app.feed.last().unwrap().text;
    assert!(
        shown.contains("/c/K7QXM2PD") && shown.contains("krypto challenge K7QXM2PD"),
        "{shown}"
    );
}

#[test]
fn the_leaderboard_is_asked_for_and_shown() {
    let mut app = lobby();
    assert_eq!(
        line(&mut app, "/leaderboard wins week"),
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
    app.handle(msg(match_over(None)));
    assert_eq!(app.screen(), Screen::Podium);
    assert!(app
        .feed
        .iter()
        .any(|l| l.text == "  1. Ann  5 points  rating 1520 → 1580 (+60)"));
    app.handle(key(KeyCode::Enter));
    assert_eq!(app.screen(), Screen::Room);
}

#[test]
fn after_a_server_restart_the_client_rejoins_its_room() {
    let mut app = room();
    app.handle(dropped("the server closed the connection"));
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
            ClientMessage::ListRooms { after: None },
            ClientMessage::JoinRoom {
                code: CODE.into(),
                spectator: false
            }
        ]
    );
}

#[test]
fn a_resumed_seat_is_not_rejoined_nor_are_rooms_listed() {
    let mut app = room();
    app.handle(dropped("x"));
    assert_eq!(sends(&app.handle(welcome(true))), []);
}

#[test]
fn being_kicked_returns_to_the_lobby() {
    let mut app = room();
    app.handle(msg(left(ME, "Ann", LeaveReason::Kicked)));
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
    refused(&mut app, "1+2", "no round is being played");
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
        misses: Vec::new(),
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

// ---------------------------------------------------------------------------
// Live play as people play it (issue 11)
// ---------------------------------------------------------------------------

/// Ben won `round` in 4.2 s.
fn ben_won(round: u32) -> ServerMessage {
    ServerMessage::RoundWon {
        win: RoundWin {
            round,
            winner: BEN,
            formula: Some("1 + 2 + 3 + 4 + 5".into()),
            no_solution: false,
            elapsed_ms: 4200,
            points: 1,
        },
        scores: vec![ScoreEntry {
            player: BEN,
            score: 2,
        }],
    }
}

fn won_by_ben(app: &mut App, round: u32) {
    app.handle(msg(ben_won(round)));
}

#[test]
fn keys_typed_between_rounds_go_to_the_formula_and_never_leave() {
    let mut app = game();
    typed(&mut app, "1+2");
    won_by_ben(&mut app, 3);
    // Between rounds: `3 x 4` (x means ×), q, l, / are text, not shortcuts.
    let mut actions = Vec::new();
    for c in "3 x 4 qlc".chars() {
        actions.extend(app.handle(ch(c)));
    }
    assert!(actions.is_empty(), "{actions:?}");
    assert_eq!(app.screen(), Screen::Game);
    assert!(app.room.is_some());
    assert_eq!(app.mode, InputMode::Formula);
    assert_eq!(app.input, "3 * 4 qlc");
    // Enter before the deal submits nothing and keeps the text.
    assert!(sends(&app.handle(key(KeyCode::Enter))).is_empty());
    assert_eq!(app.input, "3 * 4 qlc");
    assert!(feed(&app).last().unwrap().contains("not a formula"));
    // The countdown before the first hand takes keys the same way.
    let mut app = room();
    app.handle(msg(ServerMessage::MatchStarted {
        rounds_total: 3,
        settings: Default::default(),
        countdown_ms: 3000,
    }));
    typed(&mut app, "x");
    assert_eq!((app.screen(), app.input.as_str()), (Screen::Game, "*"));
    // What was typed in the pause is carried into the new hand.
    app.handle(round_started(1));
    assert_eq!(app.input, "*");
}

#[test]
fn leaving_or_quitting_a_match_asks_first() {
    let mut app = game();
    typed(&mut app, "/leave");
    assert!(app.handle(key(KeyCode::Enter)).is_empty());
    assert_eq!(app.confirm, Some(Confirm::Leave));
    // Anything but y keeps the seat.
    assert!(app.handle(key(KeyCode::Esc)).is_empty());
    assert_eq!(app.confirm, None);
    typed(&mut app, "/leave");
    app.handle(key(KeyCode::Enter));
    assert_eq!(sends(&app.handle(ch('y'))), [ClientMessage::LeaveRoom]);
    // /quit too.
    let mut app = game();
    typed(&mut app, "/quit");
    assert!(app.handle(key(KeyCode::Enter)).is_empty());
    assert_eq!(app.handle(ch('y')), [Action::Quit]);
    // The host quitting from the room screen asks; a guest does not.
    let mut app = room();
    assert!(app.handle(ch('q')).is_empty());
    assert_eq!(app.confirm, Some(Confirm::Quit));
    assert!(app.handle(ch('n')).is_empty());
    let mut guest = room();
    let mut snap = snapshot(RoomPhase::Lobby, None);
    snap.host = BEN;
    guest.handle(msg(ServerMessage::RoomState(snap)));
    assert_eq!(guest.handle(ch('q')), [Action::Quit]);
    // Line mode (scripts) acts at once.
    let mut app = game();
    assert_eq!(line(&mut app, "/leave"), [ClientMessage::LeaveRoom]);
}

#[test]
fn every_overlay_closes_with_esc_and_a_new_hand_shows_its_cards() {
    let mut app = game();
    won_by_ben(&mut app, 3);
    // The leaderboard opened between rounds.
    typed(&mut app, "/lb");
    app.handle(key(KeyCode::Enter));
    assert_eq!(app.screen(), Screen::Leaderboard);
    // Keys do not reach a hidden formula.
    app.handle(ch('7'));
    assert_eq!(app.input, "");
    for close in [
        KeyCode::Esc,
        KeyCode::Char('q'),
        KeyCode::Char('l'),
        KeyCode::Tab,
    ] {
        app.show_board = true;
        app.handle(key(close));
        assert_eq!(app.screen(), Screen::Game, "{close:?}");
    }
    // Help and the QR code close with Esc.
    app.handle(key(KeyCode::F(1)));
    app.handle(key(KeyCode::Esc));
    assert!(!app.help);
    // An overlay left open is closed by the next hand.
    app.show_board = true;
    app.help = true;
    app.handle(round_started(4));
    assert_eq!(app.screen(), Screen::Game);
    assert!(!app.help);
    assert_eq!(app.live_round().map(|r| r.number), Some(4));
    typed(&mut app, "1");
    assert_eq!(app.input, "1");
}

#[test]
fn a_failed_rejoin_returns_to_a_working_lobby_with_a_sentence() {
    let mut app = game();
    app.handle(dropped("the server closed the connection"));
    let actions = app.handle(welcome(false));
    assert!(sends(&actions).contains(&ClientMessage::JoinRoom {
        code: CODE.into(),
        spectator: false
    }));
    app.handle(msg(ServerMessage::Error {
        code: krypto_core::protocol::ErrorCode::RoomNotFound,
        message: "no room KX7RB".into(),
    }));
    assert_eq!(app.screen(), Screen::Lobby);
    assert_eq!(app.mode, InputMode::Off);
    let last = feed(&app).last().cloned().unwrap();
    assert!(
        last.starts_with("the server restarted and the match was lost"),
        "{last}"
    );
    assert!(!last.contains("room_not_found"), "{last}");
    // The lobby's shortcuts work again.
    assert_eq!(
        sends(&app.handle(ch('c'))),
        [ClientMessage::CreateRoom {
            settings: None,
            public: Some(false)
        }]
    );
}

#[test]
fn formulas_the_checker_knows_are_broken_are_not_sent() {
    let mut app = game();
    for (broken, why) in [
        ("(1+2", "not sent"),
        ("1+2+3+4+6", "not sent"),
        ("1+2+3+4", "not sent"),
        ("1+1+3+4+5", "not sent"),
    ] {
        assert!(
            sends(&app.handle(Event::Line(broken.into()))).is_empty(),
            "{broken}"
        );
        let last = feed(&app).last().cloned().unwrap();
        assert!(last.starts_with(why), "{broken}: {last}");
    }
    // A wrong value is a real attempt.
    assert_eq!(
        line(&mut app, "1+2+3+4-5"),
        [ClientMessage::Submit {
            round: 3,
            formula: "1+2+3+4-5".into()
        }]
    );
}

#[test]
fn a_plain_line_with_letters_is_never_a_formula() {
    let mut app = game();
    for text in ["hello everyone", "no solution", "quit"] {
        refused(&mut app, text, "not a formula");
    }
    // `x` is ×, as in the terminal UI.
    assert_eq!(
        line(&mut app, "(1 + 2) x 3 + 4 + 5 - 3 + 3"),
        Vec::<ClientMessage>::new()
    );
    assert_eq!(
        line(&mut app, "1 x 2 x 3 + 4 + 5"),
        [ClientMessage::Submit {
            round: 3,
            formula: "1 * 2 * 3 + 4 + 5".into()
        }]
    );
}

#[test]
fn quick_settings_presses_add_up() {
    let mut app = room();
    app.handle(key(KeyCode::Down));
    app.handle(key(KeyCode::Down));
    let rounds: Vec<Option<u32>> = (0..3)
        .flat_map(|_| sends(&app.handle(key(KeyCode::Right))))
        .map(|m| match m {
            ClientMessage::UpdateSettings { settings } => settings.rounds,
            _ => None,
        })
        .collect();
    assert_eq!(rounds, [Some(15), Some(20), Some(30)]);
}

#[test]
fn arrivals_and_departures_update_the_roster() {
    let mut app = room();
    let arrival = msg(joined(PlayerId(9), "Ada-bot", true));
    app.handle(arrival.clone());
    let players = |app: &App| -> Vec<String> {
        app.room
            .as_ref()
            .unwrap()
            .snapshot
            .players
            .iter()
            .map(|p| p.name.clone())
            .collect()
    };
    assert_eq!(players(&app), ["Ann", "Ben", "Cat", "Ada-bot"]);
    assert!(app.is_bot(PlayerId(9)));
    assert!(feed(&app).contains(&"Ada-bot joined (a bot)".to_owned()));
    // Line mode prints the roster after the arrival.
    assert!(feed(&app).last().unwrap().contains("Ada-bot (bot)"));
    // Twice, or with a snapshot that already has them: still one seat.
    app.handle(arrival);
    assert_eq!(players(&app).len(), 4);
    app.handle(msg(left(BEN, "Ben", LeaveReason::Left)));
    assert_eq!(players(&app), ["Ann", "Cat", "Ada-bot"]);
    app.handle(msg(left(BEN, "Ben", LeaveReason::Left)));
    app.handle(msg(ServerMessage::RoomState(snapshot(
        RoomPhase::Lobby,
        None,
    ))));
    assert_eq!(players(&app), ["Ann", "Ben", "Cat"]);
}

#[test]
fn a_resumed_seat_says_so_and_shows_the_hand_and_what_was_missed() {
    let mut app = game();
    app.handle(dropped("connection lost"));
    app.handle(welcome(true));
    let mut snap = snapshot(RoomPhase::Playing, Some(round_info(4, 30_000)));
    // What the room remembers: the chat and the start we heard, then a
    // round won while we were away.
    snap.recent.push(ServerMessage::MatchStarted {
        rounds_total: 10,
        settings: RoomSettings::default(),
        countdown_ms: 3000,
    });
    snap.recent.push(ServerMessage::RoundWon {
        win: RoundWin {
            round: 3,
            winner: BEN,
            formula: Some("5 + 4 + 3 + 2 + 1".into()),
            no_solution: false,
            elapsed_ms: 3000,
            points: 1,
        },
        scores: Vec::new(),
    });
    app.handle(msg(ServerMessage::RoomState(snap)));
    let lines = feed(&app);
    let at = |text: &str| {
        lines
            .iter()
            .rposition(|l| l.contains(text))
            .unwrap_or_else(|| panic!("no {text:?} in {lines:#?}"))
    };
    assert!(at("your seat in room KX7RB was resumed") < at("while you were away:"));
    assert!(at("while you were away:") < at("round 3 won by Ben in 3.0s: 5 + 4 + 3 + 2 + 1"));
    assert!(at("round 3 won by Ben in 3.0s: 5 + 4 + 3 + 2 + 1") < at("round 4: make 15"));
    // What we had heard is not told again.
    assert_eq!(lines.iter().filter(|l| l.contains("good luck")).count(), 1);
    assert!(lines
        .last()
        .unwrap()
        .contains("round 4: make 15 from 1 2 3 4 5 (30.0s left)"));
    assert_eq!(app.mode, InputMode::Formula);
}

#[test]
fn the_join_hint_uses_the_servers_lan_address_and_falls_back_to_ours() {
    let app = room();
    assert_eq!(
        super::ui::room_join_line(&app),
        "krypto play -s ws://127.0.0.1:7878 · code KX7RB"
    );
    let mut app = lobby_naming(&["http://192.168.1.20:7878", "http://10.0.0.5:7878"]);
    app.handle(msg(ServerMessage::RoomState(snapshot(
        RoomPhase::Lobby,
        None,
    ))));
    assert_eq!(
        super::ui::room_join_line(&app),
        "krypto play -s ws://192.168.1.20:7878 · code KX7RB"
    );
    assert_eq!(
        super::ui::room_browser_link(&app),
        "http://192.168.1.20:7878/r/KX7RB"
    );
}

#[test]
fn refusals_read_as_sentences() {
    let mut app = lobby();
    app.handle(msg(ServerMessage::Error {
        code: krypto_core::protocol::ErrorCode::RoomNotFound,
        message: "no room ABCDE".into(),
    }));
    let last = feed(&app).last().cloned().unwrap();
    assert_eq!(
        last,
        "no room ABCDE: check the code with whoever invited you"
    );
    let mut app = App::new("ws://h:1/ws", "Ann");
    app.handle(Event::Net(NetEvent::Refused {
        code: krypto_core::protocol::ErrorCode::NameTaken,
        message: "\"Ann\" belongs to another player".into(),
    }));
    let text = app.exit_message.unwrap();
    assert!(!text.contains("NameTaken"), "{text}");
    assert!(text.contains("--name"), "{text}");
}

#[test]
fn a_repeated_connection_failure_is_told_once() {
    let mut app = App::new("ws://h:1/ws", "Ann");
    for ms in [500, 1000, 2000] {
        app.handle(Event::Net(NetEvent::Disconnected {
            reason: "cannot reach ws://h:1/ws: Connection refused".into(),
            retry_in: Duration::from_millis(ms),
        }));
    }
    let told = feed(&app)
        .iter()
        .filter(|l| l.contains("Connection refused"))
        .count();
    assert_eq!(told, 1, "{:#?}", feed(&app));
    assert_eq!(feed(&app).last().unwrap(), "still down; next try in 2.0s");
}

#[test]
fn a_restarted_client_whose_seat_was_kept_says_so() {
    let mut app = App::new("ws://127.0.0.1:7878/ws", "Ann");
    app.handle(welcome(true));
    let mut snap = snapshot(RoomPhase::Finished, None);
    // The match before the last one is old news to a restarted client.
    snap.recent = vec![
        ben_won(1),
        match_over(None),
        ServerMessage::Chat {
            from: BEN,
            name: "Ben".into(),
            text: "good luck!".into(),
        },
    ];
    snap.recent.insert(0, snap.recent[1].clone());
    app.handle(msg(ServerMessage::RoomState(snap)));
    let lines = feed(&app);
    assert_eq!(
        lines.iter().filter(|l| *l == "match over:").count(),
        1,
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("won by Ben")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l == "[chat] Ben: good luck!"),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == "welcome back, Ann: your seat was resumed"),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l == "while you were away:"),
        "{lines:#?}"
    );
    assert_eq!(app.screen(), Screen::Room);
}

#[test]
fn a_reconnect_replays_only_what_was_missed_and_never_our_own_moves() {
    let mut app = game();
    won_by_ben(&mut app, 3);
    app.handle(dropped("connection lost"));
    app.handle(welcome(true));
    let before = app.feed.len();
    let ben_joined = joined(BEN, "Ben", false);
    let we_left = left(ME, "Ann", LeaveReason::Left);
    let mut snap = snapshot(RoomPhase::BetweenRounds, None);
    // The room's memory: a previous match, Ben's arrival, our leaving and
    // coming back, then this match as we heard it, then one chat we missed.
    snap.recent = vec![
        ServerMessage::MatchStarted {
            rounds_total: 1,
            settings: RoomSettings::default(),
            countdown_ms: 3000,
        },
        match_over(None),
        ben_joined.clone(),
        we_left.clone(),
        we_left,
        ServerMessage::Chat {
            from: BEN,
            name: "Ben".into(),
            text: "good luck!".into(),
        },
        ServerMessage::MatchStarted {
            rounds_total: 10,
            settings: RoomSettings::default(),
            countdown_ms: 3000,
        },
        ben_won(3),
        ServerMessage::Chat {
            from: BEN,
            name: "Ben".into(),
            text: "where did you go?".into(),
        },
    ];
    app.handle(msg(ServerMessage::RoomState(snap.clone())));
    let new: Vec<String> = feed(&app)[before..].to_vec();
    assert!(
        new.iter().any(|l| l == "[chat] Ben: where did you go?"),
        "{new:#?}"
    );
    for old in [
        "match over",
        "Ben joined",
        "you left the room",
        "good luck",
        "won by Ben",
        "match started",
    ] {
        assert!(
            !new.iter().any(|l| l.contains(old)),
            "{old:?} replayed: {new:#?}"
        );
    }
    // A second drop with nothing new in between replays nothing.
    app.handle(dropped("connection lost"));
    app.handle(welcome(true));
    let before = app.feed.len();
    app.handle(msg(ServerMessage::RoomState(snap)));
    let new: Vec<String> = feed(&app)[before..].to_vec();
    assert!(
        !new.iter()
            .any(|l| l.contains("[chat]") || l.contains("while you were away")),
        "{new:#?}"
    );
}

#[test]
fn joining_mid_round_says_at_once_that_we_play_from_the_next_hand() {
    let mut app = lobby();
    let mut snap = snapshot(RoomPhase::Playing, Some(round_info(2, 60_000)));
    snap.players[0].waiting = true;
    app.handle(msg(ServerMessage::RoomState(snap)));
    // Before a key is pressed, right after the hand.
    let lines = feed(&app);
    let hand = lines
        .iter()
        .position(|l| l.starts_with("round 2: make 15"))
        .unwrap();
    assert_eq!(lines[hand + 1], SITTING_OUT);
    assert!(app.sitting_out());
    let drawn = screen(&app);
    assert!(drawn.contains("you play from the next one"), "{drawn}");
    // An answer typed anyway is not sent.
    typed(&mut app, "1+2+3+4+5");
    assert!(sends(&app.handle(key(KeyCode::Enter))).is_empty());
    assert_eq!(feed(&app).last().unwrap(), SITTING_OUT);
    // The next hand is ours.
    app.handle(round_started(3));
    assert!(!app.sitting_out());
    // The formula stayed in the field: Enter sends it now.
    assert_eq!(app.input, "1+2+3+4+5");
    assert_eq!(sends(&app.handle(key(KeyCode::Enter))).len(), 1);
}

#[test]
fn the_keys_help_calls_always_work_during_a_round() {
    let mut app = game();
    // `l` and `q` are text in a round, as the help says ("Menus")...
    typed(&mut app, "lq");
    assert_eq!((app.input.as_str(), app.show_board), ("lq", false));
    // ...and what it lists under "Always" works here.
    let always = super::help::KEYS
        .iter()
        .find(|(screen, _)| *screen == "Always")
        .unwrap()
        .1[0];
    assert_eq!(always, "F1 help · F2 board · Alt-1…6 react · Ctrl-C quit");
    let reacted = sends(&app.handle(Event::Key(KeyEvent::new(
        KeyCode::Char('2'),
        KeyModifiers::ALT,
    ))));
    assert_eq!(
        reacted,
        [ClientMessage::React {
            emoji: "🎉".into()
        }]
    );
    let asked = sends(&app.handle(key(KeyCode::F(2))));
    assert!(app.show_board);
    assert!(
        matches!(asked[..], [ClientMessage::Leaderboard { .. }]),
        "{asked:?}"
    );
    app.handle(key(KeyCode::F(2)));
    assert!(!app.show_board);
    app.handle(key(KeyCode::F(1)));
    assert!(app.help);
    app.handle(key(KeyCode::Esc));
    app.handle(Event::Key(KeyEvent::new(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(app.confirm, Some(Confirm::Quit));
    // The formula survived it all.
    assert_eq!(app.input, "lq");
}

#[test]
fn plain_help_lists_commands_not_the_terminal_uis_keys() {
    let mut app = lobby();
    let before = app.feed.len();
    app.handle(Event::Line("/help".into()));
    let text = feed(&app)[before..].join("\n");
    assert!(
        text.contains("/join CODE") && text.contains("press Enter"),
        "{text}"
    );
    for key in ["F1", "Esc", "Tab", "↑↓", "l board"] {
        assert!(!text.contains(key), "{key} in {text}");
    }
    assert!(!app.help);
}

// ---------------------------------------------------------------------------
// The party: the rematch's ready step and reactions
// ---------------------------------------------------------------------------

fn ready_check(ready: Vec<PlayerId>) -> Event {
    msg(ServerMessage::ReadyCheck { ms: 15_000, ready })
}

#[test]
fn a_rematch_asks_ready_with_a_key_and_counts_who_is() {
    let mut app = lobby();
    // After a match, everyone connected (Cat watches).
    app.handle(msg(ServerMessage::RoomState(snapshot(
        RoomPhase::Finished,
        None,
    ))));
    app.handle(msg(match_over(None)));
    assert_eq!(app.screen(), Screen::Podium);
    app.handle(ready_check(Vec::new()));
    assert_eq!(
        feed(&app).last().unwrap(),
        "rematch: ready? press r (or /ready); it starts when everyone is ready, or in 15 s"
    );
    assert!(app.ready_asked());
    app.handle(Event::Tick(Duration::from_secs(3)));
    let drawn = screen(&app);
    assert!(
        drawn.contains("Ready? press r · 0/2 ready · starts in 0:12 · s starts it now"),
        "{drawn}"
    );
    // Ben is ready first; the roster says so once the podium is closed.
    app.handle(msg(ServerMessage::PlayerReady { player: BEN }));
    assert_eq!(feed(&app).last().unwrap(), "Ben is ready");
    assert_eq!(sends(&app.handle(ch('r'))), [ClientMessage::Ready]);
    app.handle(msg(ServerMessage::PlayerReady { player: ME }));
    assert_eq!(feed(&app).last().unwrap(), "you are ready");
    assert!(!app.ready_asked());
    app.handle(key(KeyCode::Esc));
    assert_eq!(app.screen(), Screen::Room);
    let drawn = screen(&app);
    assert!(drawn.contains("Ben ✓ ready"), "{drawn}");
    assert!(drawn.contains("Rematch: 2/2 ready"), "{drawn}");
    // The host may start it at once.
    assert_eq!(sends(&app.handle(ch('s'))), [ClientMessage::Start]);
    // Asked twice: said why, nothing sent.
    assert!(line(&mut app, "/ready").is_empty());
    assert!(feed(&app).last().unwrap().contains("ready already"));
    app.handle(msg(ServerMessage::MatchStarted {
        rounds_total: 10,
        settings: RoomSettings::default(),
        countdown_ms: 3000,
    }));
    assert!(app.room.as_ref().unwrap().ready_check.is_none());
    assert!(!screen(&app).contains("Ready?"));
}

#[test]
fn a_ready_check_open_on_arrival_is_asked_and_spectators_are_not_asked() {
    let mut app = lobby();
    let mut snap = snapshot(RoomPhase::Finished, None);
    snap.ready_check = Some(ReadyCheckInfo {
        ms: 9_000,
        ready: vec![BEN],
    });
    app.handle(msg(ServerMessage::RoomState(snap.clone())));
    assert!(app.ready_asked());
    assert!(feed(&app)
        .last()
        .unwrap()
        .starts_with("rematch: ready? press r (or /ready)"));
    assert_eq!(line(&mut app, "/ready"), [ClientMessage::Ready]);
    // Watching: told, never asked.
    let mut cat = App::new("ws://127.0.0.1:7878/ws", "Cat");
    cat.handle(msg(ServerMessage::Welcome {
        protocol: 1,
        player_id: CAT,
        name: "Cat".into(),
        token: "00ff".into(),
        server_version: "0.1.0".into(),
        resumed: false,
        join_urls: Vec::new(),
    }));
    cat.handle(msg(ServerMessage::RoomState(snap)));
    assert!(!cat.ready_asked());
    cat.handle(ready_check(Vec::new()));
    assert_eq!(
        feed(&cat).last().unwrap(),
        "rematch: it starts when everyone is ready, or in 15 s"
    );
    assert!(sends(&cat.handle(ch('r'))).is_empty());
}

#[test]
fn reactions_are_sent_by_emoji_or_number_and_shown_in_the_feed() {
    let mut app = lobby();
    assert!(line(&mut app, "/react 🎉").is_empty());
    assert!(feed(&app).last().unwrap().contains("need a room"));
    let mut app = game();
    let react = |e: &str| {
        vec![ClientMessage::React {
            emoji: e.to_owned(),
        }]
    };
    assert_eq!(line(&mut app, "/react 🔥"), react("🔥"));
    assert_eq!(line(&mut app, "/react 2"), react("🎉"));
    // Never free text, never a number out of the list.
    for bad in ["/react lol", "/react 7", "/react"] {
        assert!(
            sends(&app.handle(Event::Line(bad.into()))).is_empty(),
            "{bad}"
        );
        assert_eq!(
            feed(&app).last().unwrap(),
            "react with one of: 1 👏  2 🎉  3 😮  4 😂  5 🔥  6 🤯"
        );
    }
    app.handle(msg(ServerMessage::Reaction {
        player: BEN,
        name: "Ben".into(),
        emoji: "😮".into(),
    }));
    assert_eq!(feed(&app).last().unwrap(), "Ben 😮");
    app.handle(msg(ServerMessage::Reaction {
        player: ME,
        name: "Ann".into(),
        emoji: "👏".into(),
    }));
    assert_eq!(feed(&app).last().unwrap(), "you 👏");
    // The formula being typed is untouched.
    assert_eq!(app.mode, InputMode::Formula);
}

#[test]
fn a_match_nobody_scored_in_has_no_podium() {
    let mut app = room();
    let mut nobody = standings();
    for s in &mut nobody {
        s.score = 0;
        s.rank = 1;
    }
    app.handle(msg(ServerMessage::MatchOver {
        standings: nobody,
        match_id: None,
    }));
    let drawn = screen(&app);
    assert!(
        drawn.contains("Nobody scored a point: no podium this time."),
        "{drawn}"
    );
    assert!(!drawn.contains("0 pt"), "{drawn}");
}
