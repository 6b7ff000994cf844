//! `krypto daily`, `krypto run`, `krypto challenge` and `krypto daily
//! --board` against fake servers that send the exact messages of
//! docs/protocol.md ("Playing alone") and record what the client asks:
//! the hand and the clock shown, a miss told from a typo, the result with
//! the solutions and the share line, both results of a challenge side by
//! side, and the challenge link printed after every solved hand.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::sync::mpsc::Receiver;

use common::fake::{error, http_once, welcome, ws_server, ws_server_closing, CLOSE, TOKEN};
use common::{Proc, Scratch, PATIENCE};
use serde_json::{json, Value};

fn verdict(round: u32, accepted: bool, error: Option<&str>) -> String {
    let mut v = json!({"type": "verdict", "round": round, "accepted": accepted});
    if let Some(message) = error {
        v["error"] = json!({"kind": "wrong_value", "message": message, "column": null});
    }
    v.to_string()
}

fn challenge(code: &str) -> String {
    json!({"type": "challenge", "code": code}).to_string()
}

/// The next frame the client sent.
fn next(seen: &Receiver<Value>) -> Value {
    seen.recv_timeout(PATIENCE).expect("the client went quiet")
}

/// The first hand of a run: 3:00 on the clock.
fn first_run_hand() -> String {
    json!({"type": "run", "hand": 1, "objective": 9, "cards": [4, 4, 10, 1, 6],
        "duration_ms": 180000, "remaining_ms": 180000, "score": 0, "combo": 0})
    .to_string()
}

/// The second hand of a run, after a right first answer.
fn second_run_hand(remaining_ms: u64, bonus_ms: u64) -> String {
    json!({"type": "run_hand", "hand": 2, "objective": 12, "cards": [3, 7, 7, 2, 9],
        "remaining_ms": remaining_ms, "score": 1, "combo": 1, "bonus_ms": bonus_ms})
    .to_string()
}

/// The end of a run of two right answers.
fn run_over(duration_ms: u64) -> String {
    json!({"type": "run_over", "score": 2, "misses": 0, "best_combo": 2,
        "duration_ms": duration_ms})
    .to_string()
}

/// `krypto ARGS --server ws://ADDR --name Ann`, as Ann on this machine.
fn as_ann(scratch: &Scratch, addr: SocketAddr, args: &[&str]) -> Proc {
    scratch.as_player("Ann", &format!("ws://{addr}"), args)
}

/// `krypto ARGS` refuses them, saying `says`, with exit status 2 and no
/// server asked.
fn refused_before_asking(scratch: &Scratch, args: &[&str], says: &str) {
    let mut bad = Proc::spawn("bad", args, &scratch.config("bad"));
    bad.expect_contains(says);
    assert_eq!(bad.finish().code(), Some(2));
}

fn today_daily() -> String {
    json!({"type": "daily", "number": 312, "date": "2026-11-27", "objective": 17,
        "cards": [8, 2, 3, 13, 5], "elapsed_ms": 0, "rated": true})
    .to_string()
}

fn solved() -> String {
    json!({"type": "daily_solved", "number": 312, "elapsed_ms": 42250, "misses": 1,
        "streak": 5, "rank": 3,
        "share": "Krypto #312 ✓ 0:42 · 1 miss · 🔥5\nhttps://krypto.example/daily",
        "solutions": [{"formula": "13 + 8 ÷ 2 × (5 - 3)"},
                      {"formula": "5 × 13 - 8 × 2 × 3", "yours": true}]})
    .to_string()
}

