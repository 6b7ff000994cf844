//! A room's clock: the milliseconds the pure `Room` runs on (rounds,
//! countdowns, lockouts, seat holds), and a way to sleep until one of them.
//!
//! In production it is the wall clock (through tokio, so a paused runtime
//! pauses it). The hidden `--room-time-scale` speeds it up for tests of the
//! real binary. A [`ManualClock`] moves only when a test says so, so a test
//! can ask "still locked out?" without racing the machine's speed.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// A clock that moves only when [`ManualClock::advance`] is called; shared
/// by every room of a server (each counts from when it opened).
#[derive(Debug, Clone)]
pub struct ManualClock {
    /// Milliseconds since the clock was made.
    now: Arc<watch::Sender<u64>>,
}

impl ManualClock {
    /// A clock at 0.
    pub fn new() -> Self {
        ManualClock {
            now: Arc::new(watch::channel(0).0),
        }
    }

    /// Moves the clock forward by `by`; rooms waiting for a deadline within
    /// it wake up.
    pub fn advance(&self, by: Duration) {
        let by = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.now.send_modify(|now| *now = now.saturating_add(by));
    }

    fn now(&self) -> u64 {
        *self.now.borrow()
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock::new()
    }
}

/// One room's clock: milliseconds since the room opened.
#[derive(Debug, Clone)]
pub(crate) enum RoomClock {
    /// The runtime's clock, sped up `scale` times.
    Real {
        /// When the room opened.
        origin: Instant,
        /// 1 outside tests.
        scale: u64,
    },
    /// A test's clock.
    Manual {
        /// The shared clock.
        clock: ManualClock,
        /// Its reading when the room opened.
        origin: u64,
    },
}

impl RoomClock {
    /// A test's `manual` clock if there is one, else the real clock sped up
    /// `scale` times, starting now.
    pub(crate) fn new(manual: Option<&ManualClock>, scale: u32) -> Self {
        match manual {
            Some(clock) => RoomClock::Manual {
                origin: clock.now(),
                clock: clock.clone(),
            },
            None => RoomClock::Real {
                origin: Instant::now(),
                scale: u64::from(scale.max(1)),
            },
        }
    }

    /// Room time now.
    pub(crate) fn now(&self) -> u64 {
        match self {
            RoomClock::Real { origin, scale } => {
                let real = u64::try_from(origin.elapsed().as_millis()).unwrap_or(u64::MAX);
                real.saturating_mul(*scale)
            }
            RoomClock::Manual { clock, origin } => clock.now().saturating_sub(*origin),
        }
    }

    /// Resolves once room time reaches `ms` (never before), or never when
    /// there is no deadline.
    pub(crate) async fn sleep_until(&self, ms: Option<u64>) {
        let Some(ms) = ms else {
            return std::future::pending().await;
        };
        match self {
            RoomClock::Real { origin, scale } => {
                // Rounded up, so a tick never comes before its deadline.
                let real = Duration::from_millis(ms.div_ceil(*scale));
                tokio::time::sleep_until(*origin + real).await;
            }
            RoomClock::Manual { clock, origin } => {
                let due = origin.saturating_add(ms);
                let mut readings = clock.now.subscribe();
                // The sender lives as long as `clock`, which we hold.
                if readings.wait_for(|now| *now >= due).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_manual_clock_moves_only_when_told_and_wakes_sleepers() {
        let manual = ManualClock::new();
        manual.advance(Duration::from_millis(500));
        let clock = RoomClock::new(Some(&manual), 1);
        assert_eq!(clock.now(), 0, "a room counts from when it opened");
        let sleeper = {
            let clock = clock.clone();
            tokio::spawn(async move { clock.sleep_until(Some(1000)).await })
        };
        manual.advance(Duration::from_millis(999));
        assert_eq!(clock.now(), 999);
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished());
        manual.advance(Duration::from_millis(1));
        sleeper.await.unwrap();
        assert_eq!(clock.now(), 1000);
    }

    #[tokio::test]
    async fn a_scaled_clock_never_wakes_before_the_deadline() {
        let clock = RoomClock::new(None, 10);
        for deadline in [1, 9, 55] {
            clock.sleep_until(Some(deadline)).await;
            assert!(clock.now() >= deadline, "{} < {deadline}", clock.now());
        }
    }
}
