//! Challenges made from a room's round, and what a profile shows of
//! challenges and runs, over real sockets on both backends. The rooms run
//! on a `ManualClock` and deal scripted hands; the daily-less modes on a
//! manual `WallClock`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::time::Duration;

use common::{solve, Client, TestServer};
use krypto_core::room::COUNTDOWN_MS;
use krypto_server::{ManualClock, WallClock};
use serde_json::{json, Value};

/// 2026-03-10 12:00:00 UTC.
const NOON: u64 = 1_773_144_000_000;

/// Right: 1 + 2 + 3 + 4 + 5 = 15.
const RIGHT: &str = "1+2+3+4+5";
/// A real attempt at the hand, wrong: 14.
const WRONG: &str = "1*2+3+4+5";

/// A server dealing 15 from 1 2 3 4 5 in every room, rooms on `rooms`,
/// the daily-less modes on `wall`.
async fn dealing(rooms: &ManualClock, wall: &WallClock) -> TestServer {
    let rooms = rooms.clone();
    TestServer::on_wall_clock(wall, move |c| {
        c.manual_clock = Some(rooms);
        c.dealer = common::scripted::one_hand_dealer();
    })
    .await
}

/// Seats `names` in a room of `settings`, starts the match and waits out
/// the countdown: everyone has round 1.
async fn first_round<const N: usize>(
    server: &TestServer,
    clock: &ManualClock,
    names: [&str; N],
    settings: Value,
) -> [(Client, Value); N] {
    let (mut players, _) = server.seated(names, settings).await;
    let started = players[0].0.request(json!({"type": "start"})).await;
    assert_ne!(started["type"], "error", "{started}");
    clock.advance(Duration::from_millis(COUNTDOWN_MS));
    for (c, _) in players.iter_mut() {
        assert_eq!(c.recv_type("round_started").await["round"], 1);
    }
    players
}

async fn create(client: &mut Client, round: u32) -> Value {
    client
        .request(json!({"type": "challenge_create", "round": round}))
        .await
}

