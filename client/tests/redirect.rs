//! Every client follows `redirect` to the node that holds a room, against
//! scripted nodes: tiny real WebSocket servers written here that answer as
//! the nodes of one server would (node A sends a join on to node B, a node
//! restarts with 1012, a node is gone) and record what the client says.
//! The `krypto` terminal client in `--plain`, the bots and the load
//! generator, and the hostile cases: a URL that is not a WebSocket's, and
//! nodes that send a client round in circles.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::fake::next_json;
use common::{Proc, Scratch, PATIENCE};
use futures_util::SinkExt;
use krypto_client::load::{self, LoadConfig};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;

const CODE: &str = "KXR7P";

/// What a scripted node does about one frame.
enum Reply {
    /// Send this text.
    Text(String),
    /// Close the connection with this code.
    Close(u16),
}

/// A node's answers: given the connection's number (0 for the first) and
/// the frame the client sent.
type Script = dyn Fn(usize, &Value) -> Vec<Reply> + Send + Sync;

/// A scripted node on 127.0.0.1, in its own thread and runtime.
struct Node {
    url: String,
    /// Every frame clients sent, with the number of its connection.
    seen: std::sync::mpsc::Receiver<(usize, Value)>,
}

/// A port bound before its node is scripted, so that nodes can name each
/// other.
fn listener() -> std::net::TcpListener {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    l
}

fn url_of(l: &std::net::TcpListener) -> String {
    format!("ws://{}/ws", l.local_addr().unwrap())
}

/// A URL where nobody listens (the port was free a moment ago).
fn dead_url() -> String {
    url_of(&listener())
}

impl Node {
    fn start(listener: std::net::TcpListener, script: Arc<Script>) -> Node {
        let url = url_of(&listener);
        let (seen_tx, seen) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                for n in 0.. {
                    let Ok((tcp, _)) = listener.accept().await else {
                        return;
                    };
                    let (script, seen_tx) = (script.clone(), seen_tx.clone());
                    tokio::spawn(async move {
                        let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                            return;
                        };
                        while let Some(value) = next_json(&mut ws).await {
                            let _ = seen_tx.send((n, value.clone()));
                            for reply in script(n, &value) {
                                match reply {
                                    Reply::Text(t) => {
                                        let _ = ws.send(Message::text(t)).await;
                                    }
                                    Reply::Close(code) => {
                                        let frame = CloseFrame {
                                            code: CloseCode::from(code),
                                            reason: "restarting".into(),
                                        };
                                        let _ = ws.close(Some(frame)).await;
                                    }
                                }
                            }
                        }
                    });
                }
            });
        });
        Node { url, seen }
    }

    /// The next frame a client sent (on any connection).
    fn next(&self) -> (usize, Value) {
        self.seen
            .recv_timeout(PATIENCE)
            .expect("the client went quiet")
    }

    /// The next frame of type `kind`, skipping others.
    fn next_of(&self, kind: &str) -> (usize, Value) {
        loop {
            let (n, frame) = self.next();
            if frame["type"] == kind {
                return (n, frame);
            }
        }
    }
}

/// A reply to `frame` (carrying its id).
fn reply(frame: &Value, mut message: Value) -> Reply {
    if let Some(id) = frame.get("id") {
        message["id"] = id.clone();
    }
    Reply::Text(message.to_string())
}

fn welcome(frame: &Value, resumed: bool) -> Reply {
    let name = frame["name"].as_str().unwrap_or("Ann");
    reply(
        frame,
        json!({"type": "welcome", "protocol": 1, "player_id": 1, "name": name,
            "token": "00ff", "server_version": "test", "resumed": resumed}),
    )
}

fn redirect(frame: &Value, url: &str, code: &str) -> Reply {
    reply(frame, json!({"type": "redirect", "url": url, "code": code}))
}

