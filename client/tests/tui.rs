//! The real `krypto play` terminal UI, in a real pseudo-terminal of 80×24
//! (see `common::terminal`), against the real server: keys typed between
//! rounds stay in the formula, the leaderboard overlay closes with Esc, and
//! the next hand is always shown.
//!
//! The server's clock runs at its normal speed here: the 4 s pause between
//! rounds is the window the test types in.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use common::terminal::{Key, Terminal};
use common::{Proc, Scratch, TestServer};
use krypto_core::cards::Deal;
use krypto_core::room::ScriptedDealer;
use krypto_server::config::DealerFactory;

/// `krypto play` as `name` on `server`, in a terminal of its own.
fn play(server: &str, name: &str, config: &Path) -> Terminal {
    Terminal::start(
        env!("CARGO_BIN_EXE_krypto"),
        &["play", "-s", server, "-n", name],
        &[("KRYPTO_CONFIG_DIR", config.as_os_str())],
    )
}

#[test]
fn keys_between_rounds_stay_in_the_formula_and_overlays_close() {
    let scratch = Scratch::new();
    // Real time (no speed-up): the pause between rounds lasts 4 s.
    let server = TestServer::with_config(
        "127.0.0.1:0",
        krypto_server::Config {
            dealer: DealerFactory(Arc::new(|| {
                Box::new(ScriptedDealer::new(vec![Deal {
                    objective: 15,
                    hand: vec![1, 2, 3, 4, 5],
                }]))
            })),
            room_time_scale: 1,
            ..TestServer::config(&scratch.db())
        },
    );
    let url = server.url();
    let mut ann = play(&url, "Ann", &scratch.config("ann"));
    ann.wait_for("the lobby", |s| {
        s.contains("online") && s.contains("Public rooms")
    });
    ann.type_text("c");
    let room = ann.wait_for("the room", |s| s.contains("Room code"));
    let code = room
        .lines()
        .next()
        .and_then(|l| l.split("room ").nth(1))
        .map(|r| r.chars().take(5).collect::<String>())
        .unwrap();
    ann.type_text("/set rounds=3 round_seconds=600 lockout_seconds=0");
    ann.key(Key::Enter);
    ann.wait_for("the new settings", |s| s.contains("600 s"));

    let mut ben = Proc::player("Ben", &url, &scratch.config("ben"), "--plain");
    ben.expect_contains("as Ben");
    ben.send(&format!("/join {code}"));
    ann.wait_for("Ben in the roster", |s| s.contains("Ben"));
    ann.type_text("s");
    ben.expect_contains("round 1: make 15");
    ann.wait_for("the first hand", |s| s.contains("Round 1/3"));
    ben.send("1+2+3+4+5");
    ben.expect_contains("round 1 won by Ben");

    // Between rounds: `3 x 4` is a formula being typed, not "leave".
    let pause = ann.wait_for("the pause", |s| s.contains("Round 1/3 over"));
    assert!(pause.contains("next hand"), "{pause}");
    ann.type_text("3 x 4");
    let typed = ann.wait_for("the typed formula", |s| s.contains("> 3 * 4"));
    assert!(typed.contains("Round 1/3"), "left the match:\n{typed}");
    assert!(!typed.contains("Public rooms"), "left the room:\n{typed}");
    assert!(!typed.contains("Are you sure"), "{typed}");

    // The leaderboard opened between rounds closes with Esc. (Esc clears
    // the field first; typing on before the terminal has seen it alone
    // would make it Alt+/.)
    ann.key(Key::Escape);
    ann.wait_for("an empty field", |s| {
        s.contains("> █ the next hand is coming")
    });
    ann.type_text("/lb");
    ann.key(Key::Enter);
    ann.wait_for("the leaderboard", |s| s.contains("Leaderboard ·"));
    ann.key(Key::Escape);
    ann.wait_for("the game again", |s| {
        !s.contains("Leaderboard ·") && s.contains("Round 1/3")
    });
    // Left open, it gives way to the next hand, whose cards are shown.
    ann.type_text("/lb");
    ann.key(Key::Enter);
    ann.wait_for("the leaderboard", |s| s.contains("Leaderboard ·"));
    // (Waited for whole: a capture can catch the terminal mid-redraw.)
    ann.wait_for("the second hand's cards, nothing over them", |s| {
        s.contains("Round 2/3 ·")
            && s.contains("goal")
            && s.contains("│   5   │")
            && !s.contains("Leaderboard ·")
    });
    // And keys go to the visible formula.
    ann.type_text("5+4");
    ann.wait_for("the formula", |s| s.contains("> 5+4"));
    drop(ann);
    drop(ben);
    server.stop();
}

