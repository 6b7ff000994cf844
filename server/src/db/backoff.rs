//! Waiting between retries of something that failed: from 100 ms, doubling
//! up to 5 s, so a database back after a blip is used again at once and one
//! down for minutes is asked every few seconds, not hammered.

use std::time::Duration;

/// The first wait.
const FIRST: Duration = Duration::from_millis(100);

/// The longest wait: a database that comes back is in use again within
/// this (plus the time a replay of the journal takes).
const MAX: Duration = Duration::from_secs(5);

/// Successive waits between retries.
#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { next: FIRST }
    }
}

impl Backoff {
    /// The wait before the next retry (each longer, up to [`MAX`]).
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(MAX);
        wait
    }

    /// After a success: the next failure starts again from [`FIRST`].
    pub fn reset(&mut self) {
        self.next = FIRST;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_the_cap_and_start_over_after_a_success() {
        let mut b = Backoff::default();
        let waits: Vec<u128> = (0..8).map(|_| b.next_wait().as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        b.reset();
        assert_eq!(b.next_wait(), FIRST);
    }
}