fn room_state(frame: &Value, code: &str) -> Reply {
    reply(
        frame,
        json!({"type": "room_state", "code": code, "host": 1,
            "settings": {"variant": "krypto", "rules": "free", "rounds": 3,
                "target_score": null, "round_seconds": 90, "lockout_seconds": 5,
                "wrong_penalty": 0, "deal": "solvable", "difficulty": "any",
                "max_players": 8, "public": false},
            "state": "lobby", "locked": false, "rounds_total": 3,
            "players": [{"id": 1, "name": "Ann", "score": 0, "connected": true,
                "spectator": false}]}),
    )
}

/// A node that welcomes everyone and sends every join on to `to`.
fn sends_joins_to(to: String) -> Arc<Script> {
    Arc::new(move |_, frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome(frame, false)],
        Some("join_room") => vec![redirect(frame, &to, CODE)],
        _ => Vec::new(),
    })
}

/// The node that holds the room: welcomes everyone, seats every join.
fn holds_the_room() -> Arc<Script> {
    Arc::new(|_, frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome(frame, false)],
        Some("join_room") => vec![room_state(frame, CODE)],
        _ => Vec::new(),
    })
}

/// Ann in `--plain`, connected to `server`, asking to join the room
/// `code` (as she typed it).
fn plain_joins(scratch: &Scratch, server: &str, code: &str) -> Proc {
    let mut ann = Proc::player("Ann", server, &scratch.config("ann"), "--plain");
    ann.expect_prefix("connected to");
    ann.send(&format!("/join {code}"));
    ann
}

#[test]
fn plain_follows_a_join_to_the_rooms_node_with_the_same_token() {
    let scratch = Scratch::new();
    let b = Node::start(listener(), holds_the_room());
    let a = Node::start(listener(), sends_joins_to(b.url.clone()));
    let mut ann = plain_joins(&scratch, &a.url, &CODE.to_lowercase());
    ann.expect_contains(&format!("room {CODE} is on another server: moving there"));
    ann.expect_prefix(&format!("room {CODE}: lobby"));

    let (_, hello) = b.next_of("hello");
    assert_eq!(hello["token"], "00ff", "{hello}");
    assert_eq!(hello["name"], "Ann", "{hello}");
    let (_, join) = b.next_of("join_room");
    assert_eq!(join["code"], CODE, "{join}");
    assert_eq!(join["spectator"], false, "{join}");
    // Moving is one line: no second "connected to".
    let connected = ann.count_seen(|l| l.starts_with("connected"));
    assert_eq!(connected, 1, "{:#?}", ann.seen);
}

#[test]
fn plain_refuses_a_redirect_that_is_not_to_a_websocket() {
    let scratch = Scratch::new();
    let a = Node::start(
        listener(),
        sends_joins_to("http://evil.example/\u{1b}[2Jgo".into()),
    );
    let mut ann = plain_joins(&scratch, &a.url, CODE);
    let line = ann.expect_contains("not a krypto server's address");
    assert!(!line.contains(char::is_control), "{line:?}");
    // Still connected to A, and usable.
    ann.send("/rooms");
    a.next_of("list_rooms");
}

#[test]
fn plain_gives_up_when_nodes_send_it_round_in_circles() {
    let scratch = Scratch::new();
    let (la, lb) = (listener(), listener());
    let (a_url, b_url) = (url_of(&la), url_of(&lb));
    let a = Node::start(la, sends_joins_to(b_url));
    let _b = Node::start(lb, sends_joins_to(a_url));
    let mut ann = plain_joins(&scratch, &a.url, CODE);
    ann.expect_contains("giving up");
    let moves = ann.count_seen(|l| l.contains("moving there"));
    assert_eq!(moves, 5, "{:#?}", ann.seen);
}

