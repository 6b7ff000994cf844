//! The result of a load run: a summary for the screen and the same numbers
//! as JSON (`--json`), for benchmarks to record.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::stats::{Percentiles, Stats, Tally, WonRound};
use super::LoadConfig;

/// Bytes to MiB, for reading.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// What the run measured.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The server's URL (its nodes' URLs, comma-separated).
    pub server: String,
    /// Rooms asked for.
    pub rooms: u32,
    /// Players per room.
    pub players_per_room: u32,
    /// Players in all (`rooms × players_per_room`).
    pub players: u64,
    /// Rooms that got as far as starting their match.
    pub rooms_ready: u32,
    /// Each player's submission interval, ms.
    pub submit_every_ms: u64,
    /// Chance of a wrong submission.
    pub wrong_ratio: f64,
    /// Time from the first connection to the last room's start, s.
    pub ramp_secs: f64,
    /// Length of the steady window the rates and latencies cover, s.
    pub window_secs: f64,
    /// Connections open when the steady window began.
    pub connections_at_start: u64,
    /// Connections open when it ended.
    pub connections_at_stop: u64,
    /// Most connections open at once.
    pub connections_peak: u64,
    /// Messages sent in the steady window.
    pub messages_sent: u64,
    /// Messages received in the steady window.
    pub messages_received: u64,
    /// Messages sent per second in the steady window.
    pub sent_per_sec: f64,
    /// Messages received per second in the steady window.
    pub received_per_sec: f64,
    /// The counts, each a field of the JSON.
    #[serde(flatten)]
    pub tally: Tally,
    /// Send → `verdict`, for submissions sent in the steady window.
    pub verdict_latency: Percentiles,
    /// The same for accepted answers only (wins, which wait for their
    /// result's commit) and for refused ones.
    pub accepted_latency: Percentiles,
    pub refused_latency: Percentiles,
    /// First → last player of a room receiving a round's `round_started`.
    pub round_started_spread: Percentiles,
    /// Verdicts by outcome.
    pub verdict_kinds: BTreeMap<String, u64>,
    /// Rounds won (once per room).
    pub rounds_won: u64,
    /// `error` messages received, by code.
    pub errors: BTreeMap<String, u64>,
    /// All `error` messages received.
    pub error_total: u64,
    /// The server's peak resident memory, MiB (with `--server-pid`).
    pub server_rss_peak_mib: Option<f64>,
    /// The server's resident memory at the end of the steady window, MiB.
    pub server_rss_at_stop_mib: Option<f64>,
    /// This generator's own peak resident memory, MiB.
    pub generator_rss_peak_mib: f64,
    /// Every round the server announced as won (for tests; not in JSON).
    #[serde(skip)]
    pub won_rounds: Vec<WonRound>,
}

/// What [`Report::new`] is made from.
#[derive(Debug)]
pub struct Inputs<'a> {
    /// The run's settings.
    pub config: &'a LoadConfig,
    /// Merged room statistics.
    pub stats: Stats,
    /// Time until every room was set up.
    pub ramp_took: Duration,
    /// The steady window's real length.
    pub window: Duration,
    /// Rooms that started playing.
    pub rooms_ready: u32,
    /// Open connections at the window's start.
    pub connections_at_steady: u64,
    /// Open connections at its end.
    pub connections_at_stop: u64,
    /// Most open connections.
    pub peak_connections: u64,
    /// Messages sent in the window.
    pub sent: u64,
    /// Messages received in the window.
    pub received: u64,
    /// Their rates.
    pub sent_per_sec: f64,
    /// Their rates.
    pub received_per_sec: f64,
    /// Server memory peak, bytes.
    pub server_rss_peak: Option<u64>,
    /// Server memory at the window's end, bytes.
    pub server_rss_at_stop: Option<u64>,
    /// Own memory peak, bytes.
    pub own_rss_peak: u64,
}

impl Report {
    /// Assembles the report.
    pub fn new(i: Inputs<'_>) -> Report {
        let s = i.stats;
        Report {
            server: i.config.servers.join(", "),
            rooms: i.config.rooms,
            players_per_room: i.config.players,
            players: u64::from(i.config.rooms) * u64::from(i.config.players),
            rooms_ready: i.rooms_ready,
            submit_every_ms: u64::try_from(i.config.submit_every.as_millis()).unwrap_or(u64::MAX),
            wrong_ratio: i.config.wrong_ratio,
            ramp_secs: i.ramp_took.as_secs_f64(),
            window_secs: i.window.as_secs_f64(),
            connections_at_start: i.connections_at_steady,
            connections_at_stop: i.connections_at_stop,
            connections_peak: i.peak_connections,
            messages_sent: i.sent,
            messages_received: i.received,
            sent_per_sec: i.sent_per_sec,
            received_per_sec: i.received_per_sec,
            tally: s.tally,
            verdict_latency: Percentiles::of(&s.verdict_latency),
            accepted_latency: Percentiles::of(&s.accepted_latency),
            refused_latency: Percentiles::of(&s.refused_latency),
            round_started_spread: Percentiles::of(&s.round_spread),
            verdict_kinds: s.verdict_kinds.clone(),
            rounds_won: s.rounds_won.len() as u64,
            error_total: s.error_count(),
            errors: s.errors,
            server_rss_peak_mib: i.server_rss_peak.map(mib),
            server_rss_at_stop_mib: i.server_rss_at_stop.map(mib),
            generator_rss_peak_mib: mib(i.own_rss_peak),
            won_rounds: s.rounds_won,
        }
    }

