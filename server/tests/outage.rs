//! Database outages, caused for real against the real binary: PostgreSQL
//! stopped and started again (`pg_ctl` on a cluster of the test's own), a
//! SQLite file write-locked by another connection or made read-only, a full
//! disk. Nothing
//! announced is lost, play goes on, `/readyz` tells the truth, new players
//! are refused clearly and welcome again after, and a kill -9 during the
//! outage loses nothing (the journal is replayed at the next start).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::outage::{ReadOnly, SmallDisk};
use common::postgres::Cluster;
use common::process::{free_addr, Process};
use common::{recorded, solve, win, Client, Raw, Won, PATIENCE};
use krypto_server::db::Backend;
use serde_json::{json, Value};
use sqlx::{Connection, SqliteConnection};

/// A database the test can take away and give back: its own PostgreSQL
/// cluster, stopped and started; or a SQLite file another connection holds
/// the write lock of.
struct Outage {
    url: String,
    /// Where the server keeps its journal.
    journal: PathBuf,
    cluster: Option<Cluster>,
    lock: Option<SqliteConnection>,
    _dir: tempfile::TempDir,
}

impl Outage {
    /// `None` when the test is to be skipped (no PostgreSQL here).
    async fn new() -> Option<Outage> {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("krypto.recorder-journal");
        Some(match common::backend() {
            Backend::Postgres => {
                let cluster = Cluster::own()?;
                Outage {
                    url: cluster.url().to_owned(),
                    journal,
                    cluster: Some(cluster),
                    lock: None,
                    _dir: dir,
                }
            }
            Backend::Sqlite => Outage {
                url: format!("sqlite://{}", dir.path().join("krypto.db").display()),
                journal,
                cluster: None,
                lock: None,
                _dir: dir,
            },
        })
    }

    /// The real server on this database, journaling beside it. Its rooms
    /// run ten times faster than the wall clock (not a hundred, as in the
    /// other tests of the binary): a room waits for a SQLite lock up to a
    /// second before its win goes to the journal, and that second must not
    /// be a whole round of room time.
    fn serve(&self) -> Process {
        self.serve_with(&[])
    }

    /// The same, with more arguments.
    fn serve_with(&self, args: &[&str]) -> Process {
        let journal = self.journal.display().to_string();
        let mut all = vec!["--journal", &journal, "--room-time-scale", "10"];
        all.extend_from_slice(args);
        Process::start_at(free_addr(), &self.url, &all)
    }

    /// Takes the database away.
    async fn begin(&mut self) {
        match &self.cluster {
            Some(cluster) => cluster.stop(),
            None => {
                let mut lock = SqliteConnection::connect(&self.url).await.unwrap();
                sqlx::query("BEGIN IMMEDIATE")
                    .execute(&mut lock)
                    .await
                    .unwrap();
                self.lock = Some(lock);
            }
        }
    }

    /// Gives it back.
    async fn end(&mut self) {
        match &self.cluster {
            Some(cluster) => cluster.start(),
            None => {
                let mut lock = self.lock.take().unwrap();
                sqlx::query("ROLLBACK").execute(&mut lock).await.unwrap();
                lock.close().await.unwrap();
            }
        }
    }

    /// The won rounds in the database, in order.
    async fn recorded(&self) -> Vec<Won> {
        recorded(&self.url).await
    }
}

/// Ann and Ben in a started match of ten rounds on `server`.
async fn a_match(server: &Process) -> (Client, Client) {
    a_match_of(server, 10).await
}

/// Ann and Ben in a started match of `rounds` rounds on `server`.
async fn a_match_of(server: &Process, rounds: u32) -> (Client, Client) {
    server.a_match(["Ann", "Ben"], rounds, 60).await
}

/// A cluster of the test's own, made and then stopped: a database that is
/// not there yet (see [`Cluster::own`] for `None`).
fn stopped_cluster() -> Option<Cluster> {
    let cluster = Cluster::own()?;
    cluster.stop();
    Some(cluster)
}

/// A hello from someone new: the welcome, or the error.
async fn newcomer(server: &Process, name: &str) -> Value {
    let mut c = server.connect().await;
    c.send(common::hello(name)).await;
    c.recv().await
}

