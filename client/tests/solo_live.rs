//! End to end against the real server: Ann solves the daily with
//! `krypto daily` (a miss first), sends Bob her challenge link, Bob takes
//! it with `krypto challenge` and sees both results; `krypto daily
//! --board` shows Ann first; `krypto run` deals hand after hand.
//! The hands are the server's (dealt from its secret): the test reads
//! them from the output and solves them with krypto-core's solver.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::hand_line::{solution, wrong};
use common::Scratch;

#[test]
fn ann_solves_the_daily_and_bob_takes_her_challenge() {
    let scratch = Scratch::new();
    let server = scratch.server();
    let url = server.url();
    let mut ann = scratch.as_player("Ann", &url, &["daily"]);
    ann.expect_contains("Krypto #1, ");
    let line = ann.expect_contains("make ");
    ann.send(&wrong(&line));
    ann.expect_contains("(+10 s)");
    ann.send(&solution(&line));
    ann.expect_contains("Solved Krypto #1 in 0:1");
    ann.expect_contains("streak 1 · place 1 on the day's board");
    ann.expect_contains(" › ");
    ann.expect_contains("  Krypto #1 ✓ 0:1");
    let link = ann.expect_contains("Challenge a friend: http://");
    assert!(ann.finish().success());
    let code = link
        .split("/c/")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();

    let mut bob = scratch.as_player("Bob", &url, &["challenge", &code.to_lowercase()]);
    bob.expect_contains("Ann challenges you. To beat: 0:1");
    let line = bob.expect_contains("make ");
    bob.send(&solution(&line));
    let head = bob.expect_contains("You");
    assert!(head.contains("Ann"), "{head}");
    bob.expect_prefix("time");
    let misses = bob.expect_prefix("misses");
    assert!(
        misses.split_whitespace().eq(["misses", "0", "1"]),
        "{misses}"
    );
    // Bob made no miss and answered at once: he is faster than Ann's 10 s
    // penalty.
    bob.expect_contains("You beat Ann!");
    bob.expect_contains("Challenge a friend:");
    assert!(bob.finish().success());

    let mut board = scratch.as_player("Ann", &url, &["daily", "--board"]);
    board.expect_contains("Krypto #1, ");
    // Bob's answer to a challenge of today's Krypto was his daily too: he
    // is first on the day's board, Ann (marked as the one asking) second.
    let first = board.expect_contains("Bob");
    assert!(first.contains("1."), "{first}");
    let second = board.expect_contains("Ann");
    assert!(second.starts_with('›') && second.contains("2."), "{second}");
    assert!(board.finish().success());

    // Asking again the same day gives the result again, not a new clock.
    let mut again = scratch.as_player("Ann", &url, &["daily"]);
    again.expect_contains("Solved Krypto #1 in 0:1");
    assert!(again.finish().success());
}

#[test]
fn a_run_deals_the_next_hand_after_each_answer() {
    let scratch = Scratch::new();
    let server = scratch.server();
    let mut cy = scratch.as_player("Cy", &server.url(), &["run"]);
    cy.expect_contains("A run: 3:00 on the clock");
    let first = cy.expect_contains("Hand 1: make ");
    cy.send(&solution(&first));
    cy.expect_contains("Score 1 · combo 1");
    let second = cy.expect_contains("Hand 2: make ");
    cy.send(&wrong(&second));
    let after = cy.expect_contains("Score 1 · combo 0");
    assert!(after.contains("2:4") || after.contains("2:5"), "{after}");
    cy.expect_contains("Hand 3: make ");
    cy.send("/quit");
    assert!(cy.finish().success());
}
