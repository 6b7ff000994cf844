//! What a rush measured: the players' visits added up, the server's counts
//! before and after (results recorded, answers the fair-play signals
//! assessed), on screen and as JSON.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

use super::super::report::{counts, mib};
use super::super::stats::{histogram, record, Percentiles};
use super::player::{Reached, Visit};
use super::{api_url, DailyConfig};

/// The fair-play counter's outcomes, as `/metrics` labels them.
const OUTCOMES: [&str; 4] = ["assessed", "left_out", "dropped", "waited"];

/// How often the server's counts are read while waiting for them to
/// settle.
const POLL: Duration = Duration::from_millis(250);

/// The visits added up.
#[derive(Debug)]
pub struct Visits {
    welcome: Histogram<u64>,
    hand: Histogram<u64>,
    arrival_to_hand: Histogram<u64>,
    verdict: Histogram<u64>,
    to_solved: Histogram<u64>,
    /// Players welcomed.
    pub welcomed: u64,
    /// Players dealt the hand.
    pub hands: u64,
    /// Answers sent, and their verdicts: accepted, refused.
    pub submissions: u64,
    pub accepted: u64,
    pub refused: u64,
    /// Players who received `daily_solved`.
    pub solved: u64,
    /// Player tasks that ended in a panic.
    pub lost: u64,
    /// Why players stopped short, by error code (or `broken`).
    pub failures: BTreeMap<String, u64>,
}

impl Default for Visits {
    fn default() -> Visits {
        Visits {
            welcome: histogram(),
            hand: histogram(),
            arrival_to_hand: histogram(),
            verdict: histogram(),
            to_solved: histogram(),
            welcomed: 0,
            hands: 0,
            submissions: 0,
            accepted: 0,
            refused: 0,
            solved: 0,
            lost: 0,
            failures: BTreeMap::new(),
        }
    }
}

fn us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Visits {
    /// Adds one player's visit.
    pub fn add(&mut self, v: &Visit) {
        let put = |h: &mut Histogram<u64>, d: Option<Duration>| {
            if let Some(d) = d {
                record(h, us(d));
            }
        };
        put(&mut self.welcome, v.welcome);
        put(&mut self.hand, v.hand);
        put(&mut self.arrival_to_hand, v.arrival_to_hand);
        put(&mut self.to_solved, v.solved);
        self.welcomed += u64::from(v.reached >= Reached::Welcomed);
        self.hands += u64::from(v.reached >= Reached::Hand);
        self.solved += u64::from(v.reached >= Reached::Solved);
        for (d, accepted) in &v.verdicts {
            record(&mut self.verdict, us(*d));
            self.submissions += 1;
            if *accepted {
                self.accepted += 1;
            } else {
                self.refused += 1;
            }
        }
        if let Some(why) = &v.failure {
            *self.failures.entry(why.clone()).or_default() += 1;
        }
    }
}

/// What the server says, read over HTTP.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ServerCounts {
    /// `GET /api/daily`'s `solvers` (`None`: could not be read).
    pub solvers: Option<u64>,
    /// `krypto_fair_play_answers_total` by outcome (with `--metrics-url`).
    pub fair_play: BTreeMap<String, u64>,
}

impl ServerCounts {
    /// Reads them now (what cannot be read is left out, and said so).
    pub async fn read(config: &DailyConfig) -> ServerCounts {
        let daily = api_url(&config.server, "/api/daily");
        let metrics = config.metrics_url.clone();
        let read = tokio::task::spawn_blocking(move || {
            let solvers = daily
                .and_then(|url| get_text(url.as_str()))
                .and_then(|body| serde_json::from_str::<serde_json::Value>(&body).ok())
                .and_then(|json| json.get("solvers")?.as_u64());
            let fair_play = metrics
                .and_then(|url| get_text(&url))
                .map(|text| fair_play_counts(&text))
                .unwrap_or_default();
            ServerCounts { solvers, fair_play }
        });
        read.await.unwrap_or_default()
    }

