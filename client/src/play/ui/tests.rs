#![allow(clippy::unwrap_used)]

use std::time::Duration;

use crossterm::event::KeyCode;
use krypto_core::protocol::{
    LeaderboardRow, Metric, Period, PlayerId, RoomPhase, RoomSummary, ServerMessage, Standing,
};

use super::super::app::{App, Event};
use super::super::net::NetEvent;
use super::super::testkit::*;

#[test]
fn connecting_to_an_unreachable_server() {
    let mut app = App::new("ws://127.0.0.1:7878/ws", "Ann");
    app.handle(Event::Net(NetEvent::Disconnected {
        reason: "cannot reach ws://127.0.0.1:7878/ws: Connection refused (os error 111)".into(),
        retry_in: Duration::from_secs(2),
    }));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn lobby_with_public_rooms() {
    let mut app = lobby();
    let summary = |code: &str, host: &str, players, state| RoomSummary {
        code: code.into(),
        host: host.into(),
        players,
        max_players: 8,
        state,
        settings: Default::default(),
    };
    app.handle(msg(ServerMessage::Rooms {
        rooms: vec![
            summary("QW3RT", "Ben", 3, RoomPhase::Lobby),
            summary("ZX9CV", "Cat", 8, RoomPhase::Playing),
        ],
        next: None,
    }));
    app.handle(key(KeyCode::Down));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn lobby_typing_a_code() {
    let mut app = lobby();
    app.handle(ch('j'));
    typed(&mut app, "kx7");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn room_before_a_match_as_host() {
    let mut app = room();
    app.handle(key(KeyCode::Down));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn the_host_reaches_every_setting_even_when_they_outnumber_the_lines() {
    let mut app = room();
    assert!(
        !screen(&app).contains("Scoring"),
        "the panel fits them all now"
    );
    for _ in krypto_core::settings::Field::ALL {
        app.handle(key(KeyCode::Down));
    }
    let shown = screen(&app);
    assert!(
        shown.contains("Scoring") && shown.contains("‹ first ›"),
        "{shown}"
    );
}

#[test]
fn game_while_typing_a_formula() {
    let mut app = game();
    typed(&mut app, "(1+2)x3+4");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn game_locked_out_after_a_wrong_answer() {
    let mut app = game();
    typed(&mut app, "1+2+3+4-5");
    app.handle(key(KeyCode::Enter));
    app.handle(wrong_value(5));
    app.handle(Event::Tick(Duration::from_millis(21_500)));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn game_between_rounds() {
    let mut app = game();
    app.handle(msg(ServerMessage::RoundTimedOut {
        round: 3,
        solution: Some("1 + 2 + 3 + 4 + 5".into()),
        solutions: 12,
    }));
    app.handle(msg(ServerMessage::Chat {
        from: BEN,
        name: "Ben".into(),
        text: "too slow!".into(),
    }));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn podium_with_rating_changes() {
    let mut app = game();
    app.handle(msg(match_over(None)));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn the_podium_names_the_match_for_its_recap_and_only_as_an_id() {
    let mut app = game();
    app.handle(msg(match_over(Some(
        "0193a1c4-7d2e-7b3a-9f1e-2c4d5e6f7a8b",
    ))));
    assert!(
        screen(&app).contains("recap: krypto match 0193a1c4-7d2e-7b3a-9f1e-2c4d5e6f7a8b"),
        "{}",
        screen(&app)
    );
    let mut hostile = game();
    hostile.handle(msg(match_over(Some(
        "\u{1b}[2J0193a1c4-7d2e-7b3a-9f1e-2c4d5e6f7",
    ))));
    assert!(!screen(&hostile).contains("recap:"), "{}", screen(&hostile));
}

#[test]
fn leaderboard() {
    let mut app = lobby();
    app.handle(ch('l'));
    let row = |rank, name: &str, value, matches| LeaderboardRow {
        rank,
        player: BEN,
        name: name.into(),
        value,
        matches,
    };
    app.handle(msg(ServerMessage::Leaderboard {
        metric: Metric::Rating,
        period: Period::All,
        rows: vec![
            row(1, "Ben", 1688.0, 12),
            row(2, "Ann", 1622.0, 9),
            row(3, "Cat", 1410.0, 30),
        ],
    }));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn help_overlay() {
    let mut app = game();
    app.handle(key(KeyCode::F(1)));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn cards_used_in_the_formula_are_dimmed() {
    let mut app = game();
    typed(&mut app, "(1+2)x3");
    let terminal = draw(&app, 80, 24);
    let buf = terminal.backend().buffer();
    // The card values sit on row 4; find each digit's cell there.
    let style_of = |digit: &str| {
        (0..80)
            .map(|x| &buf[(x, 4)])
            .filter(|c| c.symbol() == digit)
            .map(|c| c.fg)
            .next_back()
            .unwrap()
    };
    for used in ["1", "2", "3"] {
        assert_eq!(style_of(used), ratatui::style::Color::DarkGray, "{used}");
    }
    for unused in ["4", "5"] {
        assert_ne!(
            style_of(unused),
            ratatui::style::Color::DarkGray,
            "{unused}"
        );
    }
}

#[test]
fn every_screen_draws_at_tiny_and_huge_sizes_without_panicking() {
    let mut apps = vec![App::new("ws://h/ws", "Ann"), lobby(), room(), game()];
    let mut podium = game();
    podium.handle(msg(match_over(None)));
    apps.push(podium);
    let mut help = game();
    help.handle(key(KeyCode::F(1)));
    apps.push(help);
    let mut qr = with_lan_address();
    qr.handle(ch('g'));
    apps.push(qr);
    let mut confirm = game();
    confirm.handle(Event::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('c'),
        crossterm::event::KeyModifiers::CONTROL,
    )));
    assert!(confirm.confirm.is_some());
    apps.push(confirm);
    apps.push(with_lan_address());
    for app in &apps {
        for (w, h) in [(1, 1), (10, 5), (40, 12), (79, 23), (200, 60)] {
            draw(app, w, h);
        }
    }
}

fn with_lan_address() -> App {
    let mut app = lobby_naming(&["http://192.168.1.20:7878"]);
    let mut snap = snapshot(RoomPhase::Lobby, None);
    let mut bot = player(PlayerId(9), "Ada-bot", 0);
    bot.bot = true;
    snap.players.push(bot);
    app.handle(msg(ServerMessage::RoomState(snap)));
    app
}

#[test]
fn room_with_its_qr_code_on_a_large_terminal() {
    let app = with_lan_address();
    insta::assert_snapshot!(draw(&app, 110, 36).backend().to_string());
}

#[test]
fn qr_code_overlay_at_80x24() {
    let mut app = with_lan_address();
    app.handle(ch('g'));
    assert!(app.show_qr);
    insta::assert_snapshot!(screen(&app));
    app.handle(key(KeyCode::Esc));
    assert!(!app.show_qr);
}

#[test]
fn tied_players_share_a_step_and_every_name_is_shown() {
    let mut app = game();
    app.handle(msg(ServerMessage::MatchOver {
        standings: vec![
            Standing::unrated(ME, "Ann", 4, 1),
            Standing::unrated(BEN, "Ben", 4, 1),
            Standing::unrated(CAT, "Cat", 2, 3),
            Standing::unrated(PlayerId(4), "Dan", 2, 3),
            Standing::unrated(PlayerId(5), "Eve", 1, 5),
        ],
        match_id: None,
    }));
    let text = screen(&app);
    insta::assert_snapshot!(text);
    // The podium's top rows (above the table) name both winners side by
    // side on one step, and the second step holds the next rank.
    let stage: Vec<&str> = text.lines().skip(1).take(11).collect();
    let step_of = |name: &str| stage.iter().position(|l| l.contains(name));
    assert_eq!(step_of("Ann").map(|r| r + 1), step_of("Ben"));
    assert!(step_of("Cat").is_some() && step_of("Dan").is_some());
}

#[test]
fn equal_points_ranked_apart_show_the_time_that_broke_the_tie() {
    let mut app = game();
    let s = |player, name: &str, score, rank, solve_ms| Standing {
        solve_ms: Some(solve_ms),
        ..Standing::unrated(player, name, score, rank)
    };
    app.handle(msg(ServerMessage::MatchOver {
        standings: vec![
            s(ME, "Ann", 5, 1, 41_200),
            s(BEN, "Ben", 5, 2, 41_230),
            s(PlayerId(4), "Dan", 5, 3, 52_960),
            s(CAT, "Cat", 2, 4, 9_000),
        ],
        match_id: None,
    }));
    let text = screen(&app);
    // On the podium's steps and in the table, for those on 5 points only;
    // Ann's and Ben's round to the same tenth, so they show milliseconds.
    assert!(text.contains("5 points · 41.200s"), "{text}");
    assert!(text.contains("5 points · 41.230s"), "{text}");
    assert!(text.contains("5 points · 53.0s"), "{text}");
    assert!(!text.contains("2 points ·"), "{text}");
    assert!(text.contains("Time"), "{text}");
    let row = |name: &str| {
        text.lines()
            .find(|l| l.contains(&format!("{name} ")) && l.contains("unrated"))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(row("Ann").contains("41.200s"), "{text}");
    assert!(row("Ben").contains("41.230s"), "{text}");
    assert!(row("Dan").contains("53.0s"), "{text}");
    assert!(
        !row("Cat").contains("9.0s"),
        "Cat's points are nobody else's: {text}"
    );
}

#[test]
fn hostile_text_from_the_network_is_drawn_harmless() {
    // What a server that does not filter could relay.
    let mut app = lobby();
    for raw in [
        r#"{"type":"chat","from":2,"name":"Ben\u001b]52;c;cm0gLXJmIH4=\u0007","text":"\u001b[2Jgg\r\nSERVER: you won!"}"#,
        r#"{"type":"error","code":"room_not_found","message":"no\u009b2J room\u202e"}"#,
    ] {
        let envelope = crate::play::untrusted::parse(raw).unwrap();
        app.handle(Event::Net(NetEvent::Message {
            envelope: Box::new(envelope),
            raw: raw.to_owned(),
        }));
    }
    let text = screen(&app);
    for bad in ['\u{1b}', '\u{7}', '\r', '\u{9b}', '\u{202e}'] {
        assert!(!text.contains(bad), "{bad:?} reached the screen");
    }
    assert!(
        text.contains("[chat] Ben]52;c;cm0gLXJmIH4=: [2Jgg  SERVER: you won!"),
        "{text}"
    );
    for line in app.feed_since(0) {
        assert!(
            !line.text.contains(['\u{1b}', '\r', '\n']),
            "{:?}",
            line.text
        );
    }
}
