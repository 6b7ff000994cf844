//! The practice table's state fed the exact messages of docs/protocol.md
//! ("Practice"): what is sent, what is printed, and what a hostile server
//! cannot make it do.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use krypto_core::protocol::{
    ClientMessage, Difficulty, ErrorCode, ServerMessage, SolutionEntry, VerdictError, VerdictKind,
};

use super::*;
use crate::solo::testkit::{server, welcome};

fn hand(number: u32, cards: Vec<i64>) -> Input {
    server(ServerMessage::Practice {
        hand: number,
        objective: 24,
        cards,
        difficulty: Difficulty::Easy,
        steps: 4,
    })
}

fn hint(number: u32, step: &str, shown: u32) -> Input {
    server(ServerMessage::PracticeHint {
        hand: number,
        step: step.to_owned(),
        steps_shown: shown,
        steps: 4,
    })
}

fn verdict(accepted: bool) -> Input {
    server(ServerMessage::Verdict {
        round: 1,
        accepted,
        value: None,
        error: (!accepted).then(|| VerdictError {
            kind: VerdictKind::WrongValue,
            message: "comes to 22, not 24".to_owned(),
            column: None,
        }),
        locked_out_ms: None,
    })
}

fn solutions(number: u32, solved: bool, list: Vec<SolutionEntry>) -> Input {
    server(ServerMessage::PracticeSolutions {
        hand: number,
        objective: 24,
        cards: vec![8, 3, 5, 5, 1],
        solved,
        hints: 1,
        solutions: list,
    })
}

fn entry(formula: &str, yours: bool) -> SolutionEntry {
    SolutionEntry {
        formula: formula.to_owned(),
        yours,
    }
}

fn line(text: &str) -> Input {
    Input::Line(text.to_owned())
}

fn printed(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Print(l) => Some(l.clone()),
            _ => None,
        })
        .collect()
}

