//! What the load generator counts. Each room task keeps its own [`Stats`]
//! (no locks on the hot path) and hands it back at the end to be merged;
//! only the few numbers shown while running live in shared atomic
//! [`Counters`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use hdrhistogram::Histogram;
use krypto_core::protocol::PlayerId;
use serde::Serialize;

/// Largest latency a histogram tracks, in microseconds (a minute); longer
/// ones are recorded as a minute.
const HISTOGRAM_MAX_US: u64 = 60_000_000;

/// A histogram of durations in microseconds, three significant digits.
#[allow(clippy::expect_used)]
pub fn histogram() -> Histogram<u64> {
    // Constant bounds that hdrhistogram accepts (low ≥ 1, high ≥ 2·low,
    // 3 significant figures): this cannot fail for any input.
    Histogram::new_with_bounds(1, HISTOGRAM_MAX_US, 3).expect("constant, valid bounds")
}

/// A round the server announced as won, as a player of the room saw it:
/// what a soak test (or `--won-rounds`) looks for in the database
/// afterwards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WonRound {
    /// The room's code.
    pub room: String,
    /// Which match of the room (1 for the first), since a room that plays
    /// through its rounds starts another match.
    pub match_no: u32,
    /// The round number within the match.
    pub round: u32,
    /// Who won it.
    pub winner: PlayerId,
    /// The winning formula (`None` for a right "no solution" claim).
    pub formula: Option<String>,
    /// The winner's time as the server announced it (`round_won`'s
    /// `elapsed_ms`), which is what it stores.
    pub elapsed_ms: u64,
    /// Milliseconds from the room's first sight of the deal to the sending
    /// of the answer the server accepted, when its verdict came back: the
    /// announced time is this plus the two trips over the network.
    pub sent_ms: Option<u64>,
    /// Milliseconds from the room's first sight of the deal to its first
    /// sight of the win: the announced time can be no longer than this
    /// plus the deal's trip.
    pub seen_ms: Option<u64>,
}

/// Declares [`Tally`] with these counts, and adding one tally to another
/// count by count: a new count cannot be left out of the merge.
macro_rules! tally {
    ($($(#[$doc:meta])* $count:ident,)*) => {
        /// The plain counts of a run: what a room task adds up in its
        /// [`Stats`] and the report shows as they are.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
        pub struct Tally {
            $($(#[$doc])* pub $count: u64,)*
        }

        impl std::ops::AddAssign for Tally {
            fn add_assign(&mut self, other: Tally) {
                $(self.$count += other.$count;)*
            }
        }
    };
}

tally! {
    /// Submissions (formulas and claims) sent, over the whole run.
    submissions,
    /// Verdicts received that matched a submission of ours by id.
    verdicts,
    /// Late answers: submissions that crossed the end of their round on
    /// the wire, answered by `wrong_round` (the next round had begun) or
    /// `wrong_state` (the rematch was counting down). The server's answer
    /// is right, so they are counted here, not as errors.
    late_answers,
    /// Submissions answered by any other `error` instead of a verdict.
    refused_submissions,
    /// Submissions still without an answer when the run ended: lost results.
    unanswered,
    /// Hands dealt, counted once per room.
    rounds_started,
    /// `match_started` seen, counted once per room.
    matches_started,
    /// Connections that ended without our asking (the server ended them,
    /// or they broke) before we closed them.
    unexpected_disconnects,
    /// Connections that could not be opened or welcomed.
    connect_failures,
    /// Rooms that never got to play (creation, joining or start failed).
    rooms_failed,
    /// Redirects followed to the node holding a room, while joining.
    redirects_followed,
    /// Connections the server closed to restart (or that a stopping node
    /// sent to the room's new node) whose player came back to their seat.
    resumed,
    /// Submissions whose answer went down with such a connection.
    interrupted,
}

/// Everything one room task (or, merged, the whole run) observed.
#[derive(Debug, Clone)]
pub struct Stats {
    /// Send → matching `verdict`, in µs, for submissions sent in the
    /// steady window (after every room was set up, before the stop).
    pub verdict_latency: Histogram<u64>,
    /// The same, split: accepted answers (a win waits for its result's
    /// commit) and refused ones (which wait for nothing).
    pub accepted_latency: Histogram<u64>,
    pub refused_latency: Histogram<u64>,
    /// For each round of each room: time between the first and the last
    /// player of the room receiving its `round_started`, in µs.
    pub round_spread: Histogram<u64>,
    /// The counts.
    pub tally: Tally,
    /// Submissions sent in the steady window.
    pub measured_submissions: u64,
    /// Verdicts by outcome: `accepted`, or the refusal's kind.
    pub verdict_kinds: BTreeMap<String, u64>,
    /// `error` messages received, by code.
    pub errors: BTreeMap<String, u64>,
    /// Every round the server announced as won.
    pub rounds_won: Vec<WonRound>,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            verdict_latency: histogram(),
            accepted_latency: histogram(),
            refused_latency: histogram(),
            round_spread: histogram(),
            tally: Tally::default(),
            measured_submissions: 0,
            verdict_kinds: BTreeMap::new(),
            errors: BTreeMap::new(),
            rounds_won: Vec::new(),
        }
    }
}

impl Stats {
    /// Adds another task's observations to these.
    pub fn merge(&mut self, other: Stats) {
        // Both histograms have the same bounds; values over them were
        // already clamped, so adding cannot fail.
        let _ = self.verdict_latency.add(&other.verdict_latency);
        let _ = self.accepted_latency.add(&other.accepted_latency);
        let _ = self.refused_latency.add(&other.refused_latency);
        let _ = self.round_spread.add(&other.round_spread);
        self.tally += other.tally;
        self.measured_submissions += other.measured_submissions;
        for (k, v) in other.verdict_kinds {
            *self.verdict_kinds.entry(k).or_default() += v;
        }
        for (k, v) in other.errors {
            *self.errors.entry(k).or_default() += v;
        }
        self.rounds_won.extend(other.rounds_won);
    }

    /// Counts one `error` by its code.
    pub fn error(&mut self, code: &str) {
        *self.errors.entry(code.to_owned()).or_default() += 1;
    }

    /// The number of `error` messages received.
    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }
}

/// Records a duration in µs, clamping what the histogram cannot hold.
pub fn record(h: &mut Histogram<u64>, micros: u64) {
    h.saturating_record(micros.clamp(1, HISTOGRAM_MAX_US));
}

/// The numbers the progress line and the message rates need while the
/// run is going; shared by every room task.
#[derive(Debug, Default)]
pub struct Counters {
    /// WebSocket text messages sent.
    pub sent: AtomicU64,
    /// WebSocket text messages received.
    pub received: AtomicU64,
    /// Connections open now (welcomed and not yet closed).
    pub connected: AtomicU64,
    /// Most connections open at once.
    pub peak_connected: AtomicU64,
}

impl Counters {
    /// One more open connection.
    pub fn connection_opened(&self) {
        let now = self.connected.fetch_add(1, Ordering::Relaxed) + 1;
        self.peak_connected.fetch_max(now, Ordering::Relaxed);
    }

    /// One fewer open connection.
    pub fn connection_closed(&self) {
        self.connected.fetch_sub(1, Ordering::Relaxed);
    }

    /// Messages sent and received so far.
    pub fn messages(&self) -> (u64, u64) {
        (
            self.sent.load(Ordering::Relaxed),
            self.received.load(Ordering::Relaxed),
        )
    }
}

/// Percentiles of a latency histogram, in milliseconds, for the report.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Percentiles {
    /// How many values were recorded.
    pub count: u64,
    /// Median.
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Largest value.
    pub max_ms: f64,
}

