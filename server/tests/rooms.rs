//! Rooms over real sockets: lobby, roster, host controls, rounds, resuming.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use common::scripted::{one_hand, one_hand_on};
use common::{column, hello_again, Client, TestServer};
use krypto_core::room::COUNTDOWN_MS;
use krypto_server::ManualClock;
use serde_json::{json, Value};
use std::time::Duration;

/// A server whose rooms deal 1 2 3 4 5 → 15 every round and whose room
/// clocks run 100× fast (a 3 s countdown takes 30 ms of the test's time).
async fn fast_server() -> TestServer {
    TestServer::with_config(one_hand).await
}

async fn create(c: &mut Client, settings: Value) -> String {
    let state = c
        .request(json!({"type": "create_room", "settings": settings}))
        .await;
    assert_eq!(state["type"], "room_state", "{state}");
    state["code"].as_str().unwrap().to_owned()
}

async fn join(c: &mut Client, code: &str, spectator: bool) -> Value {
    c.request(json!({"type": "join_room", "code": code, "spectator": spectator}))
        .await
}

on_both! {
    #[tokio::test]
    async fn rooms_are_created_listed_and_joined() {
        let server = fast_server().await;
        let [(mut a, wa), (mut b, wb)] = server.players(["Ann", "Ben"]).await;
        let code = create(&mut a, json!({"public": true})).await;
        assert_eq!(code.len(), 5);
        let (mut p, _) = server.player("Pia").await;
        let private = create(&mut p, json!({})).await;

        let rooms = b.request(json!({"type": "list_rooms"})).await;
        let listed = column(&rooms["rooms"], "code");
        assert_eq!(listed, vec![code.as_str()]);
        assert!(!listed.contains(&private.as_str()));

        let state = join(&mut b, &code.to_lowercase(), false).await;
        assert_eq!(state["type"], "room_state", "{state}");
        assert_eq!(state["host"], wa["player_id"]);
        assert_eq!(state["players"].as_array().unwrap().len(), 2);
        let joined = a.recv_type("player_joined").await;
        assert_eq!(joined["player"], wb["player_id"]);

        b.send(json!({"type": "join_room", "code": private})).await;
        b.expect_error("already_in_room").await;
        b.send(json!({"type": "create_room"})).await;
        b.expect_error("already_in_room").await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn full_locked_and_spectators() {
        let server = fast_server().await;
        let [(mut a, _), (mut b, _), (mut c, _), (mut s, _)] =
            server.players(["Ann", "Ben", "Cat", "Sam"]).await;
        let code = create(&mut a, json!({"max_players": 2})).await;
        assert_eq!(join(&mut b, &code, false).await["type"], "room_state");
        let full = join(&mut c, &code, false).await;
        assert_eq!(full["code"], "room_full", "{full}");
        // Spectators do not take seats.
        assert_eq!(join(&mut s, &code, true).await["type"], "room_state");

        let refused = b.request(json!({"type": "lock", "locked": true})).await;
        assert_eq!(refused["code"], "not_host");
        a.request(json!({"type": "lock", "locked": true})).await;
        let (mut d, _) = server.player("Dan").await;
        // A locked room answers a stranger exactly as a room that does not exist.
        let locked = join(&mut d, &code, true).await;
        let other = if code == "ZZZZZ" { "YYYYY" } else { "ZZZZZ" };
        let missing = join(&mut d, other, true).await;
        assert_eq!(locked["code"], "room_not_found", "{locked}");
        assert_eq!(
            (&locked["code"], &locked["message"]),
            (&missing["code"], &missing["message"])
        );
        server.shutdown().await;
    }

    #[tokio::test]
    async fn kicked_players_are_told_and_cannot_return() {
        let server = fast_server().await;
        let ([(mut a, _), (mut b, wb)], code) = server.seated(["Ann", "Ben"], json!({})).await;
        a.send(json!({"type": "kick", "player": wb["player_id"]}))
            .await;
        let left = b.recv_type("player_left").await;
        assert_eq!(left["reason"], "kicked");
        let again = join(&mut b, &code, false).await;
        assert_eq!(again["code"], "room_locked", "{again}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn when_the_host_leaves_the_longest_seated_player_hosts() {
        let server = fast_server().await;
        let ([(mut a, _), (_b, wb), (mut c, _)], _) =
            server.seated(["Ann", "Ben", "Cat"], json!({})).await;
        a.request(json!({"type": "leave_room"})).await;
        let state = loop {
            let s = c.recv_type("room_state").await;
            if s["players"].as_array().unwrap().len() == 2 {
                break s;
            }
        };
        assert_eq!(state["host"], wb["player_id"]);
        // Ann is free to create another room.
        create(&mut a, json!({})).await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_round_wrong_answers_lockouts_and_refusals() {
        // Room time moves only when the test says: the lockout cannot run out
        // before the "still locked out" request arrives, however slow the machine.
        let clock = ManualClock::new();
        let server = one_hand_on(&clock).await;
        let [(mut a, _), (mut b, wb), (mut s, _)] = server.players(["Ann", "Ben", "Sam"]).await;
        let code = create(&mut a, json!({"round_seconds": 600})).await;
        join(&mut b, &code, false).await;
        join(&mut s, &code, true).await;

        let refused = b.request(json!({"type": "start"})).await;
        assert_eq!(refused["code"], "not_host");
        a.request(json!({"type": "start"})).await;
        let started = b.recv_type("match_started").await;
        assert_eq!(started["rounds_total"], 10);
        clock.advance(Duration::from_millis(COUNTDOWN_MS));
        let round = b.recv_type("round_started").await;
        assert_eq!(round["round"], 1);
        assert_eq!(round["objective"], 15);
        assert_eq!(round["cards"], json!([1, 2, 3, 4, 5]));
        a.recv_type("round_started").await;
        s.recv_type("round_started").await;

        let again = a.request(json!({"type": "start"})).await;
        assert_eq!(again["code"], "wrong_state");
        let wrong_round = b.submit(7, "1+2+3+4+5").await;
        assert_eq!(wrong_round["code"], "wrong_round");
        let spectator = s.submit(1, "1+2+3+4+5").await;
        assert_eq!(spectator["code"], "not_a_player");

        let verdict = b.submit(1, "1+2+3+4*5").await;
        assert_eq!(verdict["type"], "verdict", "{verdict}");
        assert_eq!(verdict["accepted"], false);
        assert!(verdict["error"]["kind"].is_string());
        assert!(verdict["locked_out_ms"].as_u64().unwrap() > 0);
        let failed = a.recv_type("attempt_failed").await;
        assert_eq!(failed["player"], wb["player_id"]);
        assert!(failed.get("formula").is_none());
        let failed = s.recv_type("attempt_failed").await;
        assert_eq!(failed["player"], wb["player_id"]);

        let locked = b.submit(1, "1+2+3+4+5").await;
        assert_eq!(locked["error"]["kind"], "locked_out", "{locked}");
        // Once the lockout has passed, Ben's answer is judged again.
        clock.advance(Duration::from_millis(
            verdict["locked_out_ms"].as_u64().unwrap(),
        ));
        let judged = b.submit(1, "1+2+3+4+5").await;
        assert_eq!(judged["accepted"], true, "{judged}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_player_who_reconnects_mid_round_gets_their_seat_score_and_clock() {
        let server = fast_server().await;
        let ([(mut a, _), (mut b, wb)], code) =
            server.seated(["Ann", "Ben"], json!({"round_seconds": 600})).await;
        a.request(json!({"type": "start"})).await;
        b.recv_type("round_started").await;
        drop(b);
        let gone = loop {
            let st = a.recv_type("room_state").await;
            let ben = common::member(&st, &wb["player_id"]).unwrap();
            if ben["connected"] == false {
                break ben;
            }
        };
        assert_eq!(gone["score"], 0);

        let (mut b, welcome) = server.player_with(hello_again(&wb)).await;
        assert_eq!(welcome["resumed"], true, "{welcome}");
        let state = b.recv_type("room_state").await;
        assert_eq!(state["code"], code);
        assert_eq!(state["state"], "playing");
        let round = &state["round"];
        assert_eq!(round["number"], 1);
        assert_eq!(round["cards"], json!([1, 2, 3, 4, 5]));
        let remaining = round["remaining_ms"].as_u64().unwrap();
        assert!(remaining > 0 && remaining <= 600_000, "{round}");
        // Back in the race.
        let v = b.submit(1, "5-4").await;
        assert_eq!(v["type"], "verdict", "{v}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn chat_reaches_the_room() {
        let server = fast_server().await;
        let ([(mut a, wa), (mut b, _)], _) = server.seated(["Ann", "Ben"], json!({})).await;
        a.send(json!({"type": "chat", "text": "hi all"})).await;
        let chat = b.recv_type("chat").await;
        assert_eq!(chat["from"], wa["player_id"]);
        assert_eq!(chat["text"], "hi all");
        let long = a
            .request(json!({"type": "chat", "text": "x".repeat(201)}))
            .await;
        assert_eq!(long["code"], "too_long");
        server.shutdown().await;
    }
}
