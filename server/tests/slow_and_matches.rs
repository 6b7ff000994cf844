//! A client that never reads does not hold up the others; whole matches.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::sync::Arc;

use common::{Client, TestServer};
use krypto_core::cards::Deal;
use krypto_core::room::ScriptedDealer;
use krypto_server::config::DealerFactory;
use serde_json::{json, Value};
use tokio::net::TcpSocket;

fn scripted(c: &mut krypto_server::Config) {
    c.room_time_scale = 100;
    c.dealer = DealerFactory(Arc::new(|| {
        Box::new(ScriptedDealer::new(vec![Deal {
            objective: 15,
            hand: vec![1, 2, 3, 4, 5],
        }]))
    }));
}

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
            scripted(c);
            c.outgoing_queue = 16;
            c.message_burst = 100_000;
            c.message_refill_per_sec = 100_000;
            c.frame_burst = 100_000;
            c.frame_refill_per_sec = 100_000;
        })
        .await;
        let (mut a, _) = server.player("Ann").await;
        let (mut b, _) = server.player("Ben").await;
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
                    let carl = v["players"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|p| p["id"] == carl_id)
                        .cloned();
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
        let server = TestServer::with_config(scripted).await;
        let (mut a, wa) = server.player("Ann").await;
        let (mut b, wb) = server.player("Ben").await;
        let (mut c, _) = server.player("Cat").await;
        let code = create(&mut a, json!({"rounds": 2, "round_seconds": 10})).await;
        b.request(json!({"type": "join_room", "code": code})).await;
        c.request(json!({"type": "join_room", "code": code})).await;
        a.request(json!({"type": "start"})).await;
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
        // Back in the lobby state: a rematch can start.
        let rematch = a.request(json!({"type": "start"})).await;
        assert_ne!(rematch["code"], "wrong_state", "{rematch}");
        server.shutdown().await;
    }
}