#[test]
fn the_daily_shows_the_hand_counts_a_miss_and_ends_with_the_result_and_a_challenge() {
    let scratch = Scratch::new();
    let (addr, seen) = ws_server(|frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Ann")],
        Some("daily_start") => vec![today_daily()],
        Some("daily_submit") => match frame["formula"].as_str() {
            Some("5*13-8*2*3") => vec![verdict(0, true, None), solved()],
            _ => vec![verdict(0, false, Some("comes to 31, not 17"))],
        },
        Some("challenge_create") => vec![challenge("K7QXM2PD")],
        _ => Vec::new(),
    });
    let config = scratch.config("ann");
    let mut ann = as_ann(&scratch, addr, &["daily"]);
    ann.expect_contains("Krypto #312, 2026-11-27 (today's, rated)");
    ann.expect_contains("make 17 from 8 2 3 13 5");
    ann.expect_contains("Clock 0:00");
    // A typo (a card missing) is no attempt; a wrong total over the whole
    // hand is a miss and costs 10 s.
    ann.send("8+2+3");
    ann.expect_contains("(not counted: try again)");
    ann.send("8+2+3+13+5");
    let miss = ann.expect_contains("comes to 31, not 17");
    assert!(miss.contains("(+10 s) · Clock 0:1"), "{miss}");
    ann.send("5*13-8*2*3");
    ann.expect_contains("Solved Krypto #312 in 0:42 · 1 miss");
    ann.expect_contains("streak 5 · place 3 on the day's board");
    ann.expect_contains("2 distinct solutions");
    ann.expect_contains("   13 + 8 ÷ 2 × (5 - 3)");
    ann.expect_contains(" › 5 × 13 - 8 × 2 × 3");
    ann.expect_contains("  Krypto #312 ✓ 0:42 · 1 miss · 🔥5");
    ann.expect_contains("  https://krypto.example/daily");
    ann.expect_contains(&format!(
        "Challenge a friend: http://{addr}/c/K7QXM2PD  (or: krypto challenge K7QXM2PD)"
    ));
    assert!(ann.finish().success());
    let hello = next(&seen);
    assert_eq!(hello["type"], "hello");
    let start = next(&seen);
    assert_eq!(start, json!({"type": "daily_start"}));
    for formula in ["8+2+3", "8+2+3+13+5", "5*13-8*2*3"] {
        assert_eq!(
            next(&seen),
            json!({"type": "daily_submit", "formula": formula})
        );
    }
    assert_eq!(next(&seen), json!({"type": "challenge_create"}));
    let tokens = std::fs::read_to_string(config.join("tokens.toml")).unwrap();
    assert!(tokens.contains(TOKEN), "the token was not kept: {tokens}");
}

#[test]
fn a_past_day_is_asked_by_date_and_a_day_to_come_is_refused() {
    let scratch = Scratch::new();
    let (addr, seen) = ws_server(|frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Ann")],
        Some("daily_start") => vec![error("no_such_day", "2099-01-01 is still to come")],
        _ => Vec::new(),
    });
    let mut ann = Proc::spawn(
        "ann",
        &[
            "daily",
            "-s",
            &format!("ws://{addr}"),
            "-n",
            "Ann",
            "--date",
            "2099-01-01",
        ],
        &scratch.config("ann"),
    );
    ann.expect_contains("Error: 2099-01-01 is still to come");
    assert_eq!(ann.finish().code(), Some(1));
    next(&seen);
    assert_eq!(
        next(&seen),
        json!({"type": "daily_start", "date": "2099-01-01"})
    );
    // A date that is no date never reaches a server.
    refused_before_asking(
        &scratch,
        &["daily", "--date", "27/11/2026"],
        "is not a day: write it YYYY-MM-DD",
    );
}

#[test]
fn a_run_deals_hand_after_hand_with_the_time_left_and_the_score() {
    let scratch = Scratch::new();
    let (addr, seen) = ws_server(|frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Ann")],
        Some("run_start") => vec![first_run_hand()],
        Some("run_submit") if frame["hand"] == 1 => {
            vec![verdict(1, true, None), second_run_hand(151_200, 3_000)]
        }
        Some("run_submit") => vec![verdict(2, true, None), run_over(183_000)],
        Some("challenge_create") => vec![challenge("RUNRUN22")],
        _ => Vec::new(),
    });
    let mut ann = as_ann(&scratch, addr, &["run"]);
    ann.expect_contains("A run: 3:00 on the clock");
    ann.expect_contains("Hand 1: make 9 from 4 4 10 1 6");
    ann.expect_contains("3:00 left");
    ann.send("10-(4+4-6-1)");
    ann.expect_contains("Score 1 · combo 1 · 2:31 left (+3 s for the combo)");
    ann.expect_contains("Hand 2: make 12 from 3 7 7 2 9");
    ann.send("");
    ann.expect_contains("2:3");
    ann.send("3+7+7-2-9+6");
    ann.expect_contains("Time! Score 2 · no misses · best combo 2 · 3:03 played");
    ann.expect_contains("/c/RUNRUN22");
    assert!(ann.finish().success());
    next(&seen);
    assert_eq!(next(&seen), json!({"type": "run_start"}));
    assert_eq!(
        next(&seen),
        json!({"type": "run_submit", "hand": 1, "formula": "10-(4+4-6-1)"})
    );
    assert_eq!(
        next(&seen),
        json!({"type": "run_submit", "hand": 2, "formula": "3+7+7-2-9+6"})
    );
    assert_eq!(next(&seen), json!({"type": "challenge_create"}));
}

