//! Soak test: the real server (in its own thread and runtime, on
//! 127.0.0.1:0, with a temporary SQLite file) under the load generator's
//! library entry point — 50 rooms × 4 players playing for a few seconds.
//! Asserts what must hold at any speed: no errors, no unexpected
//! disconnects, a verdict for every submission. No timings are asserted;
//! the numbers are for `krypto-load` and docs/benchmarks.md.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use krypto_client::load::{self, LoadConfig};
use krypto_server::Config;

/// Room clocks run this much faster than the wall clock, so the 3 s
/// countdown and the 4 s between rounds pass quickly and rooms play
/// several rounds (and, with 5 rounds a match, rematches) in a short run.
const TIME_SCALE: u32 = 10;

struct Server {
    url: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(db: &Path) -> Server {
        let config = Config {
            database_url: format!("sqlite://{}", db.display()),
            close_drain: Duration::from_millis(50),
            shutdown_timeout: Duration::from_secs(5),
            room_time_scale: TIME_SCALE,
            ..Config::default()
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime
                .block_on(krypto_server::run(listener, config, async move {
                    let _ = rx.await;
                }))
                .unwrap();
        });
        Server {
            url: format!("ws://{addr}/ws"),
            shutdown: Some(tx),
            thread: Some(thread),
        }
    }

    /// Shuts down gracefully (finishing database writes) and waits.
    fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

#[test]
fn two_hundred_players_play_without_errors_or_lost_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("soak.db");
    let server = Server::start(&db);

    let mut config = LoadConfig::new(server.url.clone());
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
    assert_eq!(report.rooms_failed, 0, "{report}");
    assert_eq!(report.connect_failures, 0, "{report}");
    assert_eq!(report.connections_peak, 200, "{report}");
    assert_eq!(report.connections_at_stop, 200, "{report}");
    assert_eq!(report.errors.len(), 0, "errors: {:?}", report.errors);
    assert_eq!(report.unexpected_disconnects, 0, "{report}");
    // No lost results: every submission got its verdict.
    assert!(report.submissions > 0, "{report}");
    assert_eq!(report.unanswered, 0, "{report}");
    assert_eq!(report.refused_submissions, 0, "{report}");
    assert_eq!(report.verdicts, report.submissions, "{report}");
    assert!(report.rounds_won > 0, "{report}");
    assert!(report.is_clean());

    server.stop();
}
