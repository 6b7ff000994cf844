//! A silent network drop between the server and PostgreSQL, caused for real:
//! the real binary talks to its database through a proxy that black-holes
//! the link ([`common::blackhole`]) — bytes held, sockets kept open, nothing
//! failing. Every call to the database has a deadline
//! (`--database-deadline-ms`, short here), so the drop is handled as a
//! refused connection is: results go to the journal, the room plays on,
//! `/readyz` says why, a player's time is theirs (never the time the server
//! held their verdict), and nothing announced is lost or stored twice —
//! across a kill -9 too. PostgreSQL only (a SQLite file has no network).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
#[allow(unused_macros)]
mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::blackhole::{BlackHole, Link};
use common::process::{free_addr, Process};
use common::{http_get, solve, win, Client, Raw, Won};
use serde_json::{json, Value};

/// The deadline the servers here run with (ms of real time).
const DEADLINE_MS: u64 = 1_000;

/// Room time runs this many times faster than real time: a hold of one
/// deadline is 10 s of room time, longer than the pause between rounds.
const SCALE: i64 = 10;

/// A database behind a black hole, and where the server journals.
struct Setup {
    /// The database itself, for reading back.
    url: String,
    proxy: BlackHole,
    journal: PathBuf,
    _dir: tempfile::TempDir,
}

impl Setup {
    /// `None` when there is no PostgreSQL here (the test is skipped).
    async fn new() -> Option<Setup> {
        let url = common::postgres::fresh_database().await?;
        let proxy = BlackHole::new(&url).await;
        let dir = tempfile::tempdir().unwrap();
        Some(Setup {
            url,
            proxy,
            journal: dir.path().join("krypto.recorder-journal"),
            _dir: dir,
        })
    }

    /// The real server, on the database through the proxy.
    fn serve(&self) -> Process {
        let journal = self.journal.display().to_string();
        let deadline = DEADLINE_MS.to_string();
        let scale = SCALE.to_string();
        Process::start_at(
            free_addr(),
            &self.proxy.url,
            &[
                "--journal",
                &journal,
                "--database-deadline-ms",
                &deadline,
                "--room-time-scale",
                &scale,
            ],
        )
    }

    /// The won rounds in the database, in order.
    async fn recorded(&self) -> Vec<Won> {
        let mut db = Raw::connect(&self.url).await;
        db.rows(
            "SELECT number, winner_id, formula, elapsed_ms FROM rounds
             WHERE outcome = 'won' ORDER BY number",
        )
        .await
    }

    /// Each player's matches and rounds won on the all-time board.
    async fn stats(&self) -> Vec<(i64, i64, i64)> {
        let mut db = Raw::connect(&self.url).await;
        db.rows(
            "SELECT player_id, matches, rounds_won FROM player_stats
             WHERE period = 'all' ORDER BY player_id",
        )
        .await
    }
}

/// Ann and Ben in a started match of ten long rounds.
async fn a_match(server: &Process) -> (Client, Client) {
    a_match_of(server, 10).await
}

/// Ann and Ben in a started match of `rounds` long rounds.
async fn a_match_of(server: &Process, rounds: u32) -> (Client, Client) {
    let (mut ann, _) = server.player(common::hello("Ann")).await;
    let (mut ben, _) = server.player(common::hello("Ben")).await;
    ann.host_match(
        json!({"rounds": rounds, "round_seconds": 120}),
        &mut [&mut ben],
    )
    .await;
    (ann, ben)
}

/// `/readyz`: the status code and the JSON body.
async fn readyz(server: &Process) -> (u16, Value) {
    let (status, body) = http_get(server.addr, "/readyz").await;
    let code = status.split(' ').nth(1).unwrap().parse().unwrap();
    (code, serde_json::from_str(&body).unwrap())
}

