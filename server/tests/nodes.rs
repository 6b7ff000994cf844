//! Many nodes on one PostgreSQL database, for real: two or three
//! `krypto-server` processes started with `--public-url` on loopback ports,
//! a throwaway PostgreSQL cluster (see `common/postgres.rs`), and WebSocket
//! clients. What happens across processes becomes true within a heartbeat
//! or two, so those checks poll (until [`PATIENCE`]) rather than sleep.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{HashMap, HashSet};
use std::process::Command;
use std::time::{Duration, Instant};

use common::process::{free_addr, Process};
use common::{
    count, count_reaches, eventually, hello, hello_again, http_get, solve, Raw, PATIENCE,
};
use serde_json::{json, Value};

/// The node timeout of these tests, in seconds (production: 15).
const NODE_TIMEOUT: &str = "2";

/// Room clocks 10 times faster (not 100): seats are held 6 s after a
/// hand-over, time enough to come back.
const FASTER: [&str; 2] = ["--room-time-scale", "10"];

/// A node of the cluster on database `db`, with more arguments.
fn node_with(db: &str, args: &[&str]) -> Process {
    let addr = free_addr();
    let public_url = format!("ws://{addr}/ws");
    let mut all = vec![
        "--public-url",
        &public_url,
        "--node-timeout-secs",
        NODE_TIMEOUT,
    ];
    all.extend_from_slice(args);
    Process::start_at(addr, db, &all)
}

/// `N` nodes of the cluster on database `db`, with more arguments.
fn nodes<const N: usize>(db: &str, args: &[&str]) -> [Process; N] {
    std::array::from_fn(|_| node_with(db, args))
}

/// A fresh database and `N` nodes on it started with `args`; `None` on a
/// machine without PostgreSQL (the test is skipped, and says so).
async fn cluster<const N: usize>(args: &[&str]) -> Option<(String, [Process; N])> {
    let db = common::postgres::fresh_database().await?;
    let nodes = nodes(&db, args);
    Some((db, nodes))
}

/// A `redirect` without its ticket (new for every redirect), and the ticket.
fn without_ticket(mut redirect: Value) -> (Value, String) {
    let ticket = redirect
        .as_object_mut()
        .and_then(|m| m.remove("ticket"))
        .and_then(|t| t.as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("a redirect without a ticket: {redirect}"));
    (redirect, ticket)
}

/// Waits until the directory holds `player`'s seat.
async fn seat_written(db: &str, welcome: &Value) {
    let sql = format!(
        "SELECT count(*) FROM seats WHERE player_id = {}",
        welcome["player_id"]
    );
    count_reaches(PATIENCE, db, &sql, 1, "the seat is in the directory").await;
}

/// A new player `name` on `server` hosting a new room, once its seat is in
/// the directory: the connection, the welcome and the room's code.
async fn host_in_directory(
    db: &str,
    server: &Process,
    name: &str,
) -> (common::Client, Value, String) {
    let (mut host, welcome) = server.player(hello(name)).await;
    let code = code_of(&host.request(json!({"type": "create_room"})).await);
    seat_written(db, &welcome).await;
    (host, welcome, code)
}

