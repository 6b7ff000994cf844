//! The log's way out: every line goes through a bounded queue to one thread
//! that writes it to stdout (`tracing-appender`'s non-blocking writer), so a
//! stdout nobody reads (a full pipe) or nobody will (a closed one) costs log
//! lines — counted, shown on `/metrics`, and owned up to in the log once it
//! takes lines again — never a stalled server.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing_appender::non_blocking::{ErrorCounter, NonBlocking, NonBlockingBuilder, WorkerGuard};

/// Lines the queue holds by default while stdout does not take them: a burst
/// of thousands of players' lines (a few MiB at most) rides it out.
pub const QUEUE_LINES: usize = 16_384;

/// How long a stopping server waits for the queue to reach stdout.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// How often dropped lines are looked for, to be owned up to in the log.
const REPORT_EVERY: Duration = Duration::from_secs(5);

/// What the log's output has taken and lost. The default (a server without
/// [`to_stdout`], as in tests) has lost nothing.
#[derive(Debug, Clone, Default)]
pub struct LogStats {
    /// Lines dropped because the queue was full.
    queue_full: Option<ErrorCounter>,
    /// Lines stdout refused (closed: its reader is gone).
    refused: Arc<AtomicU64>,
    /// Bytes stdout took.
    written: Arc<AtomicU64>,
}

impl LogStats {
    /// Lines lost so far: dropped because stdout did not take them in time,
    /// or refused by it.
    pub fn dropped(&self) -> u64 {
        let queue_full = self.queue_full.as_ref().map_or(0, |d| d.dropped_lines());
        (queue_full as u64).saturating_add(self.refused.load(Ordering::Relaxed))
    }
}

/// The log's way to stdout, from [`to_stdout`].
#[derive(Debug)]
pub struct LogOutput {
    /// Where log lines (and the banner) are written; never blocks.
    pub writer: NonBlocking,
    /// What it took and lost, for `/metrics` ([`crate::Config::log`]).
    pub stats: LogStats,
    /// Keeps the writing thread; [`LogGuard::close`] it last.
    pub guard: LogGuard,
}

/// Starts the thread that writes log lines to stdout, behind a queue of
/// `queue_lines` lines (lines beyond it are dropped and counted).
pub fn to_stdout(queue_lines: usize) -> LogOutput {
    let stats = LogStats::default();
    let stdout = Metered {
        inner: std::io::stdout(),
        stats: stats.clone(),
    };
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(true)
        .buffered_lines_limit(queue_lines.max(1))
        .thread_name("krypto-log")
        .finish(stdout);
    let stats = LogStats {
        queue_full: Some(writer.error_counter()),
        ..stats
    };
    LogOutput {
        writer,
        stats,
        guard: LogGuard { _worker: guard },
    }
}

/// Stdout, counting what it takes and the lines it refuses. (The writing
/// thread writes each line with one `write_all`, which gives up on a line at
/// its first error.)
struct Metered<W> {
    inner: W,
    stats: LogStats,
}

impl<W: Write> Write for Metered<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(buf);
        match &written {
            Ok(n) => self.stats.written.fetch_add(*n as u64, Ordering::Relaxed),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => 0,
            Err(_) => self.stats.refused.fetch_add(1, Ordering::Relaxed),
        };
        written
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Keeps the thread writing log lines.
#[derive(Debug)]
pub struct LogGuard {
    _worker: WorkerGuard,
}

impl LogGuard {
    /// Lets the queued lines reach stdout, waiting [`CLOSE_WAIT`] at most: a
    /// stdout that takes nothing does not hold the exit. (The worker's own
    /// farewell, on a full queue, would print to that very stdout and block
    /// forever, so it happens on a thread of its own that exit abandons.)
    pub fn close(self) {
        let (done_tx, done) = std::sync::mpsc::channel();
        let closing = std::thread::Builder::new()
            .name("krypto-log-close".into())
            .spawn(move || {
                drop(self);
                let _ = done_tx.send(());
            });
        if closing.is_ok() {
            let _ = done.recv_timeout(CLOSE_WAIT);
        }
    }
}

/// Says in the log how many lines were lost, once stdout takes lines again
/// (not while it takes none, stuck or closed: the notice would be lost too).
pub(crate) async fn report_dropped(stats: LogStats, stop: CancellationToken) {
    let mut every = tokio::time::interval(REPORT_EVERY);
    let mut reported = 0;
    let mut written = stats.written.load(Ordering::Relaxed);
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            _ = every.tick() => {}
        }
        let dropped = stats.dropped();
        let was_written = std::mem::replace(&mut written, stats.written.load(Ordering::Relaxed));
        if dropped > reported && written > was_written {
            tracing::warn!(
                dropped = dropped - reported,
                dropped_total = dropped,
                "log lines were lost: stdout did not take them"
            );
            reported = dropped;
        }
    }
}
