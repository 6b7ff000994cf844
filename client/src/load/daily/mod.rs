//! `krypto-load daily`: the midnight rush. Many new players arrive spread
//! over a short window, each on its own WebSocket: `hello` with a name of
//! its own, `daily_start` (timed to the `daily` that answers it), a
//! human-ish think, a right answer from the solver (a wrong one first for a
//! share of them, so misses are charged), and `daily_solved`. Afterwards the
//! results are counted again on the server (`GET /api/daily`'s `solvers`),
//! and with `--metrics-url` the fair-play signals' counters say how many of
//! the answers were assessed.
//!
//! - [`player`]: one arrival's visit.
//! - [`report`]: what the rush measured, on screen and as JSON.

pub mod player;
pub mod report;

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use tokio::time::Instant;

use super::plan::RunContext;
use super::system::RssSampler;
use super::{LoadError, Progress, MAX_PREFIX_LEN};
use player::{AnswerBook, Arrival};
pub use report::{DailyReport, ServerCounts};

/// Most players one rush simulates (names stay within 20 characters).
pub const MAX_PLAYERS: u32 = 999_999;

/// Everything a rush needs.
#[derive(Debug, Clone)]
pub struct DailyConfig {
    /// The server's WebSocket URL (`ws://host:port/ws`).
    pub server: String,
    /// Players arriving.
    pub players: u32,
    /// Arrivals spread evenly over this window.
    pub over: Duration,
    /// Each player thinks for a time drawn evenly from this range before
    /// answering.
    pub think: (Duration, Duration),
    /// Share of players (0–1) whose first answer is wrong.
    pub wrong_ratio: f64,
    /// Start of every name (`PREFIX-N`).
    pub name_prefix: String,
    /// The server's process id, to sample its memory.
    pub server_pid: Option<u32>,
    /// The server's `/metrics` (`http://host:port/metrics`), to count the
    /// answers the fair-play signals assessed.
    pub metrics_url: Option<String>,
    /// Longest wait for any one reply.
    pub step_timeout: Duration,
    /// After the last player, longest wait for the signals to catch up.
    pub drain_timeout: Duration,
    /// Print a progress line to stderr every this often (`None`: silent).
    pub progress_every: Option<Duration>,
}

impl DailyConfig {
    /// The command line's defaults for `url`.
    pub fn new(url: impl Into<String>) -> DailyConfig {
        DailyConfig {
            server: url.into(),
            players: 1000,
            over: Duration::from_secs(10),
            think: (Duration::from_secs(5), Duration::from_secs(15)),
            wrong_ratio: 0.1,
            name_prefix: super::random_prefix(),
            server_pid: None,
            metrics_url: None,
            step_timeout: Duration::from_secs(60),
            drain_timeout: Duration::from_secs(60),
            progress_every: None,
        }
    }

    /// Checks the numbers, the URLs and the name prefix.
    pub fn validate(&self) -> Result<(), LoadError> {
        let bad = |why: String| Err(LoadError::Config(why));
        if !super::is_websocket_url(&self.server) {
            return bad(format!(
                "--server {:?} is not a ws:// or wss:// address (ws://HOST:PORT/ws)",
                self.server
            ));
        }
        if api_url(&self.server, "/api/daily").is_none() {
            return bad(format!("--server {:?} has no host", self.server));
        }
        if !(1..=MAX_PLAYERS).contains(&self.players) {
            return bad(format!("--players must be 1 to {MAX_PLAYERS}"));
        }
        if self.think.0 > self.think.1 {
            return bad("--think-secs: the least is more than the most".into());
        }
        if !(0.0..=1.0).contains(&self.wrong_ratio) {
            return bad("--wrong-ratio must be between 0 and 1".into());
        }
        if let Some(url) = &self.metrics_url {
            if !url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https")) {
                return bad(format!("--metrics-url {url:?} is not an http:// address"));
            }
        }
        if !super::prefix_ok(&self.name_prefix) {
            return bad(format!(
                "--name-prefix must be 1 to {MAX_PREFIX_LEN} letters, digits, '-' or '_'"
            ));
        }
        Ok(())
    }

    /// The arrivals: evenly spread over the window, each with its think
    /// time and whether it misses once.
    pub fn arrivals(&self, start: Instant) -> Vec<Arrival> {
        let mut rng = rand::rng();
        let (least, most) = self.think;
        (0..self.players)
            .map(|i| Arrival {
                name: format!("{}-{i}", self.name_prefix),
                at: start + self.over.mul_f64(f64::from(i) / f64::from(self.players)),
                think: least + (most - least).mul_f64(rng.random::<f64>()),
                misses_once: rng.random::<f64>() < self.wrong_ratio,
            })
            .collect()
    }
}

