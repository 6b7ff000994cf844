//! Crash safety with the real binary: results announced before a `kill -9`
//! are in the database after it, a SQLite file is sound, and the server
//! starts again on it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use common::{Client, PATIENCE};
use krypto_core::rules::Rules;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The real `krypto-server`, killed with SIGKILL when dropped.
struct Process {
    child: Child,
    addr: SocketAddr,
}

impl Process {
    /// Starts the binary on the database at `url` and a free port, and
    /// waits until it says it is listening.
    fn start(url: &str) -> Process {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_krypto-server"))
            .arg("--listen")
            .arg(addr.to_string())
            .arg("--database")
            .arg(url)
            .env("KRYPTO_ROOM_TIME_SCALE", "100")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The join addresses are printed once the port is bound; keep
        // draining stdout afterwards so the server never blocks on it.
        let stdout = child.stdout.take().unwrap();
        let (ready_tx, ready) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if line.contains("friends can join") {
                    let _ = ready_tx.send(());
                }
            }
        });
        let process = Process { child, addr };
        ready
            .recv_timeout(PATIENCE)
            .expect("the server did not start");
        process
    }

    async fn connect(&self) -> Client {
        let url = format!("ws://{}/ws", self.addr);
        let (ws, _) = tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async(url))
            .await
            .unwrap()
            .unwrap();
        Client { ws }
    }

    async fn player(&self, hello: Value) -> (Client, Value) {
        let mut c = self.connect().await;
        c.send(hello).await;
        let welcome = c.recv().await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        (c, welcome)
    }

    async fn healthz(&self) -> String {
        let mut s = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut out = String::new();
        tokio::time::timeout(PATIENCE, s.read_to_string(&mut out))
            .await
            .unwrap()
            .unwrap();
        out.lines().next().unwrap_or_default().to_owned()
    }

    /// SIGKILL: no shutdown, no flush, no goodbye.
    fn kill9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A formula that makes the dealt objective, from the solver.
fn solve(started: &Value) -> String {
    let cards: Vec<i64> = started["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_i64().unwrap())
        .collect();
    let objective = started["objective"].as_i64().unwrap();
    krypto_core::solver::solve_one(&cards, objective, Rules::Free)
        .unwrap()
        .expect("rooms deal solvable hands")
        .to_string()
}

on_both! {
    #[tokio::test]
    async fn announced_results_survive_kill_9() {
        let database = common::fresh_database().await;
        let mut server = Process::start(&database.url);
        let (mut ann, wa) = server
            .player(json!({"type": "hello", "protocol": 1, "name": "Ann"}))
            .await;
        let (mut ben, _) = server
            .player(json!({"type": "hello", "protocol": 1, "name": "Ben"}))
            .await;
        let state = ann
            .request(json!({"type": "create_room", "settings": {"rounds": 10, "round_seconds": 60}}))
            .await;
        let code = state["code"].as_str().unwrap().to_owned();
        ben.request(json!({"type": "join_room", "code": code}))
            .await;
        ann.request(json!({"type": "start"})).await;

        // Three rounds are won and announced; the match has seven to go.
        let mut announced = Vec::new();
        for round in 1..=3u64 {
            let started = ann.recv_type("round_started").await;
            assert_eq!(started["round"], round);
            let formula = solve(&started);
            let (winner, other) = if round % 2 == 1 {
                (&mut ann, &mut ben)
            } else {
                (&mut ben, &mut ann)
            };
            let verdict = winner
                .request(json!({"type": "submit", "round": round, "formula": formula}))
                .await;
            assert_eq!(verdict["accepted"], true, "{verdict}");
            let won = other.recv_type("round_won").await;
            winner.recv_type("round_won").await;
            announced.push((
                round as i64,
                won["winner"].as_i64().unwrap(),
                won["formula"].as_str().unwrap().to_owned(),
                won["elapsed_ms"].as_i64().unwrap(),
            ));
        }
        server.kill9();

        // Every announced round is there, and the file is sound.
        let mut db = common::Raw::connect(&database.url).await;
        if let common::Raw::Sqlite(_) = db {
            let (check,): (String,) = db.one("PRAGMA integrity_check").await;
            assert_eq!(check, "ok");
        }
        let recorded: Vec<(i64, i64, String, i64)> = db.rows("SELECT number, winner_id, formula, elapsed_ms FROM rounds
             WHERE outcome = 'won' ORDER BY number").await;
        assert_eq!(recorded, announced);
        let (status,): (String,) = db.one("SELECT status FROM matches").await;
        assert_eq!(status, "playing", "killed mid-match");
        drop(db);

        // The server starts again on the same file and knows its players.
        let server = Process::start(&database.url);
        assert!(server.healthz().await.contains(" 200 "));
        let (_, again) = server
            .player(json!({"type": "hello", "protocol": 1, "name": "Ann", "token": wa["token"]}))
            .await;
        assert_eq!(again["player_id"], wa["player_id"]);
        drop(server);
    }
}
