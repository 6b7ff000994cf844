//! A graceful restart loses no match: the stopping server saves every room
//! (round, time left, scores, lockouts, seats), the next one restores them,
//! and players who come back with their token are in their seats again,
//! mid-round, and the match is recorded as one.

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

/// A server on the database at `url`, dealing `hands` on a clock the test
/// moves.
async fn serving(url: &str, hands: Vec<Deal>, clock: &ManualClock) -> TestServer {
    let (url, clock) = (url.to_owned(), clock.clone());
    TestServer::with_config(move |c| {
        c.database_url = url;
        c.manual_clock = Some(clock);
        c.dealer = DealerFactory(Arc::new(move || {
            Box::new(ScriptedDealer::new(hands.clone()))
        }));
    })
    .await
}

fn deal(objective: i64, hand: &[i64]) -> Deal {
    Deal {
        objective,
        hand: hand.to_vec(),
    }
}

/// Says hello again with the token of `welcome`; returns the connection and
/// the new welcome.
async fn come_back(server: &TestServer, welcome: &Value) -> (Client, Value) {
    let mut c = server.connect().await;
    c.send(
        json!({"type": "hello", "protocol": 1, "name": welcome["name"], "token": welcome["token"]}),
    )
    .await;
    let again = c.recv_type("welcome").await;
    assert_eq!(again["player_id"], welcome["player_id"]);
    (c, again)
}

fn score(state: &Value, player: &Value) -> i64 {
    let players = state["players"].as_array().unwrap();
    players.iter().find(|p| p["id"] == *player).unwrap()["score"]
        .as_i64()
        .unwrap()
}