impl Percentiles {
    /// Summarises a histogram of µs (zeros when it is empty).
    pub fn of(h: &Histogram<u64>) -> Percentiles {
        // Milliseconds with µs precision, for reading only: nothing is
        // decided by these numbers.
        let ms = |us: u64| us as f64 / 1000.0;
        if h.is_empty() {
            return Percentiles {
                count: 0,
                p50_ms: 0.0,
                p95_ms: 0.0,
                p99_ms: 0.0,
                max_ms: 0.0,
            };
        }
        Percentiles {
            count: h.len(),
            p50_ms: ms(h.value_at_quantile(0.50)),
            p95_ms: ms(h.value_at_quantile(0.95)),
            p99_ms: ms(h.value_at_quantile(0.99)),
            max_ms: ms(h.max()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_won_round_is_written_as_the_chaos_run_reads_it() {
        let won = WonRound {
            room: "ABCDE".into(),
            match_no: 2,
            round: 3,
            winner: PlayerId(7),
            formula: Some("1+2".into()),
            elapsed_ms: 1_250,
            sent_ms: Some(1_248),
            seen_ms: None,
        };
        assert_eq!(
            serde_json::to_value(&won).unwrap(),
            serde_json::json!({
                "room": "ABCDE", "match_no": 2, "round": 3, "winner": 7, "formula": "1+2",
                "elapsed_ms": 1_250, "sent_ms": 1_248, "seen_ms": null
            })
        );
    }

    #[test]
    fn merging_adds_counts_and_histograms() {
        let mut a = Stats::default();
        record(&mut a.verdict_latency, 1_000);
        a.error("rate_limited");
        a.tally.submissions = 2;
        let mut b = Stats::default();
        record(&mut b.verdict_latency, 3_000);
        b.error("rate_limited");
        b.error("internal");
        b.tally.submissions = 3;
        a.merge(b);
        assert_eq!(a.tally.submissions, 5);
        assert_eq!(a.error_count(), 3);
        assert_eq!(a.errors["rate_limited"], 2);
        let p = Percentiles::of(&a.verdict_latency);
        assert_eq!(p.count, 2);
        assert!((p.max_ms - 3.0).abs() < 0.01);
    }

    #[test]
    fn values_beyond_a_minute_are_clamped() {
        let mut h = histogram();
        record(&mut h, u64::MAX);
        assert_eq!(h.len(), 1);
        assert!(h.max() >= HISTOGRAM_MAX_US);
    }
}