    /// Reads them until the signals have seen `accepted` more answers than
    /// `before` (each accepted answer is recorded before its verdict is
    /// sent, but assessed afterwards), or the drain timeout passes.
    pub async fn read_settled(
        config: &DailyConfig,
        before: &ServerCounts,
        accepted: u64,
    ) -> ServerCounts {
        let deadline = tokio::time::Instant::now() + config.drain_timeout;
        loop {
            let now = ServerCounts::read(config).await;
            let seen = ["assessed", "left_out", "dropped"]
                .iter()
                .map(|o| now.delta(before, o))
                .sum::<u64>();
            let settled = config.metrics_url.is_none() || seen >= accepted;
            if settled || tokio::time::Instant::now() >= deadline {
                return now;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// How much `outcome`'s count grew since `before`.
    fn delta(&self, before: &ServerCounts, outcome: &str) -> u64 {
        let at = |c: &ServerCounts| c.fair_play.get(outcome).copied().unwrap_or(0);
        at(self).saturating_sub(at(before))
    }
}

/// A body fetched over HTTP, `None` when it could not be.
fn get_text(url: &str) -> Option<String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(10)))
        .build()
        .into();
    let mut response = agent.get(url).call().ok()?;
    response
        .body_mut()
        .with_config()
        .limit(4 * 1024 * 1024)
        .read_to_string()
        .ok()
}

/// `krypto_fair_play_answers_total{outcome="…"} N` lines of an exposition.
pub fn fair_play_counts(exposition: &str) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for line in exposition.lines() {
        let Some(rest) = line.strip_prefix("krypto_fair_play_answers_total{outcome=\"") else {
            continue;
        };
        let Some((outcome, value)) = rest.split_once("\"}") else {
            continue;
        };
        if let Ok(n) = value.trim().parse::<f64>() {
            if OUTCOMES.contains(&outcome) && n >= 0.0 {
                counts.insert(outcome.to_owned(), n as u64);
            }
        }
    }
    counts
}

/// What [`DailyReport::new`] is made of.
#[derive(Debug)]
pub struct Inputs<'a> {
    pub config: &'a DailyConfig,
    pub visits: Visits,
    pub took: Duration,
    pub before: ServerCounts,
    pub after: ServerCounts,
    pub peak_connections: u64,
    pub server_rss_peak: Option<u64>,
    pub own_rss_peak: u64,
}

/// What the rush measured.
#[derive(Debug, Clone, Serialize)]
pub struct DailyReport {
    /// The server's WebSocket URL.
    pub server: String,
    /// Players who arrived.
    pub players: u32,
    /// The window they arrived over, s.
    pub over_secs: f64,
    /// From the first arrival to the last player's end, s.
    pub took_secs: f64,
    /// Players welcomed, dealt the hand, and solved.
    pub welcomed: u64,
    pub hands: u64,
    pub solved: u64,
    /// Answers sent; verdicts accepted and refused (the misses).
    pub submissions: u64,
    pub accepted: u64,
    pub refused: u64,
    /// Arrival → `welcome`.
    pub welcome_latency: Percentiles,
    /// `daily_start` → `daily`: to the hand.
    pub hand_latency: Percentiles,
    /// Arrival → `daily`: connecting, `hello` and the hand.
    pub arrival_to_hand: Percentiles,
    /// `daily_submit` → `verdict`.
    pub verdict_latency: Percentiles,
    /// The right answer → `daily_solved`.
    pub solved_latency: Percentiles,
    /// Why players stopped short, by error code.
    pub failures: BTreeMap<String, u64>,
    /// Player tasks that panicked.
    pub lost: u64,
    /// New results on the server (`solvers` after − before).
    pub recorded: Option<u64>,
    /// The fair-play signals' answers by outcome during the rush (with
    /// `--metrics-url`).
    pub fair_play: BTreeMap<String, u64>,
    /// Most connections open at once.
    pub connections_peak: u64,
    /// The server's peak resident memory, MiB (with `--server-pid`).
    pub server_rss_peak_mib: Option<f64>,
    /// This generator's peak resident memory, MiB.
    pub generator_rss_peak_mib: f64,
}

