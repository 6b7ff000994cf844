//! `GET /metrics`: a round played over real sockets moves the series it
//! should, on both backends; they are served on a port of their own
//! (`--metrics-listen`, loopback by default), never on the main one.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod common;

use common::process::{free_addr, Process};
use common::{http_get, sample, solve, TestServer};
use serde_json::json;

/// The body of `GET /metrics`.
async fn scrape(server: &TestServer) -> String {
    server.metrics().await
}

on_both! {
    #[tokio::test]
    async fn a_round_played_shows_in_the_metrics() {
        let server = TestServer::with_config(|c| c.room_time_scale = 100).await;
        let before = scrape(&server).await;
        assert_eq!(sample(&before, "krypto_connections"), 0.0);
        assert_eq!(sample(&before, "krypto_verdict_seconds_count"), 0.0);
        assert_eq!(sample(&before, "krypto_rooms"), 0.0);

        let [(mut ann, _), (mut ben, _)] = server.players(["ann", "ben"]).await;
        ann.host_match(json!({"rounds": 1}), &mut [&mut ben]).await;
        let started = ann.recv_type("round_started").await;
        ben.recv_type("round_started").await;
        let wrong = ben.submit(1, "0/0").await;
        assert_eq!(wrong["accepted"], false, "{wrong}");
        let right = ann.submit(1, &solve(&started)).await;
        assert_eq!(right["accepted"], true, "{right}");
        ann.recv_type("match_over").await;
        ben.recv_type("match_over").await;

        let after = scrape(&server).await;
        assert_eq!(sample(&after, "krypto_connections"), 2.0);
        assert_eq!(sample(&after, "krypto_connections_opened_total"), 2.0);
        assert_eq!(sample(&after, "krypto_players"), 2.0);
        assert_eq!(sample(&after, "krypto_rooms"), 1.0);
        // hello ×2, create, join, start, submit ×2.
        assert_eq!(sample(&after, "krypto_messages_received_total"), 7.0);
        assert!(sample(&after, "krypto_messages_sent_total") >= 14.0, "{after}");
        assert_eq!(sample(&after, "krypto_verdict_seconds_count"), 2.0);
        assert!(sample(&after, "krypto_verdict_seconds_sum") > 0.0);
        assert_eq!(sample(&after, "krypto_verdict_seconds_bucket{le=\"+Inf\"}"), 2.0);
        // Two players, a match start, a hand, two attempts, a result: some
        // group commits, none failed, none waiting.
        let commits = sample(&after, "krypto_commits_total");
        assert!(commits >= 2.0, "{after}");
        // Each commit is one sample of the commit-time histogram.
        assert_eq!(sample(&after, "krypto_commit_seconds_count"), commits, "{after}");
        assert_eq!(sample(&after, "krypto_commit_seconds_bucket{le=\"+Inf\"}"), commits);
        let slowest = sample(&after, "krypto_commit_seconds_max");
        assert!(slowest > 0.0, "{after}");
        assert!(sample(&after, "krypto_commit_seconds_sum") >= slowest, "{after}");
        assert!(after.contains("# TYPE krypto_commit_seconds histogram"), "{after}");
        assert_eq!(sample(&after, "krypto_journal_batches"), 0.0);
        assert_eq!(sample(&after, "krypto_journal_full"), 0.0);
        assert_eq!(sample(&after, "krypto_commit_failures_total"), 0.0);
        assert_eq!(sample(&after, "krypto_recorder_queue"), 0.0);
        assert_eq!(sample(&after, "krypto_redirects_total{reason=\"join\"}"), 0.0);
        // Lost log lines are the binary's to count (`tests/log_output.rs`).
        assert_eq!(sample(&after, "krypto_log_lines_dropped_total"), 0.0);
        assert!(after.contains("# TYPE krypto_verdict_seconds histogram"), "{after}");
        assert!(after.contains("# HELP krypto_commits_total "), "{after}");

        drop(ben);
        drop(ann);
        server.shutdown().await;
    }
}

#[tokio::test]
async fn metrics_listen_serves_metrics_on_their_own_port_only() {
    let database = common::fresh_database().await;
    let metrics_addr = free_addr();
    let server = Process::start_at(
        free_addr(),
        &database.url,
        &["--metrics-listen", &metrics_addr.to_string()],
    );
    let (_ann, _) = server.player(common::hello("ann")).await;
    let (status, body) = http_get(metrics_addr, "/metrics").await;
    assert!(status.contains(" 200 "), "{status}");
    assert_eq!(sample(&body, "krypto_connections"), 1.0);
    assert_eq!(sample(&body, "krypto_players"), 1.0);
    let (status, _) = http_get(server.addr, "/metrics").await;
    assert!(status.contains(" 404 "), "{status}");
    let (status, _) = http_get(metrics_addr, "/healthz").await;
    assert!(status.contains(" 404 "), "{status}");
}

#[tokio::test]
async fn by_default_metrics_are_on_loopback_and_never_on_the_main_port() {
    assert!(krypto_server::DEFAULT_METRICS_LISTEN.ip().is_loopback());
    assert_ne!(krypto_server::DEFAULT_METRICS_LISTEN.port(), 7878);
    let server = TestServer::start().await;
    let (status, _) = server.get("/metrics").await;
    assert!(status.contains(" 404 "), "{status}");
    assert!(scrape(&server).await.contains("krypto_connections"));
    server.shutdown().await;
}
