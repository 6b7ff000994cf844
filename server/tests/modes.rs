//! The daily Krypto, challenges and solo runs over real sockets, on both
//! backends, with the server's wall clock as an input (a manual
//! `WallClock` the tests move across midnights and past a run's end).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::time::Duration;

use common::{hello_again, solve, wrong, Client, TestServer};
use krypto_server::WallClock;
use serde_json::{json, Value};

/// 2026-03-10 12:00:00 UTC.
const NOON: u64 = 1_773_144_000_000;
/// 2026-03-10 23:59:00 UTC.
const LATE: u64 = 1_773_187_140_000;

/// A server on the database at `url` whose wall clock is `clock`.
async fn serving(url: &str, clock: &WallClock) -> TestServer {
    let url = url.to_owned();
    TestServer::on_wall_clock(clock, move |c| c.database_url = url).await
}

/// A server on the backend under test whose wall clock stands at noon, and
/// that clock.
async fn at_noon() -> (WallClock, TestServer) {
    let clock = WallClock::manual(NOON);
    let server = TestServer::on_wall_clock(&clock, |_| {}).await;
    (clock, server)
}

/// The objective and cards of a `daily` (or any hand message).
fn hand_of(v: &Value) -> (Value, Value) {
    (v["objective"].clone(), v["cards"].clone())
}

async fn daily(client: &mut Client, date: Option<&str>) -> Value {
    let mut message = json!({"type": "daily_start"});
    if let Some(date) = date {
        message["date"] = json!(date);
    }
    client.send(message).await;
    client.recv_type("daily").await
}

/// Sends `formula` as the daily's answer; the verdict.
/// Today's daily solved in 40 s without a miss, then made a challenge:
/// the hand and the challenge's code.
async fn solved_in_40_s_and_challenged(client: &mut Client, clock: &WallClock) -> (Value, String) {
    let hand = daily(client, None).await;
    clock.advance(Duration::from_secs(40));
    answer(client, &solve(&hand)).await;
    client.recv_type("daily_solved").await;
    client.send(json!({"type": "challenge_create"})).await;
    let code = client.recv_type("challenge").await["code"]
        .as_str()
        .unwrap()
        .to_owned();
    (hand, code)
}

async fn answer(client: &mut Client, formula: &str) -> Value {
    client
        .send(json!({"type": "daily_submit", "formula": formula}))
        .await;
    client.recv_type("verdict").await
}

/// Players asking for the daily at the same moment. (Each is two
/// descriptors in this process, and the two backends' copies may run at
/// once: the test raises its soft limit first.)
const RUSH: usize = 300;

