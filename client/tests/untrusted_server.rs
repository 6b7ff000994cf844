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

/// Starts a server on its own thread that answers the first connection's
/// `hello` with `script` (one frame each) and reports every frame the
/// client sends on the returned channel.
fn fake_server(script: Vec<String>) -> (SocketAddr, std::sync::mpsc::Receiver<Value>) {
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    let (addr_tx, mut addr_rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            let (tcp, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
            let mut script = Some(script);
            while let Some(Ok(frame)) = ws.next().await {
                let Message::Text(text) = frame else { continue };
                let Ok(value) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                let _ = seen_tx.send(value);
                if let Some(frames) = script.take() {
                    for f in frames {
                        ws.send(Message::text(f)).await.unwrap();
                    }
                }
            }
        });
    });
    let addr = addr_rx.blocking_recv().unwrap();
    (addr, seen_rx)
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
        json!({"type": "welcome", "protocol": 1, "player_id": 1, "name": "Ann",
            "token": "00ff", "server_version": "evil", "resumed": false})
        .to_string(),
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
    let (addr, _seen) = fake_server(hostile_script());
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
fn bots_say_they_are_bots_under_a_name_nobody_takes_for_a_person() {
    let scratch = Scratch::new();
    let (addr, seen) = fake_server(Vec::new());
    let _bots = Proc::spawn(
        "bots",
        &[
            "bots",
            "--server",
            &format!("ws://{addr}"),
            "--room",
            "ABCDE",
        ],
        &scratch.config("bots"),
    );
    let hello = seen
        .recv_timeout(common::PATIENCE)
        .expect("the bot said nothing");
    assert_eq!(hello["type"], "hello", "{hello}");
    assert_eq!(hello["bot"], true, "{hello}");
    assert_eq!(hello["name"], "Ada-bot", "{hello}");
}