impl DailyReport {
    /// The report of a finished rush.
    pub fn new(i: Inputs<'_>) -> DailyReport {
        let v = &i.visits;
        let recorded = match (i.before.solvers, i.after.solvers) {
            (Some(b), Some(a)) => Some(a.saturating_sub(b)),
            _ => None,
        };
        let fair_play = if i.config.metrics_url.is_some() {
            OUTCOMES
                .iter()
                .map(|o| ((*o).to_owned(), i.after.delta(&i.before, o)))
                .collect()
        } else {
            BTreeMap::new()
        };
        DailyReport {
            server: i.config.server.clone(),
            players: i.config.players,
            over_secs: i.config.over.as_secs_f64(),
            took_secs: i.took.as_secs_f64(),
            welcomed: v.welcomed,
            hands: v.hands,
            solved: v.solved,
            submissions: v.submissions,
            accepted: v.accepted,
            refused: v.refused,
            welcome_latency: Percentiles::of(&v.welcome),
            hand_latency: Percentiles::of(&v.hand),
            arrival_to_hand: Percentiles::of(&v.arrival_to_hand),
            verdict_latency: Percentiles::of(&v.verdict),
            solved_latency: Percentiles::of(&v.to_solved),
            failures: v.failures.clone(),
            lost: v.lost,
            recorded,
            fair_play,
            connections_peak: i.peak_connections,
            server_rss_peak_mib: i.server_rss_peak.map(mib),
            generator_rss_peak_mib: mib(i.own_rss_peak),
        }
    }

    /// Clean: every player got the hand and solved, with no failure, and
    /// every result is on the server (when it could be read) and every
    /// accepted answer was assessed (when asked to count them).
    pub fn is_clean(&self) -> bool {
        let all = u64::from(self.players);
        let assessed_all = self.fair_play.is_empty()
            || self.fair_play.get("assessed").copied().unwrap_or(0) >= self.accepted;
        self.hands == all
            && self.solved == all
            && self.failures.is_empty()
            && self.lost == 0
            && self.recorded.is_none_or(|r| r == self.solved)
            && assessed_all
    }

    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

fn line(f: &mut fmt::Formatter<'_>, what: &str, p: &Percentiles) -> fmt::Result {
    writeln!(
        f,
        "  {what:<22} p50 {:>8.2}  p95 {:>8.2}  p99 {:>8.2}  max {:>8.2} ms  ({} samples)",
        p.p50_ms, p.p95_ms, p.p99_ms, p.max_ms, p.count
    )
}

impl fmt::Display for DailyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "daily rush against {}: {} players over {:.0} s (took {:.1} s)",
            self.server, self.players, self.over_secs, self.took_secs
        )?;
        writeln!(
            f,
            "  welcomed {}  hands {}  solved {}  answers {} ({} accepted, {} refused)",
            self.welcomed, self.hands, self.solved, self.submissions, self.accepted, self.refused
        )?;
        line(f, "welcome (arrival)", &self.welcome_latency)?;
        line(f, "to the hand", &self.hand_latency)?;
        line(f, "arrival to the hand", &self.arrival_to_hand)?;
        line(f, "to the verdict", &self.verdict_latency)?;
        line(f, "to daily_solved", &self.solved_latency)?;
        match self.recorded {
            Some(r) => writeln!(f, "  results recorded on the server: {r}")?,
            None => writeln!(f, "  results recorded: GET /api/daily could not be read")?,
        }
        if !self.fair_play.is_empty() {
            writeln!(f, "  fair-play answers: {}", counts(&self.fair_play))?;
        }
        if self.failures.is_empty() && self.lost == 0 {
            writeln!(f, "  failures: none")?;
        } else {
            writeln!(
                f,
                "  failures: {} (tasks lost {})",
                counts(&self.failures),
                self.lost
            )?;
        }
        let rss = self
            .server_rss_peak_mib
            .map(|m| format!("server peak RSS {m:.0} MiB, "))
            .unwrap_or_default();
        write!(
            f,
            "  connections peak {}; {rss}generator peak RSS {:.0} MiB",
            self.connections_peak, self.generator_rss_peak_mib
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signals_counters_are_read_from_the_exposition() {
        let text = "# HELP krypto_fair_play_answers_total x\n\
            # TYPE krypto_fair_play_answers_total counter\n\
            krypto_fair_play_answers_total{outcome=\"assessed\"} 9985\n\
            krypto_fair_play_answers_total{outcome=\"dropped\"} 15\n\
            krypto_fair_play_answers_total{outcome=\"other\"} 3\n\
            krypto_connections 4\n";
        let counts = fair_play_counts(text);
        assert_eq!(counts.len(), 2);
        assert_eq!(counts["assessed"], 9985);
        assert_eq!(counts["dropped"], 15);
    }
}
