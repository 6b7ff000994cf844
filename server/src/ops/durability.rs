//! What the recorder and its journal report about the database: plain
//! counters and gauges in one place, written by the recorder and read by
//! `/readyz` (and by anything exporting metrics).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use metrics::Histogram;

/// A failure going on since `since`.
#[derive(Debug, Clone)]
pub struct Outage {
    /// When it was first seen.
    pub since: Instant,
    /// The last error, as logged.
    pub error: String,
}

/// The recorder's state, shared with whoever reports it.
#[derive(Debug)]
pub struct Durability {
    /// Requests waiting in the recorder's queue (gauge).
    pub queue_depth: AtomicU64,
    /// Batches waiting in the journal for the database (gauge).
    pub journal_batches: AtomicU64,
    /// The journal's size in bytes (gauge).
    pub journal_bytes: AtomicU64,
    /// Batches committed to the database (counter).
    pub commits: AtomicU64,
    /// Batches whose commit failed because the database was unavailable
    /// (counter); each was journaled or retried, not dropped.
    pub failed_commits: AtomicU64,
    /// How long each successful commit took, in seconds (a histogram
    /// handle: a no-op unless the server's metrics gave one).
    commit_seconds: Histogram,
    /// The longest commit so far, in microseconds (gauge).
    pub max_commit_micros: AtomicU64,
    /// Connections the recorder opened again after losing one (counter).
    pub reconnects: AtomicU64,
    /// Batches replayed from the journal into the database (counter).
    pub replayed_batches: AtomicU64,
    /// Whether the journal is at its bound (size or age): new matches are
    /// refused until the database takes it.
    pub journal_full: AtomicBool,
    /// Writes are failing: the database cannot take them (`None`: fine).
    database: Mutex<Option<Outage>>,
    /// The journal cannot be written (a full or read-only disk).
    journal: Mutex<Option<Outage>>,
    /// The last readiness probe found the database unreachable.
    probe: Mutex<Option<Outage>>,
}

impl Default for Durability {
    fn default() -> Durability {
        Durability::new(Histogram::noop())
    }
}

impl Durability {
    /// A fresh state whose commit times go to `commit_seconds`.
    pub fn new(commit_seconds: Histogram) -> Durability {
        Durability {
            queue_depth: AtomicU64::default(),
            journal_batches: AtomicU64::default(),
            journal_bytes: AtomicU64::default(),
            commits: AtomicU64::default(),
            failed_commits: AtomicU64::default(),
            commit_seconds,
            max_commit_micros: AtomicU64::default(),
            reconnects: AtomicU64::default(),
            replayed_batches: AtomicU64::default(),
            journal_full: AtomicBool::default(),
            database: Mutex::default(),
            journal: Mutex::default(),
            probe: Mutex::default(),
        }
    }

    /// Counts a successful commit that took `took`.
    pub(crate) fn committed(&self, took: Duration) {
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.commits.fetch_add(1, Ordering::Relaxed);
        self.commit_seconds.record(took.as_secs_f64());
        self.max_commit_micros.fetch_max(micros, Ordering::Relaxed);
    }

    /// Notes that the database failed with `error` (keeping when it
    /// started failing).
    pub(crate) fn database_down(&self, error: &impl std::fmt::Display) {
        set(&self.database, error);
    }

    /// The database takes writes again.
    pub(crate) fn database_up(&self) {
        clear(&self.database);
    }

    /// Notes that the journal could not be written.
    pub(crate) fn journal_down(&self, error: &impl std::fmt::Display) {
        set(&self.journal, error);
    }

    /// The journal can be written again.
    pub(crate) fn journal_up(&self) {
        clear(&self.journal);
    }

    /// Notes that a readiness probe failed.
    pub(crate) fn probe_down(&self, error: &impl std::fmt::Display) {
        set(&self.probe, error);
    }

    /// A readiness probe succeeded.
    pub(crate) fn probe_up(&self) {
        clear(&self.probe);
    }

    /// Since when, and why, readiness probes fail.
    pub fn probe_outage(&self) -> Option<Outage> {
        get(&self.probe)
    }

    /// Since when, and why, writes to the database fail.
    pub fn database_outage(&self) -> Option<Outage> {
        get(&self.database)
    }

    /// Since when, and why, the journal cannot be written.
    pub fn journal_outage(&self) -> Option<Outage> {
        get(&self.journal)
    }
}

fn set(slot: &Mutex<Option<Outage>>, error: &impl std::fmt::Display) {
    let mut slot = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let since = slot.as_ref().map_or_else(Instant::now, |o| o.since);
    *slot = Some(Outage {
        since,
        error: error.to_string(),
    });
}

fn clear(slot: &Mutex<Option<Outage>>) {
    *slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
}

fn get(slot: &Mutex<Option<Outage>>) -> Option<Outage> {
    slot.lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}