/// `n` pages on through more public rooms than one listing holds, the
/// list scrolling with the picked room, and `r` comes back to the first
/// page.
#[test]
fn the_lobby_pages_on_through_more_public_rooms_than_a_listing_holds() {
    let scratch = Scratch::new();
    let server = TestServer::with_config("127.0.0.1:0", TestServer::config(&scratch.db()));
    let url = server.url();
    let total = krypto_core::protocol::ROOMS_PAGE + 2;
    let (codes, hosts) = public_rooms(&url, total);
    let mut ann = play(&url, "Ann", &scratch.config("ann"));
    // (Waited for whole, down to the hint line: a capture can catch the
    // terminal mid-redraw.)
    let first = ann.wait_for("the first page", |s| {
        s.contains("Public rooms · page 1 · n more")
            && s.contains(&codes[0])
            && s.contains("j code · n more · l board")
    });
    assert!(!first.contains(&codes[total - 1]), "{first}");
    // The picked room stays in view below the screen's first rows.
    for _ in 0..20 {
        ann.key(Key::Down);
    }
    let scrolled = ann.wait_for("the 21st room in view", |s| s.contains(&codes[20]));
    assert!(!scrolled.contains(&format!("│{} ", codes[0])), "{scrolled}");
    ann.type_text("n");
    let second = ann.wait_for("the second page", |s| {
        s.contains("Public rooms · page 2 · r first page") && s.contains(&codes[total - 1])
    });
    assert!(second.contains(&codes[total - 2]), "{second}");
    assert!(!second.contains(&codes[0]), "{second}");
    // The last page: n says so.
    ann.type_text("n");
    ann.wait_for("no more", |s| s.contains("no more public rooms"));
    ann.type_text("r");
    ann.wait_for("the first page again", |s| {
        s.contains("page 1 · n more") && s.contains(&codes[0])
    });
    drop(ann);
    drop(hosts);
    server.stop();
}

/// `n` public rooms on `url`, each hosted by a connection of its own kept
/// open by the returned runtime: their codes, in the listing's order.
fn public_rooms(url: &str, n: usize) -> (Vec<String>, tokio::runtime::Runtime) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut codes = runtime.block_on(async {
        let mut codes = Vec::new();
        for i in 0..n {
            let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
            for message in [
                serde_json::json!({"type": "hello", "protocol": krypto_core::protocol::PROTOCOL_VERSION, "name": format!("Host{i}")}),
                serde_json::json!({"type": "create_room", "public": true}),
            ] {
                ws.send(Message::text(message.to_string())).await.unwrap();
            }
            let code = loop {
                let Some(Ok(Message::Text(text))) = ws.next().await else {
                    panic!("host {i}: the connection closed before its room");
                };
                let reply: serde_json::Value = serde_json::from_str(&text).unwrap();
                if reply["type"] == "room_state" {
                    break reply["code"].as_str().unwrap().to_owned();
                }
            };
            codes.push(code);
            // Kept open (and read) by a task of its own: the room lives
            // while its host is in it.
            tokio::spawn(async move { while ws.next().await.is_some() {} });
        }
        codes
    });
    codes.sort();
    (codes, runtime)
}
