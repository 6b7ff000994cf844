//! The load generator behind `krypto-load`: many simulated players, each a
//! real WebSocket, playing real matches against a server, and what it
//! measured.
//!
//! A map of the modules:
//!
//! - [`cli`]: the command line's flags, turned into a [`LoadConfig`].
//! - [`plan`]: what a room task is given (its [`plan::RoomPlan`], the
//!   run's shared [`plan::RunContext`] and [`plan::Phase`]).
//! - [`room`]: one task per simulated room driving all of its players'
//!   sockets (each a `SimPlayer`) through play; `connection` connects them
//!   and sets the room up (create, join by code following redirects, start).
//!
//! Given several nodes of one server, rooms are created on them in turn and
//! each room's other players connect through the next node, so their joins
//! are answered with `redirect` and followed (counted in the report).
//! - [`answers`]: the right (solver) and wrong formulas for a hand, worked
//!   out once per round per room.
//! - [`stats`]: counters and latency histograms, merged across rooms.
//! - [`report`]: the summary, on screen and as JSON.
//! - [`system`]: the open-files limit and processes' resident memory.
//! - [`daily`]: `krypto-load daily`, the midnight rush: many new players
//!   asking for the daily at once, each solving it.
//!
//! [`run`] is the entry point, for the binary and for the soak test.

pub mod answers;
pub mod cli;
mod connection;
pub mod daily;
pub mod plan;
pub mod report;
pub mod room;
mod sim_player;
pub mod stats;
pub mod system;

use std::sync::Arc;
use std::time::Duration;

use krypto_core::settings::{DealMode, SettingsPatch};
use krypto_core::Rules;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::lines::{Lines, LinesGuard};
use plan::{Phase, RoomPlan, RunContext};
pub use report::Report;
use stats::{Counters, Stats};
use system::RssSampler;

/// Most players a room seats (the server's own limit).
pub const MAX_PLAYERS_PER_ROOM: u32 = 32;

/// Longest name prefix: room and seat numbers must still fit the server's
/// 20-character names (`PREFIX-RRRRRR-PP`).
pub const MAX_PREFIX_LEN: usize = 8;

/// Everything a load run needs.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// The server's WebSocket URLs (`ws://host:port/ws`): one, or one per
    /// node of a server of several nodes.
    pub servers: Vec<String>,
    /// How many rooms to fill.
    pub rooms: u32,
    /// Players per room (the first creates and hosts it).
    pub players: u32,
    /// Length of the steady window, which begins once every room is set up.
    pub duration: Duration,
    /// Each player submits once per this interval while a round is on.
    pub submit_every: Duration,
    /// Chance (0–1) that a submission is a wrong formula rather than a
    /// right one.
    pub wrong_ratio: f64,
    /// Rooms start connecting spread evenly over this time.
    pub ramp: Duration,
    /// Process id of the server, to sample its memory.
    pub server_pid: Option<u32>,
    /// Start of every player name, so several generators can share a
    /// server and a database without their names colliding.
    pub name_prefix: String,
    /// `deal` setting of the rooms.
    pub deal: DealMode,
    /// `rounds` setting of the rooms; a room that plays them all starts a
    /// rematch.
    pub rounds: u32,
    /// `round_seconds` setting of the rooms: long, so rounds end by a right
    /// answer rather than by the clock.
    pub round_seconds: u32,
    /// Longest wait for any one step of connecting and setting up a room.
    pub setup_timeout: Duration,
    /// After the steady window, longest wait for outstanding verdicts.
    pub drain_timeout: Duration,
    /// Print a progress line to stderr every this often (`None`: silent).
    pub progress_every: Option<Duration>,
}

