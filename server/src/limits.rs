//! Per-connection budgets: message credits (a token bucket, like Lichess) and
//! failed room-code guesses (a sliding window). Both take the time as an
//! input so they are tested without clocks.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// What a budget says about one more message or guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowance {
    /// Go ahead.
    Allowed,
    /// Refuse it with `rate_limited`; the connection stays open.
    Limited,
    /// Refused too many times in a row: close the connection (1008).
    Abusive,
}

/// A token bucket counted in thousandths of a message, so refilling is exact
/// integer arithmetic.
#[derive(Debug, Clone)]
pub struct MessageCredits {
    /// Credits now, in thousandths.
    milli: u64,
    /// Most credits the bucket holds, in thousandths.
    cap_milli: u64,
    /// Thousandths regained per millisecond (= whole credits per second).
    refill_per_sec: u64,
    /// When the bucket was last refilled.
    last: Instant,
    /// Refusals since the last allowed message.
    strikes: u32,
    /// Refusals in a row that mean abuse.
    max_strikes: u32,
}

impl MessageCredits {
    /// A full bucket of `burst` messages regaining `refill_per_sec` a second.
    pub fn new(burst: u32, refill_per_sec: u32, max_strikes: u32, now: Instant) -> Self {
        let cap_milli = u64::from(burst) * 1000;
        MessageCredits {
            milli: cap_milli,
            cap_milli,
            refill_per_sec: u64::from(refill_per_sec),
            last: now,
            strikes: 0,
            max_strikes,
        }
    }

    /// Spends one credit for a message arriving at `now`.
    pub fn spend(&mut self, now: Instant) -> Allowance {
        let elapsed_ms = now.saturating_duration_since(self.last).as_millis();
        let elapsed_ms = u64::try_from(elapsed_ms).unwrap_or(u64::MAX);
        self.milli = self
            .milli
            .saturating_add(elapsed_ms.saturating_mul(self.refill_per_sec))
            .min(self.cap_milli);
        self.last = now;
        if self.milli >= 1000 {
            self.milli -= 1000;
            self.strikes = 0;
            Allowance::Allowed
        } else {
            self.strikes = self.strikes.saturating_add(1);
            if self.strikes > self.max_strikes {
                Allowance::Abusive
            } else {
                Allowance::Limited
            }
        }
    }
}

/// Failed room-code guesses over a sliding window: guessing codes is how
/// someone would find private rooms, so misses are rationed.
#[derive(Debug, Clone)]
pub struct GuessLimiter {
    /// When each recent miss happened, oldest first.
    misses: VecDeque<Instant>,
    /// Misses allowed within `window`.
    max_misses: u32,
    /// How far back misses count.
    window: Duration,
    /// Attempts refused since the window last had room.
    strikes: u32,
    /// Refused attempts in a row that mean abuse.
    max_strikes: u32,
}

impl GuessLimiter {
    /// At most `max_misses` misses per `window`.
    pub fn new(max_misses: u32, window: Duration, max_strikes: u32) -> Self {
        GuessLimiter {
            misses: VecDeque::new(),
            max_misses,
            window,
            strikes: 0,
            max_strikes,
        }
    }

    /// Whether the connection may try a code at `now`.
    pub fn check(&mut self, now: Instant) -> Allowance {
        while let Some(&first) = self.misses.front() {
            if now.saturating_duration_since(first) >= self.window {
                self.misses.pop_front();
            } else {
                break;
            }
        }
        if self.misses.len() < self.max_misses as usize {
            self.strikes = 0;
            Allowance::Allowed
        } else {
            self.strikes = self.strikes.saturating_add(1);
            if self.strikes > self.max_strikes {
                Allowance::Abusive
            } else {
                Allowance::Limited
            }
        }
    }

    /// Records a code that named no room.
    pub fn miss(&mut self, now: Instant) {
        self.misses.push_back(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credits_allow_a_burst_then_refill_at_the_rate() {
        let t0 = Instant::now();
        let mut c = MessageCredits::new(3, 10, 2, t0);
        for _ in 0..3 {
            assert_eq!(c.spend(t0), Allowance::Allowed);
        }
        assert_eq!(c.spend(t0), Allowance::Limited);
        // 10 per second: one credit per 100 ms.
        assert_eq!(c.spend(t0 + Duration::from_millis(99)), Allowance::Limited);
        assert_eq!(c.spend(t0 + Duration::from_millis(200)), Allowance::Allowed);
    }

    #[test]
    fn credits_call_sustained_refusals_abuse() {
        let t0 = Instant::now();
        let mut c = MessageCredits::new(1, 0, 2, t0);
        assert_eq!(c.spend(t0), Allowance::Allowed);
        assert_eq!(c.spend(t0), Allowance::Limited);
        assert_eq!(c.spend(t0), Allowance::Limited);
        assert_eq!(c.spend(t0), Allowance::Abusive);
    }

    #[test]
    fn credits_never_exceed_the_burst() {
        let t0 = Instant::now();
        let mut c = MessageCredits::new(2, 10, 5, t0);
        let later = t0 + Duration::from_secs(3600);
        assert_eq!(c.spend(later), Allowance::Allowed);
        assert_eq!(c.spend(later), Allowance::Allowed);
        assert_eq!(c.spend(later), Allowance::Limited);
    }

    #[test]
    fn guesses_are_limited_within_the_window_and_forgiven_after() {
        let t0 = Instant::now();
        let minute = Duration::from_secs(60);
        let mut g = GuessLimiter::new(2, minute, 1);
        assert_eq!(g.check(t0), Allowance::Allowed);
        g.miss(t0);
        assert_eq!(g.check(t0), Allowance::Allowed);
        g.miss(t0);
        assert_eq!(g.check(t0), Allowance::Limited);
        assert_eq!(g.check(t0), Allowance::Abusive);
        assert_eq!(g.check(t0 + minute), Allowance::Allowed);
    }
}