    /// True when nothing went wrong: every room played, no errors, no
    /// unexpected disconnects, every submission answered. Late answers are
    /// not failures: the server answered them as it must.
    pub fn is_clean(&self) -> bool {
        self.tally.rooms_failed == 0
            && self.tally.connect_failures == 0
            && self.error_total == 0
            && self.tally.unexpected_disconnects == 0
            && self.tally.unanswered == 0
            && self.tally.refused_submissions == 0
    }

    /// The report as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Every round announced as won, one JSON object a line.
    pub fn won_rounds_lines(&self) -> String {
        self.won_rounds
            .iter()
            .filter_map(|w| serde_json::to_string(w).ok())
            .map(|line| line + "\n")
            .collect()
    }
}

/// Counts by name, as `name n, name n` (empty where there are none).
pub fn counts(by_name: &BTreeMap<String, u64>) -> String {
    by_name
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `p50 … ms, p95 … ms, p99 … ms, max … ms (N of)`.
fn spread(l: &Percentiles, of: &str) -> String {
    format!(
        "p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} {of})",
        l.p50_ms, l.p95_ms, l.p99_ms, l.max_ms, l.count
    )
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let map = |m: &BTreeMap<String, u64>| {
            if m.is_empty() {
                "none".to_owned()
            } else {
                counts(m)
            }
        };
        writeln!(f, "krypto-load against {}", self.server)?;
        writeln!(
            f,
            "  players      {} ({} rooms × {}), {} rooms playing, ramp {:.1} s, window {:.1} s",
            self.players,
            self.rooms,
            self.players_per_room,
            self.rooms_ready,
            self.ramp_secs,
            self.window_secs
        )?;
        writeln!(
            f,
            "  connections  {} at start, {} at stop, {} peak",
            self.connections_at_start, self.connections_at_stop, self.connections_peak
        )?;
        writeln!(
            f,
            "  messages     sent {:.0}/s, received {:.0}/s",
            self.sent_per_sec, self.received_per_sec
        )?;
        writeln!(
            f,
            "  verdicts     {}",
            spread(&self.verdict_latency, "measured")
        )?;
        for (what, l) in [
            ("accepted", &self.accepted_latency),
            ("refused", &self.refused_latency),
        ] {
            writeln!(f, "    {what:<9}  {}", spread(l, "measured"))?;
        }
        writeln!(
            f,
            "  round spread {}",
            spread(&self.round_started_spread, "rounds")
        )?;
        writeln!(
            f,
            "  submissions  {} sent, {} verdicts, {} late (round already over), {} refused, {} \
             unanswered",
            self.tally.submissions,
            self.tally.verdicts,
            self.tally.late_answers,
            self.tally.refused_submissions,
            self.tally.unanswered
        )?;
        writeln!(f, "  outcomes     {}", map(&self.verdict_kinds))?;
        writeln!(
            f,
            "  rounds       {} dealt, {} won, {} matches",
            self.tally.rounds_started, self.rounds_won, self.tally.matches_started
        )?;
        writeln!(
            f,
            "  errors       {} ({})",
            self.error_total,
            map(&self.errors)
        )?;
        writeln!(
            f,
            "  failures     {} unexpected disconnects, {} failed connections, {} failed rooms",
            self.tally.unexpected_disconnects, self.tally.connect_failures, self.tally.rooms_failed
        )?;
        writeln!(
            f,
            "  redirects    {} followed to the room's node",
            self.tally.redirects_followed
        )?;
        writeln!(
            f,
            "  restarts     {} players back in their seat, {} submissions interrupted",
            self.tally.resumed, self.tally.interrupted
        )?;
        match (self.server_rss_peak_mib, self.server_rss_at_stop_mib) {
            (Some(peak), Some(stop)) => writeln!(
                f,
                "  server RSS   peak {peak:.1} MiB, {stop:.1} MiB at stop"
            )?,
            _ => writeln!(f, "  server RSS   not sampled (give --server-pid)")?,
        }
        write!(
            f,
            "  generator    peak RSS {:.1} MiB",
            self.generator_rss_peak_mib
        )
    }
}
