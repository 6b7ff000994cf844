//! The client against a server that cannot be trusted: a tiny WebSocket
//! server in the test says whatever it likes, byte for byte, and records
//! what the client says. No control character it sends reaches the
//! player's terminal in `--plain`; bots say they are bots.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;

use common::{Proc, Scratch};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// Starts a server on its own thread that answers each frame of the first
/// connection with what `answer` returns for it (one frame each), and
/// reports every frame the client sends on the returned channel.
fn fake_server(
    answer: impl Fn(&Value) -> Vec<String> + Send + 'static,
) -> (SocketAddr, std::sync::mpsc::Receiver<Value>) {
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    let (addr_tx, mut addr_rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            let (tcp, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
            while let Some(Ok(frame)) = ws.next().await {
                let Message::Text(text) = frame else { continue };
                let Ok(value) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                for f in answer(&value) {
                    ws.send(Message::text(f)).await.unwrap();
                }
                let _ = seen_tx.send(value);
            }
        });
    });
    let addr = addr_rx.blocking_recv().unwrap();
    (addr, seen_rx)
}

/// The answers to the first frame only.
fn once(script: Vec<String>) -> impl Fn(&Value) -> Vec<String> + Send + 'static {
    let script = std::sync::Mutex::new(Some(script));
    move |_| script.lock().unwrap().take().unwrap_or_default()
}

fn welcome(name: &str) -> String {
    json!({"type": "welcome", "protocol": 1, "player_id": 1, "name": name,
        "token": "00ff", "server_version": "test", "resumed": false})
    .to_string()
}

/// What a hostile player could get relayed by a server that does not filter:
/// a clipboard write, a screen clear, a forged line, a bidi override.
fn hostile_script() -> Vec<String> {
    let name = "Eve\u{1b}]52;c;cm0gLXJmIH4=\u{7}";
    let snapshot = json!({
        "type": "room_state", "code": "AB\u{1b}[2JCDE", "host": 2,
        "settings": {"variant": "krypto", "rules": "free", "rounds": 3,
            "target_score": null, "round_seconds": 90, "lockout_seconds": 5,
            "wrong_penalty": 0, "deal": "solvable", "difficulty": "any",
            "max_players": 8, "public": false},
        "state": "lobby", "locked": false, "rounds_total": 3,
        "players": [
            {"id": 1, "name": "Ann", "score": 0, "connected": true, "spectator": false},
            {"id": 2, "name": name, "score": 0, "connected": true, "spectator": false}
        ],
        "recent": [{"type": "chat", "from": 2, "name": name, "text": "hi\r\nSERVER: you won!"}]
    });
    vec![
        welcome("Ann"),
        snapshot.to_string(),
        json!({"type": "chat", "from": 2, "name": name, "text": "\u{1b}[2J\u{9b}31mgg\u{202e}"})
            .to_string(),
        json!({"type": "player_joined", "player": 3, "name": "Mal\rlory", "spectator": false})
            .to_string(),
        json!({"type": "error", "code": "room_not_found", "message": "no\nSERVER: restart now"})
            .to_string(),
        json!({"type": "chat", "from": 2, "name": "Eve", "text": "the end"}).to_string(),
    ]
}

#[test]
fn plain_output_carries_no_control_characters_whatever_the_server_sends() {
    let scratch = Scratch::new();
    let (addr, _seen) = fake_server(once(hostile_script()));
    let mut ann = Proc::player(
        "Ann",
        &format!("ws://{addr}/ws"),
        &scratch.config("ann"),
        "--plain",
    );
    ann.expect_contains("[chat] Eve: the end");
    let hidden = |c: char| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c);
    for line in &ann.seen {
        assert!(!line.contains(hidden), "a control character in {line:?}");
    }
    let seen = ann.seen.join("\n");
    // Each forged line stayed inside its own line.
    assert!(
        seen.contains("[chat] Eve]52;c;cm0gLXJmIH4=: hi  SERVER: you won!"),
        "{seen}"
    );
    assert!(!seen.lines().any(|l| l.starts_with("SERVER")), "{seen}");
    assert!(seen.contains("room AB[2JCDE: lobby"), "{seen}");
    assert!(seen.contains("Mal lory joined"), "{seen}");
}

#[test]
fn bots_say_they_are_bots_and_wait_for_a_room_that_is_not_there() {
    let scratch = Scratch::new();
    // No room has that code (the server restarted): the bot must keep asking.
    let (addr, seen) = fake_server(|frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Ada-medium-bot")],
        Some("join_room") => vec![json!({"type": "error", "code": "room_not_found",
            "message": "no room has that code"})
        .to_string()],
        _ => Vec::new(),
    });
    let mut bots = Proc::spawn(
        "bots",
        &[
            "bots",
            "--server",
            &format!("ws://{addr}"),
            "--room",
            "abcde",
        ],
        &scratch.config("bots"),
    );
    let next = || {
        seen.recv_timeout(common::PATIENCE)
            .expect("the bot went quiet")
    };
    let hello = next();
    assert_eq!(hello["type"], "hello", "{hello}");
    assert_eq!(hello["bot"], true, "{hello}");
    assert_eq!(hello["name"], "Ada-medium-bot", "{hello}");
    for _ in 0..2 {
        let join = next();
        assert_eq!(join["type"], "join_room", "{join}");
        assert_eq!(join["code"], "ABCDE", "{join}");
    }
    bots.expect_contains("asking again");
    assert!(bots.child.try_wait().unwrap().is_none(), "the bot gave up");
}