/// Asks `/readyz` until it answers 200 (at most 20 s); returns the body.
async fn ready_again(server: &Process) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (code, body) = readyz(server).await;
        if code == 200 {
            return body;
        }
        assert!(Instant::now() < deadline, "still not ready: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Round `round` won at once by whoever's turn it is (as [`win`]), with
/// the real time from the deal's arrival to the answer's sending, and from
/// the answer's sending to its verdict.
async fn timed_win(ann: &mut Client, ben: &mut Client, round: i64) -> (Won, Duration, Duration) {
    let started = ann.recv_type("round_started").await;
    let dealt = Instant::now();
    assert_eq!(started["round"], round);
    let (winner, other) = if round % 2 == 1 {
        (ann, ben)
    } else {
        (ben, ann)
    };
    let formula = solve(&started);
    let sent = Instant::now();
    let verdict = winner.submit(round, &formula).await;
    let answered = sent.elapsed();
    assert_eq!(verdict["accepted"], true, "{verdict}");
    let won = other.recv_type("round_won").await;
    winner.recv_type("round_won").await;
    let won = (
        round,
        won["winner"].as_i64().unwrap(),
        won["formula"].as_str().unwrap().to_owned(),
        won["elapsed_ms"].as_i64().unwrap(),
    );
    (won, sent - dealt, answered)
}

/// Room milliseconds in `real`.
fn room_ms(real: Duration) -> i64 {
    i64::try_from(real.as_millis()).unwrap() * SCALE
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_black_holed_database_is_journaled_past_the_deadline_and_play_goes_on() {
    let Some(setup) = Setup::new().await else {
        eprintln!("skipped: no PostgreSQL here");
        return;
    };
    let server = setup.serve();
    let (mut ann, mut ben) = a_match(&server).await;
    let mut announced = vec![win(&mut ann, &mut ben, 1).await];
    assert_eq!(readyz(&server).await.0, 200);

    setup.proxy.set(Link::Held);
    // The first win in the drop waits one deadline for its commit, then
    // the journal takes it and it is announced; the next ones go straight
    // to the journal. Each verdict comes (a frozen room never would).
    for round in 2..=4 {
        let (won, thought, answered) = timed_win(&mut ann, &mut ben, round).await;
        eprintln!(
            "round {round}: elapsed_ms {} for {thought:?} from deal to answer; verdict after {answered:?}",
            won.3
        );
        // The player's time is from the deal to the answer's arrival: the
        // hold of the previous round's verdict (10 s of room time, longer
        // than the 4 s between rounds) is not in it, and no deal was
        // overdue when it was dealt.
        assert!(
            won.3 <= room_ms(thought) + 1_500,
            "round {round}: elapsed {} ms of room time for {thought:?} of real time",
            won.3
        );
        announced.push(won);
    }
    let (code, body) = readyz(&server).await;
    assert_eq!(code, 503, "{body}");
    assert!(body["journal"].as_u64().unwrap() >= 3, "{body}");
    assert!(setup.journal.exists());
    let database = body["database"].as_str().unwrap();
    assert!(
        database.starts_with("unreachable for ") || database.starts_with("writes failing for "),
        "{body}"
    );
    // Someone new is told to come back (the lookup of their name has a
    // deadline too: the hello is answered, not left hanging).
    let mut cid = server.connect().await;
    cid.send(common::hello("Cid")).await;
    let refused = cid.recv().await;
    assert_eq!(refused["type"], "error", "{refused}");

    setup.proxy.set(Link::Open);
    let body = ready_again(&server).await;
    assert_eq!(body["journal"], 0, "{body}");
    announced.push(win(&mut ann, &mut ben, 5).await);
    assert_eq!(setup.recorded().await, announced);
    assert!(
        !setup.journal.exists(),
        "the journal is emptied once replayed"
    );
}

/// The database takes a commit but its answer is lost: the recorder's
/// deadline passes, it journals the batch, and replays it once the link
/// heals. The replay changes nothing (the writes are keyed by match, round
/// and attempt): each round is stored once, and the match and each win
/// counted once on the boards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_whose_answer_was_lost_is_replayed_without_counting_twice() {
    let Some(setup) = Setup::new().await else {
        eprintln!("skipped: no PostgreSQL here");
        return;
    };
    let server = setup.serve();
    let (mut ann, mut ben) = a_match_of(&server, 3).await;
    let mut announced = vec![win(&mut ann, &mut ben, 1).await];

    setup.proxy.set(Link::AnswersHeld);
    announced.push(win(&mut ann, &mut ben, 2).await);
    announced.push(win(&mut ann, &mut ben, 3).await);
    let over = ann.recv_type("match_over").await;
    assert_eq!(readyz(&server).await.0, 503, "{over}");

    setup.proxy.set(Link::Open);
    ready_again(&server).await;
    assert_eq!(setup.recorded().await, announced);
    // Ann won rounds 1 and 3, Ben round 2; one match each.
    let (ann_id, ben_id) = (announced[0].1, announced[1].1);
    let mut expected = vec![(ann_id, 1, 2), (ben_id, 1, 1)];
    expected.sort_unstable();
    assert_eq!(setup.stats().await, expected);
}

/// A kill -9 of the server while its database link is black-holed: every
/// win announced before it was journaled, and the next start replays them
/// and closes the match that can never finish as abandoned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_9_during_a_drop_loses_no_announced_win() {
    let Some(setup) = Setup::new().await else {
        eprintln!("skipped: no PostgreSQL here");
        return;
    };
    let mut server = setup.serve();
    let (mut ann, mut ben) = a_match(&server).await;
    let mut announced = vec![win(&mut ann, &mut ben, 1).await];
    setup.proxy.set(Link::Held);
    announced.push(win(&mut ann, &mut ben, 2).await);
    announced.push(win(&mut ann, &mut ben, 3).await);
    server.kill9();
    assert!(setup.journal.exists(), "the wins were journaled");

    setup.proxy.set(Link::Open);
    let again = setup.serve();
    ready_again(&again).await;
    assert_eq!(setup.recorded().await, announced);
    assert!(!setup.journal.exists());
    // Its match can never finish: closed at the start, not left playing.
    let mut db = Raw::connect(&setup.url).await;
    let statuses: Vec<(String,)> = db.rows("SELECT status FROM matches").await;
    assert_eq!(statuses, vec![("abandoned".to_owned(),)]);
}

