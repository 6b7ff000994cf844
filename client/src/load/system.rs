//! The operating system side of a load run: enough file descriptors for
//! thousands of sockets, and the resident memory of a process (the server
//! under test, and the generator itself) read from `/proc`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How often the server's memory is sampled.
const RSS_SAMPLE_EVERY: Duration = Duration::from_millis(250);

/// Raises this process's soft limit of open files to its hard limit, since
/// every simulated player holds a socket and the usual soft limit (often
/// 1024) is far below a load run's needs. Returns the limit now in force.
pub fn raise_open_files_limit() -> std::io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}

/// The resident set size (`VmRSS`) of process `pid` in bytes, or `None`
/// when it cannot be read (no such process, no `/proc`).
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_vm_rss(&status)
}

/// The resident set size of this process in bytes.
pub fn own_rss_bytes() -> Option<u64> {
    rss_bytes(std::process::id())
}

/// Reads the `VmRSS:  1234 kB` line of a `/proc/PID/status` text.
pub fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let mut fields = line.split_whitespace().skip(1);
    let kib: u64 = fields.next()?.parse().ok()?;
    match fields.next() {
        Some("kB") | None => kib.checked_mul(1024),
        Some(_) => None,
    }
}

/// Samples a process's memory in the background and keeps the peak.
#[derive(Debug)]
pub struct RssSampler {
    /// Largest sample so far, in bytes (0 when none could be read).
    peak: Arc<AtomicU64>,
    /// Most recent sample, in bytes.
    last: Arc<AtomicU64>,
    /// The sampling task; aborted on drop.
    task: tokio::task::JoinHandle<()>,
}

impl RssSampler {
    /// Starts sampling `pid` every quarter second.
    pub fn start(pid: u32) -> RssSampler {
        let peak = Arc::new(AtomicU64::new(0));
        let last = Arc::new(AtomicU64::new(0));
        let (p, l) = (peak.clone(), last.clone());
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(RSS_SAMPLE_EVERY);
            loop {
                tick.tick().await;
                if let Some(bytes) = rss_bytes(pid) {
                    l.store(bytes, Ordering::Relaxed);
                    p.fetch_max(bytes, Ordering::Relaxed);
                }
            }
        });
        RssSampler { peak, last, task }
    }

    /// The peak so far, in bytes, taking one more sample first.
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// The latest sample, in bytes.
    pub fn last(&self) -> u64 {
        self.last.load(Ordering::Relaxed)
    }
}

impl Drop for RssSampler {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_rss_is_read_in_kibibytes() {
        let status = "Name:\tkrypto-server\nVmPeak:\t  99 kB\nVmRSS:\t   12345 kB\nThreads:\t3\n";
        assert_eq!(parse_vm_rss(status), Some(12345 * 1024));
        assert_eq!(parse_vm_rss("Name:\tx\n"), None);
        assert_eq!(parse_vm_rss("VmRSS:\tlots kB\n"), None);
    }

    #[test]
    fn this_process_has_a_resident_size() {
        assert!(own_rss_bytes().is_some_and(|b| b > 0));
    }
}