impl LoadConfig {
    /// A configuration with the command line's defaults for `url`.
    pub fn new(url: impl Into<String>) -> LoadConfig {
        LoadConfig {
            servers: vec![url.into()],
            rooms: 1,
            players: 4,
            duration: Duration::from_secs(30),
            submit_every: Duration::from_millis(2000),
            wrong_ratio: 0.5,
            ramp: Duration::from_secs(10),
            server_pid: None,
            name_prefix: random_prefix(),
            deal: DealMode::Solvable,
            rounds: 50,
            round_seconds: 600,
            setup_timeout: Duration::from_secs(60),
            drain_timeout: Duration::from_secs(10),
            progress_every: None,
        }
    }

    /// Checks the numbers and the name prefix.
    pub fn validate(&self) -> Result<(), LoadError> {
        let bad = |why: String| Err(LoadError::Config(why));
        if self.servers.is_empty() {
            return bad("give at least one --server".into());
        }
        if let Some(url) = self.servers.iter().find(|u| !is_websocket_url(u)) {
            return bad(format!(
                "--server {url:?} is not a ws:// or wss:// address (ws://HOST:PORT/ws)"
            ));
        }
        if self.rooms == 0 {
            return bad("--rooms must be at least 1".into());
        }
        if !(1..=MAX_PLAYERS_PER_ROOM).contains(&self.players) {
            return bad(format!(
                "--players must be 1 to {MAX_PLAYERS_PER_ROOM} (players per room)"
            ));
        }
        if self.rooms > 999_999 {
            return bad("--rooms must be at most 999999".into());
        }
        if !(0.0..=1.0).contains(&self.wrong_ratio) {
            return bad("--wrong-ratio must be between 0 and 1".into());
        }
        if self.submit_every.is_zero() {
            return bad("--submit-every-ms must be at least 1".into());
        }
        if !prefix_ok(&self.name_prefix) {
            return bad(format!(
                "--name-prefix must be 1 to {MAX_PREFIX_LEN} letters, digits, '-' or '_'"
            ));
        }
        Ok(())
    }

    /// Where room `room`'s host creates it, and where its other players
    /// connect: the nodes in turn, the players through the node after the
    /// host's, so their joins are redirected (with one node, both are it).
    pub fn nodes_of(&self, room: u32) -> (&str, &str) {
        let n = self.servers.len().max(1);
        let host = room as usize % n;
        let at = |i: usize| self.servers.get(i).map_or("", String::as_str);
        (at(host), at((host + 1) % n))
    }

    /// The name of seat `seat` of room `room`: unique within the run, and
    /// across runs with different prefixes.
    pub fn player_name(&self, room: u32, seat: u32) -> String {
        format!("{}-{room}-{seat}", self.name_prefix)
    }

    fn settings(&self) -> SettingsPatch {
        SettingsPatch {
            rules: Some(Rules::Free),
            rounds: Some(self.rounds),
            round_seconds: Some(self.round_seconds),
            // Wrong answers must not block the schedule.
            lockout_seconds: Some(0),
            wrong_penalty: Some(0),
            deal: Some(self.deal),
            max_players: Some(self.players.max(2)),
            public: Some(false),
            ..SettingsPatch::default()
        }
    }
}

/// Whether `prefix` can start every name of a run.
fn prefix_ok(prefix: &str) -> bool {
    !prefix.is_empty()
        && prefix.len() <= MAX_PREFIX_LEN
        && prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Whether `url` is one a load run can connect to.
fn is_websocket_url(url: &str) -> bool {
    url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "ws" | "wss") && u.host_str().is_some())
}

/// A fresh prefix per process (`ld` and four random letters), so two
/// generators, or two runs against one database, never reuse a name that
/// belongs to another token.
pub fn random_prefix() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    let letters: String = (0..4)
        .map(|_| char::from(rng.random_range(b'a'..=b'z')))
        .collect();
    format!("ld{letters}")
}

/// Why a load run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A setting out of range.
    #[error("{0}")]
    Config(String),
}