/// Polls `check` until it answers, failing after 20 s.
async fn eventually<T, F: std::future::Future<Output = Option<T>>>(
    what: &str,
    mut check: impl FnMut() -> F,
) -> T {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(answer) = check().await {
            return answer;
        }
        assert!(Instant::now() < deadline, "never happened: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The one integer `sql` answers on `db`.
async fn count(db: &str, sql: &str) -> i64 {
    let (n,): (i64,) = Raw::connect(db).await.one(sql).await;
    n
}

/// A node of a cluster on `db` with a node timeout of 1 s.
fn node(db: &str, extra: &[&str]) -> Process {
    let addr = free_addr();
    let public_url = format!("ws://{addr}/ws");
    let mut args = vec!["--public-url", &public_url, "--node-timeout-secs", "1"];
    args.extend_from_slice(extra);
    Process::start_at(addr, db, &args)
}

/// Node A cut off for longer than the node timeout: B takes it for dead.
/// Ann, who hosted a room on A (where Ben plays on), comes to B and opens
/// a room there. When the
/// link heals, A registers again and re-publishes its rooms and seats — but
/// not Ann's: her seat on B is newer. A drops its stale seat of hers, so
/// she is never seated, nor hosting, on two nodes in the directory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_back_from_a_partition_does_not_overwrite_a_newer_seat() {
    let Some(setup) = Setup::new().await else {
        eprintln!("skipped: no PostgreSQL here");
        return;
    };
    let deadline = DEADLINE_MS.to_string();
    let journal = setup.journal.display().to_string();
    let a = node(
        &setup.proxy.url,
        &["--database-deadline-ms", &deadline, "--journal", &journal],
    );
    let b = node(&setup.url, &[]);
    let (mut ann, welcome) = a.player(common::hello("Ann")).await;
    let on_a = ann.request(json!({"type": "create_room"})).await;
    let on_a = on_a["code"].as_str().unwrap().to_owned();
    let ann_id = welcome["player_id"].as_i64().unwrap();
    let seat = format!("SELECT count(*) FROM seats WHERE player_id = {ann_id} AND code = '{on_a}'");
    eventually("Ann's seat on A is in the directory", || async {
        (count(&setup.url, &seat).await == 1).then_some(())
    })
    .await;
    // Ben stays in the room on A; Ann's connection drops (her seat is
    // held there).
    let (mut ben, _) = a.player(common::hello("Ben")).await;
    let joined = ben
        .request(json!({"type": "join_room", "code": on_a}))
        .await;
    assert_eq!(joined["type"], "room_state", "{joined}");
    drop(ann);

    setup.proxy.set(Link::Held);
    eventually("B takes A for dead", || async {
        (count(&setup.url, "SELECT count(*) FROM nodes").await == 1).then_some(())
    })
    .await;
    // On B, Ann is told her room is gone, then opens one there.
    let (mut ann, _) = b.player(common::hello_again(&welcome)).await;
    let gone = ann.recv().await;
    assert_eq!(gone["code"], "room_not_found", "{gone}");
    let on_b = ann.request(json!({"type": "create_room"})).await;
    assert_eq!(on_b["type"], "room_state", "{on_b}");
    let on_b = on_b["code"].as_str().unwrap().to_owned();
    let seat_b =
        format!("SELECT count(*) FROM seats WHERE player_id = {ann_id} AND code = '{on_b}'");
    eventually("Ann's seat on B is in the directory", || async {
        (count(&setup.url, &seat_b).await == 1).then_some(())
    })
    .await;

    setup.proxy.set(Link::Open);
    // A re-publishes its rooms and seats in one transaction: once its room
    // is back, Ann's seat was decided.
    let room_a = format!("SELECT count(*) FROM rooms WHERE code = '{on_a}'");
    eventually("A re-publishes its room", || async {
        (count(&setup.url, &room_a).await == 1).then_some(())
    })
    .await;
    let seats: Vec<(String,)> = Raw::connect(&setup.url)
        .await
        .rows(&format!(
            "SELECT code FROM seats WHERE player_id = {ann_id}"
        ))
        .await;
    assert_eq!(seats, vec![(on_b.clone(),)]);
    // And she cannot host a second room anywhere.
    let again = ann.request(json!({"type": "create_room"})).await;
    assert_eq!(again["type"], "error", "{again}");
}