/// Asks `client` for `list_rooms` until the listed codes satisfy `wanted`;
/// returns them (sorted, as the server sends them) and the reply.
async fn listed(
    client: &mut common::Client,
    wanted: impl Fn(&[String]) -> bool,
) -> (Vec<String>, Value) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let rooms = client.request(json!({"type": "list_rooms"})).await;
        let codes: Vec<String> = common::column(&rooms["rooms"], "code")
            .into_iter()
            .map(str::to_owned)
            .collect();
        if wanted(&codes) {
            return (codes, rooms);
        }
        assert!(Instant::now() < deadline, "never listed as wanted: {rooms}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A new player on `server` hosting a new room; returns them and its code.
async fn open_room(server: &Process, name: &str, public: bool) -> (common::Client, String) {
    let (mut host, _) = server.player(hello(name)).await;
    let state = host
        .request(json!({"type": "create_room", "public": public}))
        .await;
    (host, code_of(&state))
}

/// Ann on `server` hosting a room of two rounds of 600 s: her connection,
/// her welcome and the room's code.
async fn ann_hosts_long_rounds(server: &Process) -> (common::Client, Value, String) {
    let (mut ann, wa) = server.player(hello("Ann")).await;
    let state = ann
        .request(json!({"type": "create_room", "settings": {"rounds": 2, "round_seconds": 600}}))
        .await;
    (ann, wa, code_of(&state))
}

fn code_of(state: &Value) -> String {
    assert_eq!(state["type"], "room_state", "{state}");
    state["code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn codes_are_unique_across_nodes_and_joins_elsewhere_are_redirected() {
    // Two dozen players from one address: more than the new-account budget
    // the nodes share by default.
    let args = ["--max-new-accounts", "100"];
    let Some((db, [a, b])) = cluster(&args).await else {
        return;
    };
    let (mut ann, _) = a.player(hello("Ann")).await;
    let code = code_of(&ann.request(json!({"type": "create_room"})).await);

    // Ben, on the other node, is sent to Ann's node, with his request's id.
    let (mut ben, wb) = b.player(hello("Ben")).await;
    ben.send(json!({"type": "join_room", "code": code.to_lowercase(), "id": "j"}))
        .await;
    let (redirect, ticket) = without_ticket(ben.recv().await);
    assert_eq!(
        redirect,
        json!({"type": "redirect", "id": "j", "url": a.url(), "code": code})
    );
    // A page on node a's origin, without Ben's token, signs in there with
    // the redirect's ticket: Ben, with a token of its own; once only.
    let (_page, by_ticket) = a.player(common::ticket_hello(&ticket)).await;
    assert_eq!(by_ticket["player_id"], wb["player_id"], "{by_ticket}");
    assert_ne!(by_ticket["token"], wb["token"]);
    let mut twice = b.connect().await;
    twice.send(common::ticket_hello(&ticket)).await;
    twice.expect_error("bad_token").await;
    // Following it with his token, he joins.
    let (mut ben, again) = a.player(hello_again(&wb)).await;
    assert_eq!(again["resumed"], false);
    let joined = ben
        .request(json!({"type": "join_room", "code": code}))
        .await;
    assert_eq!(joined["players"].as_array().unwrap().len(), 2, "{joined}");

    // Rooms opened on both nodes get codes no other room has, and the
    // directory says which node holds each.
    let mut codes = HashMap::from([(code.clone(), a.url())]);
    let mut hosts = Vec::new();
    for i in 0..10 {
        for server in [&a, &b] {
            let (mut host, _) = server.player(hello(&format!("Host{}", hosts.len()))).await;
            let c = code_of(&host.request(json!({"type": "create_room"})).await);
            assert!(codes.insert(c, server.url()).is_none(), "a code twice");
            hosts.push(host);
        }
        assert_eq!(codes.len(), 1 + 2 * (i + 1));
    }
    let directory: Vec<(String, String)> = Raw::connect(&db)
        .await
        .rows("SELECT r.code, n.public_url FROM rooms r JOIN nodes n ON n.id = r.node_id")
        .await;
    assert_eq!(directory.into_iter().collect::<HashMap<_, _>>(), codes);

    // A closed room leaves the directory.
    let mut last = hosts.pop().unwrap();
    let state = last.request(json!({"type": "leave_room"})).await;
    assert_ne!(state["type"], "error", "{state}");
    let rooms = (codes.len() - 1) as i64;
    count_reaches(
        PATIENCE,
        &db,
        "SELECT count(*) FROM rooms",
        rooms,
        "the closed room leaves the directory",
    )
    .await;
    // Nobody can find it any more, on either node.
    for server in [&a, &b] {
        let (mut c, _) = server
            .player(hello(&format!("Late{}", server.addr.port())))
            .await;
        let codes_left: HashSet<String> = Raw::connect(&db)
            .await
            .rows::<(String,)>("SELECT code FROM rooms")
            .await
            .into_iter()
            .map(|(c,)| c)
            .collect();
        let closed = codes.keys().find(|c| !codes_left.contains(*c)).unwrap();
        let gone = c
            .request(json!({"type": "join_room", "code": closed}))
            .await;
        assert_eq!(gone["code"], "room_not_found", "{gone}");
    }
}

#[tokio::test]
async fn a_seated_player_saying_hello_on_another_node_is_sent_to_their_room() {
    let Some((db, [a, b])) = cluster(&[]).await else {
        return;
    };
    let (mut ann, wa, code) = host_in_directory(&db, &a, "Ann").await;
    ann.ws.close(None).await.unwrap();

    // Back on the wrong node: welcomed (nothing resumed there), then sent
    // to the room's node; both answers carry the hello's id.
    let mut back = b.connect().await;
    let mut hello = hello_again(&wa);
    hello["id"] = json!("h");
    back.send(hello).await;
    let welcome = back.recv().await;
    assert_eq!(
        (&welcome["type"], &welcome["resumed"], &welcome["id"]),
        (&json!("welcome"), &json!(false), &json!("h")),
        "{welcome}"
    );
    let (redirect, _) = without_ticket(back.recv().await);
    assert_eq!(
        redirect,
        json!({"type": "redirect", "id": "h", "url": a.url(), "code": code})
    );

    // On the room's node the seat is resumed.
    let (mut ann, resumed) = a.player(hello_again(&wa)).await;
    assert_eq!(resumed["resumed"], true, "{resumed}");
    assert_eq!(ann.recv_type("room_state").await["code"], code.as_str());
}

#[tokio::test]
async fn list_rooms_lists_the_public_rooms_of_every_live_node() {
    let Some((_, [a, b, c])) = cluster(&[]).await else {
        return;
    };
    let (_ann, on_a) = open_room(&a, "Ann", true).await;
    let (_ben, on_b) = open_room(&b, "Ben", true).await;
    let (_cat, private) = open_room(&c, "Cat", false).await;
    for server in [&a, &b, &c] {
        let (mut dan, _) = server
            .player(hello(&format!("Dan{}", server.addr.port())))
            .await;
        let listed = listed(&mut dan, |codes| codes.len() >= 2).await;
        let mut expected = vec![on_a.clone(), on_b.clone()];
        expected.sort();
        assert_eq!(listed.0, expected, "private {private} must not be listed");
        let hosts = common::column(&listed.1["rooms"], "host");
        assert!(hosts.contains(&"Ann") && hosts.contains(&"Ben"));
    }
}

#[tokio::test]
async fn a_token_used_on_another_node_closes_the_older_session() {
    let Some((_, [a, b])) = cluster(&[]).await else {
        return;
    };
    let (mut on_a, wa) = a.player(hello("Ann")).await;
    let (mut on_b, _) = b.player(hello_again(&wa)).await;
    assert_eq!(on_a.expect_close().await, 1000);
    assert_eq!(on_b.request(json!({"type": "ping"})).await["type"], "pong");
    // And back: the newest session always wins, wherever it is.
    let (mut again_a, _) = a.player(hello_again(&wa)).await;
    assert_eq!(on_b.expect_close().await, 1000);
    assert_eq!(
        again_a.request(json!({"type": "ping"})).await["type"],
        "pong"
    );
}

#[tokio::test]
async fn a_node_killed_with_sigkill_leaves_the_directory_within_the_timeout() {
    let Some((db, [a, mut b])) = cluster(&[]).await else {
        return;
    };
    let (mut ann, wa) = b.player(hello("Ann")).await;
    let code = code_of(
        &ann.request(json!({"type": "create_room", "public": true}))
            .await,
    );
    seat_written(&db, &wa).await;
    let (mut ben, _) = a.player(hello("Ben")).await;
    listed(&mut ben, |codes| codes == [code.clone()]).await;

    let killed = Instant::now();
    b.kill9();
    let gone_sql = format!(
        "SELECT count(*) FROM nodes WHERE public_url = '{}'",
        b.url()
    );
    count_reaches(
        PATIENCE,
        &db,
        &gone_sql,
        0,
        "the dead node leaves the directory",
    )
    .await;
    eprintln!(
        "killed node left the directory after {:?} (node timeout {NODE_TIMEOUT} s)",
        killed.elapsed()
    );
    assert_eq!(count(&db, "SELECT count(*) FROM rooms").await, 0);

    // Its room is not listed, and joining it is refused.
    listed(&mut ben, <[String]>::is_empty).await;
    let refused = ben
        .request(json!({"type": "join_room", "code": code}))
        .await;
    assert_eq!(refused["code"], "room_not_found", "{refused}");

    // Its player, coming back, is told plainly; the stale seat is cleared.
    let mut back = a.connect().await;
    let mut hello = hello_again(&wa);
    hello["id"] = json!("h");
    back.send(hello).await;
    let welcome = back.recv().await;
    assert_eq!(welcome["resumed"], false, "{welcome}");
    let error = back.recv().await;
    assert_eq!(error["code"], "room_not_found", "{error}");
    assert_eq!(error["id"], "h", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains(&code) && message.contains("node it ran on stopped"),
        "{message}"
    );
    let (mut again, _) = a.player(hello_again(&wa)).await;
    again.send(json!({"type": "ping"})).await;
    assert_eq!(again.recv().await["type"], "pong", "no second error");
}

#[tokio::test]
async fn leaderboards_and_profiles_are_the_same_on_every_node() {
    let Some((_, [a, b])) = cluster(&[]).await else {
        return;
    };
    let (mut ann, _) = a.player(hello("Ann")).await;
    let code = code_of(
        &ann.request(json!({"type": "create_room", "settings": {"rounds": 1}}))
            .await,
    );
    let (mut ben, wb) = b.player(hello("Ben")).await;
    let redirect = ben
        .request(json!({"type": "join_room", "code": code}))
        .await;
    assert_eq!(redirect["type"], "redirect");
    let (mut ben, _) = a.player(hello_again(&wb)).await;
    ben.request(json!({"type": "join_room", "code": code}))
        .await;
    ann.request(json!({"type": "start"})).await;
    let started = ann.recv_type("round_started").await;
    // Ben tries too (a whole formula, wrong): a race, so it counts.
    ben.recv_type("round_started").await;
    let missed = ben.submit(1, &common::wrong(&started)).await;
    assert_eq!(missed["accepted"], false, "{missed}");
    let verdict = ann.submit(1, &solve(&started)).await;
    assert_eq!(verdict["accepted"], true, "{verdict}");
    ben.recv_type("match_over").await;

    for path in [
        "/api/leaderboard?metric=rounds&period=all",
        "/api/leaderboard?metric=wins&period=day",
        "/api/players/Ann",
        "/api/players/Ben",
    ] {
        let (on_a, on_b) = (http_get(a.addr, path).await, http_get(b.addr, path).await);
        assert!(on_a.0.contains(" 200 "), "{path}: {on_a:?}");
        assert_eq!(on_a, on_b, "{path}");
    }
    let board = json!({"type": "leaderboard", "metric": "rounds"});
    let (mut cat_a, _) = a.player(hello("Cat")).await;
    let (mut cat_b, _) = b.player(hello("Dot")).await;
    let (on_a, on_b) = (
        cat_a.request(board.clone()).await,
        cat_b.request(board).await,
    );
    assert_eq!(on_a, on_b);
    assert_eq!(on_a["rows"][0]["name"], "Ann", "{on_a}");
}

#[test]
fn public_url_needs_postgres_and_a_websocket_url() {
    let refused = |database: &str, public_url: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_krypto-server"))
            .args(["--listen", "127.0.0.1:0", "--database", database])
            .args(["--public-url", public_url])
            .env("RUST_LOG", "off")
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let dir = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite://{}", dir.path().join("t.db").display());
    let message = refused(&sqlite, "ws://127.0.0.1:7878/ws");
    assert!(message.contains("needs a PostgreSQL database"), "{message}");
    assert!(
        !dir.path().join("t.db").exists(),
        "no file made for nothing"
    );
    let message = refused("postgres://nobody@127.0.0.1:1/none", "http://host-b/ws");
    assert!(message.contains("use ws:// or wss://"), "{message}");
}

#[tokio::test]
async fn a_drained_node_hands_its_rooms_over_and_their_players_resume_mid_round() {
    let Some((db, [mut a, b])) = cluster(&FASTER).await else {
        return;
    };
    let (mut ann, wa, code) = ann_hosts_long_rounds(&a).await;
    let (mut ben, wb) = a.player(hello("Ben")).await;
    let (mut cat, wc) = a.player(hello("Cat")).await;
    ben.request(json!({"type": "join_room", "code": code}))
        .await;
    let watching = cat
        .request(json!({"type": "join_room", "code": code, "spectator": true}))
        .await;
    assert_eq!(watching["type"], "room_state", "{watching}");
    ann.request(json!({"type": "start"})).await;
    let started = ann.recv_type("round_started").await;
    ben.recv_type("round_started").await;

    // Node a is stopped mid-round: every member is sent to node b.
    a.terminate();
    for client in [&mut ann, &mut ben, &mut cat] {
        let redirect = client.recv_type("redirect").await;
        assert_eq!(redirect["url"], b.url(), "{redirect}");
        assert_eq!(redirect["code"], code.as_str());
        assert_eq!(redirect["ticket"].as_str().map(str::len), Some(32));
    }
    assert!(a.exited_cleanly().await);

    // There, each says hello with their token and is back in their seat,
    // in the same round with the same hand.
    let mut back = Vec::new();
    let mut states = Vec::new();
    for welcome in [&wa, &wb, &wc] {
        let (mut c, again) = b.player(hello_again(welcome)).await;
        assert_eq!(again["resumed"], true, "{again}");
        let state = c.recv_type("room_state").await;
        assert_eq!(state["code"], code.as_str());
        assert_eq!(state["state"], "playing", "{state}");
        assert_eq!(state["round"]["number"], 1);
        assert_eq!(state["round"]["cards"], started["cards"]);
        back.push(c);
        states.push(state);
    }
    let cat_row = common::member(&states[2], &wc["player_id"]).unwrap();
    assert_eq!(cat_row["spectator"], true, "Cat still watches: {cat_row}");
    let verdict = back[0].submit(1, &solve(&started)).await;
    assert_eq!(verdict["accepted"], true, "{verdict}");
    let won = back[1].recv_type("round_won").await;
    assert_eq!(won["winner"], wa["player_id"]);

    // One match, recorded across both nodes; nothing left saved; the room
    // is node b's in the directory.
    assert_eq!(count(&db, "SELECT count(*) FROM matches").await, 1);
    assert_eq!(count(&db, "SELECT count(*) FROM saved_rooms").await, 0);
    let sql = format!("SELECT count(*) FROM rooms WHERE code = '{code}'");
    assert_eq!(count(&db, &sql).await, 1);
}

#[tokio::test]
async fn a_lone_node_stopped_mid_round_leaves_its_rooms_to_the_next_node_that_starts() {
    let Some((db, [mut a])) = cluster(&FASTER).await else {
        return;
    };
    let (mut ann, wa, code) = ann_hosts_long_rounds(&a).await;
    ann.request(json!({"type": "start"})).await;
    let started = ann.recv_type("round_started").await;

    // No other node to hand the room to: it is kept for whoever starts.
    a.terminate();
    assert_eq!(ann.expect_close().await, 1012);
    assert!(a.exited_cleanly().await);
    assert_eq!(count(&db, "SELECT count(*) FROM saved_rooms").await, 1);

    let b = node_with(&db, &FASTER);
    let (mut ann, again) = b.player(hello_again(&wa)).await;
    assert_eq!(again["resumed"], true, "{again}");
    let state = ann.recv_type("room_state").await;
    assert_eq!(state["code"], code.as_str());
    assert_eq!(state["round"]["cards"], started["cards"]);
    assert_eq!(count(&db, "SELECT count(*) FROM saved_rooms").await, 0);
    let sql = format!("SELECT count(*) FROM rooms WHERE code = '{code}'");
    assert_eq!(
        count(&db, &sql).await,
        1,
        "the room is b's in the directory"
    );
}

#[tokio::test]
async fn another_nodes_locked_room_is_missing_to_strangers_and_there_for_its_members() {
    let Some((db, [a, b])) = cluster(&[]).await else {
        return;
    };
    let (mut ann, _) = a.player(hello("Ann")).await;
    let state = ann.request(json!({"type": "create_room"})).await;
    let code = code_of(&state);
    let (mut ben, wb) = a.player(hello("Ben")).await;
    ben.request(json!({"type": "join_room", "code": code}))
        .await;
    seat_written(&db, &wb).await;
    ann.request(json!({"type": "lock", "locked": true})).await;

    // A stranger on node b gets what a missing code gets: no redirect that
    // would confirm the code.
    let (mut cat, _) = b.player(hello("Cat")).await;
    let join = json!({"type": "join_room", "code": code});
    let deadline = Instant::now() + PATIENCE;
    let answer = loop {
        let answer = cat.request(join.clone()).await;
        if answer["type"] == "error" {
            break answer;
        }
        assert!(
            Instant::now() < deadline,
            "the lock never reached the directory: {answer}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(answer["code"], "room_not_found", "{answer}");

    // Ben, seated in it, is still sent there from node b.
    let (mut ben_again, again) = b.player(hello_again(&wb)).await;
    assert_eq!(again["resumed"], false);
    let redirect = ben_again.recv_type("redirect").await;
    assert_eq!(redirect["code"], code.as_str());
    assert_eq!(redirect["url"], a.url());
}

/// A player saying `hello` on `server`, or `None` if it is refused for now
/// (its database is away).
async fn try_player(server: &Process, hello: Value) -> Option<(common::Client, Value)> {
    let mut c = server.connect().await;
    c.send(hello).await;
    let welcome = c.recv().await;
    (welcome["type"] == "welcome").then_some((c, welcome))
}

/// The database's clock, in seconds.
async fn db_now(db: &str) -> f64 {
    let (now,): (f64,) = Raw::connect(db)
        .await
        .one("SELECT CAST(extract(epoch FROM now()) AS float8)")
        .await;
    now
}

/// Waits until the database's clock reads `at` (seconds) or later.
async fn until_db_time(db: &str, at: f64) {
    eventually("the database's clock moves on", || async {
        (db_now(db).await >= at).then_some(())
    })
    .await;
}

/// A series of `node`'s `/metrics`.
async fn metric(node: &Process, series: &str) -> f64 {
    let (status, body) = http_get(node.metrics_addr, "/metrics").await;
    assert!(status.contains(" 200 "), "{status}");
    common::sample(&body, series)
}

#[tokio::test]
async fn after_a_database_outage_longer_than_the_node_timeout_every_node_and_room_is_still_there() {
    let Some(pg) = common::postgres::Cluster::own() else {
        return;
    };
    let db = pg.fresh_database().await;
    let timeout: f64 = NODE_TIMEOUT.parse().unwrap();
    let [a, b] = nodes(&db, &[]);
    let (_ann, on_a) = open_room(&a, "Ann", true).await;
    let (_ben, on_b) = open_room(&b, "Ben", true).await;
    let (mut fay_on_a, wf) = a.player(hello("Fay")).await;
    let (mut gil, wg) = a.player(hello("Gil")).await;
    gil.request(json!({"type": "join_room", "code": on_a}))
        .await;
    let (mut dan, _) = a.player(hello("Dan")).await;
    listed(&mut dan, |codes| codes.len() == 2).await;
    let seats = "SELECT count(*) FROM seats WHERE orphaned_at IS NULL";
    count_reaches(PATIENCE, &db, seats, 3, "the three seats are written").await;
    // (Gil's seat goes after the outage: his session on A is replaced, and
    // a dropped seat is held for 60 s of room time, 0.6 s here.)
    let hosts_seats = "SELECT count(*) FROM seats s JOIN players p ON p.id = s.player_id \
                       WHERE s.orphaned_at IS NULL AND p.name IN ('Ann', 'Ben')";

    // The outage itself: the database is away for 2.5 node timeouts.
    pg.stop();
    tokio::time::sleep(Duration::from_secs_f64(timeout * 2.5)).await;
    pg.start();
    let back = db_now(&db).await;

    // Fay comes back on the other node as soon as it lets her in; her old
    // session on A closes, whether A's LISTEN was back in time to hear of
    // it or read it from the notices it missed.
    let (mut fay_on_b, _) = eventually("B welcomes a returning player", || {
        try_player(&b, hello_again(&wf))
    })
    .await;
    assert_eq!(fay_on_a.expect_close().await, 1000);
    assert_eq!(
        fay_on_b.request(json!({"type": "ping"})).await["type"],
        "pong"
    );
    // Gil, seated on A, says hello on B before A's first heartbeat back
    // may have come: he is sent to his room, which is not taken for gone.
    let mut gil_on_b = b.connect().await;
    let mut again = hello_again(&wg);
    again["id"] = json!("h");
    gil_on_b.send(again).await;
    assert_eq!(gil_on_b.recv().await["type"], "welcome");
    let redirect = gil_on_b.recv().await;
    assert_eq!(redirect["type"], "redirect", "{redirect}");
    assert_eq!(redirect["url"], a.url().as_str());

    // Once every node has been back for two timeouts, no node took another
    // for dead: both rows, both rooms, the hosts' seats, nobody registered
    // again.
    until_db_time(&db, back + 2.0 * timeout).await;
    assert_eq!(count(&db, "SELECT count(*) FROM nodes").await, 2);
    assert_eq!(count(&db, "SELECT count(*) FROM rooms").await, 2);
    assert_eq!(count(&db, hosts_seats).await, 2);
    for node in [&a, &b] {
        assert_eq!(metric(node, "krypto_node_rejoins_total").await, 0.0);
        assert!(metric(node, "krypto_database_reconnects_total{user=\"listen\"}").await >= 1.0);
    }

    // Each node lists the other's room again, and sends players there.
    let mut expected = vec![on_a.clone(), on_b.clone()];
    expected.sort();
    let (mut eve, _) = eventually("B welcomes a newcomer", || try_player(&b, hello("Eve"))).await;
    for client in [&mut dan, &mut eve] {
        assert_eq!(listed(client, |codes| codes.len() == 2).await.0, expected);
    }
    let redirect = dan
        .request(json!({"type": "join_room", "code": on_b}))
        .await;
    assert_eq!(redirect["type"], "redirect", "{redirect}");
    assert_eq!(redirect["url"], b.url().as_str());
    assert_eq!(
        metric(&a, "krypto_redirects_total{reason=\"join\"}").await,
        1.0
    );
}

#[tokio::test]
async fn a_killed_nodes_rooms_leave_the_listing_once_its_last_heartbeat_is_a_timeout_old() {
    let Some((db, [a, mut b])) = cluster(&[]).await else {
        return;
    };
    let timeout: f64 = NODE_TIMEOUT.parse().unwrap();
    let (_ann, code) = open_room(&b, "Ann", true).await;
    let (mut ben, _) = a.player(hello("Ben")).await;
    listed(&mut ben, |codes| codes == [code.clone()]).await;

    b.kill9();
    // Its last heartbeat, as the database saw it (read until it stays put:
    // one may still have been on its way).
    let last_sql = format!(
        "SELECT CAST(extract(epoch FROM heartbeat_at) AS float8) FROM nodes \
         WHERE public_url = '{}'",
        b.url()
    );
    let last = || async {
        let rows: Vec<(f64,)> = Raw::connect(&db).await.rows(&last_sql).await;
        rows.first().map(|row| row.0)
    };
    let mut at = last()
        .await
        .expect("the killed node is still in the directory");
    loop {
        until_db_time(&db, at + timeout).await;
        // Gone (reaped after its timeout) or unchanged: `at` was the last.
        match last().await {
            Some(again) if again != at => at = again,
            _ => break,
        }
    }
    // From then on the room is gone from the listing, whenever the other
    // node's next heartbeat comes.
    let rooms = ben.request(json!({"type": "list_rooms"})).await;
    assert_eq!(rooms["rooms"], json!([]), "{rooms}");
}

#[tokio::test]
async fn a_seat_on_one_node_keeps_its_player_from_renaming_hosting_or_joining_on_another() {
    let Some((db, [a, b])) = cluster(&[]).await else {
        return;
    };
    let (_ann, wa, code) = host_in_directory(&db, &a, "Ann").await;

    // A rename on the other node is refused, as on a single node.
    let mut rename = b.connect().await;
    let mut anna = hello_again(&wa);
    anna["name"] = json!("Anna");
    rename.send(anna.clone()).await;
    rename.expect_error("already_in_room").await;

    // Her token alone is welcome there (and sent to her room), but she
    // cannot host a second room nor take a seat in another one there.
    let (mut on_b, _) = b.player(hello_again(&wa)).await;
    assert_eq!(on_b.recv().await["type"], "redirect");
    let second = on_b.request(json!({"type": "create_room"})).await;
    assert_eq!(second["code"], "already_in_room", "{second}");
    assert!(
        second["message"].as_str().unwrap().contains(&code),
        "{second}"
    );
    let (_ben, bens) = open_room(&b, "Ben", false).await;
    let join = on_b
        .request(json!({"type": "join_room", "code": bens}))
        .await;
    assert_eq!(join["code"], "already_in_room", "{join}");
    assert_eq!(
        count(&db, "SELECT count(*) FROM rooms").await,
        2,
        "one room each"
    );

    // Once she has left her room, she may do all three on the other node.
    let (mut back, resumed) = a.player(hello_again(&wa)).await;
    assert_eq!(resumed["resumed"], true, "{resumed}");
    back.recv_type("room_state").await;
    let left = back.request(json!({"type": "leave_room"})).await;
    assert_ne!(left["type"], "error", "{left}");
    let seats = format!(
        "SELECT count(*) FROM seats WHERE player_id = {}",
        wa["player_id"]
    );
    count_reaches(PATIENCE, &db, &seats, 0, "her seat leaves the directory").await;
    let (mut renamed, welcome) = b.player(anna).await;
    assert_eq!(welcome["name"], "Anna", "{welcome}");
    code_of(&renamed.request(json!({"type": "create_room"})).await);
}

/// `hello` from `ip` on `server`: its answer.
async fn hello_from(server: &Process, ip: &str, hello: Value) -> (common::Client, Value) {
    let mut c = common::connect_forwarded(&server.url(), ip).await.unwrap();
    c.send(hello).await;
    let answer = c.recv().await;
    (c, answer)
}

/// A wrong room code from `client`: its answer's error code.
async fn miss(client: &mut common::Client) -> Value {
    client
        .request(json!({"type": "join_room", "code": "QQQQQ"}))
        .await["code"]
        .clone()
}

#[tokio::test]
async fn the_code_miss_and_new_account_budgets_are_one_for_all_nodes() {
    let args = [
        "--max-code-misses",
        "4",
        "--max-new-accounts",
        "3",
        "--trusted-proxies",
        "127.0.0.1/32",
    ];
    let Some((db, [a, b])) = cluster(&args).await else {
        return;
    };

    // New accounts from one address: two on a, one on b, then none on
    // either.
    for (server, name) in [(&a, "Acc1"), (&a, "Acc2"), (&b, "Acc3")] {
        let (_, welcome) = hello_from(server, "203.0.113.9", hello(name)).await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
    }
    for (server, name) in [(&b, "Acc4"), (&a, "Acc5")] {
        let (_, refused) = hello_from(server, "203.0.113.9", hello(name)).await;
        assert_eq!(refused["code"], "rate_limited", "{name}: {refused}");
    }
    // Another address still has its own.
    let (_, other) = hello_from(&b, "203.0.113.10", hello("Acc6")).await;
    assert_eq!(other["type"], "welcome", "{other}");

    // Room-code misses of one address (an IPv6 /64 is one): two players,
    // two nodes, one budget.
    let (mut mia, wm) = hello_from(&a, "2001:db8:1:2::1", hello("Mia")).await;
    assert_eq!(wm["type"], "welcome", "{wm}");
    let (mut max, wx) = hello_from(&b, "2001:db8:1:2::2", hello("Max")).await;
    assert_eq!(wx["type"], "welcome", "{wx}");
    for _ in 0..2 {
        assert_eq!(miss(&mut mia).await, "room_not_found");
        assert_eq!(miss(&mut max).await, "room_not_found");
    }
    assert_eq!(miss(&mut max).await, "rate_limited");
    assert_eq!(miss(&mut mia).await, "rate_limited");

    // One player's misses, from two addresses on two nodes: one budget.
    let (_, wp) = hello_from(&a, "198.51.100.1", hello("Pia")).await;
    let mut pia_a = hello_from(&a, "198.51.100.1", hello_again(&wp)).await.0;
    for _ in 0..2 {
        assert_eq!(miss(&mut pia_a).await, "room_not_found");
    }
    let (mut pia_b, _) = hello_from(&b, "198.51.100.2", hello_again(&wp)).await;
    for _ in 0..2 {
        assert_eq!(miss(&mut pia_b).await, "room_not_found");
    }
    assert_eq!(miss(&mut pia_b).await, "rate_limited");
    // Counted in slices of a twelfth of the (one-minute) window, each
    // starting on a slice boundary.
    let unaligned = "SELECT count(*) FROM budgets WHERE since_ms % 5000 <> 0";
    assert_eq!(count(&db, unaligned).await, 0);
    assert!(count(&db, "SELECT count(*) FROM budgets").await >= 4);
}

#[tokio::test]
async fn the_rooms_one_address_holds_are_counted_across_the_nodes() {
    // 20 rooms a node and 2 an address (a tenth), whichever node opens them.
    let args = ["--max-rooms", "20", "--max-rooms-per-address", "2"];
    let Some((_db, [a, b])) = cluster(&args).await else {
        return;
    };
    let (mut ann, _) = a.player(hello("Ann")).await;
    let (mut ben, _) = b.player(hello("Ben")).await;
    let (mut cy, _) = b.player(hello("Cy")).await;
    for host in [&mut ann, &mut ben] {
        let state = host.request(json!({"type": "create_room"})).await;
        assert_eq!(state["type"], "room_state", "{state}");
    }
    // Node b alone holds one room of this address; the directory says two.
    let refused = cy.request(json!({"type": "create_room"})).await;
    assert_eq!(refused["code"], "too_many_rooms", "{refused}");
    // A room closed anywhere gives the place back.
    ann.send(json!({"type": "leave_room"})).await;
    let mut answer = cy.request(json!({"type": "create_room"})).await;
    let deadline = Instant::now() + PATIENCE;
    while answer["type"] != "room_state" && Instant::now() < deadline {
        assert_eq!(answer["type"], "error", "{answer}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        answer = cy.request(json!({"type": "create_room"})).await;
    }
    assert_eq!(answer["type"], "room_state", "{answer}");
}

/// Answers `hands` hands of a run as fast as the socket goes: a script.
async fn scripted_run(client: &mut common::Client, hands: u32) {
    client.send(json!({"type": "run_start"})).await;
    let mut hand = client.recv_type("run").await;
    for _ in 0..hands {
        let n = hand["hand"].clone();
        client
            .send(json!({"type": "run_submit", "hand": n, "formula": solve(&hand)}))
            .await;
        assert_eq!(client.recv_type("verdict").await["accepted"], true);
        hand = client.recv_type("run_hand").await;
    }
}

/// Solves today's daily on `client`'s node; the hand's objective and cards.
async fn solve_daily(client: &mut common::Client) -> Value {
    client.send(json!({"type": "daily_start"})).await;
    let hand = client.recv_type("daily").await;
    client
        .send(json!({"type": "daily_submit", "formula": solve(&hand)}))
        .await;
    client.recv_type("daily_solved").await;
    json!([hand["number"], hand["objective"], hand["cards"]])
}

/// The names on today's daily board, as `node` serves it.
async fn daily_board(node: &Process) -> Vec<String> {
    let (status, body) = http_get(node.addr, "/api/daily/board?limit=50").await;
    assert!(status.contains(" 200 "), "{status} {body}");
    let board: Value = serde_json::from_str(&body).unwrap();
    common::column(&board["rows"], "name")
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn both_nodes_deal_one_daily_and_share_one_set_of_flags() {
    let Some((db, [a, b])) = cluster(&[]).await else {
        return;
    };
    // Bot plays on A as a solver script would: its run's answers come
    // faster than anyone reads a hand, and A flags it.
    let (mut bot, _) = a.player(hello("Bot")).await;
    scripted_run(&mut bot, 4).await;
    eventually("A flags the script", || async {
        (count(
            &db,
            "SELECT count(*) FROM fair_play_flags WHERE status = 'flagged'",
        )
        .await
            == 1)
            .then_some(())
    })
    .await;
    // The same hand on both nodes, whichever asked first.
    let (mut ann, _) = b.player(hello("Ann")).await;
    let on_b = solve_daily(&mut ann).await;
    let on_a = solve_daily(&mut bot).await;
    assert_eq!(on_a, on_b, "one daily for the cluster");
    // B's board leaves out the player A flagged; A's is the same.
    let names = eventually("the boards agree", || async {
        let (on_a, on_b) = (daily_board(&a).await, daily_board(&b).await);
        (on_a == on_b).then_some(on_b)
    })
    .await;
    assert_eq!(names, ["Ann"]);
}
