//! Budgets that keep one client from taking more than its share: message
//! credits per connection (a token bucket, like Lichess), events per address
//! or player over a sliding window (room-code misses, new accounts), and
//! open connections per address. Time is an input, so they are tested
//! without clocks.
//!
//! An "address" is an IPv4 address, or an IPv6 network of
//! [`Config::ipv6_prefix`] bits ([`address_key`]): one home connection gets
//! a whole /64 and could otherwise take a fresh budget from each of its
//! 2^64 addresses.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use krypto_core::protocol::PlayerId;

use crate::config::Config;

/// The address budgets count `ip` against: IPv4 as it is, IPv6 cut to its
/// first `ipv6_prefix` bits (IPv4-mapped IPv6 is IPv4).
pub(crate) fn address_key(ip: IpAddr, ipv6_prefix: u8) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let bits = u32::from(ipv6_prefix.min(128));
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            IpAddr::V6((u128::from(v6) & mask).into())
        }
    }
}

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

    /// The credits at `now`.
    fn refilled(&self, now: Instant) -> u64 {
        let elapsed_ms = now.saturating_duration_since(self.last).as_millis();
        let elapsed_ms = u64::try_from(elapsed_ms).unwrap_or(u64::MAX);
        self.milli
            .saturating_add(elapsed_ms.saturating_mul(self.refill_per_sec))
            .min(self.cap_milli)
    }

    /// Whether the bucket is full again at `now` (nothing to remember).
    pub(crate) fn full_at(&self, now: Instant) -> bool {
        self.refilled(now) >= self.cap_milli
    }

    /// Spends one credit for a message arriving at `now`.
    pub(crate) fn spend(&mut self, now: Instant) -> Allowance {
        self.milli = self.refilled(now);
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

/// A token bucket per client address: HTTP API requests and QR codes, and
/// new WebSocket connections. Addresses whose bucket is full again are
/// forgotten when the map doubles.
#[derive(Debug)]
pub(crate) struct BucketsPerAddress {
    /// Each address's bucket.
    buckets: HashMap<IpAddr, MessageCredits>,
    /// Requests in a burst, and regained per second.
    burst: u32,
    per_sec: u32,
    /// Keys held after the last sweep.
    swept_len: usize,
}

impl BucketsPerAddress {
    /// `burst` requests at once, `per_sec` a second after that (burst 0: no
    /// limit).
    pub(crate) fn new(burst: u32, per_sec: u32) -> Self {
        BucketsPerAddress {
            buckets: HashMap::new(),
            burst,
            per_sec,
            swept_len: 0,
        }
    }

    /// Whether `ip` may make one more request at `now`; spends it if so.
    pub(crate) fn allow(&mut self, ip: IpAddr, now: Instant) -> bool {
        if self.burst == 0 {
            return true;
        }
        let (burst, per_sec) = (self.burst, self.per_sec);
        let allowed = self
            .buckets
            .entry(ip)
            .or_insert_with(|| MessageCredits::new(burst, per_sec, u32::MAX, now))
            .spend(now)
            == Allowance::Allowed;
        if self.buckets.len() > (2 * self.swept_len).max(1024) {
            self.buckets.retain(|_, b| !b.full_at(now));
            self.swept_len = self.buckets.len();
        }
        allowed
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
    /// How much of an IPv6 address is one client's.
    ipv6_prefix: u8,
}

impl ConnectionsPerAddress {
    /// At most `max` connections per address (0: no cap), IPv6 addresses
    /// counted by their first `ipv6_prefix` bits.
    pub(crate) fn new(max: usize, ipv6_prefix: u8) -> Arc<Self> {
        Arc::new(ConnectionsPerAddress {
            open: Mutex::new(HashMap::new()),
            max,
            ipv6_prefix,
        })
    }

    /// A slot for one more connection from `ip`, or `None` at the cap.
    pub(crate) fn acquire(self: &Arc<Self>, ip: IpAddr) -> Option<AddressSlot> {
        let ip = address_key(ip, self.ipv6_prefix);
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
    /// How much of an IPv6 address is one client's.
    ipv6_prefix: u8,
    /// HTTP API requests and QR codes per client address.
    http_requests: Mutex<BucketsPerAddress>,
    /// New WebSocket connections per client address.
    ws_opens: Mutex<BucketsPerAddress>,
}

impl SharedLimits {
    /// The limits `config` names.
    pub(crate) fn new(config: &Config) -> Self {
        let window = config.limit_window;
        SharedLimits {
            misses_by_ip: Mutex::new(SlidingWindow::new(config.max_code_misses, window)),
            misses_by_player: Mutex::new(SlidingWindow::new(config.max_code_misses, window)),
            accounts: Mutex::new(SlidingWindow::new(config.max_new_accounts, window)),
            connections: ConnectionsPerAddress::new(
                config.max_connections_per_ip,
                config.ipv6_prefix,
            ),
            ipv6_prefix: config.ipv6_prefix,
            http_requests: Mutex::new(BucketsPerAddress::new(
                config.http_burst,
                config.http_refill_per_sec,
            )),
            ws_opens: Mutex::new(BucketsPerAddress::new(
                config.ws_open_burst,
                config.ws_open_refill_per_sec,
            )),
        }
    }

    /// `ip` as the per-address budgets count it.
    pub(crate) fn address_key(&self, ip: IpAddr) -> IpAddr {
        address_key(ip, self.ipv6_prefix)
    }

    /// Whether `ip` may make one more API or QR request at `now`.
    pub(crate) fn http_request(&self, ip: IpAddr, now: Instant) -> bool {
        let ip = address_key(ip, self.ipv6_prefix);
        lock(&self.http_requests).allow(ip, now)
    }

    /// Whether `ip` may open one more WebSocket at `now`.
    pub(crate) fn ws_open(&self, ip: IpAddr, now: Instant) -> bool {
        let ip = address_key(ip, self.ipv6_prefix);
        lock(&self.ws_opens).allow(ip, now)
    }

    /// Whether `player` at `ip` may try a room code at `now`.
    pub(crate) fn may_guess(&self, ip: IpAddr, player: PlayerId, now: Instant) -> bool {
        let ip = address_key(ip, self.ipv6_prefix);
        lock(&self.misses_by_ip).allows(&ip, now)
            && lock(&self.misses_by_player).allows(&player, now)
    }

    /// Counts a room code that named no room.
    pub(crate) fn missed(&self, ip: IpAddr, player: PlayerId, now: Instant) {
        let ip = address_key(ip, self.ipv6_prefix);
        lock(&self.misses_by_ip).record(ip, now);
        lock(&self.misses_by_player).record(player, now);
    }

    /// Whether `ip` may try one more sign-in ticket (device code) at `now`:
    /// wrong ones count as room-code misses of the address.
    pub(crate) fn may_try_ticket(&self, ip: IpAddr, now: Instant) -> bool {
        let ip = address_key(ip, self.ipv6_prefix);
        lock(&self.misses_by_ip).allows(&ip, now)
    }

    /// Counts a ticket that signed nobody in.
    pub(crate) fn missed_ticket(&self, ip: IpAddr, now: Instant) {
        let ip = address_key(ip, self.ipv6_prefix);
        lock(&self.misses_by_ip).record(ip, now);
    }

    /// Whether `ip` may create one more account at `now`; counts it if so.
    pub(crate) fn new_account(&self, ip: IpAddr, now: Instant) -> bool {
        let ip = address_key(ip, self.ipv6_prefix);
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
    use Allowance::{Abusive, Allowed, Limited};

    /// What `credits` answers to `n` messages at `at`, in order.
    fn spend(credits: &mut MessageCredits, at: Instant, n: usize) -> Vec<Allowance> {
        (0..n).map(|_| credits.spend(at)).collect()
    }

    #[test]
    fn credits_allow_a_burst_then_refill_at_the_rate() {
        let t0 = Instant::now();
        let mut c = MessageCredits::new(3, 10, 2, t0);
        assert_eq!(spend(&mut c, t0, 4), [Allowed, Allowed, Allowed, Limited]);
        // 10 per second: one credit per 100 ms.
        assert_eq!(c.spend(t0 + Duration::from_millis(99)), Limited);
        assert_eq!(c.spend(t0 + Duration::from_millis(200)), Allowed);
    }

    #[test]
    fn credits_call_sustained_refusals_abuse() {
        let t0 = Instant::now();
        let mut c = MessageCredits::new(1, 0, 2, t0);
        assert_eq!(spend(&mut c, t0, 4), [Allowed, Limited, Limited, Abusive]);
    }

    #[test]
    fn credits_never_exceed_the_burst() {
        let t0 = Instant::now();
        let mut c = MessageCredits::new(2, 10, 5, t0);
        let later = t0 + Duration::from_secs(3600);
        assert_eq!(spend(&mut c, later, 3), [Allowed, Allowed, Limited]);
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
        let cap = ConnectionsPerAddress::new(2, 64);
        let first = cap.acquire(a).unwrap();
        let _second = cap.acquire(a).unwrap();
        assert!(cap.acquire(a).is_none());
        assert!(cap.acquire(b).is_some());
        drop(first);
        assert!(cap.acquire(a).is_some());
        let unlimited = ConnectionsPerAddress::new(0, 64);
        let slots: Vec<_> = (0..500).filter_map(|_| unlimited.acquire(a)).collect();
        assert_eq!(slots.len(), 500);
    }

    #[test]
    fn each_address_has_its_own_bucket_and_full_ones_are_forgotten() {
        let t0 = Instant::now();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let mut buckets = BucketsPerAddress::new(2, 1);
        assert!(buckets.allow(a, t0) && buckets.allow(a, t0));
        assert!(!buckets.allow(a, t0));
        assert!(buckets.allow(b, t0));
        assert!(buckets.allow(a, t0 + Duration::from_secs(1)));
        for i in 0..1100u32 {
            buckets.allow(IpAddr::from(i.to_be_bytes()), t0);
        }
        // Ten seconds on, the first ones are full again and forgotten.
        for i in 1100..2100u32 {
            buckets.allow(IpAddr::from(i.to_be_bytes()), t0 + Duration::from_secs(10));
        }
        assert!(
            buckets.buckets.len() <= 1000,
            "{} kept",
            buckets.buckets.len()
        );
        let mut unlimited = BucketsPerAddress::new(0, 0);
        assert!((0..100).all(|_| unlimited.allow(a, t0)));
    }

    #[test]
    fn an_ipv6_network_is_one_address() {
        let key = |ip: &str, prefix| address_key(ip.parse().unwrap(), prefix);
        let home = key("2001:db8:1:2::1", 64);
        assert_eq!(home, key("2001:db8:1:2:ffff:ffff:ffff:ffff", 64));
        assert_eq!(home, "2001:db8:1:2::".parse::<IpAddr>().unwrap());
        assert_ne!(home, key("2001:db8:1:3::1", 64));
        assert_eq!(
            key("2001:db8::1", 128),
            "2001:db8::1".parse::<IpAddr>().unwrap()
        );
        assert_eq!(key("2001:db8::1", 0), "::".parse::<IpAddr>().unwrap());
        assert_eq!(
            key("::ffff:10.0.0.1", 64),
            "10.0.0.1".parse::<IpAddr>().unwrap()
        );
        assert_eq!(key("10.0.0.1", 64), "10.0.0.1".parse::<IpAddr>().unwrap());
        let cap = ConnectionsPerAddress::new(2, 64);
        let _a = cap.acquire("2001:db8:1:2::1".parse().unwrap()).unwrap();
        let _b = cap.acquire("2001:db8:1:2::2".parse().unwrap()).unwrap();
        assert!(cap.acquire("2001:db8:1:2::3".parse().unwrap()).is_none());
        assert!(cap.acquire("2001:db8:1:3::3".parse().unwrap()).is_some());
    }
}
