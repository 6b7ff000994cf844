//! Budgets that keep one client from taking more than its share: message
//! credits per connection (a token bucket, like Lichess), events per address
//! or player over a sliding window (room-code misses, new accounts), and
//! open connections per address. Time is an input, so they are tested
//! without clocks.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use krypto_core::protocol::PlayerId;

use crate::Config;

/// What a budget says about one more message or guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Allowance {
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
pub(crate) struct MessageCredits {
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
    pub(crate) fn new(burst: u32, refill_per_sec: u32, max_strikes: u32, now: Instant) -> Self {
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
    pub(crate) fn spend(&mut self, now: Instant) -> Allowance {
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

/// Events per key over a sliding window: failed room-code guesses per
/// address and per player, accounts created per address. Keyed, and shared
/// by every connection, so opening another socket resets nothing.
#[derive(Debug)]
pub(crate) struct SlidingWindow<K> {
    /// When each recent event of each key happened, oldest first.
    events: HashMap<K, VecDeque<Instant>>,
    /// Events allowed per key within `window`; 0 means no limit.
    max: u32,
    /// How far back events count.
    window: Duration,
    /// Keys held after the last sweep; a sweep runs when this doubles, so
    /// keys that went quiet cost memory only for a while.
    swept_len: usize,
}

impl<K: Hash + Eq + Clone> SlidingWindow<K> {
    /// At most `max` events per key per `window` (0: unlimited).
    pub(crate) fn new(max: u32, window: Duration) -> Self {
        SlidingWindow {
            events: HashMap::new(),
            max,
            window,
            swept_len: 0,
        }
    }

    /// Whether `key` may have one more event at `now`.
    pub(crate) fn allows(&mut self, key: &K, now: Instant) -> bool {
        if self.max == 0 {
            return true;
        }
        let window = self.window;
        match self.events.get_mut(key) {
            Some(times) => {
                forget_before(times, now, window);
                times.len() < self.max as usize
            }
            None => true,
        }
    }

    /// Counts an event of `key` at `now`.
    pub(crate) fn record(&mut self, key: K, now: Instant) {
        if self.max == 0 {
            return;
        }
        self.events.entry(key).or_default().push_back(now);
        if self.events.len() > (2 * self.swept_len).max(1024) {
            let window = self.window;
            self.events.retain(|_, times| {
                forget_before(times, now, window);
                !times.is_empty()
            });
            self.swept_len = self.events.len();
        }
    }
}

/// Drops the events older than `window` at `now`.
fn forget_before(times: &mut VecDeque<Instant>, now: Instant, window: Duration) {
    while times
        .front()
        .is_some_and(|&t| now.saturating_duration_since(t) >= window)
    {
        times.pop_front();
    }
}

/// Open connections per client address, so one address cannot take every
/// connection the server allows. A slot is held by an [`AddressSlot`] and
/// given back when it is dropped.
#[derive(Debug)]
pub(crate) struct ConnectionsPerAddress {
    /// Open connections by address; absent means none.
    open: Mutex<HashMap<IpAddr, usize>>,
    /// Most per address; 0 means no cap.
    max: usize,
}

impl ConnectionsPerAddress {
    /// At most `max` connections per address (0: no cap).
    pub(crate) fn new(max: usize) -> Arc<Self> {
        Arc::new(ConnectionsPerAddress {
            open: Mutex::new(HashMap::new()),
            max,
        })
    }

    /// A slot for one more connection from `ip`, or `None` at the cap.
    pub(crate) fn acquire(self: &Arc<Self>, ip: IpAddr) -> Option<AddressSlot> {
        let mut open = lock(&self.open);
        let count = open.entry(ip).or_insert(0);
        if self.max != 0 && *count >= self.max {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            owner: self.clone(),
            ip,
        })
    }
}

/// One open connection counted against its address.
#[derive(Debug)]
pub(crate) struct AddressSlot {
    /// Where to give the slot back.
    owner: Arc<ConnectionsPerAddress>,
    /// The address it counts against.
    ip: IpAddr,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut open = lock(&self.owner.open);
        if let Some(count) = open.get_mut(&self.ip) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// The limits every connection shares, keyed by client address or player.
#[derive(Debug)]
pub(crate) struct SharedLimits {
    /// Room-code misses per client address.
    misses_by_ip: Mutex<SlidingWindow<IpAddr>>,
    /// Room-code misses per player, wherever they connect from.
    misses_by_player: Mutex<SlidingWindow<PlayerId>>,
    /// Accounts created per client address.
    accounts: Mutex<SlidingWindow<IpAddr>>,
    /// Open connections per client address.
    pub(crate) connections: Arc<ConnectionsPerAddress>,
}

impl SharedLimits {
    /// The limits `config` names.
    pub(crate) fn new(config: &Config) -> Self {
        let window = config.limit_window;
        SharedLimits {
            misses_by_ip: Mutex::new(SlidingWindow::new(config.max_code_misses, window)),
            misses_by_player: Mutex::new(SlidingWindow::new(config.max_code_misses, window)),
            accounts: Mutex::new(SlidingWindow::new(config.max_new_accounts, window)),
            connections: ConnectionsPerAddress::new(config.max_connections_per_ip),
        }
    }

    /// Whether `player` at `ip` may try a room code at `now`.
    pub(crate) fn may_guess(&self, ip: IpAddr, player: PlayerId, now: Instant) -> bool {
        lock(&self.misses_by_ip).allows(&ip, now)
            && lock(&self.misses_by_player).allows(&player, now)
    }

    /// Counts a room code that named no room.
    pub(crate) fn missed(&self, ip: IpAddr, player: PlayerId, now: Instant) {
        lock(&self.misses_by_ip).record(ip, now);
        lock(&self.misses_by_player).record(player, now);
    }

    /// Whether `ip` may try one more sign-in ticket (device code) at `now`:
    /// wrong ones count as room-code misses of the address.
    pub(crate) fn may_try_ticket(&self, ip: IpAddr, now: Instant) -> bool {
        lock(&self.misses_by_ip).allows(&ip, now)
    }

    /// Counts a ticket that signed nobody in.
    pub(crate) fn missed_ticket(&self, ip: IpAddr, now: Instant) {
        lock(&self.misses_by_ip).record(ip, now);
    }

    /// Whether `ip` may create one more account at `now`; counts it if so.
    pub(crate) fn new_account(&self, ip: IpAddr, now: Instant) -> bool {
        let mut accounts = lock(&self.accounts);
        let allowed = accounts.allows(&ip, now);
        if allowed {
            accounts.record(ip, now);
        }
        allowed
    }
}

/// Locks a limit. Each is changed by single method calls that cannot
/// leave it broken, so a panic elsewhere while holding it is no reason to
/// stop counting.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
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
    fn windows_count_per_key_and_forgive_after_the_window() {
        let t0 = Instant::now();
        let minute = Duration::from_secs(60);
        let mut w = SlidingWindow::new(2, minute);
        assert!(w.allows(&"a", t0));
        w.record("a", t0);
        w.record("a", t0 + Duration::from_secs(30));
        assert!(!w.allows(&"a", t0 + Duration::from_secs(59)));
        assert!(w.allows(&"b", t0), "another key has its own budget");
        assert!(w.allows(&"a", t0 + minute), "the first event expired");
        w.record("a", t0 + minute);
        assert!(!w.allows(&"a", t0 + minute + Duration::from_secs(29)));
    }

    #[test]
    fn a_window_of_zero_never_limits() {
        let t0 = Instant::now();
        let mut w = SlidingWindow::new(0, Duration::from_secs(60));
        for _ in 0..100 {
            w.record(1, t0);
        }
        assert!(w.allows(&1, t0));
    }

    #[test]
    fn quiet_keys_are_swept() {
        let t0 = Instant::now();
        let mut w = SlidingWindow::new(1, Duration::from_secs(1));
        for key in 0..1000u32 {
            w.record(key, t0);
        }
        let later = t0 + Duration::from_secs(2);
        for key in 1000..2000u32 {
            w.record(key, later);
        }
        assert!(!w.events.contains_key(&0), "an expired key was kept");
        assert!(w.events.len() <= 1000, "{} keys kept", w.events.len());
    }

    #[test]
    fn connection_slots_are_capped_per_address_and_given_back() {
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let cap = ConnectionsPerAddress::new(2);
        let first = cap.acquire(a).unwrap();
        let _second = cap.acquire(a).unwrap();
        assert!(cap.acquire(a).is_none());
        assert!(cap.acquire(b).is_some());
        drop(first);
        assert!(cap.acquire(a).is_some());
        let unlimited = ConnectionsPerAddress::new(0);
        let slots: Vec<_> = (0..500).filter_map(|_| unlimited.acquire(a)).collect();
        assert_eq!(slots.len(), 500);
    }
}
