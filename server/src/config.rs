//! Server configuration: every limit and timing the server enforces, in one
//! place so tests can shrink durations and caps without touching the code.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ipnet::IpNet;
use krypto_core::room::{Dealer, RandomDealer};

use crate::rooms::clock::ManualClock;

/// Makes the dealer of each new room. Production deals from the operating
/// system's randomness; tests script the hands so they know the answers.
#[derive(Clone)]
pub struct DealerFactory(pub Arc<dyn Fn() -> Box<dyn Dealer> + Send + Sync>);

impl DealerFactory {
    /// A new dealer for a new room.
    pub fn make(&self) -> Box<dyn Dealer> {
        (self.0)()
    }
}

impl Default for DealerFactory {
    fn default() -> Self {
        DealerFactory(Arc::new(|| Box::new(RandomDealer::secure())))
    }
}

impl fmt::Debug for DealerFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DealerFactory")
    }
}

/// Everything `krypto_server::run` needs besides the listener and the shutdown signal.
#[derive(Debug, Clone)]
pub struct Config {
    /// The database: `sqlite://path` (the file is created if missing and
    /// opened in WAL mode) or `postgres://user:password@host/database`.
    pub database_url: String,
    /// Open connections (HTTP and WebSocket) beyond which the server stops
    /// accepting: a semaphore permit is taken before `accept`.
    pub max_connections: usize,
    /// Largest WebSocket frame and message, in bytes; bigger closes with 1009.
    pub max_frame_bytes: usize,
    /// Time a new TCP connection has to send its request headers (so a
    /// client trickling header lines cannot hold a connection), and a new
    /// WebSocket has to send `hello` (then it is closed with 1008).
    pub handshake_timeout: Duration,
    /// Interval between WebSocket pings; a peer that has not answered the
    /// previous ping when the next is due is considered dead.
    pub ping_interval: Duration,
    /// Messages that may wait for a client's socket; a client that lets the
    /// queue fill up is too slow to read and is disconnected.
    pub outgoing_queue: usize,
    /// Bytes of messages that may wait for a client's socket, whatever
    /// their number: past it the client is disconnected as too slow.
    pub outgoing_queue_bytes: usize,
    /// Message credits: how many messages a client may send in a burst.
    pub message_burst: u32,
    /// Message credits regained per second.
    pub message_refill_per_sec: u32,
    /// Messages refused for lack of credits, in a row, before the connection
    /// is closed with 1008 (abuse rather than an over-eager client).
    pub max_rate_strikes: u32,
    /// Frame credits: every frame a client sends — pings, pongs and
    /// continuation frames too, which are never messages — costs one; a
    /// client out of them is closed with 1008. Well above what the message
    /// budget lets through (a message is one frame; a pong every ping).
    pub frame_burst: u32,
    /// Frame credits regained per second.
    pub frame_refill_per_sec: u32,
    /// Largest frame accepted before `hello` (a `hello` is a name and a
    /// token): a socket nobody knows yet holds only a few KiB.
    pub max_frame_before_hello: usize,
    /// Bytes the WebSocket library may hold for a client that does not read
    /// (the kernel's socket buffer comes first); past it the connection ends.
    pub max_write_buffer: usize,
    /// HTTP API requests (`/api/...`) and QR codes one client address may
    /// make in a burst (0: no limit); pages and assets are not counted.
    pub http_burst: u32,
    /// Of those, regained per second.
    pub http_refill_per_sec: u32,
    /// New WebSocket connections one client address may open in a burst
    /// (0: no limit): a house of phones reconnecting at once fits.
    pub ws_open_burst: u32,
    /// Of those, regained per second.
    pub ws_open_refill_per_sec: u32,
    /// Failed room-code guesses allowed per client address, and per player,
    /// per [`Config::limit_window`] (0: no limit). Counted across
    /// connections, so a new socket does not reset it.
    pub max_code_misses: u32,
    /// Accounts one client address may create per [`Config::limit_window`]
    /// (0: no limit).
    pub max_new_accounts: u32,
    /// The window over which code misses and new accounts are counted.
    pub limit_window: Duration,
    /// Guesses refused as rate-limited, in a row, before the connection is
    /// closed with 1008.
    pub max_guess_strikes: u32,
    /// Open connections per client address (0: no cap), so one address
    /// cannot hold every connection the server allows.
    pub max_connections_per_ip: usize,
    /// Origins besides this server's own whose pages may open `/ws`
    /// (`https://krypto.example.com` behind a proxy). They are also the
    /// server's public addresses: first in `welcome.join_urls`, so invite
    /// links and QR codes use them. Clients without an `Origin` (terminal,
    /// bots) are never asked for one.
    pub allowed_origins: Vec<String>,
    /// Bits of an IPv6 address that make one client for every per-address
    /// limit (64: a home connection's network).
    pub ipv6_prefix: u8,
    /// Reverse proxies whose `X-Forwarded-For` is believed; from anyone
    /// else the header is ignored (it is trivially forged).
    pub trusted_proxies: Vec<IpNet>,
    /// Spectators one room takes.
    pub max_spectators: usize,
    /// How long an empty room (nobody connected) lives before it closes.
    pub empty_room_grace: Duration,
    /// Most rooms open at once; `create_room` beyond it gets `server_full`.
    pub max_rooms: usize,
    /// How much faster than the wall clock room clocks run (rounds,
    /// countdowns, lockouts, seat grace). 1 in production; tests raise it so
    /// a 10-second round passes in milliseconds without sleeping.
    pub room_time_scale: u32,
    /// Tests: rooms run on this clock instead, which moves only when the
    /// test advances it (`room_time_scale` is then ignored).
    pub manual_clock: Option<ManualClock>,
    /// The wall clock of the daily, challenges and runs (which UTC day it
    /// is); tests set a manual one to cross a midnight.
    pub wall_clock: crate::modes::WallClock,
    /// Deals the hands of new rooms.
    pub dealer: DealerFactory,
    /// How long a connection the server is closing waits for the peer's
    /// close frame before dropping the socket.
    pub close_drain: Duration,
    /// Longest wait for connections to say goodbye and rooms to finish their
    /// writes during a graceful shutdown.
    pub shutdown_timeout: Duration,
    /// Rated matches a player needs before appearing on the rating
    /// leaderboard: a new player's rating is too uncertain to rank.
    pub min_rated_matches: u32,
    /// Different opponents, met in rated matches, a player needs before
    /// appearing on the rating leaderboard: a farmer feeding on a few
    /// puppets of their own stays off it.
    pub min_rated_opponents: u32,
    /// Makes this server a node of a cluster sharing one PostgreSQL
    /// database: where clients reach this node (`ws://host-b:7878/ws`),
    /// the only address redirects to it carry. `None`: a single server.
    pub public_url: Option<String>,
    /// A node whose heartbeat is older than this is dead: its rooms leave
    /// the directory. Heartbeats are five times as frequent.
    pub node_timeout: Duration,
    /// A second address serving only `GET /metrics` (kept off the public
    /// port); `/metrics` is on the main port either way.
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// How long a starting server waits for an unreachable database
    /// (retrying with backoff) before giving up.
    pub database_wait: Duration,
    /// Where the recorder journals writes while the database is
    /// unavailable; `None`: beside the SQLite file, or `krypto.recorder-journal` in
    /// the working directory for PostgreSQL (see [`Config::journal_path`]).
    pub journal: Option<PathBuf>,
    /// Beyond this many bytes the journal is full: new matches are refused
    /// (matches already playing go on) until the database takes it.
    pub journal_max_bytes: u64,
    /// A journal whose oldest write is older than this is full, likewise.
    pub journal_max_age: Duration,
    /// Requests that may wait for the recorder's next commit.
    pub recorder_queue: usize,
    /// What the log's output took and lost (the binary's stdout writer;
    /// by default nothing is counted).
    pub log: crate::ops::logging::LogStats,
}

