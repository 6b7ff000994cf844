//! `hello`: creating players, proving them by token, and the refusals.

#[macro_use]
mod common;

use common::{hello, hello_again, Client, TestServer};
use serde_json::{json, Value};

/// A server where `name` has just said hello (and stays connected): the
/// server, that player's connection and welcome.
async fn with_player(name: &str) -> (TestServer, Client, Value) {
    let server = TestServer::start().await;
    let (c, welcome) = server.player(name).await;
    (server, c, welcome)
}

/// A server and a connection to it that has not said hello.
async fn before_hello() -> (TestServer, Client) {
    let server = TestServer::start().await;
    let c = server.connect().await;
    (server, c)
}

on_both! {
    #[tokio::test]
    async fn first_hello_creates_a_player_and_the_token_proves_it_later() {
        let (server, _c, welcome) = with_player("Alice").await;
        assert_eq!(welcome["protocol"], 1);
        assert_eq!(welcome["name"], "Alice");
        assert_eq!(welcome["resumed"], false);
        let token = welcome["token"].as_str().unwrap().to_owned();
        assert_eq!(token.len(), 32);
        assert!(welcome["server_version"].is_string());

        let (_again, w) = server
            .player_with(json!({"type": "hello", "protocol": 1, "name": "alice", "token": token, "id": "h"}))
            .await;
        assert_eq!(w["id"], "h");
        assert_eq!(w["player_id"], welcome["player_id"]);
        assert_eq!(w["name"], "Alice");
        assert_eq!(w["token"], token);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn the_token_alone_is_enough() {
        let (server, _c, welcome) = with_player("Bob").await;
        let (_again, w) = server.player_with(hello_again(&welcome)).await;
        assert_eq!(w["player_id"], welcome["player_id"], "{w}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_name_is_taken_ignoring_case() {
        let (server, _c, _) = with_player("Carol").await;
        let mut other = server.connect().await;
        other.refused(hello("  cAROL "), "name_taken").await;
        // The connection stays usable: another name works.
        other.welcomed(hello("Carol2")).await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_wrong_token_for_an_existing_name_is_refused() {
        let (server, _c, _) = with_player("Dave").await;
        let mut other = server.connect().await;
        let wrong = "00112233445566778899aabbccddeeff";
        other
            .refused(json!({"type": "hello", "protocol": 1, "name": "Dave", "token": wrong}), "bad_token")
            .await;
        other
            .refused(json!({"type": "hello", "protocol": 1, "token": wrong}), "bad_token")
            .await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn invalid_names_are_refused() {
        let (server, mut c) = before_hello().await;
        for name in ["", "   ", "semi;colon", "abcdefghijklmnopqrstu", "<script>"] {
            c.refused(hello(name), "invalid_name").await;
        }
        c.refused(json!({"type": "hello", "protocol": 1}), "invalid_name").await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn another_protocol_version_is_refused() {
        let (server, mut c) = before_hello().await;
        c.refused(json!({"type": "hello", "protocol": 2, "name": "Eve"}), "unsupported_protocol")
            .await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn nothing_but_hello_and_ping_before_welcome() {
        let (server, mut c) = before_hello().await;
        c.send(json!({"type": "list_rooms", "id": "x"})).await;
        let e = c.expect_error("not_welcomed").await;
        assert_eq!(e["id"], "x");
        c.refused(json!({"type": "join_room", "code": "ABCDE"}), "not_welcomed").await;
        c.send(json!({"type": "ping"})).await;
        assert_eq!(c.recv().await["type"], "pong");
        let (mut c, _) = c.welcomed(hello("Frank")).await;
        c.refused(hello("Frank"), "wrong_state").await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn players_survive_a_restart_of_the_server() {
        // One database of the running backend, kept across the two servers.
        let database = common::fresh_database().await;
        let url = database.url.clone();
        let server = TestServer::with_config(|c| c.database_url = url.clone()).await;
        let (_c, welcome) = server.player("Grace").await;
        server.shutdown().await;

        let server = TestServer::with_config(|c| c.database_url = url.clone()).await;
        let mut c = server.connect().await;
        c.refused(hello("grace"), "name_taken").await;
        let (_c, back) = c
            .welcomed(json!({"type": "hello", "protocol": 1, "name": "Grace", "token": welcome["token"]}))
            .await;
        assert_eq!(back["player_id"], welcome["player_id"]);
        server.shutdown().await;
        drop(database);
    }
}
