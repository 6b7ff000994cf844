//! `hello`: creating players, proving them by token, and the refusals.

#[macro_use]
mod common;

use common::TestServer;
use serde_json::json;

on_both! {
    #[tokio::test]
    async fn first_hello_creates_a_player_and_the_token_proves_it_later() {
        let server = TestServer::start().await;
        let (_c, welcome) = server.player("Alice").await;
        assert_eq!(welcome["protocol"], 1);
        assert_eq!(welcome["name"], "Alice");
        assert_eq!(welcome["resumed"], false);
        let token = welcome["token"].as_str().unwrap().to_owned();
        assert_eq!(token.len(), 32);
        assert!(welcome["server_version"].is_string());

        let mut again = server.connect().await;
        again
            .send(json!({"type": "hello", "protocol": 1, "name": "alice", "token": token, "id": "h"}))
            .await;
        let w = again.recv().await;
        assert_eq!(w["type"], "welcome", "{w}");
        assert_eq!(w["id"], "h");
        assert_eq!(w["player_id"], welcome["player_id"]);
        assert_eq!(w["name"], "Alice");
        assert_eq!(w["token"], token);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn the_token_alone_is_enough() {
        let server = TestServer::start().await;
        let (_c, welcome) = server.player("Bob").await;
        let mut again = server.connect().await;
        again
            .send(json!({"type": "hello", "protocol": 1, "token": welcome["token"]}))
            .await;
        let w = again.recv().await;
        assert_eq!(w["player_id"], welcome["player_id"], "{w}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_name_is_taken_ignoring_case() {
        let server = TestServer::start().await;
        let (_c, _) = server.player("Carol").await;
        let mut other = server.connect().await;
        other
            .send(json!({"type": "hello", "protocol": 1, "name": "  cAROL "}))
            .await;
        other.expect_error("name_taken").await;
        // The connection stays usable: another name works.
        other
            .send(json!({"type": "hello", "protocol": 1, "name": "Carol2"}))
            .await;
        assert_eq!(other.recv().await["type"], "welcome");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_wrong_token_for_an_existing_name_is_refused() {
        let server = TestServer::start().await;
        let (_c, _) = server.player("Dave").await;
        let mut other = server.connect().await;
        let wrong = "00112233445566778899aabbccddeeff";
        other
            .send(json!({"type": "hello", "protocol": 1, "name": "Dave", "token": wrong}))
            .await;
        other.expect_error("bad_token").await;
        other
            .send(json!({"type": "hello", "protocol": 1, "token": wrong}))
            .await;
        other.expect_error("bad_token").await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn invalid_names_are_refused() {
        let server = TestServer::start().await;
        let mut c = server.connect().await;
        for name in ["", "   ", "semi;colon", "abcdefghijklmnopqrstu", "<script>"] {
            c.send(json!({"type": "hello", "protocol": 1, "name": name}))
                .await;
            c.expect_error("invalid_name").await;
        }
        c.send(json!({"type": "hello", "protocol": 1})).await;
        c.expect_error("invalid_name").await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn another_protocol_version_is_refused() {
        let server = TestServer::start().await;
        let mut c = server.connect().await;
        c.send(json!({"type": "hello", "protocol": 2, "name": "Eve"}))
            .await;
        c.expect_error("unsupported_protocol").await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn nothing_but_hello_and_ping_before_welcome() {
        let server = TestServer::start().await;
        let mut c = server.connect().await;
        c.send(json!({"type": "list_rooms", "id": "x"})).await;
        let e = c.expect_error("not_welcomed").await;
        assert_eq!(e["id"], "x");
        c.send(json!({"type": "join_room", "code": "ABCDE"})).await;
        c.expect_error("not_welcomed").await;
        c.send(json!({"type": "ping"})).await;
        assert_eq!(c.recv().await["type"], "pong");
        c.send(json!({"type": "hello", "protocol": 1, "name": "Frank"}))
            .await;
        assert_eq!(c.recv().await["type"], "welcome");
        c.send(json!({"type": "hello", "protocol": 1, "name": "Frank"}))
            .await;
        c.expect_error("wrong_state").await;
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
        c.send(json!({"type": "hello", "protocol": 1, "name": "grace"}))
            .await;
        c.expect_error("name_taken").await;
        c.send(json!({"type": "hello", "protocol": 1, "name": "Grace", "token": welcome["token"]}))
            .await;
        assert_eq!(c.recv().await["player_id"], welcome["player_id"]);
        server.shutdown().await;
        drop(database);
    }
}
