//! Lines that a long-running command prints (`krypto bots`' news,
//! `krypto-load`'s progress) go through a bounded queue to a thread of their
//! own (`tracing-appender`'s non-blocking writer, as the server's log does):
//! a stdout or stderr nobody reads (a full pipe) or nobody will (a closed
//! one) costs lines, never the command's play or its stop on Ctrl-C.

use std::fmt::Display;
use std::io::Write;
use std::time::Duration;

use tracing_appender::non_blocking::{NonBlocking, NonBlockingBuilder, WorkerGuard};

/// Lines held while the output does not take them; beyond, they are dropped.
const QUEUE_LINES: usize = 1024;

/// How long a command that stops waits for its lines to be written.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Somewhere to print lines without ever waiting for it.
#[derive(Debug, Clone)]
pub struct Lines(NonBlocking);

/// Keeps the thread writing the lines; [`LinesGuard::close`] it last.
#[derive(Debug)]
pub struct LinesGuard {
    _worker: WorkerGuard,
}

impl Lines {
    /// Lines to stdout.
    pub fn stdout() -> (Lines, LinesGuard) {
        Lines::to(std::io::stdout())
    }

    /// Lines to stderr.
    pub fn stderr() -> (Lines, LinesGuard) {
        Lines::to(std::io::stderr())
    }

    fn to(output: impl Write + Send + 'static) -> (Lines, LinesGuard) {
        let (writer, worker) = NonBlockingBuilder::default()
            .lossy(true)
            .buffered_lines_limit(QUEUE_LINES)
            .finish(output);
        (Lines(writer), LinesGuard { _worker: worker })
    }

    /// Prints `line` (and a newline), or drops it if the output is stuck.
    pub fn say(&self, line: impl Display) {
        let _ = self.0.clone().write_all(format!("{line}\n").as_bytes());
    }
}

impl LinesGuard {
    /// Lets the queued lines out, waiting [`CLOSE_WAIT`] at most: an output
    /// that takes nothing does not hold the exit (the writer's farewell on a
    /// full queue prints to stdout, which may be stuck too, so it runs on a
    /// thread that exit abandons).
    pub fn close(self) {
        let (done_tx, done) = std::sync::mpsc::channel();
        let closing = std::thread::Builder::new().spawn(move || {
            drop(self);
            let _ = done_tx.send(());
        });
        if closing.is_ok() {
            let _ = done.recv_timeout(CLOSE_WAIT);
        }
    }
}