/// `path` on the HTTP side of WebSocket URL `ws` (same host and port).
pub fn api_url(ws: &str, path: &str) -> Option<url::Url> {
    let mut url = url::Url::parse(ws).ok()?;
    let scheme = match url.scheme() {
        "ws" => "http",
        "wss" => "https",
        _ => return None,
    };
    url.set_scheme(scheme).ok()?;
    url.host_str()?;
    url.set_path(path);
    url.set_query(None);
    Some(url)
}

/// Runs the rush and reports. Must be called inside a tokio runtime; one
/// task per player.
pub async fn run(config: DailyConfig) -> Result<DailyReport, LoadError> {
    config.validate()?;
    let before = ServerCounts::read(&config).await;
    let ctx = Arc::new(RunContext::new(config.step_timeout, config.drain_timeout));
    let counters = ctx.counters.clone();
    let sampler = config.server_pid.map(RssSampler::start);
    let own = RssSampler::start(std::process::id());
    let book = Arc::new(AnswerBook::default());
    let started = Instant::now();
    let mut tasks: Vec<_> = config
        .arrivals(started)
        .into_iter()
        .map(|arrival| {
            tokio::spawn(player::visit(
                config.server.clone(),
                arrival,
                ctx.clone(),
                book.clone(),
            ))
        })
        .collect();
    let mut progress = Progress::new(config.progress_every, &counters, sampler.as_ref());
    let mut visits = report::Visits::default();
    for task in tasks.iter_mut() {
        loop {
            tokio::select! {
                done = &mut *task => {
                    match done {
                        Ok(visit) => visits.add(&visit),
                        // A player task that panicked: counted as a failure.
                        Err(_) => visits.lost += 1,
                    }
                    break;
                }
                () = progress.tick() => progress.print("rush"),
            }
        }
    }
    let took = started.elapsed();
    let after = ServerCounts::read_settled(&config, &before, visits.accepted).await;
    Ok(DailyReport::new(report::Inputs {
        config: &config,
        visits,
        took,
        before,
        after,
        peak_connections: counters
            .peak_connected
            .load(std::sync::atomic::Ordering::Relaxed),
        server_rss_peak: sampler.as_ref().map(RssSampler::peak),
        own_rss_peak: own.peak(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrivals_are_spread_over_the_window_with_distinct_names() {
        let mut config = DailyConfig::new("ws://x/ws");
        config.players = 4;
        config.over = Duration::from_secs(8);
        config.think = (Duration::from_secs(2), Duration::from_secs(3));
        config.name_prefix = "r".into();
        let start = Instant::now();
        let arrivals = config.arrivals(start);
        let offsets: Vec<u64> = arrivals.iter().map(|a| (a.at - start).as_secs()).collect();
        assert_eq!(offsets, [0, 2, 4, 6]);
        let names: Vec<&str> = arrivals.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["r-0", "r-1", "r-2", "r-3"]);
        for a in &arrivals {
            assert!((Duration::from_secs(2)..=Duration::from_secs(3)).contains(&a.think));
        }
    }

    #[test]
    fn the_api_is_on_the_websockets_host_and_port() {
        let url = api_url("ws://127.0.0.1:7878/ws", "/api/daily").unwrap();
        assert_eq!(url.as_str(), "http://127.0.0.1:7878/api/daily");
        let url = api_url("wss://k.example/ws?x=1", "/api/daily").unwrap();
        assert_eq!(url.as_str(), "https://k.example/api/daily");
    }

    #[test]
    fn bad_settings_are_refused() {
        let base = DailyConfig::new("ws://x/ws");
        assert!(base.validate().is_ok());
        let cases: [fn(&mut DailyConfig); 6] = [
            |c| c.players = 0,
            |c| c.players = MAX_PLAYERS + 1,
            |c| c.wrong_ratio = 2.0,
            |c| c.think = (Duration::from_secs(3), Duration::from_secs(1)),
            |c| c.server = "http://x/ws".into(),
            |c| c.metrics_url = Some("ftp://x/metrics".into()),
        ];
        for case in cases {
            let mut c = base.clone();
            case(&mut c);
            assert!(c.validate().is_err(), "{c:?}");
        }
        let mut c = base.clone();
        c.name_prefix = "much-too-long".into();
        assert!(c.validate().is_err());
    }
}