on_both! {
    #[tokio::test]
    async fn a_round_won_in_a_room_is_a_challenge_with_the_rooms_time() {
        let (clock, wall) = (ManualClock::new(), WallClock::manual(NOON));
        let server = dealing(&clock, &wall).await;
        let settings = json!({"rounds": 3, "lockout_seconds": 0});
        let [(mut ann, _), (mut ben, _)] = first_round(&server, &clock, ["Ann", "Ben"], settings).await;
        clock.advance(Duration::from_secs(7));
        assert_eq!(ann.submit(1, WRONG).await["accepted"], false);
        clock.advance(Duration::from_secs(3));
        assert_eq!(ann.submit(1, RIGHT).await["accepted"], true);
        let won = ben.recv_type("round_won").await;
        assert_eq!(won["elapsed_ms"], 10_000);

        // Only a round the player solved, and only that round.
        assert_eq!(create(&mut ben, 1).await["code"], "wrong_state");
        assert_eq!(create(&mut ann, 2).await["code"], "wrong_state");
        let made = create(&mut ann, 1).await;
        assert_eq!(made["type"], "challenge", "{made}");
        let code = made["code"].as_str().unwrap().to_owned();

        let (mut cy, _) = server.player("Cy").await;
        cy.send(json!({"type": "challenge_start", "code": code})).await;
        let dealt = cy.recv_type("challenge_hand").await;
        assert_eq!(dealt["by"], "Ann");
        assert_eq!((dealt["objective"].clone(), dealt["cards"].clone()), (json!(15), json!([1, 2, 3, 4, 5])));
        assert_eq!(dealt["rules"], "free");
        assert_eq!(dealt["to_beat"], json!({"elapsed_ms": 10_000, "misses": 1}));
        wall.advance(Duration::from_secs(4));
        cy.send(json!({"type": "challenge_submit", "formula": solve(&dealt)})).await;
        let result = cy.recv_type("challenge_result").await;
        assert_eq!(result["outcome"], "won");

        // Out of the room, its rounds are no longer Ann's to send.
        ann.request(json!({"type": "leave_room"})).await;
        assert_eq!(create(&mut ann, 1).await["code"], "wrong_state");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn under_everyone_scoring_each_solver_can_send_the_round() {
        let (clock, wall) = (ManualClock::new(), WallClock::manual(NOON));
        let server = dealing(&clock, &wall).await;
        let settings = json!({"rounds": 3, "scoring": "everyone"});
        let [(mut ann, _), (mut ben, _), (mut cy, _)] =
            first_round(&server, &clock, ["Ann", "Ben", "Cy"], settings).await;
        clock.advance(Duration::from_secs(4));
        assert_eq!(ann.submit(1, RIGHT).await["accepted"], true);
        clock.advance(Duration::from_secs(5));
        assert_eq!(ben.submit(1, RIGHT).await["accepted"], true);
        assert_eq!(create(&mut cy, 1).await["code"], "wrong_state");
        let code = create(&mut ben, 1).await["code"].as_str().unwrap().to_owned();
        let (mut dee, _) = server.player("Dee").await;
        dee.send(json!({"type": "challenge_start", "code": code})).await;
        let dealt = dee.recv_type("challenge_hand").await;
        assert_eq!((dealt["by"].as_str(), dealt["to_beat"].clone()),
            (Some("Ben"), json!({"elapsed_ms": 9_000, "misses": 0})));
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_profile_shows_the_answers_to_its_challenges_and_the_best_run_of_each_day() {
        let (clock, wall) = (ManualClock::new(), WallClock::manual(NOON));
        let server = dealing(&clock, &wall).await;
        let (status, empty) = server.get_json("/api/players/Ann").await;
        assert_eq!(status, 404, "{empty}");
        let [(mut ann, _), _] = first_round(&server, &clock, ["Ann", "Ben"], json!({"rounds": 3})).await;
        let (_, fresh) = server.get_json("/api/players/Ann").await;
        assert_eq!((fresh["challenges"].clone(), fresh["runs"].clone()), (json!([]), json!([])), "{fresh}");
        clock.advance(Duration::from_secs(6));
        assert_eq!(ann.submit(1, RIGHT).await["accepted"], true);
        let code = create(&mut ann, 1).await["code"].as_str().unwrap().to_owned();

        // Two friends answer, one of them after a miss; a third only looks.
        for (name, wrong_first, seconds) in [("Cy", true, 20), ("Dee", false, 5), ("Eve", false, 0)] {
            let (mut friend, _) = server.player(name).await;
            friend.send(json!({"type": "challenge_start", "code": code})).await;
            let dealt = friend.recv_type("challenge_hand").await;
            if seconds == 0 {
                continue;
            }
            if wrong_first {
                friend.send(json!({"type": "challenge_submit", "formula": WRONG})).await;
                friend.recv_type("verdict").await;
            }
            wall.advance(Duration::from_secs(seconds));
            friend.send(json!({"type": "challenge_submit", "formula": solve(&dealt)})).await;
            friend.recv_type("challenge_result").await;
        }

        // A run with one hand solved, then another day's with none.
        ann.send(json!({"type": "run_start"})).await;
        let run = ann.recv_type("run").await;
        ann.send(json!({"type": "run_submit", "hand": 1, "formula": solve(&run)})).await;
        ann.recv_type("run_hand").await;
        wall.advance(Duration::from_secs(181));
        ann.recv_type("run_over").await;
        wall.advance(Duration::from_secs(24 * 3600));
        ann.send(json!({"type": "run_start"})).await;
        ann.recv_type("run").await;
        wall.advance(Duration::from_secs(181));
        ann.recv_type("run_over").await;

        let (status, profile) = server.get_json("/api/players/Ann").await;
        assert_eq!(status, 200, "{profile}");
        assert_eq!(profile["name"], "Ann");
        assert_eq!(profile["challenges"], json!([{
            "code": code,
            "link": format!("/c/{code}"),
            "date": "2026-03-10",
            "to_beat": {"elapsed_ms": 6_000, "misses": 0},
            "answers": [
                {"name": "Dee", "elapsed_ms": 5_000, "misses": 0},
                {"name": "Cy", "elapsed_ms": 30_000, "misses": 1},
            ],
            "answers_total": 2,
        }]), "{profile}");
        assert_eq!(profile["runs"], json!([
            {"date": "2026-03-11", "score": 0, "misses": 0, "best_combo": 0, "runs": 1},
            {"date": "2026-03-10", "score": 1, "misses": 0, "best_combo": 1, "runs": 1},
        ]), "{profile}");
        server.shutdown().await;
    }
}
