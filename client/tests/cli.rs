//! The `krypto` binary's offline contract: exit statuses, JSON shapes and
//! reproducible deals, run as a user runs them.

// Helpers outside #[test] functions may panic too: that is a failing test.
#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use serde_json::Value;

fn krypto() -> Command {
    Command::cargo_bin("krypto").unwrap()
}

/// Runs `krypto ARGS`, asserts the exit status, and returns stdout.
fn stdout(args: &[&str], status: i32) -> String {
    let out = krypto()
        .args(args)
        .assert()
        .code(status)
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Runs `krypto ARGS`, asserts the exit status, and returns stdout as JSON.
fn json(args: &[&str], status: i32) -> Value {
    serde_json::from_str(&stdout(args, status)).unwrap()
}

/// Runs `krypto ARGS` and asserts a usage error (exit status 2); the
/// caller checks what it says.
fn usage_error(args: &[&str]) -> assert_cmd::assert::Assert {
    krypto().args(args).assert().code(2)
}

const HAND: [&str; 5] = ["8", "19", "14", "2", "21"];

fn check_args<'a>(formula: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["check", "--target", "17", "--cards"];
    args.extend(HAND);
    args.extend(extra);
    args.push(formula);
    args
}

#[test]
fn check_valid_formula_exits_0() {
    let v = json(&check_args("21 + 14 ÷ 2 + 8 − 19", &["--json"]), 0);
    assert_eq!(v["valid"], true);
    assert_eq!(v["value"], "17");
    assert_eq!(v["error"], Value::Null);
    assert_eq!(v.as_object().unwrap().len(), 3);
}

#[test]
fn check_wrong_value_exits_1_with_its_value() {
    let v = json(&check_args("8+19-14+2*21", &["--json"]), 1);
    assert_eq!(v["valid"], false);
    assert_eq!(v["value"], "55");
    assert_eq!(v["error"]["kind"], "wrong_value");
    assert_eq!(v["error"]["message"], "comes to 55, not 17");
    assert_eq!(v["error"]["column"], Value::Null);
}

#[test]
fn check_reports_kind_and_column() {
    let v = json(&check_args("8 + 19 - 7", &["--json"]), 1);
    assert_eq!(v["error"]["kind"], "unknown_card");
    assert_eq!(v["error"]["column"], 10);
    assert_eq!(v["value"], Value::Null);

    let v = json(
        &check_args(
            "8 - 19 + 14 / 2 + 21",
            &["--rules", "international", "--json"],
        ),
        1,
    );
    assert_eq!(v["error"]["kind"], "rule_violation");
    assert_eq!(v["error"]["column"], 1);
    assert_eq!(
        v["error"]["message"],
        "8 - 19 = -11 is negative; international rules allow only non-negative whole numbers"
    );

    let v = json(&check_args("8 × (19 ÷ (14 − 14)", &["--json"]), 1);
    assert_eq!(v["error"]["kind"], "syntax");
    assert_eq!(v["error"]["column"], 5);
}

#[test]
fn check_accepts_comma_separated_cards_and_flags_after_the_formula() {
    krypto()
        .args([
            "check",
            "-t",
            "17",
            "--cards",
            "8,19,14,2,21",
            "21+14/2+8-19",
            "--rules",
            "integer",
        ])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("valid"));
}

#[test]
fn check_human_output_points_at_the_column() {
    let text = stdout(&check_args("8 + & 3", &[]), 1);
    assert!(text.contains("column 5"), "{text}");
    assert!(text.contains("\n      ^"), "{text}");
}

#[test]
fn usage_errors_exit_2() {
    // Unknown rule set.
    usage_error(&check_args("8", &["--rules", "decimal"]))
        .stderr(predicates::str::contains("unknown rule set"));
    // Card out of range.
    usage_error(&["check", "--target", "17", "--cards", "8", "0", "8 + 8"])
        .stderr(predicates::str::contains("out of range"));
    // Not a number.
    usage_error(&["check", "--target", "17", "--cards", "8", "eight", "8 + 8"])
        .stderr(predicates::str::contains("not a card"));
    // No formula: a usage error, not a judgement of the last card.
    usage_error(&["check", "--target", "17", "--cards", "8"])
        .stderr(predicates::str::contains("FORMULA"));
    usage_error(&[
        "check", "--target", "15", "--cards", "1", "2", "3", "4", "5",
    ])
    .stdout("")
    .stderr(predicates::str::contains("missing FORMULA"));
    // Missing required flag and unknown subcommand: clap's own errors.
    usage_error(&["check", "--cards", "8", "8"]);
    usage_error(&["shuffle"]);
    usage_error(&["deal", "--seed", "minus one"]);
}

