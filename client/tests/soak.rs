//! Soak test: the real server (in its own thread and runtime, on
//! 127.0.0.1:0, with a temporary SQLite file) under the load generator's
//! library entry point — 50 rooms × 4 players playing for a few seconds.
//! Asserts what must hold at any speed: no errors, no unexpected
//! disconnects, an answer for every submission: a verdict, or for a late
//! answer (one that crossed the end of its round, which happens more often
//! the slower the machine) the `wrong_round`/`wrong_state` refusal the
//! protocol prescribes. No timings are asserted; the numbers are for
//! `krypto-load` and docs/benchmarks.md.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use krypto_client::load::{self, LoadConfig};

mod common;

use common::TestServer;

// Eight seconds of load: a named CI step of its own (`.ci/run`), not part of the default set.
#[test]
#[ignore = "soak test: run with `cargo test -p krypto-client --test soak -- --ignored`"]
fn two_hundred_players_play_without_errors_or_lost_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("soak.db");
    let server = TestServer::with_config("127.0.0.1:0", TestServer::config(&db));

    let mut config = LoadConfig::new(server.url());
    config.rooms = 50;
    config.players = 4;
    config.ramp = Duration::from_secs(1);
    config.duration = Duration::from_secs(8);
    config.submit_every = Duration::from_millis(500);
    config.wrong_ratio = 0.5;
    config.rounds = 5;
    config.name_prefix = "soak".into();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let report = runtime.block_on(load::run(config)).unwrap();
    drop(runtime);
    println!("{report}");

    assert_eq!(report.rooms_ready, 50, "{report}");
    assert_eq!(report.tally.rooms_failed, 0, "{report}");
    assert_eq!(report.tally.connect_failures, 0, "{report}");
    assert_eq!(report.connections_peak, 200, "{report}");
    assert_eq!(report.connections_at_stop, 200, "{report}");
    assert_eq!(report.errors.len(), 0, "errors: {:?}", report.errors);
    assert_eq!(report.tally.unexpected_disconnects, 0, "{report}");
    // No lost results: every submission got its verdict, except late
    // answers, which got the refusal that says their round was over.
    assert!(report.tally.submissions > 0, "{report}");
    assert_eq!(report.tally.unanswered, 0, "{report}");
    assert_eq!(report.tally.refused_submissions, 0, "{report}");
    assert_eq!(
        report.tally.verdicts + report.tally.late_answers,
        report.tally.submissions,
        "{report}"
    );
    assert!(report.rounds_won > 0, "{report}");
    assert!(report.is_clean());

    // Every round the server announced as won is already committed (read
    // while the server still runs: announcing waits for the commit).
    let missing = runtime_for_db().block_on(rounds_missing_from_db(&db, &report.won_rounds));
    assert!(
        missing.is_empty(),
        "announced but not in the database: {missing:?}"
    );
    // A winner's time is theirs: never shorter than from the deal (as a
    // player of the room first saw it) to the sending of the accepted
    // answer. (How much longer, the network's trips, is bench/partition's.)
    let timed: Vec<_> = report
        .won_rounds
        .iter()
        .filter_map(|w| Some((w.elapsed_ms, w.sent_ms?)))
        .collect();
    assert!(!timed.is_empty(), "no win's answer came back accepted");
    for (elapsed, sent) in timed {
        assert!(
            elapsed >= sent,
            "announced {elapsed} ms, sent after {sent} ms"
        );
    }

    server.stop();
}

fn runtime_for_db() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A round's row: outcome, winner, formula, the winner's time.
type Recorded = (String, Option<i64>, Option<String>, Option<i64>);

/// The announced wins that the database does not hold as announced.
async fn rounds_missing_from_db(
    db: &Path,
    won: &[krypto_client::load::stats::WonRound],
) -> Vec<krypto_client::load::stats::WonRound> {
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{ConnectOptions, Row};
    use std::collections::HashMap;

    let mut conn = SqliteConnectOptions::new()
        .filename(db)
        .read_only(true)
        .connect()
        .await
        .unwrap();
    // A room's matches in the order they were played (UUIDv7 ids sort by
    // time); rounds by match.
    let matches = sqlx::query("SELECT room_code, id FROM matches ORDER BY id")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    let mut match_ids: HashMap<String, Vec<String>> = HashMap::new();
    for row in matches {
        match_ids.entry(row.get(0)).or_default().push(row.get(1));
    }
    let rows =
        sqlx::query("SELECT match_id, number, outcome, winner_id, formula, elapsed_ms FROM rounds")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    let mut rounds: HashMap<(String, u32), Recorded> = HashMap::new();
    for row in rows {
        let number: i64 = row.get(1);
        rounds.insert(
            (row.get(0), u32::try_from(number).unwrap()),
            (row.get(2), row.get(3), row.get(4), row.get(5)),
        );
    }
    won.iter()
        .filter(|w| {
            let Some(match_id) = match_ids
                .get(&w.room)
                .and_then(|ids| ids.get(w.match_no as usize - 1))
            else {
                return true;
            };
            let recorded = rounds.get(&(match_id.clone(), w.round));
            let announced = (
                "won".to_owned(),
                Some(w.winner.0),
                w.formula.clone(),
                i64::try_from(w.elapsed_ms).ok(),
            );
            recorded != Some(&announced)
        })
        .cloned()
        .collect()
}

/// The daily's rush in small: 40 new players at once, half of them wrong
/// first, with no think. Every one is dealt the hand and solves it, the
/// server counts 40 new solvers, and the fair-play signals assess 40
/// answers. Runs in the default set (a second or two).
#[test]
fn a_small_daily_rush_is_dealt_solved_recorded_and_assessed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("rush.db");
    let mut server_config = TestServer::config(&db);
    server_config.metrics_listen = Some("127.0.0.1:0".parse().unwrap());
    let metrics = server_config.metrics_address.clone();
    let server = TestServer::with_config("127.0.0.1:0", server_config);
    let deadline = std::time::Instant::now() + common::PATIENCE;
    let metrics = loop {
        if let Some(addr) = metrics.get() {
            break addr;
        }
        assert!(std::time::Instant::now() < deadline, "metrics never bound");
        std::thread::yield_now();
    };

    let mut config = load::daily::DailyConfig::new(server.url());
    config.players = 40;
    config.over = Duration::ZERO;
    config.think = (Duration::ZERO, Duration::ZERO);
    config.wrong_ratio = 0.5;
    config.name_prefix = "rush".into();
    config.metrics_url = Some(format!("http://{metrics}/metrics"));
    config.drain_timeout = common::PATIENCE;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let report = runtime.block_on(load::daily::run(config)).unwrap();
    drop(runtime);
    println!("{report}");

    assert_eq!(
        (report.welcomed, report.hands, report.solved),
        (40, 40, 40),
        "{report}"
    );
    assert!(report.failures.is_empty(), "{report}");
    assert_eq!(report.accepted, 40, "{report}");
    assert_eq!(report.submissions, 40 + report.refused, "{report}");
    assert_eq!(report.hand_latency.count, 40);
    assert_eq!(report.recorded, Some(40), "{report}");
    assert_eq!(report.fair_play.get("assessed"), Some(&40), "{report}");
    assert_eq!(report.fair_play.get("dropped"), Some(&0), "{report}");
    assert!(report.is_clean(), "{report}");
    server.stop();
}
