//! A client that never reads does not hold up the others; whole matches.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use common::scripted::one_hand;
use common::{Client, TestServer};
use serde_json::{json, Value};
use tokio::net::TcpSocket;

async fn create(c: &mut Client, settings: Value) -> String {
    let state = c
        .request(json!({"type": "create_room", "settings": settings}))
        .await;
    state["code"].as_str().unwrap().to_owned()
}

on_both! {
    #[tokio::test]
    async fn a_client_that_never_reads_is_disconnected_and_others_carry_on() {
        let server = TestServer::with_config(|c| {
            one_hand(c);
            c.outgoing_queue = 16;
            c.message_burst = 100_000;
            c.message_refill_per_sec = 100_000;
            c.frame_burst = 100_000;
            c.frame_refill_per_sec = 100_000;
        })
        .await;
        let [(mut a, _), (mut b, _)] = server.players(["Ann", "Ben"]).await;
        let code = create(&mut a, json!({})).await;
        b.request(json!({"type": "join_room", "code": code})).await;

        // Carl's socket has a tiny receive buffer and he never reads.
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(2048).unwrap();
        let stream = socket.connect(server.addr).await.unwrap();
        let (ws, _) = tokio_tungstenite::client_async(
            server.url(),
            tokio_tungstenite::MaybeTlsStream::Plain(stream),
        )
        .await
        .unwrap();
        let mut carl = Client { ws };
        carl.send(json!({"type": "hello", "protocol": 1, "name": "Carl"}))
            .await;
        carl.send(json!({"type": "join_room", "code": code})).await;
        // The others learn of a joiner by a small `player_joined`.
        let carl_id = loop {
            let joined = a.recv_type("player_joined").await;
            if joined["name"] == "Carl" {
                break joined["player"].clone();
            }
        };

        // Ben reads everything, in his own task.
        let ben = tokio::spawn(async move {
            let mut seen = 0u32;
            loop {
                let v = b.recv().await;
                if v["type"] == "room_state" {
                    seen += 1;
                    let carl = common::member(&v, &carl_id);
                    if carl.is_some_and(|c| c["connected"] == false) {
                        return seen;
                    }
                }
            }
        });

        // Ann floods the room with settings changes (each sends every member a
        // room_state) until Carl's queue overflows.
        let mut carl_dropped = false;
        for i in 0..20_000u32 {
            let rounds = 1 + i % 50;
            let st = a
                .request(json!({"type": "update_settings", "settings": {"rounds": rounds}}))
                .await;
            assert_eq!(st["type"], "room_state", "{st}");
            if ben.is_finished() {
                carl_dropped = true;
                break;
            }
        }
        assert!(
            carl_dropped,
            "the non-reading client was never disconnected"
        );
        let seen = ben.await.unwrap();
        assert!(seen > 0);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_match_of_timed_out_rounds_ends_with_standings() {
        let server = TestServer::with_config(one_hand).await;
        let [(mut a, wa), (mut b, wb), (mut c, _)] = server.players(["Ann", "Ben", "Cat"]).await;
        a.host_match(json!({"rounds": 2, "round_seconds": 10}), &mut [&mut b, &mut c])
            .await;
        for round in 1..=2 {
            let started = b.recv_type("round_started").await;
            assert_eq!(started["round"], round);
            let out = b.recv_type("round_timed_out").await;
            assert_eq!(out["round"], round);
        }
        let over = c.recv_type("match_over").await;
        let standings = over["standings"].as_array().unwrap();
        assert_eq!(standings.len(), 3);
        let ids: Vec<&Value> = standings.iter().map(|s| &s["player"]).collect();
        assert!(ids.contains(&&wa["player_id"]) && ids.contains(&&wb["player_id"]));
        assert!(standings.iter().all(|s| s["rank"] == 1 && s["score"] == 0));
        // A rematch asks everyone first: the host is ready, Ben and Cat say
        // so, and the last one ready starts it.
        let check = a.request(json!({"type": "start"})).await;
        assert_eq!(check["type"], "ready_check", "{check}");
        assert_eq!(check["ready"], json!([wa["player_id"]]));
        assert_eq!(b.recv_type("ready_check").await["ms"], 15_000);
        c.recv_type("ready_check").await;
        let ready = b.request(json!({"type": "ready"})).await;
        assert_eq!(ready["type"], "player_ready", "{ready}");
        assert_eq!(ready["player"], wb["player_id"]);
        c.send(json!({"type": "ready"})).await;
        for client in [&mut a, &mut b, &mut c] {
            client.recv_type("match_started").await;
        }
        // Outside a check, `ready` is refused.
        b.send(json!({"type": "ready"})).await;
        assert_eq!(b.recv_type("error").await["code"], "wrong_state");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn reactions_float_to_the_whole_room_and_nothing_else_passes() {
        let server = TestServer::with_config(one_hand).await;
        let [(mut a, _), (mut b, _)] = server.players(["Ann", "Ben"]).await;
        let code = create(&mut a, json!({})).await;
        b.request(json!({"type": "join_room", "code": code, "spectator": true})).await;
        b.send(json!({"type": "react", "emoji": "👏"})).await;
        let seen = a.recv_type("reaction").await;
        assert_eq!(seen["emoji"], "👏");
        assert_eq!(seen["name"], "Ben");
        b.recv_type("reaction").await;
        a.send(json!({"type": "react", "emoji": "<img src=x onerror=alert(1)>"})).await;
        a.expect_error("bad_message").await;
        // Four go through; the fifth within the window is refused.
        for _ in 0..5 {
            a.send(json!({"type": "react", "emoji": "🔥"})).await;
        }
        let refused = a.recv_type("error").await;
        assert_eq!(refused["code"], "rate_limited", "{refused}");
        let mut seen = 0;
        while seen < 4 {
            let m = b.recv().await;
            seen += usize::from(m["type"] == "reaction" && m["emoji"] == "🔥");
        }
        server.shutdown().await;
    }
}