#[test]
fn plain_goes_home_when_the_rooms_node_is_gone() {
    let scratch = Scratch::new();
    let dead = dead_url();
    // Home sends the first join to a node that is gone; once the client is
    // back, the room is here (it was handed over).
    let a = Node::start(
        listener(),
        Arc::new(move |n, frame| match frame["type"].as_str() {
            Some("hello") => vec![welcome(frame, false)],
            Some("join_room") if n == 0 => vec![redirect(frame, &dead, CODE)],
            Some("join_room") => vec![room_state(frame, CODE)],
            _ => Vec::new(),
        }),
    );
    let mut ann = plain_joins(&scratch, &a.url, CODE);
    ann.expect_contains("moving there");
    ann.expect_contains(&format!("going back to {}", a.url));
    ann.expect_prefix(&format!("room {CODE}: lobby"));
    let (n, hello) = a.next_of("hello");
    assert_eq!((n, &hello["token"]), (0, &Value::Null));
    let (n, hello) = a.next_of("hello");
    assert_eq!((n, hello["token"].as_str()), (1, Some("00ff")), "{hello}");
}

#[test]
fn a_node_restarting_with_1012_sends_the_client_home_which_sends_it_on() {
    let scratch = Scratch::new();
    let (la, lb, lc) = (listener(), listener(), listener());
    let (b_url, c_url) = (url_of(&lb), url_of(&lc));
    // Home: the first join goes to B; after B's restart the seat is on C,
    // and home says so in answer to the hello.
    let a = Node::start(
        la,
        Arc::new(move |n, frame| match (n, frame["type"].as_str()) {
            (0, Some("hello")) => vec![welcome(frame, false)],
            (0, Some("join_room")) => vec![redirect(frame, &b_url, CODE)],
            (_, Some("hello")) => vec![welcome(frame, false), redirect(frame, &c_url, CODE)],
            (_, Some("join_room")) => vec![redirect(frame, &c_url, CODE)],
            _ => Vec::new(),
        }),
    );
    // B seats the player, then restarts, handing its rooms over.
    let b = Node::start(
        lb,
        Arc::new(|_, frame| match frame["type"].as_str() {
            Some("hello") => vec![welcome(frame, false)],
            Some("join_room") => vec![room_state(frame, CODE), Reply::Close(1012)],
            _ => Vec::new(),
        }),
    );
    // C holds the seat now: the hello resumes it.
    let c = Node::start(
        lc,
        Arc::new(|_, frame| match frame["type"].as_str() {
            Some("hello") => vec![welcome(frame, true), room_state(frame, CODE)],
            _ => Vec::new(),
        }),
    );
    let mut ann = plain_joins(&scratch, &a.url, CODE);
    ann.expect_prefix(&format!("room {CODE}: lobby"));
    ann.expect_contains(&format!("going back to {}", a.url));
    ann.expect_contains("moving there");
    let (_, hello) = c.next_of("hello");
    assert_eq!(hello["token"], "00ff", "{hello}");
    ann.expect_prefix(&format!("room {CODE}: lobby"));

    // Home heard the token again; B, draining, was not tried again.
    let (n, hello) = a.next_of("hello");
    assert_eq!(n, 0, "{hello}");
    let (n, hello) = a.next_of("hello");
    assert_eq!((n, hello["token"].as_str()), (1, Some("00ff")), "{hello}");
    let from_b: Vec<usize> = b.seen.try_iter().map(|(n, _)| n).collect();
    assert!(
        from_b.iter().all(|n| *n == 0),
        "B was tried again: {from_b:?}"
    );
}

#[test]
fn bots_follow_a_join_to_the_rooms_node() {
    let scratch = Scratch::new();
    let b = Node::start(listener(), holds_the_room());
    let a = Node::start(listener(), sends_joins_to(b.url.clone()));
    let mut bots = Proc::bots(&scratch, &a.url, &CODE.to_lowercase(), &[]);
    bots.expect_contains(&format!(
        "Ada-medium-bot: room {CODE} is on another server: moving there"
    ));
    bots.expect_contains(&format!("Ada-medium-bot joined room {CODE}"));
    let (_, hello) = b.next_of("hello");
    assert_eq!(hello["token"], "00ff", "{hello}");
    assert_eq!(hello["bot"], true, "{hello}");
    let (_, join) = b.next_of("join_room");
    assert_eq!(join["code"], CODE, "{join}");
}

