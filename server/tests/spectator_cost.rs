//! A measurement, not a check: what 100 spectators joining one room cost the
//! real server binary in CPU time and bytes sent. Ignored by default; run
//!
//! ```sh
//! cargo test --release -p krypto-server --test spectator_cost -- --ignored --nocapture
//! ```
//!
//! (`KRYPTO_SPECTATORS=450` for another count). Linux only: the server's
//! CPU time is read from `/proc/<pid>/stat`. Results go in
//! docs/benchmarks.md.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::Client;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// User plus system CPU time of process `pid` so far, in milliseconds
/// (`/proc` counts in clock ticks of 1/100 s on Linux).
fn cpu_ms(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let utime: u64 = fields[11].parse().unwrap();
    let stime: u64 = fields[12].parse().unwrap();
    (utime + stime) * 10
}

/// The size of `{"id":"end","type":"pong"}`, not part of the cost.
const PONG_BYTES: u64 = 26;

/// Reads every message already sent to `c`, returning their bytes, until
/// `done` holds for one of them.
async fn drain_until(c: &mut Client, done: impl Fn(&Value) -> bool) -> u64 {
    let mut bytes = 0;
    loop {
        let Some(Ok(Message::Text(t))) = c.ws.next().await else {
            panic!("connection ended");
        };
        bytes += t.len() as u64;
        let v: Value = serde_json::from_str(t.as_str()).unwrap();
        if done(&v) {
            return bytes;
        }
    }
}

async fn hello(url: &str, name: &str) -> Client {
    let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let mut c = Client { ws };
    c.send(json!({"type": "hello", "protocol": 1, "name": name}))
        .await;
    assert_eq!(c.recv().await["type"], "welcome");
    c
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn spectators_joining_one_room() {
    let count: usize = std::env::var("KRYPTO_SPECTATORS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cost.db");
    let mut server = Command::new(env!("CARGO_BIN_EXE_krypto-server"))
        .args(["--listen", "127.0.0.1:0", "--database"])
        .arg(format!("sqlite://{}", db.display()))
        .args([
            "--max-connections-per-ip",
            "0",
            "--max-new-accounts",
            "0",
            "--ws-open-burst",
            "0",
        ])
        .args(["--max-spectators", &count.to_string()])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(server.stdout.take().unwrap());
    let port = stdout
        .lines()
        .map_while(Result::ok)
        .find_map(|l| {
            l.split("ws://localhost:")
                .nth(1)
                .map(|p| p.trim_end_matches("/ws").to_owned())
        })
        .unwrap();
    let url = format!("ws://127.0.0.1:{port}/ws");

    let mut host = hello(&url, "Host").await;
    let state = host.request(json!({"type": "create_room"})).await;
    let code = state["code"].as_str().unwrap().to_owned();
    let mut player = hello(&url, "Player").await;
    player
        .request(json!({"type": "join_room", "code": code}))
        .await;
    drain_until(&mut host, |v| v["type"] == "player_joined").await;
    let mut spectators = Vec::new();
    for i in 0..count {
        spectators.push(hello(&url, &format!("S{i}")).await);
    }

    let cpu_before = cpu_ms(server.id());
    let mut to_joiners = 0;
    for s in &mut spectators {
        s.send(json!({"type": "join_room", "code": code, "spectator": true, "id": "j"}))
            .await;
        to_joiners += drain_until(s, |v| v["id"] == "j").await;
    }
    // The room task queued every message a join causes before that
    // join's reply, so once the last reply is read, a ping answered to each
    // client comes after everything the joins sent it.
    let cpu = cpu_ms(server.id()) - cpu_before;
    let mut sent = Vec::new();
    for c in [&mut host, &mut player]
        .into_iter()
        .chain(spectators.iter_mut())
    {
        c.send(json!({"type": "ping", "id": "end"})).await;
        sent.push(drain_until(c, |v| v["id"] == "end").await - PONG_BYTES);
    }
    let total = to_joiners + sent.iter().sum::<u64>();
    println!(
        "{count} spectators joining: server CPU {cpu} ms; {total} B sent in all, \
         {} B to the host, {} B to a player, {to_joiners} B in the joiners' replies",
        sent[0], sent[1]
    );
    let _ = server.kill();
    let _ = server.wait();
}
