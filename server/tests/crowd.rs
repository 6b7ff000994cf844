//! A crowd of new players arriving at once: every `hello` creates its
//! player through the recorder's group commit, so hundreds of them at the
//! same moment are all welcomed, each with an id of its own, and two
//! players racing for one new name get it once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use common::TestServer;
use serde_json::json;

/// New players saying hello together. (Each is two descriptors in this
/// process — client and server side — and the two backends' copies may run
/// at once: 200 keeps well under the usual soft limit of 1,024.)
const CROWD: usize = 200;

on_both! {
    #[tokio::test]
    async fn a_crowd_of_new_players_is_welcomed_at_once() {
        // A crowd comes from many addresses; here every socket is 127.0.0.1.
        let server = TestServer::with_config(lift_address_limits).await;
        let mut clients = Vec::with_capacity(CROWD);
        for _ in 0..CROWD {
            clients.push(server.connect().await);
        }
        // Every hello is sent before any answer is read.
        for (i, c) in clients.iter_mut().enumerate() {
            c.send(json!({"type": "hello", "protocol": 1, "name": format!("crowd{i}")}))
                .await;
        }
        let mut ids = Vec::with_capacity(CROWD);
        for (i, c) in clients.iter_mut().enumerate() {
            let welcome = c.recv().await;
            assert_eq!(welcome["type"], "welcome", "{welcome}");
            assert_eq!(welcome["name"], format!("crowd{i}"));
            ids.push(welcome["player_id"].as_i64().unwrap());
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), CROWD, "every player has an id of their own");
        let mut db = server.raw().await;
        let (stored,): (i64,) = db.one("SELECT count(*) FROM players").await;
        assert_eq!(stored, CROWD as i64);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn two_players_racing_for_a_new_name_get_it_once() {
        // A crowd comes from many addresses; here every socket is 127.0.0.1.
        let server = TestServer::with_config(lift_address_limits).await;
        for round in 0..20 {
            let name = format!("Race{round}");
            let mut a = server.connect().await;
            let mut b = server.connect().await;
            let hello = json!({"type": "hello", "protocol": 1, "name": name});
            a.send(hello.clone()).await;
            b.send(hello).await;
            let (ra, rb) = (a.recv().await, b.recv().await);
            let mut types = [ra["type"].clone(), rb["type"].clone()];
            types.sort_by_key(|t| t.to_string());
            assert_eq!(types, [json!("error"), json!("welcome")], "{ra} {rb}");
            let error = if ra["type"] == "error" { &ra } else { &rb };
            assert_eq!(error["code"], "name_taken", "{error}");
        }
        server.shutdown().await;
    }
}

/// The per-address limits off: this test is about the database, not them.
fn lift_address_limits(config: &mut krypto_server::Config) {
    config.max_connections_per_ip = 0;
    config.max_new_accounts = 0;
}