#[test]
fn bots_stop_at_a_redirect_that_is_not_to_a_websocket() {
    let scratch = Scratch::new();
    let a = Node::start(listener(), sends_joins_to("file:///etc/passwd".into()));
    let mut bots = Proc::bots(&scratch, &a.url, CODE, &[]);
    bots.expect_contains("not a krypto server's address");
    let status = bots.finish();
    assert!(!status.success());
}

/// A node of a two-node server for the load generator: rooms it creates
/// are `code`; joins for the other node's rooms go there.
fn load_node(code: &'static str, other: String, other_code: &'static str) -> Arc<Script> {
    Arc::new(move |_, frame| match frame["type"].as_str() {
        Some("hello") => vec![welcome(frame, false)],
        Some("create_room") => vec![room_state(frame, code)],
        Some("join_room") if frame["code"] == other_code => {
            vec![redirect(frame, &other, other_code)]
        }
        Some("join_room") => vec![room_state(frame, code)],
        _ => Vec::new(),
    })
}

fn load_config(servers: Vec<String>) -> LoadConfig {
    let mut config = LoadConfig::new("");
    config.servers = servers;
    config.rooms = 2;
    config.players = 3;
    config.ramp = Duration::ZERO;
    config.duration = Duration::from_millis(200);
    config.setup_timeout = PATIENCE;
    config.drain_timeout = Duration::from_millis(100);
    config.name_prefix = "redir".into();
    config
}

fn run_load(config: LoadConfig) -> load::Report {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(load::run(config)).unwrap()
}

#[test]
fn load_spreads_rooms_over_the_nodes_and_follows_the_joins() {
    let (la, lb) = (listener(), listener());
    let (a_url, b_url) = (url_of(&la), url_of(&lb));
    let a = Node::start(la, load_node("AAAAA", b_url.clone(), "BBBBB"));
    let b = Node::start(lb, load_node("BBBBB", a_url.clone(), "AAAAA"));
    let report = run_load(load_config(vec![a_url, b_url]));
    assert_eq!(report.rooms_ready, 2, "{report}");
    assert_eq!(report.tally.rooms_failed, 0, "{report}");
    // Two guests per room, each sent once to the room's node.
    assert_eq!(report.tally.redirects_followed, 4, "{report}");
    assert!(report.errors.is_empty(), "{report}");
    assert!(report.to_string().contains("4 followed"), "{report}");
    // Each node created one room, and heard the redirected guests' tokens.
    for node in [&a, &b] {
        let frames: Vec<Value> = node.seen.try_iter().map(|(_, f)| f).collect();
        let created = frames.iter().filter(|f| f["type"] == "create_room").count();
        assert_eq!(created, 1);
        let resumed = frames
            .iter()
            .filter(|f| f["type"] == "hello" && f["token"] == "00ff")
            .count();
        assert_eq!(resumed, 2, "{frames:#?}");
    }
}

#[test]
fn load_refuses_bad_redirects_and_loops() {
    let evil = Node::start(listener(), sends_joins_to("https://evil.example/".into()));
    let lc = listener();
    let c_url = url_of(&lc);
    let circles = Node::start(lc, sends_joins_to(c_url.clone()));
    let host = |guests: &Node| {
        let to = guests.url.clone();
        Arc::new(
            move |_: usize, frame: &Value| match frame["type"].as_str() {
                Some("hello") => vec![welcome(frame, false)],
                Some("create_room") => vec![room_state(frame, CODE)],
                Some("join_room") => vec![redirect(frame, &to, CODE)],
                _ => Vec::new(),
            },
        ) as Arc<Script>
    };
    // One room, hosted on a node that sends its guests to `guests`: the
    // room fails, and the report says why.
    let fails_with = |guests: &Node, error: &str| {
        let a = Node::start(listener(), host(guests));
        let mut config = load_config(vec![a.url.clone(), guests.url.clone()]);
        config.rooms = 1;
        let report = run_load(config);
        assert_eq!(report.tally.rooms_failed, 1, "{report}");
        assert!(report.errors.contains_key(error), "{report}");
    };
    fails_with(&evil, "bad_redirect");
    fails_with(&circles, "redirect_loop");
}
