//! Dispatch without sockets: sessions talk to a real lobby, rooms and a
//! SQLite file; what they would send is read from their outboxes.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::*;
use crate::config::Config;
use crate::rooms::outbox::Outbound;

/// A safety net so a broken test fails instead of hanging.
const PATIENCE: Duration = Duration::from_secs(10);

struct Server {
    shared: Arc<Shared>,
    _dir: tempfile::TempDir,
}

async fn server(tweak: impl FnOnce(&mut Config)) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config {
        database_url: format!("sqlite://{}", dir.path().join("t.db").display()),
        ..Config::default()
    };
    tweak(&mut config);
    let bound: SocketAddr = "192.168.1.5:7878".parse().unwrap();
    let (shared, _recorder) = Shared::open(config, bound).await.unwrap();
    Server { shared, _dir: dir }
}

/// A connection's session and what it sends.
struct Conn {
    session: Session,
    sent: mpsc::Receiver<Outbound>,
}

impl Server {
    fn connect(&self, ip: &str) -> Conn {
        let (outbox, sent) = Outbox::new(256);
        let session = Session::new(self.shared.clone(), outbox, ip.parse().unwrap());
        Conn { session, sent }
    }

    /// A welcomed connection; returns it and its welcome.
    async fn player(&self, ip: &str, name: &str) -> (Conn, Value) {
        let mut c = self.connect(ip);
        let welcome = c
            .ask(json!({"type": "hello", "protocol": 1, "name": name}))
            .await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        (c, welcome)
    }
}

impl Conn {
    async fn send(&mut self, message: Value) -> Result<(), Abuse> {
        self.session.handle_text(&message.to_string()).await
    }

    /// The next message this connection would send.
    async fn recv(&mut self) -> Value {
        loop {
            let next = tokio::time::timeout(PATIENCE, self.sent.recv()).await;
            match next.expect("nothing sent in time") {
                Some(Outbound::Text(text)) => return serde_json::from_str(&text).unwrap(),
                Some(_) => continue,
                None => panic!("the outbox closed"),
            }
        }
    }

    /// Skips messages until one of type `ty`.
    async fn recv_type(&mut self, ty: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["type"] == ty {
                return v;
            }
        }
    }

    /// Sends a request with an id and returns the reply carrying it.
    async fn ask(&mut self, mut message: Value) -> Value {
        message["id"] = json!("q");
        self.send(message).await.unwrap();
        loop {
            let v = self.recv().await;
            if v["id"] == "q" {
                return v;
            }
        }
    }

    async fn create_room(&mut self) -> String {
        let state = self.ask(json!({"type": "create_room"})).await;
        assert_eq!(state["type"], "room_state", "{state}");
        state["code"].as_str().unwrap().to_owned()
    }
}

#[tokio::test]
async fn only_hello_before_welcome_and_welcome_names_the_join_urls() {
    let s = server(|_| {}).await;
    let mut c = s.connect("10.0.0.1");
    let refused = c.ask(json!({"type": "list_rooms"})).await;
    assert_eq!(refused["code"], "not_welcomed", "{refused}");
    let welcome = c
        .ask(json!({"type": "hello", "protocol": 1, "name": "Ada", "bot": true}))
        .await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    assert_eq!(welcome["join_urls"], json!(["http://192.168.1.5:7878"]));
    let again = c
        .ask(json!({"type": "hello", "protocol": 1, "name": "Ada"}))
        .await;
    assert_eq!(again["code"], "wrong_state", "{again}");
}

#[tokio::test]
async fn names_and_chat_with_control_characters_are_refused_and_never_relayed() {
    let s = server(|_| {}).await;
    let mut eve = s.connect("10.0.0.1");
    for name in ["Eve\u{1b}[2J", "Eve\u{202e}", "SERVER\r\nyou won"] {
        let refused = eve
            .ask(json!({"type": "hello", "protocol": 1, "name": name}))
            .await;
        assert_eq!(refused["code"], "invalid_name", "{name:?}: {refused}");
    }
    let (mut ann, _) = s.player("10.0.0.1", "Ann").await;
    let (mut ben, _) = s.player("10.0.0.2", "Ben").await;
    let code = ann.create_room().await;
    ben.ask(json!({"type": "join_room", "code": code})).await;
    for text in [
        "\u{1b}]52;c;ZXZpbA==\u{7}",
        "hi\r\nSERVER: you won!",
        "\u{2066}x",
    ] {
        let refused = ben.ask(json!({"type": "chat", "text": text})).await;
        assert_eq!(refused["code"], "bad_message", "{text:?}: {refused}");
    }
    ben.send(json!({"type": "chat", "text": "hi"}))
        .await
        .unwrap();
    // The first chat Ann sees is the clean one.
    assert_eq!(ann.recv_type("chat").await["text"], "hi");
}

