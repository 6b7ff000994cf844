//! Rounds won and lost over real sockets: the first correct formula wins,
//! wrong answers are refused with a reason and a lockout, racing answers
//! are settled in arrival order, and "no solution" claims are judged by the
//! solver.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Client, TestServer};
use krypto_core::cards::Deal;
use krypto_core::room::{ScriptedDealer, BETWEEN_ROUNDS_MS, COUNTDOWN_MS};
use krypto_server::{DealerFactory, ManualClock};
use serde_json::{json, Value};

/// A server dealing `hands` whose room clocks move only when the test
/// advances `clock`: no answer below races the machine's speed, and a
/// lockout lasts until the test moves time past it.
async fn dealing(hands: Vec<Deal>, clock: &ManualClock) -> TestServer {
    let clock = clock.clone();
    TestServer::with_config(move |c| {
        c.manual_clock = Some(clock);
        c.dealer = DealerFactory(Arc::new(move || {
            Box::new(ScriptedDealer::new(hands.clone()))
        }));
    })
    .await
}

/// Ends the pause between two rounds.
fn next_round(clock: &ManualClock) {
    clock.advance(Duration::from_millis(BETWEEN_ROUNDS_MS));
}

fn deal(objective: i64, hand: &[i64]) -> Deal {
    Deal {
        objective,
        hand: hand.to_vec(),
    }
}

/// A match in its first round on a [`dealing`] server.
struct Table<const N: usize> {
    server: TestServer,
    clock: ManualClock,
    /// The players and their welcomes; the first hosts.
    players: [(Client, Value); N],
    code: String,
}

/// Players `names` on a server dealing `hands`: the first creates a room
/// with `settings`, the others join, the match starts, the countdown ends
/// and everyone has the first round.
async fn playing<const N: usize>(hands: Vec<Deal>, names: [&str; N], settings: Value) -> Table<N> {
    let clock = ManualClock::new();
    let server = dealing(hands, &clock).await;
    let (mut players, code) = server.seated(names, settings).await;
    let started = players[0].0.request(json!({"type": "start"})).await;
    assert_ne!(started["type"], "error", "{started}");
    clock.advance(Duration::from_millis(COUNTDOWN_MS));
    for (c, _) in players.iter_mut() {
        let r = c.recv_type("round_started").await;
        assert_eq!(r["round"], 1);
    }
    Table {
        server,
        clock,
        players,
        code,
    }
}

fn id(welcome: &Value) -> Value {
    welcome["player_id"].clone()
}

fn score_of(scores: &[Value], player: &Value) -> Value {
    scores.iter().find(|s| s["player"] == *player).unwrap()["score"].clone()
}

