//! The real binary with a stdout nobody reads: a pipe left full or closed
//! costs log lines — counted on `/metrics`, owned up to in the log once it
//! is read again — never the server's answers or its graceful stop.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};

use common::process::Process;
use common::{hello, http_get, sample, PATIENCE};
use futures_util::future::join_all;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// A queue of a few lines, so that lines are dropped (and counted) soon
/// after the 64 KiB pipe is full; no per-address limit in the way of the
/// noise.
const ARGS: &[&str] = &[
    "--log-queue-lines",
    "64",
    "--ws-open-burst",
    "0",
    "--max-connections-per-ip",
    "0",
];

/// Connections in parallel while making noise.
const LANES: usize = 8;

/// Hostile connections, each logged at info ("closing an abusive
/// connection", over a hundred bytes): alone several times what a 64 KiB
/// pipe holds.
const HOSTILE: usize = 2_400;

/// Players coming back with their token, each logged at info ("welcome").
const RETURNS: usize = 200;

/// Makes the server log thousands of lines: connections refused for a
/// frame no `hello` needs, and a player saying hello again and again.
async fn make_noise(server: &Process) {
    join_all((0..LANES).map(|_| async {
        for _ in 0..HOSTILE / LANES {
            let mut c = server.connect().await;
            let big = format!(
                r#"{{"type":"hello","protocol":1,"name":"{}"}}"#,
                "a".repeat(8000)
            );
            c.send_raw(Message::text(big)).await;
            assert_eq!(c.expect_close().await, 1009);
        }
    }))
    .await;
    let (_, welcome) = server.player(hello("Noisy")).await;
    for _ in 0..RETURNS {
        let again =
            json!({"type": "hello", "protocol": 1, "name": "Noisy", "token": welcome["token"]});
        server.player(again).await;
    }
}

/// The server still does its job: `/healthz`, a round won over WebSocket.
async fn still_serves(server: &Process) {
    assert!(server.healthz().await.contains("200"));
    let (mut ann, _) = server.player(hello("Ann")).await;
    let (mut ben, _) = server.player(hello("Ben")).await;
    ann.host_match(json!({"rounds": 1, "round_seconds": 600}), &mut [&mut ben])
        .await;
    let (round, winner, ..) = common::win(&mut ann, &mut ben, 1).await;
    assert_eq!(round, 1);
    assert!(winner > 0);
}

/// Log lines lost so far, as `/metrics` says.
async fn lines_lost(server: &Process) -> f64 {
    let (status, body) = http_get(server.metrics_addr, "/metrics").await;
    assert!(status.contains("200"), "{status}");
    sample(&body, "krypto_log_lines_dropped_total")
}

/// Makes far more log lines than the pipe and the queue hold, with stdout
/// and stderr held open unread or, with `close_pipes`, their reader gone:
/// the server still serves, counts the lines it lost, and stops on SIGTERM.
async fn costs_lines_not_service(close_pipes: bool) {
    let database = common::fresh_database().await;
    let (mut server, stdout, stderr) = Process::start_unread(&database.url, ARGS, "info").await;
    let pipes = (!close_pipes).then_some((stdout, stderr));
    make_noise(&server).await;
    still_serves(&server).await;
    // Lines a full pipe did not take, or a closed one refused (EPIPE),
    // were dropped and counted.
    let lost = lines_lost(&server).await;
    assert!(lost >= 1_000.0, "{lost} lines counted as lost");
    // SIGTERM still drains the rooms and stops the process.
    server.terminate();
    assert!(server.exited_cleanly().await);
    drop(pipes);
}

#[tokio::test]
async fn a_stdout_nobody_reads_costs_lines_not_service() {
    costs_lines_not_service(false).await;
}

#[tokio::test]
async fn a_stdout_whose_reader_is_gone_costs_lines_not_service() {
    costs_lines_not_service(true).await;
}

#[tokio::test]
async fn once_read_again_the_log_says_how_many_lines_it_lost() {
    let database = common::fresh_database().await;
    let (mut server, stdout, _stderr) = Process::start_unread(&database.url, ARGS, "info").await;
    make_noise(&server).await;
    let lost = lines_lost(&server).await;
    assert!(lost > 0.0);
    // Reading the pipe again: the next look at the counters (every few
    // seconds) finds stdout taking lines and says what was lost.
    let (said_tx, said) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line.contains("log lines were lost") {
                let _ = said_tx.send(line);
            }
        }
    });
    let notice = said
        .recv_timeout(3 * PATIENCE)
        .expect("no notice of lost lines");
    let total = notice
        .split_whitespace()
        .find_map(|field| field.strip_prefix("dropped_total="))
        .unwrap();
    assert!(total.parse::<f64>().unwrap() >= lost, "{notice}");
    server.terminate();
    assert!(server.exited_cleanly().await);
}