#[test]
fn deal_is_reproducible_from_a_seed() {
    let a = json(&["deal", "--seed", "42", "--json"], 0);
    let b = json(&["deal", "--seed", "42", "--json"], 0);
    assert_eq!(a, b);
    let obj = a.as_object().unwrap();
    assert_eq!(obj.len(), 2);
    let hand = a["hand"].as_array().unwrap();
    assert_eq!(hand.len(), 5);
    let objective = a["objective"].as_i64().unwrap();
    assert!((1..=25).contains(&objective));
    assert!(hand.iter().all(|c| (1..=25).contains(&c.as_i64().unwrap())));

    let human = stdout(&["deal", "--seed", "42"], 0);
    let cards: Vec<String> = hand.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        human.trim(),
        format!("Objective {objective}   Hand {}", cards.join(" "))
    );
}

#[test]
fn deal_without_seed_is_a_valid_deal() {
    let v = json(&["deal", "--json"], 0);
    assert_eq!(v["hand"].as_array().unwrap().len(), 5);
}

fn solve(extra: &[&str], cards: &[&str], status: i32) -> Value {
    let mut args = vec!["solve", "--json"];
    args.extend(extra);
    args.extend(cards);
    json(&args, status)
}

#[test]
fn solve_shows_one_solution_that_the_checker_accepts() {
    let v = solve(&["--target", "17"], &HAND, 0);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let mut keys = keys;
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "cards",
            "count",
            "rules",
            "solutions",
            "solvable",
            "subset",
            "target"
        ]
    );
    assert_eq!(v["target"], 17);
    assert_eq!(v["cards"], serde_json::json!([8, 19, 14, 2, 21]));
    assert_eq!(v["rules"], "free");
    assert_eq!(v["subset"], false);
    assert_eq!(v["solvable"], true);
    assert_eq!(v["count"], Value::Null);
    let solutions = v["solutions"].as_array().unwrap();
    assert_eq!(solutions.len(), 1);
    let formula = solutions[0].as_str().unwrap();
    let mut args = check_args(formula, &["--json"]);
    args.insert(1, "--rules");
    args.insert(2, "free");
    assert_eq!(json(&args, 0)["valid"], true);
}

#[test]
fn solve_counts_distinct_solutions() {
    // Counted independently by brute force over all expressions, classes
    // decided by evaluation at random points modulo a large prime.
    let v = solve(&["--target", "17", "--count"], &HAND, 0);
    assert_eq!(v["count"], 16);
    assert_eq!(v["solutions"].as_array().unwrap().len(), 1);
    let v = solve(&["--target", "24", "--all"], &["1", "2", "3", "4"], 0);
    assert_eq!(v["count"], 4);
    assert_eq!(v["solutions"].as_array().unwrap().len(), 4);
    // 5 × (5 − 1 ÷ 5) is the only way, and it needs a fraction.
    let v = solve(&["--target", "24", "--all"], &["5", "5", "5", "1"], 0);
    assert_eq!(v["count"], 1);
    assert_eq!(v["solutions"], serde_json::json!(["5 × (5 - 1 ÷ 5)"]));
}

#[test]
fn solve_without_solution_exits_1() {
    let v = solve(
        &["--target", "24", "--rules", "integer", "--count"],
        &["5", "5", "5", "1"],
        1,
    );
    assert_eq!(v["solvable"], false);
    assert_eq!(v["count"], 0);
    assert_eq!(v["solutions"], serde_json::json!([]));
    let v = solve(&["--target", "1000"], &["1", "1", "1"], 1);
    assert_eq!(
        (v["solvable"].clone(), v["count"].clone()),
        (Value::Bool(false), Value::Null)
    );
}

#[test]
fn solve_chains() {
    // 24 orderings × operator choices evaluate to 17 right to left (brute force).
    let v = solve(&["--target", "17", "--chain", "--all"], &HAND, 0);
    assert_eq!(v["count"], 24);
    let chains = v["solutions"].as_array().unwrap();
    assert_eq!(chains.len(), 24);
    assert!(chains.iter().all(|c| !c.as_str().unwrap().contains('(')));
    assert!(chains.contains(&Value::from("8 - 19 + 14 - 21 × 2")));
}

