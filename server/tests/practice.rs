//! Practice tables over real sockets, on both backends: hints only when
//! asked, each step exact and leading to the objective, answers that cost
//! nothing, skips, and nothing recorded (no board, no signal, no
//! challenge).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::{Client, TestServer, PATIENCE};
use krypto_core::cards::Deal;
use krypto_core::rational::Rational;
use krypto_core::rules::Rules;
use krypto_server::WallClock;
use serde_json::{json, Value};

/// 2026-03-10 12:00:00 UTC.
const NOON: u64 = 1_773_144_000_000;

/// The deal of a `practice` message.
fn deal_of(practice: &Value) -> Deal {
    Deal {
        objective: practice["objective"].as_i64().unwrap(),
        hand: practice["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_i64().unwrap())
            .collect(),
    }
}

/// Every distinct solution of the hand, as the solver prints them.
fn solutions(deal: &Deal) -> Vec<String> {
    krypto_core::solver::solve_all(&deal.hand, deal.objective, Rules::Free)
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// `17`, `-2` or `7/2`.
fn number(text: &str) -> Rational {
    match text.split_once('/') {
        Some((n, d)) => Rational::new(n.parse().unwrap(), d.parse().unwrap()).unwrap(),
        None => Rational::from_int(text.parse().unwrap()),
    }
}

/// Replays hint steps (`8 × 3 = 24`) on the hand: each operand is a
/// number on the table, each result exact, the last the objective.
fn replay(deal: &Deal, steps: &[String]) {
    let mut pool: Vec<Rational> = deal.hand.iter().map(|&c| Rational::from_int(c)).collect();
    for step in steps {
        let parts: Vec<&str> = step.split(' ').collect();
        let [left, op, right, "=", value] = parts.as_slice() else {
            panic!("a step reads `a op b = c`: {step}");
        };
        let (left, right, value) = (number(left), number(right), number(value));
        let exact = match *op {
            "+" => left.checked_add(right),
            "-" => left.checked_sub(right),
            "×" => left.checked_mul(right),
            "÷" => left.checked_div(right),
            other => panic!("operator {other} in {step}"),
        };
        assert_eq!(exact, Ok(value), "{step}");
        for operand in [left, right] {
            let at = pool
                .iter()
                .position(|&v| v == operand)
                .unwrap_or_else(|| panic!("{step}: {operand} is not on the table {pool:?}"));
            pool.remove(at);
        }
        pool.push(value);
    }
    assert_eq!(pool, vec![Rational::from_int(deal.objective)], "{steps:?}");
}

async fn start(client: &mut Client, difficulty: Option<&str>) -> Value {
    let mut message = json!({"type": "practice_start"});
    if let Some(d) = difficulty {
        message["difficulty"] = json!(d);
    }
    client.send(message).await;
    client.recv_type("practice").await
}

async fn hint(client: &mut Client) -> Value {
    client.send(json!({"type": "practice_hint"})).await;
    client.recv().await
}

/// Solves the practice hand `practice` right: the verdict, the solutions,
/// and the next hand.
async fn solve(client: &mut Client, practice: &Value) -> (Value, Value, Value) {
    let formula = common::solve(practice);
    client
        .send(json!({"type": "practice_submit", "hand": practice["hand"], "formula": formula}))
        .await;
    let verdict = client.recv().await;
    let listed = client.recv().await;
    let next = client.recv().await;
    assert_eq!(
        (&verdict["type"], &listed["type"], &next["type"]),
        (
            &json!("verdict"),
            &json!("practice_solutions"),
            &json!("practice")
        ),
        "{verdict} {listed} {next}"
    );
    (verdict, listed, next)
}

on_both! {
    #[tokio::test]
    async fn hints_come_one_step_at_a_time_only_when_asked_and_make_the_objective() {
        let server = TestServer::start().await;
        let (mut ada, _) = server.player("Ada").await;
        // No table yet: nothing to hint, nothing to answer.
        ada.refused(json!({"type": "practice_hint"}), "wrong_state").await;
        ada.refused(
            json!({"type": "practice_submit", "hand": 1, "formula": "1+2"}),
            "wrong_state",
        )
        .await;

        let first = start(&mut ada, Some("easy")).await;
        assert_eq!((first["hand"].clone(), first["difficulty"].clone(), first["steps"].clone()),
                   (json!(1), json!("easy"), json!(4)));
        // The hand comes with nothing of its solutions: exactly these fields.
        let fields: BTreeSet<&str> = first.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(fields, BTreeSet::from(["type", "hand", "objective", "cards", "difficulty", "steps"]));
        let deal = deal_of(&first);
        let text = first.to_string();
        assert!(solutions(&deal).iter().all(|s| !text.contains(s.as_str())), "{text}");

        // A wrong answer costs nothing: no lockout, the hand stays.
        let wrong = ada
            .request(json!({"type": "practice_submit", "hand": 1, "formula": common::wrong(&first)}))
            .await;
        assert_eq!(wrong["type"], "verdict");
        assert_eq!(wrong["accepted"], false);
        assert!(wrong.get("locked_out_ms").is_none(), "{wrong}");

        let mut steps = Vec::new();
        for shown in 1..=4 {
            let h = hint(&mut ada).await;
            assert_eq!(h["type"], "practice_hint", "{h}");
            assert_eq!((h["hand"].clone(), h["steps_shown"].clone(), h["steps"].clone()),
                       (json!(1), json!(shown), json!(4)));
            steps.push(h["step"].as_str().unwrap().to_owned());
        }
        replay(&deal, &steps);
        // Every step is out: the fifth is refused.
        ada.refused(json!({"type": "practice_hint"}), "wrong_state").await;

        let (verdict, listed, second) = solve(&mut ada, &first).await;
        assert_eq!(verdict["accepted"], true);
        assert_eq!(verdict["round"], 1);
        assert_eq!((listed["hand"].clone(), listed["solved"].clone(), listed["hints"].clone()),
                   (json!(1), json!(true), json!(4)));
        assert_eq!(deal_of(&listed), deal);
        let listed_formulas: Vec<&str> = listed["solutions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["formula"].as_str().unwrap())
            .collect();
        assert_eq!(listed_formulas, solutions(&deal));
        let yours = listed["solutions"].as_array().unwrap().iter().filter(|s| s["yours"] == true);
        assert_eq!(yours.count(), 1);
        assert_eq!((second["hand"].clone(), second["difficulty"].clone()), (json!(2), json!("easy")));

        // An answer to the hand gone is refused, not judged.
        ada.refused(
            json!({"type": "practice_submit", "hand": 1, "formula": common::solve(&first)}),
            "wrong_round",
        )
        .await;
        // The next hand's first hint is its own first step.
        let h = hint(&mut ada).await;
        assert_eq!((h["hand"].clone(), h["steps_shown"].clone()), (json!(2), json!(1)));

        // A skip lists every solution, none marked, and deals the next hand.
        ada.send(json!({"type": "practice_skip"})).await;
        let skipped = ada.recv_type("practice_solutions").await;
        assert_eq!((skipped["hand"].clone(), skipped["solved"].clone(), skipped["hints"].clone()),
                   (json!(2), json!(false), json!(1)));
        assert_eq!(skipped["solutions"].as_array().unwrap().len(), solutions(&deal_of(&second)).len());
        assert!(skipped["solutions"].as_array().unwrap().iter().all(|s| s.get("yours").is_none()));
        assert_eq!(ada.recv().await["hand"], 3);

        // Sitting down again is a new table, from hand 1.
        let again = start(&mut ada, None).await;
        assert_eq!((again["hand"].clone(), again["difficulty"].clone()), (json!(1), json!("any")));
    }

    #[tokio::test]
    async fn practice_is_unrated_no_board_no_signal_no_challenge() {
        let clock = WallClock::manual(NOON);
        let server = TestServer::on_wall_clock(&clock, common::assessed).await;
        let (mut ada, _) = server.player("Ada").await;
        let mut hand = start(&mut ada, None).await;
        for _ in 0..3 {
            clock.advance(Duration::from_secs(20));
            hand = solve(&mut ada, &hand).await.2;
        }
        // A practice hand is no challenge to send.
        ada.refused(json!({"type": "challenge_create"}), "wrong_state").await;

        // Then a rated answer: the daily. The signals take answers in
        // order, so had practice's reached them, they would come first.
        ada.send(json!({"type": "daily_start"})).await;
        let daily = ada.recv_type("daily").await;
        clock.advance(Duration::from_secs(30));
        let formula = common::solve(&daily);
        ada.send(json!({"type": "daily_submit", "formula": formula})).await;
        ada.recv_type("daily_solved").await;
        let mut raw = server.raw().await;
        let answers = tokio::time::timeout(PATIENCE, async {
            loop {
                let rows: Vec<(String,)> = raw.rows("SELECT answer FROM fair_play_answers").await;
                if !rows.is_empty() {
                    return rows;
                }
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("the daily's answer reaches the signals");
        assert_eq!(answers.len(), 1, "{answers:?}");

        for table in [
            "matches", "match_players", "rounds", "attempts", "ratings", "run_bests",
            "challenges", "challenge_attempts", "fair_play_flags",
        ] {
            let (n,): (i64,) = raw.one(&format!("SELECT count(*) FROM {table}")).await;
            assert_eq!(n, 0, "{table} holds nothing from practice");
        }
        let (dailies,): (i64,) = raw.one("SELECT count(*) FROM daily_attempts").await;
        assert_eq!(dailies, 1, "only the daily's attempt");
        for metric in ["rating", "wins", "rounds", "fastest"] {
            let board = ada.request(json!({"type": "leaderboard", "metric": metric})).await;
            assert_eq!(board["rows"], json!([]), "{metric}: {board}");
        }
    }
}