#[test]
fn a_challenge_from_its_link_shows_both_results_side_by_side() {
    let scratch = Scratch::new();
    // The challenger's name as a hostile server might relay it.
    let by = "Ada\u{1b}[2J";
    let (addr, seen) = ws_server(move |frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Bob")],
        Some("challenge_start") => vec![json!({"type": "challenge_hand", "code": "K7QXM2PD",
            "by": by, "objective": 17, "cards": [8, 2, 3, 13, 5], "rules": "free",
            "elapsed_ms": 5000, "to_beat": {"elapsed_ms": 42250, "misses": 1}})
        .to_string()],
        Some("challenge_submit") => vec![
            verdict(0, true, None),
            json!({"type": "challenge_result", "code": "K7QXM2PD", "by": by,
                "yours": {"elapsed_ms": 38000, "misses": 0},
                "theirs": {"elapsed_ms": 42250, "misses": 1}, "outcome": "won"})
            .to_string(),
        ],
        Some("challenge_create") => vec![challenge("BACKATU2")],
        _ => Vec::new(),
    });
    let mut bob = scratch.as_player(
        "Bob",
        &format!("ws://{addr}"),
        &["challenge", "https://krypto.example/c/k7qxm2pd"],
    );
    bob.expect_contains("Ada[2J challenges you. To beat: 0:42 · 1 miss");
    bob.expect_contains("make 17 from 8 2 3 13 5");
    bob.expect_contains("Clock 0:05");
    bob.send("5*13-8*2*3");
    let head = bob.expect_contains("You");
    assert!(head.contains("Ada[2J"), "{head}");
    let time = bob.expect_prefix("time");
    assert!(time.contains("0:38") && time.contains("0:42"), "{time}");
    let misses = bob.expect_prefix("misses");
    assert!(misses.contains('0') && misses.contains('1'), "{misses}");
    bob.expect_contains("You beat Ada[2J!");
    bob.expect_contains("/c/BACKATU2");
    for line in &bob.seen {
        assert!(!line.contains(char::is_control), "{line:?}");
    }
    assert!(bob.finish().success());
    next(&seen);
    assert_eq!(
        next(&seen),
        json!({"type": "challenge_start", "code": "K7QXM2PD"})
    );
    // A code that is no code never reaches a server.
    refused_before_asking(
        &scratch,
        &["challenge", "NOPE"],
        "a challenge code is 8 letters and digits",
    );
}

#[test]
fn the_daily_board_is_read_over_http_with_the_players_row_marked() {
    let scratch = Scratch::new();
    let body = json!({"number": 312, "date": "2026-11-20", "rows": [
        {"rank": 1, "name": "Ada", "elapsed_ms": 38000, "misses": 0},
        {"rank": 2, "name": "Ann", "elapsed_ms": 42250, "misses": 1}]})
    .to_string();
    let (addr, requests) = http_once(200, body.clone());
    let mut ann = as_ann(
        &scratch,
        addr,
        &[
            "daily",
            "--board",
            "--date",
            "2026-11-20",
            "--around",
            "Ann",
        ],
    );
    ann.expect_contains("Krypto #312, 2026-11-20: the board");
    let ada = ann.expect_contains("Ada");
    assert!(ada.starts_with(' ') && ada.contains("0:38"), "{ada}");
    let own = ann.expect_contains("Ann");
    assert!(own.starts_with('›') && own.contains("0:42"), "{own}");
    assert!(ann.finish().success());
    let request = requests.recv_timeout(PATIENCE).unwrap();
    assert_eq!(
        request,
        "GET /api/daily/board?limit=20&date=2026-11-20&around=Ann HTTP/1.1"
    );
    board_json_is_the_servers(&scratch, "daily", &body);
}