/// Runs the load: sets up every room (spread over the ramp), plays for the
/// steady window, stops, collects the last verdicts, closes every socket
/// and reports. Must be called inside a tokio runtime; it spawns one task
/// per room on it.
pub async fn run(config: LoadConfig) -> Result<Report, LoadError> {
    config.validate()?;
    let ctx = Arc::new(RunContext::new(config.setup_timeout, config.drain_timeout));
    let counters = ctx.counters.clone();
    let sampler = config.server_pid.map(RssSampler::start);
    let own = RssSampler::start(std::process::id());
    let (phase_tx, phase_rx) = watch::channel(Phase::Ramp);
    let (ready_tx, mut ready_rx) = mpsc::unbounded_channel();
    let started = Instant::now();
    let settings = config.settings();
    let mut tasks = Vec::with_capacity(config.rooms as usize);
    for r in 0..config.rooms {
        let offset = config.ramp.mul_f64(f64::from(r) / f64::from(config.rooms));
        let (host_url, guest_url) = config.nodes_of(r);
        let plan = RoomPlan {
            host_url: host_url.to_owned(),
            guest_url: guest_url.to_owned(),
            names: (0..config.players)
                .map(|seat| config.player_name(r, seat))
                .collect(),
            settings: settings.clone(),
            rules: Rules::Free,
            submit_every: config.submit_every,
            wrong_ratio: config.wrong_ratio,
            start_at: started + offset,
        };
        tasks.push(tokio::spawn(room::run(
            plan,
            ctx.clone(),
            phase_rx.clone(),
            ready_tx.clone(),
        )));
    }
    drop(ready_tx);

    // Ramp: until every room has reported (set up or failed).
    let mut progress = Progress::new(config.progress_every, &counters, sampler.as_ref());
    let mut reported = 0u32;
    let mut rooms_ready = 0u32;
    while reported < config.rooms {
        tokio::select! {
            r = ready_rx.recv() => match r {
                Some(ok) => {
                    reported += 1;
                    rooms_ready += u32::from(ok);
                }
                None => break,
            },
            () = progress.tick() => progress.print("ramp"),
        }
    }
    let ramp_took = started.elapsed();

    // Steady window.
    let since = Instant::now();
    let (sent0, received0) = counters.messages();
    let _ = phase_tx.send(Phase::Steady { since });
    let stop_at = since + config.duration;
    let connections_at_steady = counters
        .connected
        .load(std::sync::atomic::Ordering::Relaxed);
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(stop_at) => break,
            () = progress.tick() => progress.print("steady"),
        }
    }
    let window = since.elapsed();
    let (sent1, received1) = counters.messages();
    let connections_at_stop = counters
        .connected
        .load(std::sync::atomic::Ordering::Relaxed);
    let server_rss_at_stop = sampler.as_ref().map(RssSampler::last);
    let _ = phase_tx.send(Phase::Stop);

    let mut stats = Stats::default();
    for task in tasks {
        match task.await {
            Ok(room_stats) => stats.merge(room_stats),
            // A room task that panicked: its sockets are gone unannounced.
            Err(_) => stats.tally.rooms_failed += 1,
        }
    }
    let secs = window.as_secs_f64().max(1e-9);
    Ok(Report::new(report::Inputs {
        config: &config,
        stats,
        ramp_took,
        window,
        rooms_ready,
        connections_at_steady,
        connections_at_stop,
        peak_connections: counters
            .peak_connected
            .load(std::sync::atomic::Ordering::Relaxed),
        sent: sent1 - sent0,
        received: received1 - received0,
        sent_per_sec: (sent1 - sent0) as f64 / secs,
        received_per_sec: (received1 - received0) as f64 / secs,
        server_rss_peak: sampler.as_ref().map(RssSampler::peak),
        server_rss_at_stop,
        own_rss_peak: own.peak(),
    }))
}

/// The progress line printed to stderr while running (never waiting for a
/// stderr nobody reads: the run's clock would wait too).
struct Progress<'a> {
    every: Option<Duration>,
    stderr: Lines,
    /// Closed when the run ends.
    stderr_guard: Option<LinesGuard>,
    next: Instant,
    started: Instant,
    counters: &'a Counters,
    sampler: Option<&'a RssSampler>,
    last: (u64, u64),
    last_at: Instant,
}