on_both! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn wins_announced_during_an_outage_are_all_in_the_database_afterwards() {
        let Some(mut outage) = Outage::new().await else {
            return;
        };
        let server = outage.serve();
        let (mut ann, mut ben) = a_match(&server).await;
        let (_, dee) = server
            .player(common::hello("Dee"))
            .await;
        let mut announced = vec![win(&mut ann, &mut ben, 1).await];
        assert_eq!(server.readyz().await.0, 200);

        outage.begin().await;
        // Play goes on, and every win is announced.
        for round in 2..=4 {
            announced.push(win(&mut ann, &mut ben, round).await);
        }
        let (code, body) = server.readyz().await;
        assert_eq!(code, 503, "{body}");
        assert_eq!(body["status"], "degraded");
        let database = body["database"].as_str().unwrap();
        assert!(
            database.starts_with("unreachable for ") || database.starts_with("writes failing for "),
            "{body}"
        );
        assert!(body["journal"].as_u64().unwrap() >= 3, "{body}");
        assert!(server.healthz().await.contains(" 200 "), "the process is alive");
        // Someone new is told to come back; someone known comes back in.
        let refused = newcomer(&server, "Cid").await;
        assert_eq!(refused["type"], "error", "{refused}");
        assert_eq!(
            refused["message"],
            "the server cannot create new players right now; try again in a minute"
        );
        let (_, again) = server
            .player(json!({"type": "hello", "protocol": 1, "name": "Dee", "token": dee["token"]}))
            .await;
        assert_eq!(again["player_id"], dee["player_id"]);

        outage.end().await;
        let body = server.ready_again().await;
        assert_eq!(body, json!({"status": "ok", "database": "ok", "journal": 0}));
        announced.push(win(&mut ann, &mut ben, 5).await);
        let welcome = newcomer(&server, "Cid").await;
        assert_eq!(welcome["type"], "welcome", "new players are welcome again: {welcome}");

        assert_eq!(outage.recorded().await, announced);
        assert!(!outage.journal.exists(), "the journal is emptied once replayed");
    }

    /// The recorder stalled — the database away and the journal unwritable
    /// (a directory where its file would be), so a win can be neither
    /// committed nor journaled — and its queue full: the win waits,
    /// announced to nobody, while a wrong answer in another room is judged
    /// at once, again and again (writes that announce nothing wait in their
    /// room, not the room for the recorder). Once both are back the win is
    /// announced, and every attempt is in the database.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn wrong_answers_are_judged_while_a_win_waits_for_a_stalled_recorder() {
        let Some(mut outage) = Outage::new().await else {
            return;
        };
        let mut server = outage.serve_with(&["--recorder-queue", "1"]);
        let (mut ann, mut ben) = a_match(&server).await;
        let (mut cat, mut dan) = server.a_match(["Cat", "Dan"], 10, 600).await;
        let started = ann.recv_type("round_started").await;
        ben.recv_type("round_started").await;
        let cat_round = cat.recv_type("round_started").await;

        outage.begin().await;
        std::fs::create_dir(&outage.journal).unwrap();
        ann.send(json!({"type": "submit", "id": "win", "round": 1, "formula": solve(&started)}))
            .await;
        // The recorder has the win and can write it nowhere.
        let deadline = Instant::now() + PATIENCE;
        loop {
            let (_, body) = server.readyz().await;
            if body.get("journal_error").is_some() {
                break;
            }
            assert!(Instant::now() < deadline, "readyz never said: {body}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let cards = cat_round["cards"].as_array().unwrap();
        let wrong = cards
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join("+");
        let objective = cat_round["objective"].as_i64().unwrap();
        let sum: i64 = cards.iter().map(|c| c.as_i64().unwrap()).sum();
        let wrong = if sum == objective {
            format!("{wrong}+0")
        } else {
            wrong
        };
        // More attempts than a room sends ahead at once, twice over: the
        // second lot meets the full queue and waits in the room.
        for n in 0..8 {
            for player in [&mut cat, &mut dan] {
                let verdict = player.submit(1, &wrong).await;
                assert_eq!(verdict["type"], "verdict", "attempt {n}: {verdict}");
                assert_eq!(verdict["accepted"], false, "attempt {n}: {verdict}");
            }
        }
        // Still held: nothing about the win has reached its room.
        use futures_util::{FutureExt, StreamExt};
        for (who, client) in [("Ann", &mut ann), ("Ben", &mut ben)] {
            let early = client.ws.next().now_or_never();
            assert!(early.is_none(), "{who} heard of the win early: {early:?}");
        }

        std::fs::remove_dir(&outage.journal).unwrap();
        outage.end().await;
        let verdict = ann.recv().await;
        assert_eq!((verdict["id"].as_str(), verdict["accepted"].as_bool()), (Some("win"), Some(true)), "{verdict}");
        let won = ben.recv_type("round_won").await;
        assert_eq!(won["round"], 1);
        // A graceful stop writes what waited in the room.
        server.terminate();
        assert!(server.exited_cleanly().await);
        let mut db = Raw::connect(&outage.url).await;
        let (refused,): (i64,) = db
            .one(
                "SELECT count(*) FROM attempts a JOIN players p ON p.id = a.player_id
                 WHERE p.name IN ('Cat', 'Dan') AND NOT a.accepted",
            )
            .await;
        assert_eq!(refused, 16);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_kill_9_during_an_outage_loses_no_announced_win() {
        let Some(mut outage) = Outage::new().await else {
            return;
        };
        let mut server = outage.serve();
        let (mut ann, mut ben) = a_match(&server).await;
        let mut announced = vec![win(&mut ann, &mut ben, 1).await];
        outage.begin().await;
        for round in 2..=3 {
            announced.push(win(&mut ann, &mut ben, round).await);
        }
        server.kill9();
        assert!(outage.journal.exists(), "the wins of the outage wait in the journal");
        outage.end().await;

        let server = outage.serve();
        server.ready_again().await;
        assert_eq!(outage.recorded().await, announced);
        assert!(!outage.journal.exists());
    }

    /// A journal at its bound (here: anything in it) refuses new matches,
    /// clearly, and lets the match in play finish; both come back with the
    /// database.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_full_journal_refuses_new_matches_and_finishes_the_one_in_play() {
        let Some(mut outage) = Outage::new().await else {
            return;
        };
        let server = outage.serve_with(&["--journal-max-mb", "0"]);
        let (mut ann, mut ben) = a_match_of(&server, 2).await;
        let mut announced = vec![win(&mut ann, &mut ben, 1).await];
        outage.begin().await;
        announced.push(win(&mut ann, &mut ben, 2).await);
        let over = ann.recv_type("match_over").await;
        assert_eq!(over["standings"][0]["score"], 1, "{over}");
        let (code, body) = server.readyz().await;
        assert_eq!((code, &body["journal_full"]), (503, &json!(true)), "{body}");
        let refused = ann.request(json!({"type": "start"})).await;
        assert_eq!(refused["type"], "error", "{refused}");
        assert_eq!(
            refused["message"],
            "the server cannot start new matches until its database is back; the match in play goes on"
        );

        outage.end().await;
        let body = server.ready_again().await;
        assert_eq!(body.get("journal_full"), None, "{body}");
        let started = ann.request(json!({"type": "start"})).await;
        assert_ne!(started["type"], "error", "{started}");
        assert_eq!(outage.recorded().await, announced);
        let mut db = Raw::connect(&outage.url).await;
        let finished: Vec<(String,)> = db.rows("SELECT status FROM matches WHERE status = 'finished'").await;
        assert_eq!(finished.len(), 1, "the match that ended in the outage is finished");
    }
}

