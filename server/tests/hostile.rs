//! Attacks replayed over real sockets: each is refused or harmless, and the
//! other players notice nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::time::Duration;

use common::{hello, hello_again, Client, TestServer, PATIENCE};
use futures_util::{Future, SinkExt};
use krypto_core::formula::MAX_LEN;
use krypto_core::protocol::ROOMS_PAGE;
use krypto_core::room::ATTEMPT_BURST;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::Message;

async fn create(c: &mut Client) -> String {
    let state = c.request(json!({"type": "create_room"})).await;
    assert_eq!(state["type"], "room_state", "{state}");
    state["code"].as_str().unwrap().to_owned()
}

/// One raw HTTP/1.1 request; the status code and the body.
async fn http(server: &TestServer, request: &str) -> (u16, String) {
    let out = String::from_utf8(common::http_raw(server.addr, request).await).unwrap();
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = out.split("\r\n\r\n").nth(1).unwrap_or_default().to_owned();
    (status, body)
}

/// Whether the server closes `stream` (reads to the end) before PATIENCE.
async fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout(PATIENCE, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

/// Opens a WebSocket that claims, through `X-Forwarded-For`, to come from `ip`.
async fn connect_as(
    server: &TestServer,
    ip: &str,
) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
    common::connect_forwarded(&server.url(), ip).await
}

/// A server behind a proxy on loopback (it believes `X-Forwarded-For`),
/// with `tweak` applied to its configuration.
async fn behind_a_proxy(tweak: impl FnOnce(&mut krypto_server::Config)) -> TestServer {
    TestServer::with_config(|c| {
        c.trusted_proxies = vec!["127.0.0.0/8".parse().unwrap()];
        tweak(c);
    })
    .await
}

/// A server [`behind_a_proxy`] that lets each address hold one connection.
async fn one_connection_per_address(tweak: impl FnOnce(&mut krypto_server::Config)) -> TestServer {
    behind_a_proxy(|c| {
        c.max_connections_per_ip = 1;
        tweak(c);
    })
    .await
}

/// The HTTP status a WebSocket claiming to come from `ip` is refused with;
/// `what` says which socket it was, should it be let in.
async fn refused_from(server: &TestServer, ip: &str, what: &str) -> u16 {
    match connect_as(server, ip).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => response.status().as_u16(),
        other => panic!("{what}: {:?}", other.map(|_| ())),
    }
}

