//! End to end against the real server: `krypto practice` deals, hints,
//! forgives a miss, lists the solutions of a solved hand and deals the
//! next, skips; and a second `krypto` under the same name (practice opened
//! beside `krypto play`) takes the connection over once, without the two
//! taking it from each other for ever. The practice hands are the
//! server's (from the operating system's generator): the test reads them
//! from the output and solves them with krypto-core's solver.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::hand_line::{solution, wrong};
use common::{Proc, Scratch};

#[test]
fn practice_hints_forgives_a_miss_lists_the_solutions_and_deals_the_next_hand() {
    let scratch = Scratch::new();
    let server = scratch.server();
    let mut cy = scratch.as_player("Cy", &server.url(), &["practice", "--band", "easy"]);
    let first = cy.expect_prefix("Hand 1: make ");
    assert!(first.ends_with("(easy hands, unrated)"), "{first}");
    cy.expect_contains("? a hint");
    cy.send("?");
    let hint = cy.expect_prefix("Hint 1/4: ");
    assert!(hint.contains(" = "), "{hint}");
    cy.send(&wrong(&first));
    cy.expect_contains("it costs nothing");
    let right = solution(&first);
    cy.send(&right);
    cy.expect_contains("✓ Right!");
    cy.expect_contains("distinct solutions (› yours):");
    let solved = cy.expect_prefix("✓ Hand 1 solved in 0:");
    assert!(solved.contains("(1 hint): "), "{solved}");
    cy.expect_prefix("Hand 2: make ");
    cy.send("/skip");
    cy.expect_prefix("Hand 2 skipped (no hint)");
    cy.expect_prefix("Hand 3: make ");
    cy.send("/quit");
    cy.expect_contains("Stopped: 1 solved, 1 skipped");
    assert!(cy.finish().success());
}

#[test]
fn practice_beside_play_under_the_same_name_takes_over_once() {
    let scratch = Scratch::new();
    let server = scratch.server();
    let url = server.url();
    let mut play = scratch.as_player("Ann", &url, &["play", "--plain"]);
    play.expect_contains("connected to");
    let mut practice = scratch.as_player("Ann", &url, &["practice"]);
    practice.expect_prefix("Hand 1: make ");
    // `krypto play` hears it was replaced, says how to take it back, and
    // stops instead of reconnecting (which would replace practice, and so
    // on for ever).
    play.expect_contains("Ann is playing on another connection now");
    assert!(!play.finish().success());
    practice.send("");
    practice.expect_contains("on this hand");
    assert_eq!(
        practice.count_seen(|l| l.contains("Connection lost")),
        0,
        "{:?}",
        practice.seen
    );
    practice.quit();
}

#[test]
fn practice_taken_over_by_play_under_the_same_name_stops_saying_so() {
    let scratch = Scratch::new();
    let server = scratch.server();
    let url = server.url();
    let mut practice = scratch.as_player("Ann", &url, &["practice"]);
    practice.expect_prefix("Hand 1: make ");
    let mut play = scratch.as_player("Ann", &url, &["play", "--plain"]);
    play.expect_contains("connected to");
    // The run loop ends the command on a takeover, whatever the table was
    // doing, and does not reconnect (which would take the name back).
    practice.expect_contains("Stopped: this name is playing on another connection now");
    assert!(!practice.finish().success());
    play.send("/quit");
    assert!(play.finish().success());
}

#[test]
fn a_band_that_is_not_one_is_a_usage_error_naming_the_bands() {
    let scratch = Scratch::new();
    let mut cy = Proc::spawn(
        "cy",
        &["practice", "--band", "tricky"],
        &scratch.config("cy"),
    );
    cy.expect_contains("possible values: any, easy, medium, hard");
    assert_eq!(cy.finish().code(), Some(2));
}