#[tokio::test]
async fn a_seated_player_cannot_rename() {
    let s = server(|_| {}).await;
    let (mut ann, welcome) = s.player("10.0.0.1", "Ann").await;
    ann.create_room().await;
    ann.session.end().await;
    let mut back = s.connect("10.0.0.1");
    let token = welcome["token"].clone();
    let refused = back
        .ask(json!({"type": "hello", "protocol": 1, "name": "Eve", "token": token}))
        .await;
    assert_eq!(refused["code"], "already_in_room", "{refused}");
    let resumed = back
        .ask(json!({"type": "hello", "protocol": 1, "name": "Ann", "token": token}))
        .await;
    assert_eq!(resumed["resumed"], true, "{resumed}");
    // Out of the room, the name can change.
    back.ask(json!({"type": "leave_room"})).await;
    back.session.end().await;
    let mut free = s.connect("10.0.0.1");
    let renamed = free
        .ask(json!({"type": "hello", "protocol": 1, "name": "Eve", "token": token}))
        .await;
    assert_eq!(renamed["name"], "Eve", "{renamed}");
}

#[tokio::test]
async fn code_misses_count_per_address_and_per_player_across_connections() {
    let s = server(|c| c.max_code_misses = 3).await;
    let miss = json!({"type": "join_room", "code": "ZZZZZ"});
    let (mut a, welcome) = s.player("10.0.0.1", "Ann").await;
    let again = json!({"type": "hello", "protocol": 1, "token": welcome["token"]});
    for _ in 0..2 {
        assert_eq!(a.ask(miss.clone()).await["code"], "room_not_found");
    }
    // A new connection of the same player resets nothing.
    a.session.end().await;
    let mut a = s.connect("10.0.0.1");
    a.ask(again.clone()).await;
    assert_eq!(a.ask(miss.clone()).await["code"], "room_not_found");
    assert_eq!(a.ask(miss.clone()).await["code"], "rate_limited");
    // Nor does another player from the same address...
    let (mut b, _) = s.player("10.0.0.1", "Ben").await;
    assert_eq!(b.ask(miss.clone()).await["code"], "rate_limited");
    // ...nor the same player from another address.
    a.session.end().await;
    let mut a = s.connect("10.0.0.2");
    a.ask(again).await;
    assert_eq!(a.ask(miss.clone()).await["code"], "rate_limited");
    // Someone else elsewhere is not affected.
    let (mut c, _) = s.player("10.0.0.3", "Cat").await;
    assert_eq!(c.ask(miss).await["code"], "room_not_found");
}

#[tokio::test]
async fn guessing_on_after_being_told_to_wait_is_abuse() {
    let s = server(|c| {
        c.max_code_misses = 1;
        c.max_guess_strikes = 2;
    })
    .await;
    let miss = json!({"type": "join_room", "code": "ZZZZZ"});
    let (mut a, _) = s.player("10.0.0.1", "Ann").await;
    assert_eq!(a.send(miss.clone()).await, Ok(()));
    assert_eq!(a.send(miss.clone()).await, Ok(()));
    assert_eq!(a.send(miss.clone()).await, Ok(()));
    assert_eq!(a.send(miss.clone()).await, Err(Abuse::CodeGuessing));
}

#[tokio::test]
async fn new_accounts_are_limited_per_address() {
    let s = server(|c| c.max_new_accounts = 2).await;
    let (_, ann) = s.player("10.0.0.1", "Ann").await;
    s.player("10.0.0.1", "Ben").await;
    let mut c = s.connect("10.0.0.1");
    let refused = c
        .ask(json!({"type": "hello", "protocol": 1, "name": "Cat"}))
        .await;
    assert_eq!(refused["code"], "rate_limited", "{refused}");
    // Another address may; a known player may always come back.
    s.player("10.0.0.2", "Cat").await;
    let mut back = s.connect("10.0.0.1");
    let welcome = back
        .ask(json!({"type": "hello", "protocol": 1, "token": ann["token"]}))
        .await;
    assert_eq!(welcome["name"], "Ann", "{welcome}");
}

#[tokio::test]
async fn spectators_are_capped_per_room_and_players_still_join() {
    let s = server(|c| c.max_spectators = 1).await;
    let (mut host, _) = s.player("10.0.0.1", "Host").await;
    let code = host.create_room().await;
    let (mut s1, _) = s.player("10.0.0.2", "Sue").await;
    let (mut s2, _) = s.player("10.0.0.3", "Sid").await;
    let (mut p, _) = s.player("10.0.0.4", "Pat").await;
    let watch = json!({"type": "join_room", "code": code, "spectator": true});
    assert_eq!(s1.ask(watch.clone()).await["type"], "room_state");
    assert_eq!(s2.ask(watch.clone()).await["code"], "room_full");
    let joined = p.ask(json!({"type": "join_room", "code": code})).await;
    assert_eq!(joined["type"], "room_state", "{joined}");
    // A spectator who leaves frees the place.
    s1.ask(json!({"type": "leave_room"})).await;
    assert_eq!(s2.ask(watch).await["type"], "room_state");
}

#[tokio::test]
async fn a_player_hosts_one_room_and_a_room_left_empty_closes_at_once() {
    let s = server(|_| {}).await;
    let (mut ann, _) = s.player("10.0.0.1", "Ann").await;
    let first = ann.create_room().await;
    let second = ann.ask(json!({"type": "create_room"})).await;
    assert_eq!(second["code"], "already_in_room", "{second}");
    ann.ask(json!({"type": "leave_room"})).await;
    let (mut ben, _) = s.player("10.0.0.2", "Ben").await;
    let gone = ben.ask(json!({"type": "join_room", "code": first})).await;
    assert_eq!(gone["code"], "room_not_found", "{gone}");
    assert_ne!(ann.create_room().await, first);
}