/// Connects with `connect` until the server lets the socket in (it may not
/// have seen a close that gave a place back yet), within [`PATIENCE`].
async fn until_accepted<F>(mut connect: impl FnMut() -> F) -> Client
where
    F: Future<Output = Result<Client, tokio_tungstenite::tungstenite::Error>>,
{
    let retry = async {
        loop {
            if let Ok(c) = connect().await {
                break c;
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(PATIENCE, retry).await.unwrap()
}

fn assert_json_error(status: u16, body: &str, want_status: u16, want_code: &str) -> Value {
    assert_eq!(status, want_status, "{body}");
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    assert_eq!(v["error"]["code"], want_code, "{v}");
    assert!(v["error"]["message"].is_string(), "{v}");
    v
}

on_both! {
    #[tokio::test]
    async fn puppets_typing_one_plus_one_rate_nobody_and_rank_no_farmer() {
        // The default board: 3 rated matches against 3 different people.
        let server = TestServer::with_config(common::scripted::one_hand).await;
        let (mut farmer, _) = server.player("Farmer").await;
        let mut puppets = Vec::new();
        for name in ["PupA", "PupB", "PupC"] {
            puppets.push(server.player(name).await.0);
        }
        let state = farmer
            .request(json!({"type": "create_room", "settings": {"rounds": 1, "round_seconds": 10}}))
            .await;
        let code = state["code"].as_str().unwrap().to_owned();
        for p in &mut puppets {
            p.request(json!({"type": "join_room", "code": code})).await;
        }
        for _ in 0..3 {
            farmer.request(json!({"type": "start"})).await;
            farmer.recv_type("round_started").await;
            for p in &mut puppets {
                p.recv_type("round_started").await;
                // `1+1`, a lone card, a fragment: answers, but no attempt
                // at the hand.
                for formula in ["1+1", "5", "(("] {
                    let v = p.submit(1, formula).await;
                    assert_eq!(v["accepted"], false, "{v}");
                }
            }
            let v = farmer.submit(1, "1+2+3+4+5").await;
            assert_eq!(v["accepted"], true, "{v}");
            let over = farmer.recv_type("match_over").await;
            assert!(common::unrated(&over), "puppets make no rated match: {over}");
            for p in &mut puppets {
                p.recv_type("match_over").await;
            }
        }
        let (_, profile) = server.get_json("/api/players/Farmer").await;
        assert_eq!(profile["rated_matches"], 0, "{profile}");
        assert_eq!(profile["rating"], Value::Null, "{profile}");
        for metric in ["rating", "wins", "rounds", "fastest"] {
            let (_, board) = server
                .get_json(&format!("/api/leaderboard?metric={metric}"))
                .await;
            assert_eq!(board["rows"], json!([]), "{metric}: {board}");
        }
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_solo_match_solved_at_once_is_on_no_board() {
        let server = TestServer::with_config(common::scripted::one_hand).await;
        let (mut solo, _) = server.player("Solo").await;
        solo.request(json!({"type": "create_room", "settings": {"rounds": 2, "round_seconds": 10}}))
            .await;
        solo.request(json!({"type": "start"})).await;
        for round in 1..=2 {
            let started = solo.recv_type("round_started").await;
            assert_eq!(started["round"], round);
            let v = solo.submit(round, "1+2+3+4+5").await;
            assert_eq!(v["accepted"], true, "{v}");
        }
        solo.recv_type("match_over").await;
        for metric in ["fastest", "rounds"] {
            let (_, board) = server
                .get_json(&format!("/api/leaderboard?metric={metric}"))
                .await;
            assert_eq!(board["rows"], json!([]), "{metric}: {board}");
        }
        let (_, profile) = server.get_json("/api/players/Solo").await;
        assert_eq!(profile["matches"], 1, "the match is on the profile: {profile}");
        assert_eq!(profile["rounds_won"], 0, "{profile}");

        // The same hands raced by two people count, round by round.
        let [(mut ann, _), (mut ben, _)] = server.players(["Ann", "Ben"]).await;
        let state = ann
            .request(json!({"type": "create_room", "settings": {"rounds": 1, "round_seconds": 10}}))
            .await;
        ben.request(json!({"type": "join_room", "code": state["code"]}))
            .await;
        ann.request(json!({"type": "start"})).await;
        ann.recv_type("round_started").await;
        ben.recv_type("round_started").await;
        let miss = ben.submit(1, "1+2+3+4-5").await;
        assert_eq!(miss["accepted"], false, "{miss}");
        ann.submit(1, "1+2+3+4+5")
            .await;
        ann.recv_type("match_over").await;
        for metric in ["fastest", "rounds"] {
            let (_, board) = server
                .get_json(&format!("/api/leaderboard?metric={metric}"))
                .await;
            assert_eq!(common::column(&board["rows"], "name"), ["Ann"], "{metric}: {board}");
        }
        server.shutdown().await;
    }

    #[tokio::test]
    async fn terminal_escapes_in_chat_and_names_are_refused_and_never_relayed() {
        let server = TestServer::start().await;
        let mut eve = server.connect().await;
        for name in ["Eve\u{1b}]52;c;ZXZpbA==\u{7}", "Ev\u{202e}e", "A\rSERVER"] {
            eve.refused(hello(name), "invalid_name").await;
        }
        let [(mut ann, _), (mut ben, _)] = server.players(["Ann", "Ben"]).await;
        let code = create(&mut ann).await;
        ben.request(json!({"type": "join_room", "code": code}))
            .await;
        for text in [
            "\u{1b}[2J\u{1b}[HSERVER: you won!",
            "ok\nSERVER: Ben wins",
            "\u{9b}31m",
        ] {
            ben.refused(json!({"type": "chat", "text": text}), "bad_message").await;
        }
        ben.send(json!({"type": "chat", "text": "good luck"})).await;
        // The first chat Ann sees is the clean one; a later joiner's
        // `recent` holds no escape either.
        assert_eq!(ann.recv_type("chat").await["text"], "good luck");
        let (mut cat, _) = server.player("Cat").await;
        let state = cat
            .request(json!({"type": "join_room", "code": code, "spectator": true}))
            .await;
        assert!(!state.to_string().contains("\\u001b"), "{state}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn one_address_cannot_take_more_than_its_share_of_connections() {
        let server = TestServer::with_config(|c| c.max_connections_per_ip = 2).await;
        let [(mut a, _), (mut b, _)] = server.players(["Ann", "Ben"]).await;
        let refused = tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async(server.url()))
            .await
            .unwrap();
        assert!(refused.is_err(), "a third connection from one address");
        // The two already connected notice nothing.
        for c in [&mut a, &mut b] {
            assert_eq!(c.request(json!({"type": "ping"})).await["type"], "pong");
        }
        // A closed connection gives its place back.
        drop(a);
        let mut c = until_accepted(|| async {
            let (ws, _) = tokio_tungstenite::connect_async(server.url()).await?;
            Ok(Client { ws })
        })
        .await;
        assert_eq!(c.request(json!({"type": "ping"})).await["type"], "pong");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn behind_a_trusted_proxy_connections_are_counted_by_the_forwarded_address() {
        let server = one_connection_per_address(|_| {}).await;
        let mut first = connect_as(&server, "198.51.100.1").await.unwrap();
        let second = refused_from(&server, "198.51.100.1", "a second connection for one client").await;
        assert_eq!(second, 429);
        let mut other = connect_as(&server, "198.51.100.2").await.unwrap();
        for c in [&mut first, &mut other] {
            assert_eq!(c.request(json!({"type": "ping"})).await["type"], "pong");
        }
        server.shutdown().await;
    }

    #[tokio::test]
    async fn an_ipv6_home_network_is_one_address_for_every_budget() {
        let server = one_connection_per_address(|c| c.max_new_accounts = 1).await;
        let first = connect_as(&server, "2001:db8:1:2::1").await.unwrap();
        let second = refused_from(&server, "2001:db8:1:2::ffff", "a second address of one /64").await;
        assert_eq!(second, 429);
        drop(first.welcomed(hello("Ann")).await);
        // Another address of the same network: no second account.
        let mut again = until_accepted(|| connect_as(&server, "2001:db8:1:2::2")).await;
        again.refused(hello("Ann2"), "rate_limited").await;
        // The neighbour's network has its own budget.
        let other = connect_as(&server, "2001:db8:1:3::1").await.unwrap();
        other.welcomed(hello("Ben")).await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn an_unreadable_forwarded_chain_is_refused_never_counted_as_the_proxy() {
        let server = one_connection_per_address(|_| {}).await;
        assert_eq!(refused_from(&server, "garbage", "garbage was accepted").await, 400);
        // What the client wrote left of the proxy's entry is not read: the
        // client is the address the proxy saw, with its one connection.
        let _first = connect_as(&server, "203.0.113.7").await.unwrap();
        let again = refused_from(&server, "garbage, 203.0.113.7", "a fresh budget").await;
        assert_eq!(again, 429);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn list_rooms_answers_a_page_at_a_time() {
        let server = TestServer::with_config(|c| c.max_new_accounts = 0).await;
        let mut hosts = Vec::new();
        for i in 0..ROOMS_PAGE + 10 {
            let (mut host, _) = server.player(&format!("Host{i}")).await;
            let state = host.request(json!({"type": "create_room", "public": true})).await;
            assert_eq!(state["type"], "room_state", "{state}");
            hosts.push(host);
        }
        let (mut eve, _) = server.player("Eve").await;
        let first = eve.request(json!({"type": "list_rooms"})).await;
        let rooms = first["rooms"].as_array().unwrap();
        assert_eq!(rooms.len(), ROOMS_PAGE);
        let next = first["next"].as_str().unwrap();
        assert_eq!(rooms.last().unwrap()["code"], next);
        assert!(first.to_string().len() < 30_000, "{} bytes", first.to_string().len());
        let second = eve.request(json!({"type": "list_rooms", "after": next})).await;
        let rest = second["rooms"].as_array().unwrap();
        assert_eq!(rest.len(), 10);
        assert!(second.get("next").is_none(), "{second}");
        let mut codes: Vec<&str> = rooms.iter().chain(rest).map(|r| r["code"].as_str().unwrap()).collect();
        let listed = codes.clone();
        codes.sort();
        codes.dedup();
        assert_eq!(codes, listed, "every room once, by code");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn the_api_qr_codes_and_new_sockets_are_rate_limited_per_address() {
        let server = behind_a_proxy(|c| {
            c.http_burst = 5;
            c.http_refill_per_sec = 0;
            c.ws_open_burst = 3;
            c.ws_open_refill_per_sec = 0;
        })
        .await;
        let ask = |path: &str, from: &str| {
            format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: {from}\r\nConnection: close\r\n\r\n")
        };
        let mut statuses = Vec::new();
        for path in ["/api/leaderboard", "/api/players/Nobody", "/r/KXR7P/qr.svg"].iter().cycle().take(8) {
            statuses.push(http(&server, &ask(path, "198.51.100.1")).await.0);
        }
        assert_eq!(statuses, [200, 404, 200, 200, 404, 429, 429, 429]);
        let (status, body) = http(&server, &ask("/api/leaderboard", "198.51.100.1")).await;
        assert_json_error(status, &body, 429, "rate_limited");
        // Pages are not counted; another address has its own budget.
        assert_eq!(http(&server, &ask("/", "198.51.100.1")).await.0, 200);
        assert_eq!(http(&server, &ask("/api/leaderboard", "198.51.100.2")).await.0, 200);
        // New sockets: three, then 429.
        let mut open = Vec::new();
        for _ in 0..3 {
            open.push(connect_as(&server, "198.51.100.1").await.unwrap());
        }
        assert_eq!(refused_from(&server, "198.51.100.1", "a fourth socket").await, 429);
        assert!(connect_as(&server, "198.51.100.2").await.is_ok());
        server.shutdown().await;
    }

    #[tokio::test]
    async fn ascii_look_alike_names_are_taken_and_old_keys_are_recomputed() {
        let database = common::fresh_database().await;
        let url = database.url.clone();
        let server = TestServer::on_database(common::TestDatabase::existing(url.clone()), |_| {}).await;
        let (_, paul) = server.player("Paul Allen").await;
        let (_, ann) = server.player("Ann").await;
        for spoof in ["PauI AIIen", "PAUL ALLEN", "Pau1 A11en"] {
            server.connect().await.refused(hello(spoof), "name_taken").await;
        }
        // A database from before: Ann's row made into a look-alike that the
        // old key (ASCII kept as typed) let in.
        let mut db = server.raw().await;
        let _: Vec<(i64,)> = db
            .rows("UPDATE players SET name = 'PauI AIIen', name_key = 'paui aiien' WHERE name = 'Ann' RETURNING id")
            .await;
        let _: Vec<(i64,)> = db.rows("UPDATE name_key_version SET version = 1 RETURNING version").await;
        drop(db);
        server.shutdown().await;

        let server = TestServer::on_database(common::TestDatabase::existing(url), |_| {}).await;
        // Both keep their accounts (and the server has opened its database).
        for welcome in [&paul, &ann] {
            server.player_with(hello_again(welcome)).await;
        }
        let mut db = server.raw().await;
        let keys: Vec<(i64, String)> = db.rows("SELECT id, name_key FROM players ORDER BY id").await;
        let (paul_id, ann_id) = (paul["player_id"].as_i64().unwrap(), ann["player_id"].as_i64().unwrap());
        assert_eq!(keys, vec![
            (paul_id, krypto_core::names::key("Paul Allen")),
            (ann_id, format!("{}#{ann_id}", krypto_core::names::key("Paul Allen"))),
        ]);
        let (version,): (i64,) = db.one("SELECT CAST(version AS BIGINT) FROM name_key_version").await;
        assert_eq!(version, i64::from(krypto_core::names::KEY_VERSION));
        // Nobody can take either look-alike again.
        server.connect().await.refused(hello("PauI AIIen"), "name_taken").await;
        server.shutdown().await;
        drop(database);
    }

    #[tokio::test]
    async fn another_sites_page_cannot_open_the_websocket() {
        let server = TestServer::with_config(|c| {
            c.allowed_origins = vec!["https://krypto.example".to_owned()];
        })
        .await;
        let with_origin = |origin: &str| {
            let mut request = server.url().into_client_request().unwrap();
            request.headers_mut().insert("origin", origin.parse().unwrap());
            request
        };
        for evil in ["https://evil.example", "null", "http://127.0.0.1:1"] {
            match tokio_tungstenite::connect_async(with_origin(evil)).await {
                Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                    assert_eq!(response.status(), 403, "{evil}");
                }
                other => panic!("{evil} was let in: {:?}", other.map(|_| ())),
            }
        }
        // The server's own pages, the declared origin, and clients that
        // send no Origin at all (terminal, bots) connect as before.
        let own = format!("http://{}", server.addr);
        for (name, fine) in [("Ann", own.as_str()), ("Ben", "https://krypto.example")] {
            let (ws, _) = tokio_tungstenite::connect_async(with_origin(fine)).await.unwrap();
            Client { ws }.welcomed(hello(name)).await;
        }
        let (mut bot, _) = server.player("Bot").await;
        assert_eq!(bot.request(json!({"type": "ping"})).await["type"], "pong");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn one_address_holds_its_share_of_rooms_and_never_fills_the_server() {
        // 20 rooms, so an address's share is a tenth: 2.
        let server = behind_a_proxy(|c| {
            c.max_rooms = 20;
            c.max_rooms_per_address = 5;
            c.max_new_accounts = 0;
        })
        .await;
        let mut n = 0;
        let mut open_from = |ip: &'static str| {
            n += 1;
            let name = format!("P{n}");
            let server = &server;
            async move {
                let client = connect_as(server, ip).await.unwrap();
                let (mut client, _) = client.welcomed(hello(&name)).await;
                let answer = client.request(json!({"type": "create_room"})).await;
                (client, answer)
            }
        };
        // The hoarder opens its share, and drops (its rooms wait for it).
        let mut held = Vec::new();
        for _ in 0..2 {
            let (client, answer) = open_from("10.0.0.1").await;
            assert_eq!(answer["type"], "room_state", "{answer}");
            held.push(client);
        }
        drop(held);
        let (_, refused) = open_from("10.0.0.1").await;
        assert_eq!(refused["code"], "too_many_rooms", "{refused}");
        // An IPv6 /64 is one address.
        let (_, answer) = open_from("2001:db8::1").await;
        assert_eq!(answer["type"], "room_state", "{answer}");
        let (_, answer) = open_from("2001:db8::2").await;
        assert_eq!(answer["type"], "room_state", "{answer}");
        let (_, refused) = open_from("2001:db8::3").await;
        assert_eq!(refused["code"], "too_many_rooms", "{refused}");
        // Everyone else fills the server; the hoarder is still told it is
        // its own share, the others that the server is full.
        let mut others = Vec::new();
        for ip in ["10.0.1.1", "10.0.2.1", "10.0.3.1", "10.0.4.1", "10.0.5.1", "10.0.6.1", "10.0.7.1", "10.0.8.1"] {
            for _ in 0..2 {
                let (client, answer) = open_from(ip).await;
                assert_eq!(answer["type"], "room_state", "{ip}: {answer}");
                others.push(client);
            }
        }
        let (_, full) = open_from("10.0.9.1").await;
        assert_eq!(full["code"], "server_full", "{full}");
        let (_, refused) = open_from("10.0.0.1").await;
        assert_eq!(refused["code"], "too_many_rooms", "{refused}");
        // A room closed gives its address a place back.
        let mut leaver = others.pop().unwrap();
        leaver.send(json!({"type": "leave_room"})).await;
        // The room closes just after the leaver is told: ask until it has.
        let (mut again, mut answer) = open_from("10.0.8.1").await;
        for _ in 0..100 {
            if answer["type"] == "room_state" {
                break;
            }
            assert_eq!(answer["type"], "error", "{answer}");
            answer = again.request(json!({"type": "create_room"})).await;
        }
        assert_eq!(answer["type"], "room_state", "{answer}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_socket_idle_in_the_lobby_is_closed_one_in_a_room_is_not() {
        let server = TestServer::with_config(|c| c.idle_lobby = Duration::from_secs(1)).await;
        let (mut host, _) = server.player("Host").await;
        create(&mut host).await;
        let (mut idle, _) = server.player("Idle").await;
        assert_eq!(idle.expect_close().await, krypto_core::protocol::close::IDLE);
        // The host, as long as the idle one was, is still served.
        assert_eq!(host.request(json!({"type": "ping"})).await["type"], "pong");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_full_server_closes_the_longest_idle_lobby_socket_and_keeps_its_reserve() {
        // Ten permits, one kept back from WebSockets.
        let server = TestServer::with_config(|c| {
            c.max_connections = 10;
            c.reserved_connections = 1;
        })
        .await;
        let (mut oldest, _) = server.player("P0").await;
        let mut lobby = Vec::new();
        for n in 1..9 {
            lobby.push(server.player(&format!("P{n}")).await.0);
        }
        // The tenth would take the reserve: the longest idle makes room.
        let (mut newest, _) = server.player("P9").await;
        assert_eq!(oldest.expect_close().await, krypto_core::protocol::close::IDLE);
        assert_eq!(newest.request(json!({"type": "ping"})).await["type"], "pong");
        let (status, _) = server.get("/healthz").await;
        assert!(status.contains(" 200 "), "{status}");
        // Nobody idle in the lobby (all in rooms): the reserve is refused
        // to WebSockets and still answers the health checks.
        create(&mut newest).await;
        for client in &mut lobby {
            create(client).await;
        }
        match tokio_tungstenite::connect_async(server.url()).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                assert_eq!(response.status(), 503);
            }
            other => panic!("the reserve was taken: {:?}", other.map(|_| ())),
        }
        let (status, _) = server.get("/healthz").await;
        assert!(status.contains(" 200 "), "{status}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_rebound_name_gets_421_on_the_websocket_and_the_api() {
        let server = TestServer::with_config(|c| {
            c.allowed_origins = vec!["https://krypto.example".to_owned()];
            c.allowed_hosts = vec!["party.local".to_owned()];
        })
        .await;
        let port = server.addr.port();
        // The attacker's page: its own name, its own origin, this address.
        let rebound = format!("rebind.attacker.example:{port}");
        let mut request = server.url().into_client_request().unwrap();
        request.headers_mut().insert("host", rebound.parse().unwrap());
        let origin = format!("http://{rebound}");
        request.headers_mut().insert("origin", origin.parse().unwrap());
        match tokio_tungstenite::connect_async(request).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                assert_eq!(response.status(), 421);
            }
            other => panic!("a rebound name was let in: {:?}", other.map(|_| ())),
        }
        for path in ["/api/leaderboard", "/api/players/Ann", "/api/daily"] {
            let (status, _, body) = common::http_get_from(server.addr, &rebound, path, "").await;
            assert_eq!(status, 421, "{path}");
            let body: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(body["error"]["code"], "unknown_host", "{path}");
        }
        // The page itself is the same for every name: nothing to steal.
        let (status, _, _) = common::http_get_from(server.addr, &rebound, "/", "").await;
        assert_eq!(status, 200);
        // The server's own names: addresses, localhost, the declared ones.
        for host in [
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
            "krypto.example".to_owned(),
            format!("Party.Local:{port}"),
        ] {
            let (status, _, _) =
                common::http_get_from(server.addr, &host, "/api/leaderboard", "").await;
            assert_eq!(status, 200, "{host}");
        }
        let mut request = server.url().into_client_request().unwrap();
        request.headers_mut().insert("host", format!("localhost:{port}").parse().unwrap());
        let origin = format!("http://localhost:{port}");
        request.headers_mut().insert("origin", origin.parse().unwrap());
        let (ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        Client { ws }.welcomed(hello("Ann")).await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn qr_codes_never_follow_the_host_header() {
        let server = TestServer::start().await;
        let ask = |host: &str| {
            format!("GET /r/KXR7P/qr.svg HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
        };
        let own = http(&server, &ask(&server.addr.to_string())).await;
        let forged = http(&server, &ask("evil.example")).await;
        assert_eq!(own.0, 200);
        assert_eq!(forged, own, "the picture followed the Host header");
        let (status, _) = http(
            &server,
            "GET /r/KXR7P/qr.svg?base=http%3A%2F%2Fevil.example HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert_eq!(status, 400);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_forged_forwarded_address_from_an_untrusted_peer_changes_nothing() {
        let server = TestServer::with_config(|c| c.max_connections_per_ip = 1).await;
        let _first = connect_as(&server, "198.51.100.1").await.unwrap();
        assert!(
            connect_as(&server, "198.51.100.2").await.is_err(),
            "the header was believed"
        );
        server.shutdown().await;
    }

    #[tokio::test]
    async fn connections_that_trickle_headers_or_say_nothing_are_closed() {
        let server =
            TestServer::with_config(|c| c.handshake_timeout = Duration::from_millis(300)).await;
        let mut silent = TcpStream::connect(server.addr).await.unwrap();
        let mut slow = TcpStream::connect(server.addr).await.unwrap();
        slow.write_all(b"GET /ws HTTP/1.1\r\nHost: localhost\r\n")
            .await
            .unwrap();
        // One header line every 50 ms, forever: each arrives well within any
        // per-read timeout, so only a deadline on the whole header stops it.
        let trickle = async {
            let mut tick = tokio::time::interval(Duration::from_millis(50));
            let mut buf = [0u8; 256];
            for i in 0.. {
                tick.tick().await;
                if slow
                    .write_all(format!("X-Line-{i}: a\r\n").as_bytes())
                    .await
                    .is_err()
                {
                    return true;
                }
                if let Ok(Ok(0) | Err(_)) =
                    tokio::time::timeout(Duration::from_millis(1), slow.read(&mut buf)).await
                {
                    return true;
                }
            }
            false
        };
        let trickler_closed = tokio::time::timeout(PATIENCE, trickle).await;
        assert_eq!(
            trickler_closed,
            Ok(true),
            "the trickling connection stayed open"
        );
        assert!(
            closed_by_server(&mut silent).await,
            "the silent one stayed open"
        );
        // Players connected meanwhile are served as usual.
        let (mut ann, _) = server.player("Ann").await;
        assert_eq!(ann.request(json!({"type": "ping"})).await["type"], "pong");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn room_code_misses_are_counted_per_address_whatever_the_socket() {
        let server = TestServer::with_config(|c| c.max_code_misses = 3).await;
        let (mut host, _) = server.player("Host").await;
        let code = create(&mut host).await;
        for name in ["G1", "G2", "G3"] {
            let (mut g, _) = server.player(name).await;
            g.refused(json!({"type": "join_room", "code": "ZZZZZ"}), "room_not_found").await;
        }
        // A fresh socket and a fresh player: still limited, even with the
        // right code.
        let (mut g, _) = server.player("G4").await;
        g.refused(json!({"type": "join_room", "code": code}), "rate_limited").await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn account_creation_is_limited_per_address() {
        let server = TestServer::with_config(|c| c.max_new_accounts = 2).await;
        let (_, ann) = server.player("Ann").await;
        server.player("Ben").await;
        let mut c = server.connect().await;
        c.refused(hello("Cat"), "rate_limited").await;
        // Known players still come back.
        c.welcomed(hello_again(&ann)).await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_player_cannot_rename_while_seated() {
        let server = TestServer::start().await;
        let [(mut ann, welcome), (mut ben, _)] = server.players(["Ann", "Ben"]).await;
        let code = create(&mut ann).await;
        ben.request(json!({"type": "join_room", "code": code}))
            .await;
        drop(ann);
        let mut back = server.connect().await;
        back.refused(json!({"type": "hello", "protocol": 1, "name": "Host", "token": welcome["token"]}), "already_in_room")
            .await;
        let (_back, resumed) = back.welcomed(hello_again(&welcome)).await;
        assert_eq!(resumed["name"], "Ann", "{resumed}");
        assert_eq!(resumed["resumed"], true, "{resumed}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_player_hosts_one_room_at_a_time_and_a_left_room_closes_at_once() {
        let server = TestServer::start().await;
        let (mut ann, _) = server.player("Ann").await;
        let first = create(&mut ann).await;
        let again = ann.request(json!({"type": "create_room"})).await;
        assert_eq!(again["code"], "already_in_room", "{again}");
        ann.request(json!({"type": "leave_room"})).await;
        let (mut ben, _) = server.player("Ben").await;
        let gone = ben
            .request(json!({"type": "join_room", "code": first}))
            .await;
        assert_eq!(gone["code"], "room_not_found", "{gone}");
        let rooms = ben.request(json!({"type": "list_rooms"})).await;
        assert_eq!(rooms["rooms"], json!([]), "{rooms}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn spectators_are_capped_and_the_players_notice_nothing() {
        let server = TestServer::with_config(|c| c.max_spectators = 2).await;
        let [(mut host, _), (mut pat, _)] = server.players(["Host", "Pat"]).await;
        let code = create(&mut host).await;
        pat.request(json!({"type": "join_room", "code": code}))
            .await;
        let watch = json!({"type": "join_room", "code": code, "spectator": true});
        for name in ["S1", "S2"] {
            let (mut s, _) = server.player(name).await;
            assert_eq!(s.request(watch.clone()).await["type"], "room_state");
        }
        let (mut s3, _) = server.player("S3").await;
        let refused = s3.request(watch).await;
        assert_eq!(refused["code"], "room_full", "{refused}");
        host.send(json!({"type": "chat", "text": "ready?"})).await;
        assert_eq!(pat.recv_type("chat").await["text"], "ready?");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_text_frame_that_is_not_utf8_closes_with_1007() {
        let server = TestServer::start().await;
        let (mut c, _) = server.player("Ann").await;
        let frame = Frame::message(vec![0x7b, 0xff, 0xfe, 0x7d], OpCode::Data(Data::Text), true);
        c.ws.send(Message::Frame(frame)).await.unwrap();
        assert_eq!(c.expect_close().await, 1007);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn every_http_refusal_is_json_and_long_names_are_not_echoed() {
        let server = TestServer::start().await;
        let (status, body) = http(
            &server,
            "GET /nowhere HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert_json_error(status, &body, 404, "not_found");
        let (status, body) = http(
            &server,
            "POST /api/leaderboard HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert_json_error(status, &body, 405, "method_not_allowed");
        let (status, body) = http(
            &server,
            "GET /ws HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        )
        .await;
        assert_json_error(status, &body, 426, "upgrade_required");
        let long = "Z".repeat(300);
        let (status, body) = http(
            &server,
            &format!("GET /api/players/{long} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert_json_error(status, &body, 400, "bad_request");
        assert!(!body.contains("ZZZZZZZZZZZZZZZZZZZZZ"), "{body}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn floods_of_frames_that_are_never_messages_are_closed_before_and_after_hello() {
        let server = TestServer::start().await;
        let (mut ann, _) = server.player("Ann").await;
        let floods: [(&str, Flood); 3] = [
            ("pings", || vec![Message::Ping(Vec::new().into()); 200]),
            ("unsolicited pongs", || vec![Message::Pong(Vec::new().into()); 200]),
            ("empty continuation frames", || {
                let mut frames = vec![Message::Frame(Frame::message(
                    Vec::new(),
                    OpCode::Data(Data::Text),
                    false,
                ))];
                frames.extend((0..200).map(|_| {
                    Message::Frame(Frame::message(Vec::new(), OpCode::Data(Data::Continue), false))
                }));
                frames
            }),
        ];
        for (n, (what, flood)) in floods.into_iter().enumerate() {
            for welcomed in [false, true] {
                let mut c = if welcomed {
                    server.player(&format!("Eve{n}")).await.0
                } else {
                    server.connect().await
                };
                for frame in flood() {
                    c.ws.feed(frame).await.unwrap();
                }
                c.ws.flush().await.unwrap();
                assert_eq!(c.expect_close().await, 1008, "{what}, welcomed: {welcomed}");
            }
        }
        // The player beside them noticed nothing.
        assert_eq!(ann.request(json!({"type": "ping"})).await["type"], "pong");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn before_hello_a_frame_larger_than_any_hello_is_refused() {
        let server = TestServer::start().await;
        let mut c = server.connect().await;
        let big = format!(r#"{{"type":"hello","protocol":1,"name":"{}"}}"#, "a".repeat(8000));
        c.send_raw(Message::text(big.clone())).await;
        assert_eq!(c.expect_close().await, 1009);
        // After hello the usual frame limit applies: the same size is only
        // a bad name.
        let (mut ann, _) = server.player("Ann").await;
        ann.send_raw(Message::text(big.replace("hello", "chat"))).await;
        assert_eq!(ann.recv().await["type"], "error");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn refused_attempts_store_no_more_than_a_formula_and_a_seat_is_rate_limited() {
        let server = TestServer::with_config(common::scripted::one_hand).await;
        let [(mut ann, _), (mut ben, _)] = server.players(["Ann", "Ben"]).await;
        ann.host_match(json!({"rounds": 1}), &mut [&mut ben]).await;
        ben.recv_type("round_started").await;
        // Ben sends formulas as long as a frame allows: the first is refused
        // as too long (and locks him out), the next as locked out, and past
        // the seat's budget they are refused unread.
        let long = "1+".repeat(7000) + "1";
        let mut verdicts = Vec::new();
        for _ in 0..ATTEMPT_BURST + 2 {
            let v = ben.submit(1, &long).await;
            verdicts.push(if v["type"] == "verdict" {
                v["error"]["kind"].as_str().unwrap().to_owned()
            } else {
                v["code"].as_str().unwrap().to_owned()
            });
        }
        assert_eq!(verdicts[0], "too_long", "{verdicts:?}");
        assert!(verdicts[1..ATTEMPT_BURST].iter().all(|v| v == "locked_out"), "{verdicts:?}");
        assert!(verdicts[ATTEMPT_BURST..].iter().all(|v| v == "rate_limited"), "{verdicts:?}");
        let v = ann.submit(1, "1+2+3+4+5").await;
        assert_eq!(v["accepted"], true, "{v}");
        ann.recv_type("match_over").await;
        let mut db = server.raw().await;
        let (rows, stored): (i64, i64) = db
            .one("SELECT COUNT(*), CAST(COALESCE(SUM(LENGTH(formula)), 0) AS BIGINT) FROM attempts")
            .await;
        assert_eq!(rows, ATTEMPT_BURST as i64 + 1, "Ben's judged and locked-out tries, Ann's win");
        let printed_win = "1 + 2 + 3 + 4 + 5".len() as i64;
        assert_eq!(stored, MAX_LEN as i64 + printed_win, "only the too-long try's first {MAX_LEN} characters");
        server.shutdown().await;
    }
}

/// The headers and raw body of one GET to `addr` with extra header lines.
async fn get_raw(
    addr: std::net::SocketAddr,
    path: &str,
    extra: &str,
) -> (u16, std::collections::HashMap<String, String>, Vec<u8>) {
    common::http_get_from(addr, &addr.to_string(), path, extra).await
}

// Against the real binary of the profile under test: `cargo test --release
// -p krypto-server --test hostile etags` checks the release build (where
// every tag once came out as `""`).
#[tokio::test]
async fn etags_are_content_hashes_and_pages_come_compressed() {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("k.db").display());
    let server = common::process::Process::start(&url);
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    // The shell and the modules are served naming the assets with the
    // client's version (`?v=`); otherwise they are the files themselves.
    let (_, _, shell) = get_raw(server.addr, "/", "").await;
    let shell = String::from_utf8(shell).unwrap();
    let at = shell.find("main.js?v=").unwrap() + "main.js?v=".len();
    let version = format!("?v={}", &shell[at..at + 12]);
    for (path, file) in [
        ("/", "index.html"),
        ("/r/KXR7P", "index.html"),
        ("/assets/js/main.js", "js/main.js"),
        ("/r/assets/js/screens/round.js", "js/screens/round.js"),
        ("/assets/app.css", "app.css"),
    ] {
        let (status, headers, content) = get_raw(server.addr, path, "").await;
        assert_eq!(status, 200, "{path}");
        let unversioned = String::from_utf8(content.clone())
            .unwrap()
            .replace(&version, "");
        assert_eq!(
            unversioned.as_bytes(),
            std::fs::read(web.join(file)).unwrap(),
            "{path}"
        );
        let tag = format!("\"{}\"", hex::encode(&Sha256::digest(&content)[..12]));
        assert_eq!(headers["etag"], tag, "{path}");
        assert!(headers["vary"].contains("accept-encoding"), "{path}");
        // An empty tag is no tag; the right one is a 304.
        let (status, _, _) = get_raw(server.addr, path, "If-None-Match: \"\"\r\n").await;
        assert_eq!(status, 200, "{path}: an empty If-None-Match");
        let (status, _, _) = get_raw(server.addr, path, &format!("If-None-Match: {tag}\r\n")).await;
        assert_eq!(status, 304, "{path}");
        // Compressed as the browser allows, and the same content once unpacked.
        let (_, headers, packed) = get_raw(
            server.addr,
            path,
            "Accept-Encoding: gzip, deflate, br, zstd\r\n",
        )
        .await;
        assert_eq!(headers["content-encoding"], "br", "{path}");
        assert!(
            packed.len() * 2 < content.len(),
            "{path}: {} of {}",
            packed.len(),
            content.len()
        );
        let mut unpacked = Vec::new();
        brotli::Decompressor::new(&packed[..], 4096)
            .read_to_end(&mut unpacked)
            .unwrap();
        assert_eq!(unpacked, content, "{path}");
        let br_tag = headers["etag"].clone();
        assert_ne!(br_tag, tag, "another representation, another tag");
        let (status, _, _) = get_raw(
            server.addr,
            path,
            &format!("Accept-Encoding: br\r\nIf-None-Match: {br_tag}\r\n"),
        )
        .await;
        assert_eq!(status, 304, "{path}");
        let (_, headers, packed) =
            get_raw(server.addr, path, "Accept-Encoding: gzip;q=1, br;q=0\r\n").await;
        assert_eq!(headers["content-encoding"], "gzip", "{path}");
        let mut unpacked = Vec::new();
        flate2::read::GzDecoder::new(&packed[..])
            .read_to_end(&mut unpacked)
            .unwrap();
        assert_eq!(unpacked, content, "{path}");
    }
}

/// Makes the frames of one flood.
type Flood = fn() -> Vec<Message>;
