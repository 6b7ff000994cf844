//! A room's clock: the milliseconds the pure `Room` runs on (rounds,
//! countdowns, lockouts, seat holds), and a way to sleep until one of them.
//!
//! In production it is the wall clock (through tokio, so a paused runtime
//! pauses it). The hidden `--room-time-scale` speeds it up for tests of the
//! real binary. A [`ManualClock`] moves only when a test says so, so a test
//! can ask "still locked out?" without racing the machine's speed.
//!
//! Room time stands still while the room is held — waiting for the recorder
//! to make a result durable ([`RoomClock::hold`]): a round's timer does not
//! run while nobody can be told anything, and a request is timed when it
//! arrived ([`RoomClock::at`]), so the time the server held a verdict never
//! counts against a player (see `docs/design.md`, "A fair clock").

use std::collections::VecDeque;
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

/// Holds remembered to time requests that arrived before or during them:
/// more than a room's inbox ever lags behind.
const HOLDS_KEPT: usize = 16;

/// The spans of real time a room was held, which its clock leaves out.
#[derive(Debug, Clone, Default)]
pub(crate) struct Holds {
    /// Holds older than the ones kept, added up.
    before: Duration,
    /// The latest holds, oldest first: (start, end).
    recent: VecDeque<(Instant, Instant)>,
}

impl Holds {
    /// Adds the span from `start` to `end`.
    fn add(&mut self, start: Instant, end: Instant) {
        if end <= start {
            return;
        }
        if self.recent.len() == HOLDS_KEPT {
            if let Some((s, e)) = self.recent.pop_front() {
                self.before += e - s;
            }
        }
        self.recent.push_back((start, end));
    }

    /// `at` moved back to the start of a hold it falls in, and the held
    /// time before it.
    fn before(&self, at: Instant) -> (Instant, Duration) {
        let at = self
            .recent
            .iter()
            .find(|(s, e)| *s <= at && at < *e)
            .map_or(at, |(s, _)| *s);
        let held = self
            .recent
            .iter()
            .filter(|(_, e)| *e <= at)
            .map(|(s, e)| *e - *s)
            .sum::<Duration>();
        (at, self.before + held)
    }
}

/// One room's clock: milliseconds since the room opened.
#[derive(Debug, Clone)]
pub(crate) enum RoomClock {
    /// The runtime's clock, sped up `scale` times, less the time the room
    /// was held.
    Real {
        /// When the room opened.
        origin: Instant,
        /// 1 outside tests.
        scale: u64,
        /// When the room was held.
        holds: Holds,
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
                holds: Holds::default(),
            },
        }
    }

    /// Room time now.
    pub(crate) fn now(&self) -> u64 {
        self.at(Instant::now())
    }

    /// Room time at the real instant `at` (not after now): a request is
    /// timed when it arrived, however long it then waited in the room's
    /// inbox; one that arrived while the room was held, when the hold
    /// began. A test's manual clock is read as it is now.
    pub(crate) fn at(&self, at: Instant) -> u64 {
        match self {
            RoomClock::Real {
                origin,
                scale,
                holds,
            } => {
                let (at, held) = holds.before(at.min(Instant::now()));
                let real = at.saturating_duration_since(*origin).saturating_sub(held);
                let real = u64::try_from(real.as_millis()).unwrap_or(u64::MAX);
                real.saturating_mul(*scale)
            }
            RoomClock::Manual { clock, origin } => clock.now().saturating_sub(*origin),
        }
    }

    /// Leaves the real time from `start` to `end` out of room time: the
    /// room was held (waiting for a result to be durable) and nobody could
    /// be told anything meanwhile. A manual clock moves only when its test
    /// says, so it needs nothing left out.
    pub(crate) fn hold(&mut self, start: Instant, end: Instant) {
        if let RoomClock::Real { holds, .. } = self {
            holds.add(start, end);
        }
    }

    /// Resolves once room time reaches `ms` (never before), or never when
    /// there is no deadline.
    pub(crate) async fn sleep_until(&self, ms: Option<u64>) {
        let Some(ms) = ms else {
            return std::future::pending().await;
        };
        match self {
            RoomClock::Real {
                origin,
                scale,
                holds,
            } => {
                // Rounded up, so a tick never comes before its deadline;
                // later by every hold so far (a sleeper is made again
                // after each one).
                let real = Duration::from_millis(ms.div_ceil(*scale));
                let (_, held) = holds.before(Instant::now());
                tokio::time::sleep_until(*origin + held + real).await;
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

    #[test]
    fn time_a_room_was_held_is_left_out_and_requests_are_timed_on_arrival() {
        let ms = Duration::from_millis;
        let now = Instant::now();
        // A room opened 41.5 s ago, held for 40 s waiting on a commit from
        // 1.3 s on; a request arrived at 1 s, another during the hold.
        let Some(opened) = now.checked_sub(ms(41_500)) else {
            return; // a machine up for less than that: nothing to learn
        };
        let mut clock = RoomClock::Real {
            origin: opened,
            scale: 1,
            holds: Holds::default(),
        };
        clock.hold(opened + ms(1_300), opened + ms(41_300));
        assert_eq!(clock.at(now), 1_500, "the hold is not room time");
        assert!(clock.now() >= 1_500 && clock.now() < 40_000);
        assert_eq!(clock.at(opened + ms(1_000)), 1_000, "timed when it arrived");
        assert_eq!(
            clock.at(opened + ms(6_300)),
            1_300,
            "arrived during the hold"
        );
        assert_eq!(clock.at(opened), 0);
        // Ten times faster: ten times the room time, the hold still left out.
        let RoomClock::Real { scale, .. } = &mut clock else {
            unreachable!()
        };
        *scale = 10;
        assert_eq!(clock.at(now), 15_000);
    }

    #[test]
    fn old_holds_are_added_up_and_still_left_out() {
        let mut holds = Holds::default();
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        for k in 0..40u64 {
            holds.add(t0 + ms(10 * k), t0 + ms(10 * k + 4));
        }
        assert_eq!(holds.recent.len(), HOLDS_KEPT);
        assert_eq!(holds.before(t0 + ms(1_000)).1, ms(160));
        assert_eq!(holds.before(t0 + ms(392)), (t0 + ms(390), ms(156)));
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
