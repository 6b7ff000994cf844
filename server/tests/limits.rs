//! Bad input, limits and the life cycle: nothing a client sends crashes the
//! server or stalls others; only abuse closes a connection.

#[macro_use]
mod common;

use std::time::Duration;

use common::{hello_again, Event, TestServer};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

on_both! {
    #[tokio::test]
    async fn healthz_answers_ok_with_the_version() {
        let server = TestServer::start().await;
        let (status, body) = server.get("/healthz").await;
        assert!(status.contains("200"), "{status}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["status"], "ok");
        assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
        server.shutdown().await;
    }

    #[tokio::test]
    async fn malformed_messages_get_typed_errors_and_the_connection_stays_usable() {
        let server = TestServer::start().await;
        let (mut c, _) = server.player("Ann").await;
        c.send_raw(Message::text("{not json")).await;
        c.expect_error("bad_message").await;
        c.send_raw(Message::text("[1,2]")).await;
        c.expect_error("bad_message").await;
        c.send(json!({"type": "teleport", "id": "t"})).await;
        let e = c.expect_error("bad_message").await;
        assert_eq!(e["id"], "t");
        c.send(json!({"type": "join_room"})).await;
        c.expect_error("bad_message").await;
        c.send(json!({"type": "submit", "round": "one", "formula": 3}))
            .await;
        c.expect_error("bad_message").await;
        c.send_raw(Message::binary(vec![1u8, 2, 3])).await;
        c.expect_error("bad_message").await;
        // Out of order: room messages outside a room.
        c.send(json!({"type": "submit", "round": 1, "formula": "1+2"}))
            .await;
        c.expect_error("not_in_room").await;
        c.send(json!({"type": "start"})).await;
        c.expect_error("not_in_room").await;
        // Still usable.
        let pong = c.request(json!({"type": "ping"})).await;
        assert_eq!(pong["type"], "pong");
        let lb = c.request(json!({"type": "leaderboard"})).await;
        assert_eq!(lb["type"], "leaderboard");
        assert_eq!(lb["rows"], json!([]));
        server.shutdown().await;
    }

    #[tokio::test]
    async fn an_oversized_frame_closes_with_1009() {
        let server = TestServer::start().await;
        let (mut c, _) = server.player("Big").await;
        let huge = json!({"type": "chat", "text": "x".repeat(20 * 1024)});
        c.send(huge).await;
        assert_eq!(c.expect_close().await, 1009);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn no_hello_in_time_closes_with_1008() {
        let server =
            TestServer::with_config(|c| c.handshake_timeout = Duration::from_millis(200)).await;
        let mut c = server.connect().await;
        c.expect_error("not_welcomed").await;
        assert_eq!(c.expect_close().await, 1008);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn flooding_is_rate_limited_then_closed() {
        // No refill, so the test does not depend on how fast it runs.
        let server = TestServer::with_config(|c| {
            c.message_burst = 5;
            c.message_refill_per_sec = 0;
            c.max_rate_strikes = 3;
        })
        .await;
        let (mut c, _) = server.player("Flood").await; // hello spends one credit
        for _ in 0..10 {
            c.send(json!({"type": "ping"})).await;
        }
        let mut pongs = 0;
        let mut limited = 0;
        let code = loop {
            match c.next_event().await {
                Event::Json(v) if v["type"] == "pong" => pongs += 1,
                Event::Json(v) if v["code"] == "rate_limited" => limited += 1,
                Event::Json(v) => panic!("unexpected {v}"),
                Event::Close(frame) => break frame.map(|f| u16::from(f.code)),
                Event::Gone => panic!("closed without a close frame"),
            }
        };
        assert_eq!(pongs, 4);
        assert_eq!(limited, 3);
        assert_eq!(code, Some(1008));
        server.shutdown().await;
    }

    #[tokio::test]
    async fn guessing_room_codes_is_rate_limited_then_closed() {
        let server = TestServer::with_config(|c| {
            c.max_code_misses = 3;
            c.max_guess_strikes = 2;
        })
        .await;
        let (mut c, _) = server.player("Guesser").await;
        let guess = json!({"type": "join_room", "code": "ZZZZZ"});
        for _ in 0..3 {
            c.refused(guess.clone(), "room_not_found").await;
        }
        for _ in 0..2 {
            c.refused(guess.clone(), "rate_limited").await;
        }
        c.refused(guess, "rate_limited").await;
        assert_eq!(c.expect_close().await, 1008);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn graceful_shutdown_says_the_server_is_restarting() {
        let mut server = TestServer::start().await;
        let (mut a, _) = server.player("Stay").await;
        let mut b = server.connect().await;
        server.begin_shutdown();
        for c in [&mut a, &mut b] {
            let frame = loop {
                match c.next_event().await {
                    Event::Json(_) => continue,
                    Event::Close(frame) => break frame.expect("a close frame"),
                    Event::Gone => panic!("closed without a close frame"),
                }
            };
            assert_eq!(u16::from(frame.code), 1012, "service restart");
            assert!(frame.reason.contains("restarting"), "{}", frame.reason);
        }
        server.shutdown().await;
    }

    #[tokio::test]
    async fn the_connection_cap_holds_new_connections_until_one_closes() {
        let server = TestServer::with_config(|c| c.max_connections = 1).await;
        let (a, _) = server.player("Only").await;
        let url = server.url();
        let waiting = tokio::spawn(async move { tokio_tungstenite::connect_async(url).await });
        // The second connection is not served while the first is open (this
        // can only pass wrongly, never fail wrongly).
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(a);
        let (ws, _) = tokio::time::timeout(common::PATIENCE, waiting)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        drop(ws);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_newer_connection_replaces_the_older_one() {
        let server = TestServer::start().await;
        let (mut old, welcome) = server.player("Twice").await;
        let _new = server.player_with(hello_again(&welcome)).await;
        assert_eq!(old.expect_close().await, 1000);
        server.shutdown().await;
    }
}