/// PostgreSQL stopped, with a read deadline longer than the pool's wait
/// (so the read's own error answers, not the deadline): every read of the
/// API that needs the database is refused alike, 503
/// `database_unavailable`, the daily's and the runs' boards as the
/// profiles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_reads_of_a_stopped_database_answer_503_on_every_route() {
    let Some(cluster) = Cluster::own() else {
        eprintln!("skipped: no PostgreSQL here");
        return;
    };
    let server = Process::start_at(
        free_addr(),
        cluster.url(),
        &["--database-deadline-ms", "20000"],
    );
    server.player(common::hello("Dee")).await;
    cluster.stop();
    for path in ["/api/players/Dee", "/api/daily/board", "/api/runs/board"] {
        let (status, body) = common::http_get(server.addr, path).await;
        assert!(status.contains(" 503 "), "{path}: {status} {body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            body["error"]["code"], "database_unavailable",
            "{path}: {body}"
        );
    }
}

/// Two nodes while PostgreSQL restarts behind them, idle: the next new
/// player on each node is welcome at the first try (the recorder's and the
/// pool's stale connections are replaced on first use).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_restart_of_postgresql_new_players_are_welcome_on_every_node() {
    let Some(cluster) = Cluster::own() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let nodes: Vec<Process> = ["a", "b"]
        .iter()
        .map(|name| {
            let addr = free_addr();
            let public_url = format!("ws://{addr}/ws");
            let journal = dir.path().join(name).display().to_string();
            let args = [
                "--public-url",
                &public_url,
                "--node-timeout-secs",
                "1",
                "--journal",
                &journal,
            ];
            Process::start_at(addr, cluster.url(), &args)
        })
        .collect();
    for (i, node) in nodes.iter().enumerate() {
        let welcome = newcomer(node, &format!("Before{i}")).await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
    }
    cluster.stop();
    // Longer than the node timeout, as in a restart for an upgrade.
    tokio::time::sleep(Duration::from_secs(3)).await;
    cluster.start();
    for (i, node) in nodes.iter().enumerate() {
        node.ready_again().await;
        let welcome = newcomer(node, &format!("After{i}")).await;
        assert_eq!(welcome["type"], "welcome", "node {i}: {welcome}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_before_its_database_waits_for_it() {
    let Some(cluster) = stopped_cluster() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j").display().to_string();
    let server = Process::start_at(free_addr(), cluster.url(), &["--journal", &journal]);
    let deadline = Instant::now() + PATIENCE;
    while !server.printed("waiting for the database at") {
        assert!(Instant::now() < deadline, "the server did not say it waits");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    cluster.start();
    server.ready_again().await;
    let welcome = newcomer(&server, "Ann").await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_gives_up_on_a_database_that_never_comes() {
    let Some(cluster) = stopped_cluster() else {
        return;
    };
    let mut server = Process::start_at(free_addr(), cluster.url(), &["--database-wait-secs", "1"]);
    assert!(!server.exited_cleanly().await, "it exits with an error");
    assert!(server.printed("waiting for the database at"));
}

/// SQLite on a disk that fills up: the database cannot write (SQLITE_FULL)
/// and neither can the journal beside it, so the win waits — announced to
/// nobody — while `/readyz` says why; when space returns, it is recorded
/// and announced, and the file is sound. Needs a tmpfs (root).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_holds_the_win_back_loudly_until_space_returns() {
    let Some(disk) = SmallDisk::mount(8 * 1024 * 1024) else {
        eprintln!("skipped: mounting a small tmpfs needs root");
        return;
    };
    let url = format!("sqlite://{}", disk.path().join("krypto.db").display());
    let server = Process::start(&url);
    let (mut ann, mut ben) = a_match(&server).await;
    let mut announced = vec![win(&mut ann, &mut ben, 1).await];

    let started = ann.recv_type("round_started").await;
    disk.fill("filler");
    // Its verdict and the win wait for the disk: sent, not awaited.
    ben.send(json!({"type": "submit", "round": 2, "formula": solve(&started)}))
        .await;
    // Loud while it lasts.
    let deadline = Instant::now() + PATIENCE;
    let body = loop {
        let (code, body) = server.readyz().await;
        if code == 503 && body.get("journal_error").is_some() {
            break body;
        }
        assert!(Instant::now() < deadline, "readyz never said: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(body["status"], "degraded");

    disk.free("filler");
    let won = ann.recv_type("round_won").await;
    announced.push((
        2,
        won["winner"].as_i64().unwrap(),
        won["formula"].as_str().unwrap().to_owned(),
        won["elapsed_ms"].as_i64().unwrap(),
    ));
    server.ready_again().await;
    drop(server);
    assert_eq!(recorded(&url).await, announced);
}

/// A SQLite file made read-only under a running server (immutable, so
/// that root cannot write it either, through a descriptor already open or
/// a new one): the recorder's writes fail, the wins go to the journal
/// beside it and are announced, `/readyz` says why; once the file is
/// writable again the journal is replayed and every announced win is in
/// the file, which is sound. Needs root (`chattr`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_database_file_journals_the_wins_until_it_is_writable() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("krypto.db");
    let url = format!("sqlite://{}", file.display());
    let server = Process::start_at(free_addr(), &url, &["--room-time-scale", "10"]);
    let (mut ann, mut ben) = a_match(&server).await;
    let mut announced = vec![win(&mut ann, &mut ben, 1).await];

    // The database and its write-ahead log: what SQLite writes to.
    let wal = dir.path().join("krypto.db-wal");
    let Some(read_only) = ReadOnly::make(&[file.clone(), wal]) else {
        eprintln!("skipped: making a file read-only under a running server needs root (chattr +i)");
        return;
    };
    for round in 2..=3 {
        announced.push(win(&mut ann, &mut ben, round).await);
    }
    let (code, body) = server.readyz().await;
    assert_eq!(code, 503, "{body}");
    let database = body["database"].as_str().unwrap();
    assert!(database.starts_with("writes failing for "), "{body}");
    assert!(
        database.contains("readonly") || database.contains("disk I/O error"),
        "/readyz names the error: {body}"
    );
    assert!(body["journal"].as_u64().unwrap() >= 2, "{body}");
    assert!(dir.path().join("krypto.db.recorder-journal").exists());

    drop(read_only);
    let body = server.ready_again().await;
    assert_eq!(
        body,
        json!({"status": "ok", "database": "ok", "journal": 0})
    );
    announced.push(win(&mut ann, &mut ben, 4).await);
    drop(server);
    assert_eq!(recorded(&url).await, announced);
}

/// The recorder's counters and gauges (what `/readyz` and metrics read)
/// follow an outage: a failed commit, a journaled batch waiting, then a
/// reconnect and the batch replayed; new players are refused meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recorders_counters_follow_an_outage() {
    use krypto_server::db::scores::{NewMatch, NewPlayer, Write};
    use krypto_server::db::{Created, Db};
    use krypto_server::scores::recorder::{JournalOptions, RecordError, Recorder};
    use std::sync::atomic::Ordering::Relaxed;

    let Some(cluster) = Cluster::own() else {
        return;
    };
    let db = Db::open(cluster.url()).await.unwrap();
    let ann = common::seed_player(&db, "Ann", "hash-Ann", false).await;
    let ben = || NewPlayer {
        name: "Ben".into(),
        name_key: krypto_core::names::key("Ben"),
        token_hash: "hash-Ben".into(),
        bot: false,
    };
    let dir = tempfile::tempdir().unwrap();
    let journal = JournalOptions::at(dir.path().join("journal"));
    let (recorder, task) = Recorder::start(&db, journal).await.unwrap();
    let state = recorder.state().clone();
    let start = |n: u128| {
        vec![Write::StartMatch(NewMatch {
            id: uuid::Uuid::from_u128(n),
            room_code: "ABCDE".into(),
            settings: json!({}),
            players: vec![ann],
            at_ms: 1_000,
        })]
    };
    recorder.commit(start(1)).await.unwrap();
    assert_eq!(state.commits.load(Relaxed), 1);

    cluster.stop();
    recorder.commit(start(2)).await.unwrap();
    assert!(matches!(
        recorder.create_player(ben()).await,
        Err(RecordError::Unavailable)
    ));
    assert_eq!(state.journal_batches.load(Relaxed), 1);
    assert!(state.journal_bytes.load(Relaxed) > 0);
    assert!(state.failed_commits.load(Relaxed) >= 1);
    assert!(state.database_outage().is_some());

    cluster.start();
    let deadline = Instant::now() + Duration::from_secs(20);
    while state.journal_batches.load(Relaxed) > 0 {
        assert!(Instant::now() < deadline, "the journal was not replayed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(state.replayed_batches.load(Relaxed), 1);
    assert!(state.reconnects.load(Relaxed) >= 1);
    assert!(state.database_outage().is_none());
    assert!(matches!(
        recorder.create_player(ben()).await,
        Ok(Created::Player(_))
    ));
    recorder.close().await;
    task.await.unwrap();
    let mut raw = Raw::connect(cluster.url()).await;
    let (matches,): (i64,) = raw.one("SELECT count(*) FROM matches").await;
    assert_eq!(matches, 2);
}