impl Config {
    /// The recorder's journal: [`Config::journal`], or by default the
    /// SQLite file's path with `.recorder-journal` added, or
    /// `krypto.recorder-journal` in the working directory for PostgreSQL (each node
    /// of a cluster needs its own).
    pub fn journal_path(&self) -> PathBuf {
        if let Some(path) = &self.journal {
            return path.clone();
        }
        let url = &self.database_url;
        let file = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
            .map(|rest| rest.split('?').next().unwrap_or(rest))
            .filter(|file| !file.is_empty() && !file.starts_with(":memory:"));
        match file {
            Some(file) => PathBuf::from(format!("{file}.recorder-journal")),
            None => PathBuf::from("krypto.recorder-journal"),
        }
    }

    /// The journal's place and bounds, as the recorder takes them.
    pub fn journal_options(&self) -> crate::scores::recorder::JournalOptions {
        crate::scores::recorder::JournalOptions {
            path: self.journal_path(),
            max_bytes: self.journal_max_bytes,
            max_age: self.journal_max_age,
            queue: self.recorder_queue,
        }
    }

    /// Who may be ranked on the rating board.
    pub fn ranking(&self) -> crate::scores::leaderboard::Ranking {
        crate::scores::leaderboard::Ranking {
            min_matches: self.min_rated_matches,
            min_opponents: self.min_rated_opponents,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            database_url: "sqlite://krypto.db".to_owned(),
            max_connections: 16_000,
            max_frame_bytes: 16 * 1024,
            handshake_timeout: Duration::from_secs(10),
            ping_interval: Duration::from_secs(20),
            outgoing_queue: 256,
            outgoing_queue_bytes: 256 * 1024,
            message_burst: 20,
            message_refill_per_sec: 10,
            max_rate_strikes: 20,
            frame_burst: 64,
            frame_refill_per_sec: 32,
            max_frame_before_hello: 2 * 1024,
            max_write_buffer: 64 * 1024,
            http_burst: 120,
            http_refill_per_sec: 20,
            ws_open_burst: 60,
            ws_open_refill_per_sec: 5,
            max_code_misses: 10,
            max_new_accounts: 20,
            limit_window: Duration::from_secs(60),
            max_guess_strikes: 5,
            max_connections_per_ip: 100,
            ipv6_prefix: 64,
            allowed_origins: Vec::new(),
            trusted_proxies: Vec::new(),
            max_spectators: 100,
            empty_room_grace: Duration::from_secs(60),
            max_rooms: 10_000,
            room_time_scale: 1,
            manual_clock: None,
            wall_clock: crate::modes::WallClock::system(),
            dealer: DealerFactory::default(),
            close_drain: Duration::from_secs(2),
            shutdown_timeout: Duration::from_secs(5),
            min_rated_matches: 3,
            min_rated_opponents: crate::scores::ratings::MIN_OPPONENTS,
            public_url: None,
            node_timeout: Duration::from_secs(15),
            metrics_listen: None,
            database_wait: Duration::from_secs(60),
            journal: None,
            journal_max_bytes: crate::scores::recorder::JOURNAL_MAX_BYTES,
            journal_max_age: crate::scores::recorder::JOURNAL_MAX_AGE,
            recorder_queue: crate::scores::recorder::QUEUE,
            log: crate::ops::logging::LogStats::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_journal_goes_beside_the_sqlite_file_unless_told() {
        let path = |url: &str| {
            Config {
                database_url: url.to_owned(),
                ..Config::default()
            }
            .journal_path()
        };
        assert_eq!(
            path("sqlite://data/k.db"),
            PathBuf::from("data/k.db.recorder-journal")
        );
        assert_eq!(
            path("sqlite:k.db?mode=rwc"),
            PathBuf::from("k.db.recorder-journal")
        );
        assert_eq!(
            path("postgres://u@h/k"),
            PathBuf::from("krypto.recorder-journal")
        );
        let told = Config {
            journal: Some("/var/lib/krypto/j".into()),
            ..Config::default()
        };
        assert_eq!(told.journal_path(), PathBuf::from("/var/lib/krypto/j"));
    }
}
