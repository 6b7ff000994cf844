//! `GET /metrics`: the server's counters in Prometheus text format.
//!
//! Each server owns its own recorder (not the `metrics` crate's global one),
//! so several servers in one process — the tests — count apart. The hot
//! paths hold handles ([`Counter`], [`Gauge`], [`Histogram`]): a message
//! costs one atomic add, a verdict (and a group commit) one lock-free push
//! into a bucket that the scrape (or the upkeep every few seconds) folds
//! into the histogram.
//! What is cheaper to read than to track — rooms, players, the recorder's
//! queue — is read when scraped. Every series is listed in `docs/api.md`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::ops::durability::Durability;
use metrics::{Counter, Gauge, Histogram, Key, Label, Recorder as _};
use metrics_exporter_prometheus::{BuildError, Matcher, PrometheusBuilder, PrometheusHandle};

/// How often histogram samples are folded when nobody scrapes, so they
/// cannot pile up in memory.
/// Where `/metrics` is served when `--metrics-listen` says nothing: this
/// machine only, on a port of its own.
pub const DEFAULT_LISTEN: std::net::SocketAddr =
    std::net::SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 7879);

/// The address `/metrics` was bound to, once it is (tests ask for port 0
/// and read the port here).
#[derive(Debug, Clone, Default)]
pub struct MetricsAddress(std::sync::Arc<std::sync::OnceLock<std::net::SocketAddr>>);

impl MetricsAddress {
    /// The bound address; `None` before the server bound it, or when the
    /// default address was taken and the server runs without metrics.
    pub fn get(&self) -> Option<std::net::SocketAddr> {
        self.0.get().copied()
    }

    pub(crate) fn set(&self, addr: std::net::SocketAddr) {
        let _ = self.0.set(addr);
    }
}

pub(crate) const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// Bucket bounds (seconds) of the latency histograms: from half a
/// millisecond (a verdict on an idle server) to 10 s (a commit stuck on a
/// database that went away).
const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Why a redirect was sent.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RedirectReason {
    /// `hello` from a player seated in a room on another node.
    Seat,
    /// `join_room` for a room on another node.
    Join,
    /// This node is stopping and handed the player's room to another.
    Handover,
}

impl RedirectReason {
    const ALL: [RedirectReason; 3] = [
        RedirectReason::Seat,
        RedirectReason::Join,
        RedirectReason::Handover,
    ];

    fn label(self) -> &'static str {
        match self {
            RedirectReason::Seat => "seat",
            RedirectReason::Join => "join",
            RedirectReason::Handover => "handover",
        }
    }
}

/// Which connection to the database was opened again after it broke.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Reconnect {
    /// The cluster's `LISTEN` connection (session notices, hand-overs).
    Listen,
    /// The recorder's connection (counted by the recorder).
    Recorder,
}

impl Reconnect {
    const ALL: [Reconnect; 2] = [Reconnect::Listen, Reconnect::Recorder];

    fn label(self) -> &'static str {
        match self {
            Reconnect::Listen => "listen",
            Reconnect::Recorder => "recorder",
        }
    }
}

/// The series read when scraped rather than tracked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Snapshot<'a> {
    /// Players with a session here.
    pub(crate) players: usize,
    /// Rooms open here.
    pub(crate) rooms: usize,
    /// What the recorder and its journal count.
    pub(crate) recorder: &'a Durability,
    /// Log lines lost because stdout did not take them.
    pub(crate) log_lines_dropped: u64,
}

/// The recorder's series, copied from its [`Durability`] when scraped.
#[derive(Debug)]
struct Recording {
    queue: Gauge,
    commits: Counter,
    failed_commits: Counter,
    commit_seconds_max: Gauge,
    journal_batches: Gauge,
    journal_bytes: Gauge,
    journal_full: Gauge,
    replayed: Counter,
}

/// What becomes of the right answers of the daily, runs and challenges
/// handed to the fair-play signals (`krypto_fair_play_answers_total`, by
/// `outcome`).
#[derive(Debug, Clone)]
pub(crate) struct FairPlayAnswers {
    /// Kept in the player's window and assessed.
    pub(crate) assessed: Counter,
    /// Not assessed: a hand or formula the signals cannot read, or the
    /// database failed (logged).
    pub(crate) left_out: Counter,
    /// Found the signals' queue full and waited for room (their player's
    /// next request waited with them).
    pub(crate) waited: Counter,
    /// Lost: the signals' task had stopped (a server shutting down).
    pub(crate) dropped: Counter,
}