on_both! {
    #[tokio::test]
    async fn a_graceful_restart_mid_round_loses_no_match() {
        let database = common::fresh_database().await;
        let clock = ManualClock::new();
        let hands = vec![deal(15, &[1, 2, 3, 4, 5]), deal(3, &[1, 2, 3, 4, 5])];
        let server = serving(&database.url, hands.clone(), &clock).await;
        let [(mut ann, wa), (mut ben, wb)] = server.players(["Ann", "Ben"]).await;
        let settings =
            json!({"rounds": 3, "round_seconds": 60, "lockout_seconds": 20, "wrong_penalty": 1});
        let code = ann.host_match(settings, &mut [&mut ben]).await;
        clock.advance(Duration::from_millis(COUNTDOWN_MS));
        ann.recv_type("round_started").await;
        ben.recv_type("round_started").await;

        // Round 1 goes to Ann; round 2 is 10 s old when the server stops,
        // with Ben locked out for 20 s by a wrong answer 5 s ago.
        let win = ann.submit(1, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(win["accepted"], true, "{win}");
        clock.advance(Duration::from_millis(BETWEEN_ROUNDS_MS));
        ann.recv_type("round_started").await;
        ben.recv_type("round_started").await;
        clock.advance(Duration::from_secs(5));
        let wrong = ben.submit(2, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(wrong["accepted"], false, "{wrong}");
        clock.advance(Duration::from_secs(5));

        let mut stopping = server;
        stopping.begin_shutdown();
        assert_eq!(ann.expect_close().await, 1012);
        assert_eq!(ben.expect_close().await, 1012);
        stopping.shutdown().await;

        // The next server deals from a fresh dealer: round 3 is its first hand.
        let clock = ManualClock::new();
        let server = serving(&database.url, hands, &clock).await;
        let (mut ann, welcome) = come_back(&server, &wa).await;
        assert_eq!(welcome["resumed"], true, "{welcome}");
        let state = ann.recv_type("room_state").await;
        assert_eq!(state["code"], code.as_str());
        assert_eq!(state["state"], "playing");
        assert_eq!(state["round"]["number"], 2);
        assert_eq!(state["round"]["objective"], 3);
        assert_eq!(state["round"]["remaining_ms"], 50_000, "the time it had left");
        assert_eq!(score(&state, &wa["player_id"]), 1);
        assert_eq!(score(&state, &wb["player_id"]), -1);
        let (mut ben, welcome) = come_back(&server, &wb).await;
        assert_eq!(welcome["resumed"], true, "{welcome}");
        let state = ben.recv_type("room_state").await;
        assert_eq!(state["round"]["locked_out_ms"], 15_000, "the lockout it had left");

        // Ben is still locked out; once it ends he wins round 2.
        let locked = ben.submit(2, "(5 - 4) × 3 ÷ (2 - 1)").await;
        assert_eq!(locked["error"]["kind"], "locked_out", "{locked}");
        clock.advance(Duration::from_secs(15));
        let win = ben.submit(2, "(5 - 4) × 3 ÷ (2 - 1)").await;
        assert_eq!(win["accepted"], true, "{win}");
        clock.advance(Duration::from_millis(BETWEEN_ROUNDS_MS));
        let third = ann.recv_type("round_started").await;
        assert_eq!(third["round"], 3);
        let win = ann.submit(3, "1 + 2 + 3 + 4 + 5").await;
        assert_eq!(win["accepted"], true, "{win}");
        let over = ben.recv_type("match_over").await;
        let standings = over["standings"].as_array().unwrap();
        assert_eq!(standings[0]["player"], wa["player_id"]);
        assert_eq!(standings[0]["score"], 2);

        // One match, finished, with its three rounds.
        let mut db = server.raw().await;
        let matches: Vec<(String, i64)> = db
            .rows("SELECT status, rounds_played FROM matches")
            .await;
        assert_eq!(matches, vec![("finished".to_owned(), 3)]);
        let (rounds,): (i64,) = db.one("SELECT count(*) FROM rounds").await;
        assert_eq!(rounds, 3);
        let (saved,): (i64,) = db.one("SELECT count(*) FROM saved_rooms").await;
        assert_eq!(saved, 0, "a restored room is taken from the table");
        server.shutdown().await;
        drop(database);
    }

    #[tokio::test]
    async fn a_lobby_with_a_spectator_comes_back_and_an_empty_one_does_not() {
        let database = common::fresh_database().await;
        let clock = ManualClock::new();
        let server = serving(&database.url, vec![deal(15, &[1, 2, 3, 4, 5])], &clock).await;
        let [(mut ann, wa), (mut cat, wc)] = server.players(["Ann", "Cat"]).await;
        let state = ann
            .request(json!({"type": "create_room", "public": true, "settings": {"rounds": 2}}))
            .await;
        let code = state["code"].as_str().unwrap().to_owned();
        let watched = cat
            .request(json!({"type": "join_room", "code": code, "spectator": true}))
            .await;
        assert_eq!(watched["type"], "room_state", "{watched}");
        // Dan's room empties before the stop: nothing to save.
        let (mut dan, _) = server.player("Dan").await;
        dan.request(json!({"type": "create_room"})).await;
        dan.request(json!({"type": "leave_room"})).await;
        server.shutdown().await;

        let server = serving(&database.url, vec![deal(15, &[1, 2, 3, 4, 5])], &clock).await;
        let (mut ann, welcome) = come_back(&server, &wa).await;
        assert_eq!(welcome["resumed"], true);
        let state = ann.recv_type("room_state").await;
        assert_eq!(state["state"], "lobby");
        assert_eq!(state["host"], wa["player_id"]);
        let (mut cat, welcome) = come_back(&server, &wc).await;
        assert_eq!(welcome["resumed"], true);
        let state = cat.recv_type("room_state").await;
        let me = common::member(&state, &wc["player_id"]).unwrap();
        assert_eq!(me["spectator"], true, "{state}");
        // The host starts the match on the new server.
        let started = ann.request(json!({"type": "start"})).await;
        assert_eq!(started["state"], "countdown", "{started}");
        let rooms = ann.request(json!({"type": "list_rooms"})).await;
        assert_eq!(rooms["rooms"].as_array().unwrap().len(), 1, "{rooms}");
        server.shutdown().await;
        drop(database);
    }
}