on_both! {
    #[tokio::test]
    async fn three_players_play_a_whole_match() {
        let Table { server, clock, players: [(mut ann, wa), (mut ben, wb), (mut cat, wc)], .. } = playing(
            vec![deal(15, &[1, 2, 3, 4, 5]), deal(3, &[1, 2, 3, 4, 5])],
            ["Ann", "Ben", "Cat"],
            json!({"rounds": 2, "round_seconds": 60, "lockout_seconds": 5, "wrong_penalty": 1}),
        )
        .await;

        // Ben is wrong: he alone learns why, and is locked out.
        let verdict = ben.submit(1, "1 + 2 + 3 + 4 - 5").await;
        assert_eq!(verdict["type"], "verdict");
        assert_eq!(verdict["accepted"], false);
        assert_eq!(verdict["error"]["kind"], "wrong_value");
        assert!(verdict["error"]["message"].as_str().unwrap().contains('5'));
        assert!(verdict["locked_out_ms"].as_u64().unwrap() > 0);
        for c in [&mut ann, &mut cat] {
            let failed = c.recv_type("attempt_failed").await;
            assert_eq!(failed["player"], id(&wb));
            assert!(failed.get("formula").is_none(), "{failed}");
        }
        // Still locked out: refused without judging.
        let again = ben.submit(1, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(again["error"]["kind"], "locked_out", "{again}");

        // Cat is right first and wins; Ann's later right answer is too late.
        let win = cat.submit(1, "(1 + 2 + 3 + 4) + 5").await;
        assert_eq!(win["accepted"], true, "{win}");
        for c in [&mut ann, &mut ben, &mut cat] {
            let won = c.recv_type("round_won").await;
            assert_eq!(won["round"], 1);
            assert_eq!(won["winner"], id(&wc));
            // Shown as the parser prints it, not as Cat typed it.
            assert_eq!(won["formula"], "1 + 2 + 3 + 4 + 5");
            assert_eq!(won["no_solution"], false);
            let scores = won["scores"].as_array().unwrap();
            assert_eq!(score_of(scores, &id(&wc)), 1);
            assert_eq!(score_of(scores, &id(&wb)), -1);
        }
        let late = ann.submit(1, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(late["accepted"], false);
        assert_eq!(late["error"]["kind"], "round_over", "{late}");

        // Round 2: 3 from 1 2 3 4 5. Two more kinds of wrong answer, then Ben
        // (whose lockout ended with the new hand) wins it.
        next_round(&clock);
        for c in [&mut ann, &mut ben, &mut cat] {
            let r = c.recv_type("round_started").await;
            assert_eq!(r["round"], 2);
            assert_eq!(r["objective"], 3);
        }
        let stale = ann.submit(1, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(stale["code"], "wrong_round", "{stale}");
        let wrong = ann.submit(2, "(1 + 2) × 3 × 4 ÷ (5 + 7)").await;
        assert_eq!(wrong["error"]["kind"], "unknown_card", "{wrong}");
        assert_eq!(wrong["error"]["column"], 24);
        let wrong = cat.submit(2, "(1 + 2) × (3 + 4 - 5) - 3").await;
        assert_eq!(wrong["error"]["kind"], "card_reused", "{wrong}");
        assert_eq!(wrong["error"]["column"], 25);
        let win = ben.submit(2, "(5 - 4) × 3 ÷ (2 - 1)").await;
        assert_eq!(win["accepted"], true, "{win}");

        // Ann 1 wrong = -1; Ben -1 + 1 = 0; Cat 1 - 1 = 0: a tie for first.
        let over = ann.recv_type("match_over").await;
        let standings = over["standings"].as_array().unwrap();
        let row = |p: &Value| {
            let r = standings.iter().find(|s| s["player"] == *p).unwrap();
            (r["score"].clone(), r["rank"].clone())
        };
        assert_eq!(row(&id(&wb)), (json!(0), json!(1)));
        assert_eq!(row(&id(&wc)), (json!(0), json!(1)));
        assert_eq!(row(&id(&wa)), (json!(-1), json!(3)));
        server.shutdown().await;
    }

    #[tokio::test]
    async fn of_two_racing_right_answers_exactly_one_wins() {
        let Table { server, players: [(mut ann, wa), (mut ben, wb)], .. } = playing(
            vec![deal(15, &[1, 2, 3, 4, 5])],
            ["Ann", "Ben"],
            json!({"rounds": 1, "round_seconds": 60}),
        )
        .await;

        let formula = json!({"type": "submit", "round": 1, "formula": "1 + 2 + 3 + 4 + 5", "id": "r1"});
        // Both frames leave before either answer is read.
        ann.send(formula.clone()).await;
        ben.send(formula).await;
        let (va, wona) = ann.reply_and("r1", "round_won").await;
        let (vb, wonb) = ben.reply_and("r1", "round_won").await;
        let accepted: Vec<bool> = [&va, &vb].iter().map(|v| v["accepted"] == true).collect();
        assert_eq!(accepted.iter().filter(|a| **a).count(), 1, "{va} {vb}");
        let loser = if accepted[0] { &vb } else { &va };
        assert_eq!(loser["error"]["kind"], "round_over", "{loser}");
        let winner = if accepted[0] { id(&wa) } else { id(&wb) };
        assert_eq!(wona["winner"], winner);
        assert_eq!(wonb["winner"], winner);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_right_no_solution_claim_wins_and_a_wrong_one_is_punished() {
        // Five ones make at most 6: 25 cannot be made. 15 from 1..5 can.
        let Table { server, clock, players: [(mut ann, wa), (mut ben, _)], .. } = playing(
            vec![deal(25, &[1, 1, 1, 1, 1]), deal(15, &[1, 2, 3, 4, 5])],
            ["Ann", "Ben"],
            json!({"rounds": 2, "round_seconds": 60, "deal": "any", "lockout_seconds": 30}),
        )
        .await;

        let v = ann
            .request(json!({"type": "claim_no_solution", "round": 1}))
            .await;
        assert_eq!(v["accepted"], true, "{v}");
        let won = ben.recv_type("round_won").await;
        assert_eq!(won["winner"], id(&wa));
        assert_eq!(won["no_solution"], true);
        assert_eq!(won["formula"], Value::Null);

        next_round(&clock);
        for c in [&mut ann, &mut ben] {
            assert_eq!(c.recv_type("round_started").await["round"], 2);
        }
        let v = ben
            .request(json!({"type": "claim_no_solution", "round": 2}))
            .await;
        assert_eq!(v["accepted"], false, "{v}");
        assert!(v["locked_out_ms"].as_u64().unwrap() > 0);
        // A wrong claim reveals nothing about the solution.
        assert!(!v.to_string().contains("1 + 2"), "{v}");
        let failed = ann.recv_type("attempt_failed").await;
        assert_ne!(failed["player"], id(&wa));
        let locked = ben.submit(2, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(locked["error"]["kind"], "locked_out", "{locked}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn claims_need_deal_any_and_spectators_cannot_answer() {
        let Table { server, players: [(mut ann, _)], code, .. } = playing(
            vec![deal(15, &[1, 2, 3, 4, 5])],
            ["Ann"],
            json!({"rounds": 1, "round_seconds": 60}),
        )
        .await;
        let (mut sue, _) = server.player("Sue").await;
        let v = ann
            .request(json!({"type": "claim_no_solution", "round": 1}))
            .await;
        assert_eq!(v["code"], "wrong_state", "{v}");

        let st = sue
            .request(json!({"type": "join_room", "code": code, "spectator": true}))
            .await;
        assert_eq!(st["type"], "room_state", "{st}");
        assert_eq!(st["round"]["objective"], 15);
        let v = sue.submit(1, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(v["code"], "not_a_player", "{v}");
        let v = ann.submit(1, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(v["accepted"], true, "{v}");
        // The spectator watches the result.
        assert_eq!(
            sue.recv_type("round_won").await["formula"],
            "1 + 2 + 3 + 4 + 5"
        );
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_timed_out_round_reveals_a_checked_solution_and_the_count() {
        let Table { server, clock, players: [(mut ann, _)], .. } = playing(
            vec![deal(17, &[8, 19, 14, 2, 21])],
            ["Ann"],
            json!({"rounds": 1, "round_seconds": 10}),
        )
        .await;
        clock.advance(Duration::from_secs(10));
        let out = ann.recv_type("round_timed_out").await;
        let solution = out["solution"].as_str().unwrap();
        let cards = [8, 19, 14, 2, 21];
        assert!(
            krypto_core::formula::check(solution, &cards, 17, krypto_core::Rules::Free).is_ok(),
            "{solution}"
        );
        let count = krypto_core::solver::count_solutions(&cards, 17, krypto_core::Rules::Free).unwrap();
        assert_eq!(out["solutions"], count);
        assert!(count > 0);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn hostile_formulas_get_typed_verdicts_and_the_round_goes_on() {
        let Table { server, players: [(mut ann, _), (mut ben, wb), (mut cat, _)], .. } = playing(
            vec![deal(15, &[1, 2, 3, 4, 5])],
            ["Ann", "Ben", "Cat"],
            json!({"rounds": 1, "round_seconds": 60, "lockout_seconds": 0}),
        )
        .await;

        // 10 KB of parentheses: under the frame limit, over the formula limit.
        let long = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
        let v = ann.submit(1, &long).await;
        assert_eq!(v["error"]["kind"], "too_long", "{v}");
        // Deep but short: refused without recursing past the limit.
        let deep = format!("{}1{} + 2 + 3 + 4 + 5", "(".repeat(40), ")".repeat(40));
        let v = ann.submit(1, &deep).await;
        assert_eq!(v["error"]["kind"], "too_deep", "{v}");
        // Numbers too big for 64 bits, control characters, an empty formula.
        for (formula, kind) in [
            ("99999999999999999999999 + 1", "overflow"),
            ("1 + 2 + 3 + 4 + 5\u{0}", "syntax"),
            ("", "syntax"),
            ("5 ÷ (4 - 3 - 1) + 2", "division_by_zero"),
        ] {
            let v = cat.submit(1, formula).await;
            assert_eq!(v["error"]["kind"], kind, "{formula:?}: {v}");
        }
        // A formula that is not a string is a bad message, not a verdict.
        let v = cat
            .request(json!({"type": "submit", "round": 1, "formula": 15}))
            .await;
        assert_eq!(v["code"], "bad_message", "{v}");

        // Nothing of that stalled the room: Ben still wins the round.
        let v = ben.submit(1, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(v["accepted"], true, "{v}");
        assert_eq!(ann.recv_type("round_won").await["winner"], id(&wb));
        server.shutdown().await;
    }
}