/// The server's series, as handles.
#[derive(Debug)]
pub(crate) struct Metrics {
    handle: PrometheusHandle,
    /// Fair-play flags raised, cleared and banned, across every node (read
    /// from the decisions' table: the review command runs apart).
    pub(crate) fair_play: [Counter; 3],
    /// The modes' answers through the fair-play signals.
    pub(crate) fair_play_answers: FairPlayAnswers,
    /// WebSocket connections opened since the start.
    pub(crate) connections_opened: Counter,
    /// WebSocket connections open now.
    pub(crate) connections: Gauge,
    /// Text messages read from clients.
    pub(crate) messages_in: Counter,
    /// Text messages written to clients.
    pub(crate) messages_out: Counter,
    /// Seconds from reading a `submit` to sending its verdict.
    pub(crate) verdict_seconds: Histogram,
    /// Seconds each successful group commit of the recorder took (the
    /// recorder records into it).
    pub(crate) commit_seconds: Histogram,
    recording: Recording,
    /// Times this node found itself taken for dead by the others (its
    /// heartbeat stopped for longer than the node timeout) and registered
    /// again.
    pub(crate) node_rejoins: Counter,
    redirects: [Counter; RedirectReason::ALL.len()],
    reconnects: [Counter; Reconnect::ALL.len()],
    players: Gauge,
    rooms: Gauge,
    log_lines_dropped: Counter,
}

/// One series' name and help text.
struct Series {
    name: &'static str,
    help: &'static str,
}