impl<'a> Progress<'a> {
    fn new(
        every: Option<Duration>,
        counters: &'a Counters,
        sampler: Option<&'a RssSampler>,
    ) -> Self {
        let now = Instant::now();
        let (stderr, stderr_guard) = Lines::stderr();
        Progress {
            every,
            stderr,
            stderr_guard: Some(stderr_guard),
            next: now + every.unwrap_or(Duration::ZERO),
            started: now,
            counters,
            sampler,
            last: (0, 0),
            last_at: now,
        }
    }

    async fn tick(&mut self) {
        match self.every {
            Some(every) => {
                tokio::time::sleep_until(self.next).await;
                self.next += every;
            }
            None => std::future::pending().await,
        }
    }

    fn print(&mut self, phase: &str) {
        let now = Instant::now();
        let (sent, received) = self.counters.messages();
        let secs = now.duration_since(self.last_at).as_secs_f64().max(1e-9);
        let rate = |a: u64, b: u64| (a.saturating_sub(b)) as f64 / secs;
        let connected = self
            .counters
            .connected
            .load(std::sync::atomic::Ordering::Relaxed);
        let rss = self
            .sampler
            .map(|s| format!("  server RSS {:.0} MiB", report::mib(s.last())))
            .unwrap_or_default();
        self.stderr.say(format_args!(
            "[{:>5.0}s {phase}] connections {connected}  sent {:.0}/s  received {:.0}/s{rss}",
            now.duration_since(self.started).as_secs_f64(),
            rate(sent, self.last.0),
            rate(received, self.last.1),
        ));
        self.last = (sent, received);
        self.last_at = now;
    }
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        if let Some(guard) = self.stderr_guard.take() {
            guard.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_the_servers_twenty_characters() {
        let mut config = LoadConfig::new("ws://x/ws");
        config.name_prefix = "abcdefgh".into();
        let name = config.player_name(999_999, MAX_PLAYERS_PER_ROOM - 1);
        assert!(name.chars().count() <= 20, "{name}");
        assert!(config.validate().is_ok());
    }

    #[test]
    fn random_prefixes_are_valid_and_differ() {
        let a = LoadConfig::new("ws://x/ws");
        let b = LoadConfig::new("ws://x/ws");
        assert!(a.validate().is_ok());
        assert_ne!(a.name_prefix, b.name_prefix);
    }

    #[test]
    fn bad_settings_are_refused() {
        let base = LoadConfig::new("ws://x/ws");
        let cases: [fn(&mut LoadConfig); 9] = [
            |c| c.rooms = 0,
            |c| c.players = 0,
            |c| c.players = 33,
            |c| c.wrong_ratio = 1.5,
            |c| c.submit_every = Duration::ZERO,
            |c| c.name_prefix = "has space".into(),
            |c| c.name_prefix = "much-too-long".into(),
            |c| c.servers = Vec::new(),
            |c| c.servers.push("http://x/ws".into()),
        ];
        for case in cases {
            let mut c = base.clone();
            case(&mut c);
            assert!(c.validate().is_err(), "{c:?}");
        }
    }

    #[test]
    fn rooms_go_round_the_nodes_and_players_join_through_the_next() {
        let mut config = LoadConfig::new("ws://a/ws");
        assert_eq!(config.nodes_of(0), ("ws://a/ws", "ws://a/ws"));
        assert_eq!(config.nodes_of(7), ("ws://a/ws", "ws://a/ws"));
        config.servers = vec!["ws://a/ws".into(), "ws://b/ws".into(), "ws://c/ws".into()];
        assert_eq!(config.nodes_of(0), ("ws://a/ws", "ws://b/ws"));
        assert_eq!(config.nodes_of(1), ("ws://b/ws", "ws://c/ws"));
        assert_eq!(config.nodes_of(2), ("ws://c/ws", "ws://a/ws"));
        assert_eq!(config.nodes_of(3), ("ws://a/ws", "ws://b/ws"));
        assert!(config.validate().is_ok());
    }
}
