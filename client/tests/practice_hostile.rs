//! `krypto practice` against a server that cannot be trusted: a fake
//! WebSocket server answers `practice_start` with a hand of a million
//! cards (a message of several megabytes). The client takes no message over
//! `MAX_SERVER_MESSAGE` (1 MiB): it drops the connection, says so once, and
//! still quits cleanly when asked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::fake::{welcome, ws_server};
use common::Scratch;
use serde_json::{json, Value};

#[test]
fn a_hand_of_megabytes_is_refused_at_the_socket_and_the_command_still_quits() {
    let (addr, seen) = ws_server(|frame: &Value| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Cy")],
        Some("practice_start") => vec![json!({"type": "practice", "hand": 1,
            "objective": 24, "cards": vec![7; 1_000_000], "difficulty": "any", "steps": 4})
        .to_string()],
        _ => Vec::new(),
    });
    let scratch = Scratch::new();
    let mut cy = scratch.as_player("Cy", &format!("ws://{addr}/ws"), &["practice"]);
    let lost = cy.expect_contains("Connection lost");
    assert!(lost.contains("Message too long"), "{lost}");
    let asked: Vec<String> = seen
        .try_iter()
        .map(|v| v["type"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(asked.contains(&"practice_start".to_owned()), "{asked:?}");
    assert_eq!(cy.count_seen(|l| l.contains("make 24")), 0);
    cy.send("/quit");
    cy.expect_contains("Stopped: 0 solved, 0 skipped");
    assert!(cy.finish().success());
}