impl Metrics {
    /// A fresh set of series, all at zero.
    pub(crate) fn new() -> Result<Metrics, BuildError> {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)?
            .build_recorder();
        let counter = |s: Series| {
            recorder.describe_counter(s.name.into(), None, s.help.into());
            recorder.register_counter(&Key::from_static_name(s.name), &METADATA)
        };
        let gauge = |s: Series| {
            recorder.describe_gauge(s.name.into(), None, s.help.into());
            recorder.register_gauge(&Key::from_static_name(s.name), &METADATA)
        };
        let histogram = |s: Series| {
            recorder.describe_histogram(s.name.into(), None, s.help.into());
            recorder.register_histogram(&Key::from_static_name(s.name), &METADATA)
        };
        let labelled = |s: &Series, label: &'static str, value: &'static str| {
            recorder.describe_counter(s.name.into(), None, s.help.into());
            let key = Key::from_parts(s.name, vec![Label::from_static_parts(label, value)]);
            recorder.register_counter(&key, &METADATA)
        };
        let redirects = Series {
            name: "krypto_redirects_total",
            help: "Redirects sent to clients, by reason: seat, join, handover.",
        };
        let answers = Series {
            name: "krypto_fair_play_answers_total",
            help: "Right answers of the daily, runs and challenges handed to the fair-play \
                   signals, by outcome: assessed; left_out (unreadable, or the database \
                   failed); waited (found the queue full and waited for room); dropped (the \
                   signals had stopped).",
        };
        let reconnects = Series {
            name: "krypto_database_reconnects_total",
            help: "Connections to the database opened again after they broke, by user.",
        };
        let metrics = Metrics {
            connections_opened: counter(Series {
                name: "krypto_connections_opened_total",
                help: "WebSocket connections opened.",
            }),
            connections: gauge(Series {
                name: "krypto_connections",
                help: "WebSocket connections open now.",
            }),
            messages_in: counter(Series {
                name: "krypto_messages_received_total",
                help: "Text messages read from clients.",
            }),
            messages_out: counter(Series {
                name: "krypto_messages_sent_total",
                help: "Text messages written to clients.",
            }),
            verdict_seconds: histogram(Series {
                name: "krypto_verdict_seconds",
                help: "Seconds from reading a submit to sending its verdict (a winning one \
                       includes the commit of the result).",
            }),
            commit_seconds: histogram(Series {
                name: "krypto_commit_seconds",
                help: "Seconds each successful group commit of the recorder took.",
            }),
            recording: Recording {
                queue: gauge(Series {
                    name: "krypto_recorder_queue",
                    help: "Requests waiting for the recorder's next group commit.",
                }),
                commits: counter(Series {
                    name: "krypto_commits_total",
                    help: "Group commits of the recorder that succeeded.",
                }),
                failed_commits: counter(Series {
                    name: "krypto_commit_failures_total",
                    help: "Group commits that failed because the database was unavailable \
                           (each was journaled or retried, not dropped).",
                }),
                commit_seconds_max: gauge(Series {
                    name: "krypto_commit_seconds_max",
                    help: "The longest successful group commit so far, in seconds.",
                }),
                journal_batches: gauge(Series {
                    name: "krypto_journal_batches",
                    help: "Batches waiting in the journal for the database.",
                }),
                journal_bytes: gauge(Series {
                    name: "krypto_journal_bytes",
                    help: "The journal's size in bytes.",
                }),
                journal_full: gauge(Series {
                    name: "krypto_journal_full",
                    help: "1 while the journal is at its bound (new matches are refused).",
                }),
                replayed: counter(Series {
                    name: "krypto_journal_replayed_total",
                    help: "Batches replayed from the journal into the database.",
                }),
            },
            node_rejoins: counter(Series {
                name: "krypto_node_rejoins_total",
                help: "Times this node was taken for dead by the others and registered again.",
            }),
            redirects: RedirectReason::ALL.map(|r| labelled(&redirects, "reason", r.label())),
            reconnects: Reconnect::ALL.map(|r| labelled(&reconnects, "user", r.label())),
            players: gauge(Series {
                name: "krypto_players",
                help: "Players with a session on this server now.",
            }),
            rooms: gauge(Series {
                name: "krypto_rooms",
                help: "Rooms open on this server now.",
            }),
            log_lines_dropped: counter(Series {
                name: "krypto_log_lines_dropped_total",
                help: "Log lines lost: dropped because stdout did not take them in time \
                       (a full pipe, a stalled log collector) or refused by it (closed).",
            }),
            fair_play: [
                counter(Series {
                    name: "krypto_fair_play_flags_raised_total",
                    help: "Players flagged by the fair-play signals (pending review).",
                }),
                counter(Series {
                    name: "krypto_fair_play_flags_cleared_total",
                    help: "Fair-play flags a reviewer cleared.",
                }),
                counter(Series {
                    name: "krypto_fair_play_bans_total",
                    help: "Players a reviewer banned.",
                }),
            ],
            fair_play_answers: FairPlayAnswers {
                assessed: labelled(&answers, "outcome", "assessed"),
                left_out: labelled(&answers, "outcome", "left_out"),
                waited: labelled(&answers, "outcome", "waited"),
                dropped: labelled(&answers, "outcome", "dropped"),
            },
            handle: recorder.handle(),
        };
        Ok(metrics)
    }

    /// Counts a redirect sent.
    pub(crate) fn redirected(&self, reason: RedirectReason) {
        self.redirects[reason as usize].increment(1);
    }

    /// The counter of `user`'s connection opened again.
    pub(crate) fn reconnects(&self, user: Reconnect) -> Counter {
        self.reconnects[user as usize].clone()
    }

    /// The exposition, with the read-when-scraped series set to `now`.
    pub(crate) fn render(&self, now: Snapshot<'_>) -> String {
        self.players.set(now.players as f64);
        self.rooms.set(now.rooms as f64);
        self.log_lines_dropped.absolute(now.log_lines_dropped);
        let d = now.recorder;
        let read = |n: &AtomicU64| n.load(Ordering::Relaxed);
        let r = &self.recording;
        r.queue.set(read(&d.queue_depth) as f64);
        r.commits.absolute(read(&d.commits));
        r.failed_commits.absolute(read(&d.failed_commits));
        r.commit_seconds_max
            .set(read(&d.max_commit_micros) as f64 / 1e6);
        r.journal_batches.set(read(&d.journal_batches) as f64);
        r.journal_bytes.set(read(&d.journal_bytes) as f64);
        r.journal_full
            .set(f64::from(u8::from(d.journal_full.load(Ordering::Relaxed))));
        r.replayed.absolute(read(&d.replayed_batches));
        self.reconnects[Reconnect::Recorder as usize].absolute(read(&d.reconnects));
        self.handle.render()
    }

    /// Folds histogram samples gathered since the last scrape.
    pub(crate) fn upkeep(&self) {
        self.handle.run_upkeep();
    }
}

/// Where the series come from; the Prometheus recorder ignores it.
static METADATA: metrics::Metadata<'static> =
    metrics::Metadata::new(module_path!(), metrics::Level::INFO, Some(module_path!()));