on_both! {
    #[tokio::test]
    async fn the_daily_is_one_hand_for_all_with_a_clock_that_survives_a_restart() {
        let database = common::fresh_database().await;
        let clock = WallClock::manual(NOON);
        let server = serving(&database.url, &clock).await;
        let (mut ada, ada_welcome) = server.player("Ada").await;
        let (mut bob, bob_welcome) = server.player("Bob").await;
        // An answer before any hand was asked for is refused, not judged.
        bob.refused(json!({"type": "daily_submit", "formula": "1+2"}), "wrong_state").await;
        let first = daily(&mut ada, None).await;
        assert_eq!(first["number"], 1);
        assert_eq!(first["date"], "2026-03-10");
        assert_eq!(first["rated"], true);
        assert_eq!(first["elapsed_ms"], 0);
        assert_eq!(hand_of(&daily(&mut bob, None).await), hand_of(&first));

        clock.advance(Duration::from_secs(5));
        assert_eq!(daily(&mut ada, None).await["elapsed_ms"], 5_000, "the same clock runs on");
        let missed = answer(&mut ada, &wrong(&first)).await;
        assert_eq!(missed["accepted"], false);
        assert!(missed["error"].is_object(), "{missed}");

        // A restart in the middle of Ada's daily: the clock goes on.
        drop(ada);
        drop(bob);
        server.shutdown().await;
        let server = serving(&database.url, &clock).await;
        let mut ada = server.connect().await.welcomed(hello_again(&ada_welcome)).await.0;
        let again = daily(&mut ada, None).await;
        assert_eq!(hand_of(&again), hand_of(&first), "every start deals the same hand");
        assert_eq!(again["elapsed_ms"], 15_000, "5 s and a 10 s miss");

        clock.advance(Duration::from_secs(2));
        assert_eq!(answer(&mut ada, &solve(&first)).await["accepted"], true);
        let solved = ada.recv_type("daily_solved").await;
        assert_eq!(solved["elapsed_ms"], 17_000);
        assert_eq!(solved["misses"], 1);
        assert_eq!(solved["streak"], 1);
        assert_eq!(solved["rank"], 1);
        let share = solved["share"].as_str().unwrap();
        assert!(share.starts_with("Krypto #1 ✓ 0:17 · 1 miss · 🔥1"), "{share}");
        let solutions = solved["solutions"].as_array().unwrap();
        assert!(solutions.len() > 1, "every distinct solution: {solved}");
        assert_eq!(solutions.iter().filter(|s| s["yours"] == true).count(), 1);

        // One result a day.
        ada.refused(json!({"type": "daily_submit", "formula": solve(&first)}), "wrong_state").await;

        let mut bob = server.connect().await.welcomed(hello_again(&bob_welcome)).await.0;
        let bob_hand = daily(&mut bob, None).await;
        assert_eq!(bob_hand["elapsed_ms"], 7_000, "Bob's clock started when he first saw it");
        answer(&mut bob, &wrong(&first)).await;
        answer(&mut bob, &solve(&first)).await;
        let bobs = bob.recv_type("daily_solved").await;
        // 7 s and a miss: Ada's time, to the millisecond; she solved first.
        assert_eq!((bobs["elapsed_ms"].as_u64(), bobs["rank"].as_u64()), (Some(17_000), Some(2)));

        // A day to come is never dealt.
        bob.refused(json!({"type": "daily_start", "date": "2026-03-11"}), "no_such_day").await;
        bob.refused(json!({"type": "daily_start", "date": "2026-03-09"}), "no_such_day").await;

        // Over HTTP: the number and the solvers, never the hand.
        let (status, info) = server.get_json("/api/daily").await;
        assert_eq!(status, 200);
        assert_eq!(info, json!({"number": 1, "date": "2026-03-10", "solvers": 2}));
        let (status, board) = server.get_json("/api/daily/board?around=Bob&limit=5").await;
        assert_eq!(status, 200, "{board}");
        assert_eq!(board["rows"][0], json!({"rank": 1, "name": "Ada", "elapsed_ms": 17_000, "misses": 1}));
        assert_eq!(board["rows"][1]["name"], "Bob");
        assert_eq!(board["rows"][1]["rank"], 2);
        for bad in ["/api/daily/board?limit=0", "/api/daily/board?limit=1000", "/api/daily/board?date=soon"] {
            let (status, body) = server.get_json(bad).await;
            assert_eq!((status, body["error"]["code"].as_str()), (400, Some("bad_request")), "{bad}");
        }
        let (status, body) = server.get_json("/api/daily/board?date=2026-03-11").await;
        assert_eq!((status, body["error"]["code"].as_str()), (404, Some("no_such_day")));
        let (status, body) = server.get_json("/api/daily/board?around=Nobody").await;
        assert_eq!((status, body["error"]["code"].as_str()), (404, Some("player_not_found")));
        server.shutdown().await;
    }

    #[tokio::test]
    async fn crossing_midnight_keeps_yesterday_and_deals_a_new_day() {
        let database = common::fresh_database().await;
        let clock = WallClock::manual(LATE);
        let server = serving(&database.url, &clock).await;
        let (mut ada, _) = server.player("Ada").await;
        let day1 = daily(&mut ada, None).await;
        clock.advance(Duration::from_secs(30));
        answer(&mut ada, &solve(&day1)).await;
        assert_eq!(ada.recv_type("daily_solved").await["streak"], 1);

        clock.advance(Duration::from_secs(60));
        let day2 = daily(&mut ada, None).await;
        assert_eq!(day2["number"], 2);
        assert_eq!(day2["date"], "2026-03-11");
        assert_eq!(day2["elapsed_ms"], 0);
        assert_ne!(hand_of(&day2), hand_of(&day1), "a new day, a new hand");
        clock.advance(Duration::from_secs(3));
        answer(&mut ada, &solve(&day2)).await;
        let solved = ada.recv_type("daily_solved").await;
        assert_eq!(solved["streak"], 2, "{solved}");

        // Yesterday's result stays on yesterday's board.
        let (_, board) = server.get_json("/api/daily/board?date=2026-03-10").await;
        assert_eq!(board["number"], 1);
        assert_eq!(board["rows"][0]["name"], "Ada");
        assert_eq!(board["rows"][0]["elapsed_ms"], 30_000);

        // The archive: unrated, no streak, on no board.
        let (mut bob, _) = server.player("Bob").await;
        let past = daily(&mut bob, Some("2026-03-10")).await;
        assert_eq!(past["rated"], false);
        assert_eq!(hand_of(&past), hand_of(&day1));
        answer(&mut bob, &solve(&past)).await;
        let solved = bob.recv_type("daily_solved").await;
        assert_eq!(solved["streak"], 0);
        assert_eq!(solved["rank"], Value::Null);
        let (_, board) = server.get_json("/api/daily/board?date=2026-03-10").await;
        assert_eq!(board["rows"].as_array().unwrap().len(), 1, "{board}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_challenge_is_answered_by_a_friend_with_both_results() {
        let (clock, server) = at_noon().await;
        let (mut ada, _) = server.player("Ada").await;
        ada.refused(json!({"type": "challenge_create"}), "wrong_state").await;
        let (hand, code) = solved_in_40_s_and_challenged(&mut ada, &clock).await;
        assert_eq!(code.len(), 8);

        let (mut bob, _) = server.player("Bob").await;
        bob.send(json!({"type": "challenge_start", "code": code.to_lowercase()})).await;
        let dealt = bob.recv_type("challenge_hand").await;
        assert_eq!(dealt["by"], "Ada");
        assert_eq!(hand_of(&dealt), hand_of(&hand));
        assert_eq!(dealt["to_beat"], json!({"elapsed_ms": 40_000, "misses": 0}));
        clock.advance(Duration::from_secs(12));
        bob.send(json!({"type": "challenge_submit", "formula": wrong(&hand)})).await;
        assert_eq!(bob.recv_type("verdict").await["accepted"], false);
        bob.send(json!({"type": "challenge_submit", "formula": solve(&hand)})).await;
        assert_eq!(bob.recv_type("verdict").await["accepted"], true);
        let result = bob.recv_type("challenge_result").await;
        assert_eq!(result["yours"], json!({"elapsed_ms": 22_000, "misses": 1}));
        assert_eq!(result["theirs"], json!({"elapsed_ms": 40_000, "misses": 0}));
        assert_eq!(result["outcome"], "won");

        let (status, listed) = server.get_json(&format!("/api/challenges/{code}")).await;
        assert_eq!(status, 200, "{listed}");
        assert_eq!(listed["results"], json!([{"name": "Bob", "elapsed_ms": 22_000, "misses": 1}]));
        assert!(listed.get("cards").is_none() && listed.get("objective").is_none(), "{listed}");
        let (status, _) = server.get_json("/api/challenges/AAAAAAAA").await;
        assert_eq!(status, 404);
        let (status, _) = server.get_json("/api/challenges/nope").await;
        assert_eq!(status, 400);
        bob.refused(json!({"type": "challenge_start", "code": "AAAAAAAA"}), "challenge_not_found").await;
        server.shutdown().await;
    }

    /// A challenge of today's Krypto is the taker's daily: one hand, one
    /// clock, one result. Nobody sees today's hand through a link and then
    /// tops the day's board with it, and a daily solved first is the
    /// challenge's answer, not a second go at a known hand.
    #[tokio::test]
    async fn a_challenge_of_todays_krypto_is_the_takers_daily() {
        let (clock, server) = at_noon().await;
        let (mut ada, _) = server.player("Ada").await;
        let (hand, code) = solved_in_40_s_and_challenged(&mut ada, &clock).await;

        // Bob takes the challenge first: a miss and the solve count for his
        // daily too, timed from when the link showed him the hand.
        let (mut bob, _) = server.player("Bob").await;
        bob.send(json!({"type": "challenge_start", "code": code})).await;
        bob.recv_type("challenge_hand").await;
        clock.advance(Duration::from_secs(5));
        bob.send(json!({"type": "challenge_submit", "formula": wrong(&hand)})).await;
        assert_eq!(bob.recv_type("verdict").await["accepted"], false);
        clock.advance(Duration::from_secs(3));
        bob.send(json!({"type": "challenge_submit", "formula": solve(&hand)})).await;
        assert_eq!(bob.recv_type("verdict").await["accepted"], true);
        let result = bob.recv_type("challenge_result").await;
        assert_eq!(result["yours"], json!({"elapsed_ms": 18_000, "misses": 1}));
        clock.advance(Duration::from_secs(60));
        let again = daily(&mut bob, None).await;
        assert_eq!(again["elapsed_ms"], 18_000, "{again}");
        let solved = bob.recv_type("daily_solved").await;
        assert_eq!((solved["elapsed_ms"].clone(), solved["misses"].clone()), (json!(18_000), json!(1)));
        assert_eq!((solved["streak"].clone(), solved["rank"].clone()), (json!(1), json!(1)), "{solved}");
        bob.refused(json!({"type": "daily_submit", "formula": solve(&hand)}), "wrong_state").await;

        // Cy solves the daily first: the link shows that result and deals no
        // second go.
        let (mut cy, _) = server.player("Cy").await;
        daily(&mut cy, None).await;
        clock.advance(Duration::from_secs(25));
        answer(&mut cy, &solve(&hand)).await;
        cy.recv_type("daily_solved").await;
        clock.advance(Duration::from_secs(60));
        cy.send(json!({"type": "challenge_start", "code": code})).await;
        assert_eq!(cy.recv_type("challenge_hand").await["elapsed_ms"], 25_000);
        let result = cy.recv_type("challenge_result").await;
        assert_eq!(result["yours"], json!({"elapsed_ms": 25_000, "misses": 0}));
        assert_eq!(result["outcome"], "won");
        cy.refused(json!({"type": "challenge_submit", "formula": solve(&hand)}), "wrong_state").await;

        // Dee misses twice on the daily page, then opens the link: the
        // misses stay, the clock is the daily's.
        let (mut dee, _) = server.player("Dee").await;
        daily(&mut dee, None).await;
        for _ in 0..2 {
            answer(&mut dee, &wrong(&hand)).await;
        }
        clock.advance(Duration::from_secs(4));
        dee.send(json!({"type": "challenge_start", "code": code})).await;
        assert_eq!(dee.recv_type("challenge_hand").await["elapsed_ms"], 24_000);
        dee.send(json!({"type": "challenge_submit", "formula": solve(&hand)})).await;
        assert_eq!(dee.recv_type("verdict").await["accepted"], true);
        let result = dee.recv_type("challenge_result").await;
        assert_eq!(result["yours"], json!({"elapsed_ms": 24_000, "misses": 2}));

        let (_, board) = server.get_json("/api/daily/board").await;
        let rows: Vec<(String, i64)> = board["rows"].as_array().unwrap().iter()
            .map(|r| (r["name"].as_str().unwrap().to_owned(), r["elapsed_ms"].as_i64().unwrap()))
            .collect();
        let expected = [("Bob", 18_000), ("Dee", 24_000), ("Cy", 25_000), ("Ada", 40_000)];
        assert_eq!(rows, expected.map(|(n, ms)| (n.to_owned(), ms)));
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_run_ends_by_the_clock_and_its_score_is_on_the_runs_board() {
        let (clock, server) = at_noon().await;
        let (mut ada, _) = server.player("Ada").await;
        ada.refused(json!({"type": "run_submit", "hand": 1, "formula": "1"}), "wrong_state").await;
        ada.send(json!({"type": "run_start"})).await;
        let run = ada.recv_type("run").await;
        assert_eq!(run["remaining_ms"], 180_000);
        assert!(run.get("seed").is_none());
        clock.advance(Duration::from_secs(10));
        ada.send(json!({"type": "run_submit", "hand": 1, "formula": solve(&run)})).await;
        assert_eq!(ada.recv_type("verdict").await["accepted"], true);
        let next = ada.recv_type("run_hand").await;
        assert_eq!((next["hand"].as_i64(), next["score"].as_i64()), (Some(2), Some(1)));
        assert_eq!(next["remaining_ms"], 170_000);
        ada.refused(json!({"type": "run_submit", "hand": 1, "formula": solve(&run)}), "wrong_round").await;

        // The clock runs out while Ada thinks: the server ends the run.
        clock.advance(Duration::from_secs(171));
        let over = ada.recv_type("run_over").await;
        assert_eq!(over["score"], 1);
        assert_eq!(over["duration_ms"], 180_000);
        ada.refused(json!({"type": "run_submit", "hand": 2, "formula": solve(&next)}), "wrong_state").await;

        // The recorded best shows on the runs board; the challenge of its
        // solved hand can be made.
        ada.send(json!({"type": "challenge_create"})).await;
        ada.recv_type("challenge").await;
        for period in ["day", "week", "all"] {
            let (status, board) = server.get_json(&format!("/api/runs/board?period={period}&around=Ada")).await;
            assert_eq!(status, 200, "{board}");
            assert_eq!(board["rows"], json!([{"rank": 1, "name": "Ada", "score": 1}]), "{period}");
        }
        let (status, body) = server.get_json("/api/runs/board?period=year").await;
        assert_eq!((status, body["error"]["code"].as_str()), (400, Some("bad_request")));
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_dropped_run_is_taken_up_again_with_its_clock_still_running() {
        let (clock, server) = at_noon().await;
        let (mut ada, welcome) = server.player("Ada").await;
        ada.refused(json!({"type": "run_resume"}), "wrong_state").await;
        ada.send(json!({"type": "run_start"})).await;
        let run = ada.recv_type("run").await;
        clock.advance(Duration::from_secs(10));
        ada.send(json!({"type": "run_submit", "hand": 1, "formula": solve(&run)})).await;
        let second = ada.recv_type("run_hand").await;
        // The connection drops; 20 s pass before Ada is back.
        drop(ada);
        clock.advance(Duration::from_secs(20));
        let (mut ada, _) = server.connect().await.welcomed(hello_again(&welcome)).await;
        ada.send(json!({"type": "run_resume"})).await;
        let back = ada.recv_type("run").await;
        assert_eq!(hand_of(&back), hand_of(&second), "the same hand");
        assert_eq!((back["hand"].as_i64(), back["score"].as_i64()), (Some(2), Some(1)));
        assert_eq!(back["remaining_ms"], 150_000, "the clock never stopped");
        ada.send(json!({"type": "run_submit", "hand": 2, "formula": solve(&back)})).await;
        assert_eq!(ada.recv_type("verdict").await["accepted"], true);
        ada.recv_type("run_hand").await;

        // Away again while the clock runs out: the run ends and counts, and
        // the player back hears its end.
        drop(ada);
        clock.advance(Duration::from_secs(200));
        let (mut ada, _) = server.connect().await.welcomed(hello_again(&welcome)).await;
        ada.send(json!({"type": "run_resume"})).await;
        let over = ada.recv_type("run_over").await;
        assert_eq!((over["score"].as_i64(), over["duration_ms"].as_i64()), (Some(2), Some(180_000)));
        let (_, board) = server.get_json("/api/runs/board").await;
        assert_eq!(board["rows"], json!([{"rank": 1, "name": "Ada", "score": 2}]));
        // Five minutes after its end it is forgotten.
        clock.advance(Duration::from_secs(6 * 60));
        let forgotten = tokio::time::timeout(common::PATIENCE, async {
            loop {
                ada.send(json!({"type": "run_resume"})).await;
                let v = ada.recv().await;
                if v["type"] == "error" {
                    return v;
                }
                tokio::task::yield_now().await;
            }
        })
        .await
        .unwrap();
        assert_eq!(forgotten["code"], "wrong_state");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_rush_of_players_all_get_the_daily_and_every_solve_is_stored() {
        let _ = rlimit::increase_nofile_limit(8_192);
        let clock = WallClock::manual(NOON);
        let server = TestServer::on_wall_clock(&clock, |c| {
            // A rush comes from many addresses; here every socket is
            // 127.0.0.1.
            c.max_connections_per_ip = 0;
            c.max_new_accounts = 0;
        })
        .await;
        let mut players = Vec::with_capacity(RUSH);
        for _ in 0..RUSH {
            players.push(server.connect().await);
        }
        for (i, p) in players.iter_mut().enumerate() {
            p.send(common::hello(&format!("rush{i}"))).await;
        }
        for p in &mut players {
            assert_eq!(p.recv().await["type"], "welcome");
        }
        // Every daily_start is sent before any answer is read, and a new
        // player says hello in the middle of them.
        let mut newcomer = server.connect().await;
        for (i, p) in players.iter_mut().enumerate() {
            p.send(json!({"type": "daily_start"})).await;
            if i == RUSH / 2 {
                newcomer.send(common::hello("Newcomer")).await;
            }
        }
        let mut hands = Vec::with_capacity(RUSH);
        for p in &mut players {
            hands.push(p.recv_type("daily").await);
        }
        let welcome = newcomer.recv().await;
        assert_eq!(welcome["type"], "welcome", "a new player is welcomed during the rush: {welcome}");
        assert!(hands.iter().all(|h| hand_of(h) == hand_of(&hands[0])), "one hand for all");

        // The answers come in waves, as think times spread them: each
        // right answer is read back five times on the read pool, which a
        // debug build on a busy machine cannot do 300 times at once within
        // the pool's wait.
        clock.advance(Duration::from_secs(3));
        for wave in players.chunks_mut(25) {
            for p in wave.iter_mut() {
                p.send(json!({"type": "daily_submit", "formula": solve(&hands[0])})).await;
            }
            for p in wave.iter_mut() {
                assert_eq!(p.recv_type("verdict").await["accepted"], true);
                assert_eq!(p.recv_type("daily_solved").await["elapsed_ms"], 3_000);
            }
        }
        let mut db = server.raw().await;
        let (stored,): (i64,) = db
            .one("SELECT count(*) FROM daily_attempts WHERE solved_ms IS NOT NULL AND rated = 1")
            .await;
        assert_eq!(stored, RUSH as i64, "every solve is stored");
        let (status, info) = server.get_json("/api/daily").await;
        assert_eq!((status, info["solvers"].as_u64()), (200, Some(RUSH as u64)));
        server.shutdown().await;
    }
}