fn sent(steps: &[Step]) -> Vec<ClientMessage> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Send(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// A table at hand 1 (8 3 5 5 1 → 24).
fn seated() -> Practice {
    let mut table = Practice::new(Difficulty::Easy);
    table.handle(welcome());
    table.handle(hand(1, vec![8, 3, 5, 5, 1]));
    table
}

#[test]
fn it_sits_down_in_the_band_asked_and_shows_the_hand_and_the_keys() {
    let mut table = Practice::new(Difficulty::Hard);
    let steps = table.handle(welcome());
    assert!(matches!(&steps[0], Step::Save { name, .. } if name == "Ann"));
    assert_eq!(
        sent(&steps),
        [ClientMessage::PracticeStart {
            difficulty: Difficulty::Hard
        }]
    );
    let lines = printed(&table.handle(hand(1, vec![8, 3, 5, 5, 1])));
    assert_eq!(
        lines[0],
        "Hand 1: make 24 from 8 3 5 5 1 (easy hands, unrated)"
    );
    assert!(lines[1].contains("? a hint"), "{lines:?}");
    assert!(lines[1].contains("/skip"), "{lines:?}");
}

#[test]
fn a_hint_is_asked_once_at_a_time_and_shown_with_its_count() {
    let mut table = seated();
    assert_eq!(
        sent(&table.handle(line("?"))),
        [ClientMessage::PracticeHint]
    );
    // Pressed again before the answer: still one hint.
    assert!(table.handle(line("?")).is_empty());
    let lines = printed(&table.handle(hint(1, "8 × 3 = 24", 1)));
    assert_eq!(lines, ["Hint 1/4: 8 × 3 = 24"]);
    assert_eq!(
        sent(&table.handle(line("/hint"))),
        [ClientMessage::PracticeHint]
    );
    table.handle(hint(1, "5 - 5 = 0", 2));
    // Enter alone: the hand again, its time, the hints so far.
    table.handle(Input::Tick(Duration::from_secs(12)));
    let lines = printed(&table.handle(line("")));
    assert_eq!(
        lines,
        [
            "Hand 1: make 24 from 8 3 5 5 1 · 0:12 on this hand",
            "  hint 1: 8 × 3 = 24",
            "  hint 2: 5 - 5 = 0",
        ]
    );
}

#[test]
fn once_every_step_is_shown_a_hint_is_not_asked_again() {
    let mut table = seated();
    for shown in 1..=4 {
        table.handle(line("?"));
        let lines = printed(&table.handle(hint(1, "x", shown)));
        if shown == 4 {
            assert!(
                lines[0].ends_with("(the last step: that makes it)"),
                "{lines:?}"
            );
        }
    }
    let steps = table.handle(line("?"));
    assert!(sent(&steps).is_empty());
    assert!(printed(&steps)[0].starts_with("Every step is shown"));
}

#[test]
fn a_miss_costs_nothing_and_a_right_answer_lists_the_solutions_and_deals_the_next() {
    let mut table = seated();
    assert_eq!(
        sent(&table.handle(line("8+3+5+5+1"))),
        [ClientMessage::PracticeSubmit {
            hand: 1,
            formula: "8+3+5+5+1".to_owned()
        }]
    );
    let lines = printed(&table.handle(verdict(false)));
    assert_eq!(
        lines,
        ["✗ comes to 22, not 24 · it costs nothing: try again, or ? for a hint"]
    );
    table.handle(line("8*3*(5-5+1)"));
    table.handle(Input::Tick(Duration::from_millis(42_900)));
    assert_eq!(printed(&table.handle(verdict(true))), ["✓ Right!"]);
    let lines = printed(&table.handle(solutions(
        1,
        true,
        vec![
            entry("8 × 3 × (5 - 5 + 1)", true),
            entry("(8 × 3 + 5 - 5) × 1", false),
        ],
    )));
    assert_eq!(
        lines,
        [
            "2 distinct solutions (› yours):",
            " › 8 × 3 × (5 - 5 + 1)",
            "   (8 × 3 + 5 - 5) × 1",
            "✓ Hand 1 solved in 0:42 (1 hint): 8 × 3 × (5 - 5 + 1)",
        ]
    );
    let lines = printed(&table.handle(hand(2, vec![1, 2, 3, 4, 6])));
    assert_eq!(
        lines,
        ["Hand 2: make 24 from 1 2 3 4 6 (easy hands, unrated)"]
    );
    // Answers now go to hand 2.
    assert_eq!(
        sent(&table.handle(line("1*2*3*4"))),
        [ClientMessage::PracticeSubmit {
            hand: 2,
            formula: "1*2*3*4".to_owned()
        }]
    );
}

#[test]
fn skip_shows_every_solution_then_the_next_hand_and_quit_counts_both() {
    let mut table = seated();
    assert_eq!(
        sent(&table.handle(line("/skip"))),
        [ClientMessage::PracticeSkip]
    );
    let lines = printed(&table.handle(solutions(1, false, vec![entry("8 × 3", false)])));
    assert_eq!(lines[1], "   8 × 3");
    assert_eq!(lines[2], "Hand 1 skipped (1 hint): its solutions above.");
    table.handle(hand(2, vec![1, 2, 3, 4, 6]));
    let steps = table.handle(line("/quit"));
    assert_eq!(
        printed(&steps),
        ["Stopped: 0 solved, 1 skipped (practice is unrated: nothing was recorded)."]
    );
    assert_eq!(steps.last(), Some(&Step::Done(true)));
    assert!(table.handle(line("?")).is_empty(), "nothing after the end");
}

#[test]
fn another_band_is_a_new_table() {
    let mut table = seated();
    let steps = table.handle(line("/band medium"));
    assert_eq!(
        sent(&steps),
        [ClientMessage::PracticeStart {
            difficulty: Difficulty::Medium
        }]
    );
    assert_eq!(printed(&steps), ["A new table: medium hands."]);
    // Its first hand: the keys are not said again.
    let lines = printed(&table.handle(hand(1, vec![2, 2, 6, 1, 1])));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(
        printed(&table.handle(line("/band tricky"))),
        ["usage: /band easy|medium|hard|any"]
    );
}

#[test]
fn a_reconnection_sits_down_at_a_new_table_and_forgets_the_old_hand() {
    let mut table = seated();
    table.handle(line("?"));
    let lines = printed(&table.handle(Input::Dropped("reset".to_owned())));
    assert!(lines[0].starts_with("Connection lost (reset)"), "{lines:?}");
    // Every retry that fails the same way: said once.
    let refused = || Input::Dropped("cannot reach: refused".to_owned());
    assert_eq!(printed(&table.handle(refused())).len(), 1);
    assert!(table.handle(refused()).is_empty());
    assert!(table.handle(refused()).is_empty());
    // Typed while down: held for the hand to come, then dropped with the table.
    assert!(table.handle(line("8*3")).is_empty());
    let steps = table.handle(welcome());
    assert!(printed(&steps)[0].starts_with("Back online: a new table"));
    assert_eq!(
        sent(&steps),
        [ClientMessage::PracticeStart {
            difficulty: Difficulty::Easy
        }]
    );
    let steps = table.handle(hand(1, vec![2, 2, 6, 1, 1]));
    assert!(
        sent(&steps).is_empty(),
        "nothing typed for the lost hand is sent"
    );
    // A hint for a hand no longer on the table is ignored.
    assert!(table.handle(hint(7, "2 × 2 = 4", 1)).is_empty());
}

#[test]
fn a_hostile_server_cannot_make_it_keep_or_print_without_bound() {
    let mut table = Practice::new(Difficulty::Any);
    table.handle(welcome());
    let lines = printed(&table.handle(hand(1, vec![7; 100_000])));
    assert_eq!(
        lines,
        ["The server dealt a hand of 100000 cards; this client plays 1 to 16."]
    );
    assert!(printed(&table.handle(hand(1, Vec::new())))[0].contains("0 cards"));
    table.handle(hand(1, vec![8, 3, 5, 5, 1]));
    let long = "9".repeat(100_000);
    let lines = printed(&table.handle(hint(1, &long, 1)));
    assert!(
        lines[0].chars().count() < MAX_TEXT + 40,
        "{}",
        lines[0].len()
    );
    for _ in 0..100 {
        table.handle(hint(1, "1 + 1 = 2", 2));
    }
    let lines = printed(&table.handle(line("")));
    assert_eq!(lines.len(), 1 + MAX_STEPS, "hints kept are bounded");
    let many: Vec<SolutionEntry> = (0..20_000)
        .map(|i| entry(&"1+".repeat(i % 300), false))
        .collect();
    let lines = printed(&table.handle(solutions(1, false, many)));
    assert_eq!(lines.len(), 3 + session::MAX_SOLUTIONS_SHOWN);
    assert_eq!(lines[lines.len() - 2], "   … and 19500 more");
    assert!(lines.iter().all(|l| l.chars().count() < MAX_TEXT + 10));
    // Odd requests answered with errors: said, never a panic or an end.
    for code in [
        ErrorCode::WrongState,
        ErrorCode::WrongRound,
        ErrorCode::Internal,
    ] {
        let steps = table.handle(server(ServerMessage::Error {
            code,
            message: "x".repeat(10_000),
        }));
        assert!(!steps.iter().any(|s| matches!(s, Step::Done(_))));
        assert!(printed(&steps)[0].chars().count() < MAX_TEXT + 100);
    }
}

#[test]
fn a_server_without_practice_ends_the_command() {
    let mut table = Practice::new(Difficulty::Any);
    table.handle(welcome());
    let steps = table.handle(server(ServerMessage::Error {
        code: ErrorCode::BadMessage,
        message: "unknown message type practice_start".to_owned(),
    }));
    assert_eq!(steps.last(), Some(&Step::Done(false)));
}

#[test]
fn with_standard_input_closed_it_ends_once_the_last_answer_is_judged() {
    let mut table = seated();
    table.handle(line("8*3*(5-5+1)"));
    assert!(table.handle(Input::Closed).is_empty());
    let steps = table.handle(verdict(true));
    assert_eq!(steps.last(), Some(&Step::Done(true)));
}