/// The numbers a printed solution uses, in order.
fn numbers_in(formula: &str) -> Vec<i64> {
    formula
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

#[test]
fn solve_subset_uses_some_of_the_cards() {
    let tiles = ["25", "50", "75", "100", "3", "6"];
    let v = solve(
        &["--subset", "--rules", "positive", "--target", "952"],
        &tiles,
        0,
    );
    assert_eq!(v["subset"], true);
    assert_eq!(v["solvable"], true);
    let formula = v["solutions"][0].as_str().unwrap();
    let parsed = krypto_core::formula::parse(formula).unwrap();
    assert_eq!(
        parsed.evaluate(krypto_core::Rules::Positive),
        Ok(krypto_core::Rational::from_int(952))
    );
    let mut left: Vec<i64> = tiles.iter().map(|t| t.parse().unwrap()).collect();
    for n in numbers_in(formula) {
        let at = left.iter().position(|&t| t == n).expect("a tile used once");
        left.swap_remove(at);
    }
    // The fewest cards: 7 × 3 needs two of the five.
    let v = solve(
        &["--subset", "--target", "21"],
        &["1", "2", "3", "4", "7"],
        0,
    );
    assert_eq!(numbers_in(v["solutions"][0].as_str().unwrap()).len(), 2);
    // Without --subset every card is used.
    let v = solve(&["--target", "21"], &["1", "2", "3", "4", "7"], 0);
    assert_eq!(numbers_in(v["solutions"][0].as_str().unwrap()).len(), 5);
    let v = solve(&["--subset", "--target", "1000"], &["1", "1", "1"], 1);
    assert_eq!(v["solvable"], false);
}

#[test]
fn solve_subset_counts_every_subsets_solutions() {
    // Every distinct solution over 3 4 plus every one over 3 4 1 (no single
    // card is 7), each counted by the plain solver.
    let count = |extra: &[&str], cards: &[&str]| {
        let mut args = vec!["--rules", "positive", "--target", "7"];
        args.extend(extra);
        solve(&args, cards, 0)["count"].as_u64().unwrap()
    };
    let both = count(&["--count"], &["3", "4"]) + count(&["--count"], &["3", "4", "1"]);
    assert_eq!(count(&["--subset", "--count"], &["3", "4", "1"]), both);
    let v = solve(
        &["--subset", "--all", "--rules", "positive", "--target", "7"],
        &["3", "4", "1"],
        0,
    );
    assert_eq!(v["count"].as_u64(), Some(both));
    assert_eq!(v["solutions"][0], "3 + 4");
    assert_eq!(v["solutions"].as_array().unwrap().len() as u64, both);
}

#[test]
fn solve_usage_errors_exit_2() {
    usage_error(&["solve", "--subset", "--chain", "--target", "3", "1", "2"]);
    usage_error(&[
        "solve", "--target", "24", "1", "2", "3", "4", "5", "6", "7", "8", "9",
    ])
    .stderr(predicates::str::contains("too many cards"));
    usage_error(&["solve", "--target", "24", "0", "2"]);
    usage_error(&["solve", "--target", "24", "--all", "--count", "1", "2"]);
    usage_error(&["solve", "--target", "24", "--rules", "real", "1", "2"]);
    usage_error(&["solve", "--target", "24"]);
}

fn census(args: &[&str]) -> Value {
    let mut all = vec!["census", "--json"];
    all.extend(args);
    json(&all, 0)
}

#[test]
fn census_of_the_24_game() {
    // The well-known count: 1362 of the 1820 hands of 1–13 make 24.
    let v = census(&["--variant", "24"]);
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "deck",
            "games",
            "hands",
            "rules",
            "seconds",
            "solvable",
            "solvable_probability",
            "unsolvable",
            "variant"
        ]
    );
    assert_eq!(v["variant"], "24");
    assert_eq!(v["rules"], "free");
    assert_eq!(v["deck"], "unbounded");
    assert_eq!(
        (v["hands"].clone(), v["games"].clone()),
        (1820.into(), 1820.into())
    );
    assert_eq!(
        (v["solvable"].clone(), v["unsolvable"].clone()),
        (1362.into(), 458.into())
    );
    assert_eq!(v["solvable_probability"], Value::Null);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn census_small_unbounded_with_unsolvable_file() {
    // Counted independently by brute force: 56 hands of three cards 1–6,
    // targets 1–10, 233 games without a solution.
    let path =
        std::env::temp_dir().join(format!("krypto-cli-unsolvable-{}.txt", std::process::id()));
    let file = path.to_str().unwrap();
    let v = census(&[
        "--cards",
        "3",
        "--max",
        "6",
        "--targets",
        "1..10",
        "--unsolvable",
        file,
    ]);
    assert_eq!(
        (v["hands"].clone(), v["games"].clone()),
        (56.into(), 560.into())
    );
    assert_eq!(v["unsolvable"], 233);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 233);
    assert_eq!(lines[0], "1 1 1 : 4");
}

#[test]
fn census_single_target_and_rules() {
    let v = census(&["--variant", "24", "--targets", "24", "--rules", "integer"]);
    assert_eq!(v["rules"], "integer");
    assert_eq!(v["games"], 1820);
}

#[test]
fn census_usage_errors_exit_2() {
    usage_error(&["census", "--variant", "bridge"]);
    usage_error(&["census", "--deck", "tarot"]);
    usage_error(&["census", "--targets", "5..3"]);
    usage_error(&["census", "--cards", "12"])
        .stderr(predicates::str::contains("cards must be between"));
}