#[test]
fn the_runs_board_is_read_over_http_with_the_players_row_marked() {
    let scratch = Scratch::new();
    let body = json!({"period": "week", "rows": [
        {"rank": 1, "name": "Ada", "score": 23},
        {"rank": 2, "name": "Ann", "score": 17}]})
    .to_string();
    let (addr, requests) = http_once(200, body.clone());
    let mut ann = as_ann(
        &scratch,
        addr,
        &["run", "--board", "--period", "week", "--around", "Ann"],
    );
    ann.expect_contains("Best runs, this week");
    let ada = ann.expect_contains("Ada");
    assert!(
        ada.starts_with(' ') && ada.trim_end().ends_with("23"),
        "{ada}"
    );
    let own = ann.expect_contains("Ann");
    assert!(
        own.starts_with('›') && own.trim_end().ends_with("17"),
        "{own}"
    );
    assert!(ann.finish().success());
    let request = requests.recv_timeout(PATIENCE).unwrap();
    assert_eq!(
        request,
        "GET /api/runs/board?period=week&limit=20&around=Ann HTTP/1.1"
    );
    board_json_is_the_servers(&scratch, "run", &body);
    // A period the board does not keep is refused before any request.
    refused_before_asking(&scratch, &["run", "--board", "--period", "year"], "year");
}

#[test]
fn a_run_whose_connection_drops_is_taken_up_again_on_the_same_hand() {
    let scratch = Scratch::new();
    let (addr, seen) = ws_server_closing(|frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome("Ann")],
        Some("run_start") => vec![first_run_hand()],
        // The answer is judged, then the network drops.
        Some("run_submit") if frame["hand"] == 1 => vec![
            verdict(1, true, None),
            second_run_hand(171_200, 0),
            CLOSE.to_owned(),
        ],
        Some("run_resume") => vec![json!({"type": "run", "hand": 2, "objective": 12,
            "cards": [3, 7, 7, 2, 9], "duration_ms": 180000, "remaining_ms": 150000,
            "score": 1, "combo": 1})
        .to_string()],
        Some("run_submit") => vec![verdict(2, true, None), run_over(180_000)],
        _ => Vec::new(),
    });
    let mut ann = as_ann(&scratch, addr, &["run"]);
    ann.expect_contains("Hand 1: make 9 from 4 4 10 1 6");
    ann.send("10-(4+4-6-1)");
    ann.expect_contains("Hand 2: make 12 from 3 7 7 2 9");
    ann.expect_contains("the run's clock keeps running");
    ann.expect_contains("Back in the run: score 1, the clock kept running.");
    ann.expect_contains("Hand 2: make 12 from 3 7 7 2 9");
    // The clock as the server said it stands: 2:30 left, not 2:51.
    ann.send("");
    let clock = ann.expect_contains(" left");
    assert!(clock.contains("2:30") || clock.contains("2:29"), "{clock}");
    ann.send("3+7+7-2-9+6");
    ann.expect_contains("Time! Score 2");
    ann.send("/quit");
    let _ = ann.finish();
    let sent: Vec<Value> = std::iter::from_fn(|| seen.recv_timeout(PATIENCE).ok())
        .take(6)
        .collect();
    let types: Vec<&str> = sent.iter().filter_map(|v| v["type"].as_str()).collect();
    assert_eq!(
        types,
        [
            "hello",
            "run_start",
            "run_submit",
            "hello",
            "run_resume",
            "run_submit"
        ]
    );
    assert_eq!(sent[5]["hand"], 2);
}

/// `krypto COMMAND --board --json` prints the server's answer (`body`) as is.
fn board_json_is_the_servers(scratch: &Scratch, command: &str, body: &str) {
    let (addr, _requests) = http_once(200, body.to_string());
    let server = format!("ws://{addr}");
    let mut json_out = Proc::spawn(
        "json",
        &[command, "--board", "--json", "--server", &server],
        &scratch.config("ann"),
    );
    let line = json_out.expect_contains("rows");
    assert_eq!(
        serde_json::from_str::<Value>(&line).unwrap(),
        serde_json::from_str::<Value>(body).unwrap()
    );
    assert!(json_out.finish().success());
}
