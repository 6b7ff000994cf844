//! Line mode (`krypto play --plain`) as a terminal runs it: standard input
//! stays open after the last command, so `/quit` must end the process
//! without waiting for another line.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Instant;

use common::fake::{welcome, ws_server};
use common::Scratch;

#[test]
fn quit_ends_line_mode_while_its_input_stays_open() {
    let scratch = Scratch::new();
    // Each try is a fresh process (the first saves the token, the others
    // find it): whether the reader is already in its next read when the
    // quit comes is a race.
    for _ in 0..3 {
        let (addr, _seen) = ws_server(|frame| match frame["type"].as_str() {
            Some("hello") => vec![welcome("Ann")],
            _ => Vec::new(),
        });
        let mut ann = scratch.plain_player("Ann", &format!("ws://{addr}/ws"));
        ann.send("/quit");
        let deadline = Instant::now() + common::PATIENCE;
        let status = loop {
            if let Some(status) = ann.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "/quit did not end the client while its input stayed open"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(status.success(), "{status}");
    }
}
