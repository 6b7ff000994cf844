//! Server configuration: every limit and timing the server enforces, in one
//! place so tests can shrink durations and caps without touching the code.

use std::path::PathBuf;
use std::time::Duration;

use ipnet::IpNet;

mod fair_play_flags;
mod retention_flags;

pub use fair_play_flags::FairPlayFlags;
pub use retention_flags::RetentionFlags;

use crate::rooms::clock::ManualClock;
pub use crate::rooms::services::DealerFactory;
use crate::rooms::services::RoomTaskSettings;

/// Everything `krypto_server::run` needs besides the listener and the
/// shutdown signal. Each setting is written once, here: the fields that are
/// flags carry their flag (its help, environment variable and default), the
/// others (`#[arg(skip = …)]`) their value; [`Config::default`] is what the
/// flags give with nothing set.
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    // `sqlite://…` is opened in WAL mode.
    /// Database URL: sqlite://path (the file is created if missing) or
    /// postgres://user:password@host/database.
    #[arg(
        long = "database",
        value_name = "DATABASE",
        env = "KRYPTO_DATABASE_URL",
        default_value = "sqlite://krypto.db",
        // `krypto-server review list --database …` as well as before it.
        global = true
    )]
    pub database_url: String,
    // Never on the main port: players online, rooms and message counts are
    // the operator's business. Unset, a taken default is a warning, not a
    // failure (two servers on one machine); a given address must bind.
    /// Serve GET /metrics (Prometheus) on this address, never on the main
    /// port [default: 127.0.0.1:7879, this machine only; if that port is
    /// taken the server runs without metrics and says so]. A scraper in
    /// another container: 0.0.0.0:7879, with the port left unpublished.
    #[arg(long, env = "KRYPTO_METRICS_LISTEN")]
    pub metrics_listen: Option<std::net::SocketAddr>,
    /// Where `/metrics` ended up (tests bind port 0 and read it here).
    #[arg(skip)]
    pub metrics_address: crate::ops::metrics::MetricsAddress,
    /// Log format.
    #[arg(long, env = "KRYPTO_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Log lines held while stdout does not take them (a full pipe, a
    /// stalled log collector); lines beyond are dropped and counted
    /// (krypto_log_lines_dropped_total), and the server never waits.
    #[arg(long, env = "KRYPTO_LOG_QUEUE_LINES", default_value_t = crate::ops::logging::QUEUE_LINES)]
    pub log_queue_lines: usize,
    // A semaphore permit is taken before `accept`.
    /// Most open connections; further ones wait in the backlog.
    #[arg(long, env = "KRYPTO_MAX_CONNECTIONS", default_value_t = 16_000)]
    pub max_connections: usize,
    /// Largest WebSocket frame or message in bytes (bigger: close 1009).
    #[arg(long, env = "KRYPTO_MAX_FRAME_BYTES", default_value_t = 16 * 1024)]
    pub max_frame_bytes: usize,
    /// Seconds a new connection has to send its HTTP headers (slow ones are
    /// closed: slowloris) and a new WebSocket has to say hello (then 1008).
    #[arg(
        long = "handshake-timeout-secs",
        value_name = "HANDSHAKE_TIMEOUT_SECS",
        env = "KRYPTO_HANDSHAKE_TIMEOUT_SECS",
        default_value = "10",
        value_parser = at_least_a_second
    )]
    pub handshake_timeout: Duration,
    /// Permits kept back from WebSockets for /healthz, /readyz, pages and
    /// new players (at most a tenth of --max-connections): a WebSocket
    /// that would take one closes the longest-idle lobby socket first, or
    /// gets 503 when there is none.
    #[arg(long, env = "KRYPTO_RESERVED_CONNECTIONS", default_value_t = 500)]
    pub reserved_connections: usize,
    /// Seconds a signed-in WebSocket in no room (not seated, not watching,
    /// no solo run) may send nothing before it is closed (4000).
    #[arg(
        long = "idle-lobby-secs",
        value_name = "IDLE_LOBBY_SECS",
        env = "KRYPTO_IDLE_LOBBY_SECS",
        default_value = "600",
        value_parser = at_least_a_second
    )]
    pub idle_lobby: Duration,
    /// Most open connections from one client address (0: no cap).
    #[arg(long, env = "KRYPTO_MAX_CONNECTIONS_PER_IP", default_value_t = 100)]
    pub max_connections_per_ip: usize,
    // Clients without an `Origin` (terminal, bots) are never asked for one.
    /// Origins (comma-separated, e.g. https://krypto.example.com) whose
    /// pages may open /ws besides this server's own; the first is the
    /// address invite links and QR codes show.
    #[arg(long, env = "KRYPTO_ALLOWED_ORIGINS", value_delimiter = ',', value_parser = parse_origin)]
    pub allowed_origins: Vec<String>,
    // DNS rebinding: a page of any site can give its own name this
    // server's address (docs/design.md, "Hostile clients").
    /// Host names (comma-separated, e.g. krypto.example.com,party.local)
    /// this server answers /ws and /api for, besides any IP address,
    /// localhost and the hosts of --allowed-origins and --public-url; any
    /// other Host gets 421.
    #[arg(long, env = "KRYPTO_ALLOWED_HOSTS", value_delimiter = ',', value_parser = parse_host)]
    pub allowed_hosts: Vec<String>,
    // Pages and assets are not counted.
    /// Scores API requests and QR codes one client address may make at once
    /// (0: no limit)…
    #[arg(long, env = "KRYPTO_HTTP_BURST", default_value_t = 120)]
    pub http_burst: u32,
    /// …and per second after that.
    #[arg(
        long = "http-per-sec",
        value_name = "HTTP_PER_SEC",
        env = "KRYPTO_HTTP_PER_SEC",
        default_value_t = 20
    )]
    pub http_refill_per_sec: u32,
    /// WebSocket connections one client address may open at once (0: no
    /// limit; load tests from one address need that)…
    #[arg(long, env = "KRYPTO_WS_OPEN_BURST", default_value_t = 60)]
    pub ws_open_burst: u32,
    /// …and per second after that.
    #[arg(
        long = "ws-open-per-sec",
        value_name = "WS_OPEN_PER_SEC",
        env = "KRYPTO_WS_OPEN_PER_SEC",
        default_value_t = 5
    )]
    pub ws_open_refill_per_sec: u32,
    /// Bits of an IPv6 address that are one client for every per-address
    /// limit (64: one home connection's network).
    #[arg(long, env = "KRYPTO_IPV6_PREFIX", default_value_t = 64, value_parser = clap::value_parser!(u8).range(0..=128))]
    pub ipv6_prefix: u8,
    // The header is trivially forged: from anyone else it is ignored.
    /// Reverse proxies (CIDR list, comma-separated, e.g. 127.0.0.1/32,::1/128)
    /// whose X-Forwarded-For names the client; anyone else's is ignored.
    #[arg(long, env = "KRYPTO_TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_network)]
    pub trusted_proxies: Vec<IpNet>,
    // Counted per [`Config::limit_window`] across connections, so a new
    // socket does not reset them.
    /// Wrong room codes allowed per client address, and per player, per minute (0: no limit).
    #[arg(long, env = "KRYPTO_MAX_CODE_MISSES", default_value_t = 10)]
    pub max_code_misses: u32,
    /// Devices (tokens) one player may have; signing in one more revokes
    /// the least recently used of the others (0: no cap).
    #[arg(long, env = "KRYPTO_MAX_DEVICES", default_value_t = 10)]
    pub max_devices: usize,
    /// Days a device may go unused before its token stops working (checked
    /// at hello, pruned at start; 0: never).
    #[arg(long, env = "KRYPTO_DEVICE_EXPIRY_DAYS", default_value_t = 90)]
    pub device_expiry_days: u32,
    /// New players one client address may create per minute (0: no limit).
    #[arg(long, env = "KRYPTO_MAX_NEW_ACCOUNTS", default_value_t = 20)]
    pub max_new_accounts: u32,
    /// Spectators one room takes.
    #[arg(long, env = "KRYPTO_MAX_SPECTATORS", default_value_t = 100)]
    pub max_spectators: usize,
    /// Seconds between pings; no pong by the next ping closes the connection.
    #[arg(
        long = "ping-interval-secs",
        value_name = "PING_INTERVAL_SECS",
        env = "KRYPTO_PING_INTERVAL_SECS",
        default_value = "20",
        value_parser = at_least_a_second
    )]
    pub ping_interval: Duration,
    /// Messages queued per client before a slow reader is disconnected.
    #[arg(long, env = "KRYPTO_OUTGOING_QUEUE", default_value = "256", value_parser = at_least_one::<usize>)]
    pub outgoing_queue: usize,
    // `create_room` beyond it gets `server_full`.
    /// Most rooms open at once.
    #[arg(long, env = "KRYPTO_MAX_ROOMS", default_value_t = 10_000)]
    pub max_rooms: usize,
    // Counted across the nodes of a cluster (the directory); a player is in
    // at most one room, so one account holds at most one.
    /// Most open rooms the players of one client address (IPv6: one
    /// --ipv6-prefix network) may hold at once, never more than a tenth of
    /// --max-rooms (0: no cap); beyond it `create_room` gets
    /// `too_many_rooms`.
    #[arg(long, env = "KRYPTO_MAX_ROOMS_PER_ADDRESS", default_value_t = 20)]
    pub max_rooms_per_address: usize,
    // A new player's rating is too uncertain to rank.
    /// Rated matches a player needs to appear on the rating leaderboard.
    #[arg(long, env = "KRYPTO_MIN_RATED_MATCHES", default_value_t = 3)]
    pub min_rated_matches: u32,
    // A farmer feeding on a few puppets of their own stays off it.
    /// Different opponents (met in rated matches) a player needs to appear
    /// on the rating leaderboard.
    #[arg(long, env = "KRYPTO_MIN_RATED_OPPONENTS", default_value_t = crate::scores::ratings::MIN_OPPONENTS)]
    pub min_rated_opponents: u32,
    // Redirects to this node carry only this address.
    /// Makes this server one node of many sharing one PostgreSQL database:
    /// the ws:// or wss:// URL where clients reach this node (e.g.
    /// ws://host-b:7878/ws), sent to players whose room lives here. Needs
    /// --database postgres://…; without it the server is a single node.
    #[arg(long, env = "KRYPTO_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Seconds without a heartbeat after which a node is dead and its rooms
    /// leave the directory (heartbeats go every fifth of it).
    #[arg(
        long = "node-timeout-secs",
        value_name = "NODE_TIMEOUT_SECS",
        visible_alias = "node-timeout",
        env = "KRYPTO_NODE_TIMEOUT_SECS",
        default_value = "15",
        value_parser = node_timeout
    )]
    pub node_timeout: Duration,
    /// Seconds a starting server waits for an unreachable database
    /// (retrying with backoff, logging "waiting for the database at …")
    /// before giving up.
    #[arg(
        long = "database-wait-secs",
        value_name = "DATABASE_WAIT_SECS",
        env = "KRYPTO_DATABASE_WAIT_SECS",
        default_value = "60",
        value_parser = seconds
    )]
    pub database_wait: Duration,
    /// Milliseconds a call to the database may take before it is taken
    /// for an outage (a network that silently drops packets never fails on
    /// its own): the recorder's commits and connections, whose results go
    /// to the journal past it, and the cluster's heartbeat and directory.
    #[arg(
        long = "database-deadline-ms",
        value_name = "DATABASE_DEADLINE_MS",
        env = "KRYPTO_DATABASE_DEADLINE_MS",
        default_value = "2000",
        value_parser = deadline_ms
    )]
    pub database_deadline: Duration,
    // See [`Config::journal_path`].
    /// The file where results are journaled while the database is
    /// unavailable (replayed into it when it returns and at every start).
    /// Default: beside the SQLite file (krypto.db.recorder-journal), or
    /// krypto.recorder-journal in the working directory for PostgreSQL;
    /// each node of a cluster needs its own.
    #[arg(long, env = "KRYPTO_JOURNAL")]
    pub journal: Option<PathBuf>,
    /// Size in MiB at which the journal is full: new matches are refused
    /// (matches already playing go on) until the database takes it.
    #[arg(
        long = "journal-max-mb",
        value_name = "JOURNAL_MAX_MB",
        env = "KRYPTO_JOURNAL_MAX_MB",
        default_value = "256",
        value_parser = mebibytes
    )]
    pub journal_max_bytes: u64,
    /// Age in hours of the oldest journaled write at which the journal is
    /// full, likewise.
    #[arg(
        long = "journal-max-age-hours",
        value_name = "JOURNAL_MAX_AGE_HOURS",
        env = "KRYPTO_JOURNAL_MAX_AGE_HOURS",
        default_value = "24",
        value_parser = hours
    )]
    pub journal_max_age: Duration,
    /// Requests that may wait for the recorder's next commit. A result
    /// waits for room in this queue; writes that announce nothing (dealt
    /// hands, attempts) wait in their room instead, so verdicts never do.
    #[arg(long, env = "KRYPTO_RECORDER_QUEUE", default_value_t = crate::scores::recorder::QUEUE)]
    pub recorder_queue: usize,
    // Tests set a [`Config::manual_clock`] instead.
    /// Runs room clocks this many times faster than the wall clock, so
    /// tests of the real binary can play whole matches in moments.
    #[arg(
        long,
        env = "KRYPTO_ROOM_TIME_SCALE",
        default_value = "1",
        value_parser = at_least_one::<u32>,
        hide = true
    )]
    pub room_time_scale: u32,
    /// Bytes of messages that may wait for a client's socket, whatever
    /// their number: past it the client is disconnected as too slow.
    #[arg(skip = 256 * 1024_usize)]
    pub outgoing_queue_bytes: usize,
    /// Message credits: how many messages a client may send in a burst.
    #[arg(skip = 20_u32)]
    pub message_burst: u32,
    /// Message credits regained per second.
    #[arg(skip = 10_u32)]
    pub message_refill_per_sec: u32,
    /// Messages refused for lack of credits, in a row, before the connection
    /// is closed with 1008 (abuse rather than an over-eager client).
    #[arg(skip = 20_u32)]
    pub max_rate_strikes: u32,
    /// Frame credits: every frame a client sends — pings, pongs and
    /// continuation frames too, which are never messages — costs one; a
    /// client out of them is closed with 1008. Well above what the message
    /// budget lets through (a message is one frame; a pong every ping).
    #[arg(skip = 64_u32)]
    pub frame_burst: u32,
    /// Frame credits regained per second.
    #[arg(skip = 32_u32)]
    pub frame_refill_per_sec: u32,
    /// Largest frame accepted before `hello` (a `hello` is a name and a
    /// token): a socket nobody knows yet holds only a few KiB.
    #[arg(skip = 2 * 1024_usize)]
    pub max_frame_before_hello: usize,
    /// Bytes the WebSocket library may hold for a client that does not read
    /// (the kernel's socket buffer comes first); past it the connection ends.
    #[arg(skip = 64 * 1024_usize)]
    pub max_write_buffer: usize,
    /// The window over which code misses and new accounts are counted.
    #[arg(skip = Duration::from_secs(60))]
    pub limit_window: Duration,
    /// Guesses refused as rate-limited, in a row, before the connection is
    /// closed with 1008.
    #[arg(skip = 5_u32)]
    pub max_guess_strikes: u32,
    /// How long an empty room (nobody connected) lives before it closes.
    #[arg(skip = Duration::from_secs(60))]
    pub empty_room_grace: Duration,
    /// Tests: rooms run on this clock instead, which moves only when the
    /// test advances it (`room_time_scale` is then ignored).
    #[arg(skip)]
    pub manual_clock: Option<ManualClock>,
    /// The wall clock of the daily, challenges and runs (which UTC day it
    /// is); tests set a manual one to cross a midnight.
    #[arg(skip = crate::rooms::wall_clock::WallClock::system())]
    pub wall_clock: crate::rooms::wall_clock::WallClock,
    /// The fair-play signals' thresholds (docs/design.md, "Fair play").
    #[command(flatten)]
    pub fair_play: FairPlayFlags,
    /// The retention of attempts.
    #[command(flatten)]
    pub retention: RetentionFlags,
    /// Deals the hands of new rooms.
    #[arg(skip)]
    pub dealer: DealerFactory,
    /// How long a connection the server is closing waits for the peer's
    /// close frame before dropping the socket.
    #[arg(skip = Duration::from_secs(2))]
    pub close_drain: Duration,
    /// Longest wait for connections to say goodbye and rooms to finish their
    /// writes during a graceful shutdown.
    #[arg(skip = Duration::from_secs(5))]
    pub shutdown_timeout: Duration,
    /// What the log's output took and lost (the binary's stdout writer;
    /// by default nothing is counted).
    #[arg(skip)]
    pub log: crate::ops::logging::LogStats,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// A whole number (of `unit`, for the error).
fn whole<T: std::str::FromStr>(text: &str, unit: &str) -> Result<T, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a whole number{unit}"))
}

/// A count of seconds.
fn seconds(text: &str) -> Result<Duration, String> {
    whole(text, " of seconds").map(Duration::from_secs)
}

/// A count of seconds, 0 read as 1 (a timer of no time would fire at once).
fn at_least_a_second(text: &str) -> Result<Duration, String> {
    seconds(text).map(|d| d.max(Duration::from_secs(1)))
}

/// A database deadline in milliseconds, from 50 ms to 10 minutes.
fn deadline_ms(text: &str) -> Result<Duration, String> {
    let ms: u64 = whole(text, " of milliseconds")?;
    if !(50..=600_000).contains(&ms) {
        return Err(format!(
            "--database-deadline-ms must be between 50 and 600000, not {ms}"
        ));
    }
    Ok(Duration::from_millis(ms))
}

/// A count of hours.
fn hours(text: &str) -> Result<Duration, String> {
    whole(text, " of hours").map(|hours: u64| Duration::from_secs(hours.saturating_mul(3600)))
}

/// A size in MiB, as bytes.
fn mebibytes(text: &str) -> Result<u64, String> {
    whole(text, " of MiB").map(|mib: u64| mib.saturating_mul(1024 * 1024))
}

/// A count, 0 read as 1.
fn at_least_one<T: std::str::FromStr + Ord + From<u8>>(text: &str) -> Result<T, String> {
    whole(text, "").map(|n: T| n.max(T::from(1)))
}

/// A network in CIDR notation, or one address (a network of one).
fn parse_network(text: &str) -> Result<IpNet, String> {
    let text = text.trim();
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{text:?} is not an address or a CIDR network (like 10.0.0.0/8)"))
}

/// `text` as a web origin (`https://krypto.example.com`,
/// `http://192.168.1.20:7878`): http or https, a host, no path, query or
/// user; as browsers write it in `Origin` (lower case, default port left out).
pub fn parse_origin(text: &str) -> Result<String, String> {
    let bad =
        |why: &str| format!("{text:?} is not an origin like https://krypto.example.com: {why}");
    let url = server_url(text, ["http", "https"], "use http:// or https://").map_err(bad)?;
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(bad("it must have no path, query or fragment"));
    }
    Ok(url.origin().ascii_serialization())
}

/// `text` as a URL of one of `schemes` that names a host and carries no
/// user or password (a server's address, given on its command line);
/// otherwise why not (`wrong_scheme` when it is the scheme).
pub(crate) fn server_url(
    text: &str,
    schemes: [&str; 2],
    wrong_scheme: &'static str,
) -> Result<url::Url, &'static str> {
    let url = url::Url::parse(text.trim()).map_err(|_| "not a URL")?;
    if !schemes.contains(&url.scheme()) {
        return Err(wrong_scheme);
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("it names no host");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("it must not carry a user or password");
    }
    Ok(url)
}

/// The host of a `Host` header's value (or of a name given on the command
/// line): no port, no brackets around an IPv6 address, lower case, no
/// final dot; `None` when it is not a host at all.
pub(crate) fn host_name(value: &str) -> Option<String> {
    let value = value.trim();
    let host = if let Some(rest) = value.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        if !(after.is_empty() || is_port(after.strip_prefix(':')?)) {
            return None;
        }
        inside
    } else {
        match value.rsplit_once(':') {
            Some((host, port)) if is_port(port) => host,
            Some(_) => return None,
            None => value,
        }
    };
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    let valid = !host.is_empty()
        && host.len() <= 253
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '_'));
    valid.then_some(host)
}

/// Whether `text` is a port number.
fn is_port(text: &str) -> bool {
    !text.is_empty() && text.len() <= 5 && text.bytes().all(|b| b.is_ascii_digit())
}

/// `--allowed-hosts`' parser: a host name, with or without a port; an
/// empty one names nothing (`KRYPTO_ALLOWED_HOSTS=` in a compose file).
pub fn parse_host(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Ok(String::new());
    }
    host_name(text)
        .filter(|host| !host.contains(':'))
        .ok_or_else(|| format!("{text:?} is not a host name like krypto.example.com"))
}

/// The node timeout: at least half a second (heartbeats go every fifth),
/// at most a day.
fn node_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(0.5..=86_400.0).contains(&secs) {
        return Err(format!(
            "--node-timeout-secs must be between 0.5 and 86400, not {secs}"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
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
            deadline: self.database_deadline,
        }
    }

    /// What room tasks read of the settings.
    pub(crate) fn room_task_settings(&self) -> RoomTaskSettings {
        RoomTaskSettings {
            manual_clock: self.manual_clock.clone(),
            time_scale: self.room_time_scale,
            dealer: self.dealer.clone(),
            empty_room_grace: self.empty_room_grace,
            ranking: self.ranking(),
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

impl Config {
    /// How long a device may go unused, `None` for ever.
    pub fn device_expiry(&self) -> Option<std::time::Duration> {
        (self.device_expiry_days > 0)
            .then(|| std::time::Duration::from_secs(u64::from(self.device_expiry_days) * 86_400))
    }
}

impl Default for Config {
    /// The flags' defaults, whatever the environment says.
    fn default() -> Self {
        use clap::{Args, FromArgMatches};
        let flags = Config::augment_args(clap::Command::new("defaults"))
            .mut_args(|arg| arg.env(None::<&'static str>));
        match flags
            .try_get_matches_from(["defaults"])
            .and_then(|matches| Config::from_arg_matches(&matches))
        {
            Ok(config) => config,
            // Only a default that does not parse gets here: a bug in this
            // file, caught by its tests.
            Err(e) => panic!("the settings' defaults do not parse: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The server's flags, as the binary parses them.
    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        config: Config,
    }

    #[test]
    fn the_defaults_are_the_flags_defaults_and_the_recorders() {
        let config = Config::default();
        assert_eq!(
            config.journal_max_bytes,
            crate::scores::recorder::JOURNAL_MAX_BYTES
        );
        assert_eq!(
            config.journal_max_age,
            crate::scores::recorder::JOURNAL_MAX_AGE
        );
        assert_eq!(config.handshake_timeout, Duration::from_secs(10));
        assert_eq!(config.node_timeout, Duration::from_secs(15));
        assert_eq!(config.room_time_scale, 1);
        assert_eq!(config.outgoing_queue_bytes, 256 * 1024);
    }

    #[test]
    fn flags_in_seconds_hours_and_mib_become_durations_and_bytes() {
        let flags = Flags::try_parse_from([
            "krypto-server",
            "--handshake-timeout-secs=0",
            "--journal-max-mb=2",
            "--journal-max-age-hours=3",
            "--node-timeout=0.5",
            "--outgoing-queue=0",
        ])
        .map(|flags| flags.config);
        let config = flags.unwrap();
        assert_eq!(
            config.handshake_timeout,
            Duration::from_secs(1),
            "0 is read as 1"
        );
        assert_eq!(config.journal_max_bytes, 2 * 1024 * 1024);
        assert_eq!(config.journal_max_age, Duration::from_secs(3 * 3600));
        assert_eq!(config.node_timeout, Duration::from_millis(500));
        assert_eq!(config.outgoing_queue, 1);
        for bad in [
            "--node-timeout-secs=0.1",
            "--ipv6-prefix=129",
            "--journal-max-mb=x",
        ] {
            assert!(
                Flags::try_parse_from(["krypto-server", bad]).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_fair_play_thresholds_are_flags_with_krypto_cores_defaults() {
        use krypto_core::fair_play::FairPlaySettings;
        let defaults = Config::default().fair_play.settings();
        assert_eq!(defaults, Ok(FairPlaySettings::default()));
        let config = Flags::try_parse_from([
            "krypto-server",
            "--fair-play-token-ms=55",
            "--fair-play-floor-count=4",
            "--fair-play-max-cv-permille=120",
            "--fair-play-hard-fast-ms=2500",
        ])
        .map(|flags| flags.config)
        .unwrap();
        let settings = config.fair_play.settings().unwrap();
        assert_eq!(settings.floor.token_ms, 55);
        assert_eq!(settings.floor.count, 4);
        assert_eq!(settings.regularity.max_cv_permille, 120);
        assert_eq!(settings.hard_hands.fast_ms, 2500);
        // A count beyond its window would never fire: refused at the start.
        let odd = Flags::try_parse_from(["krypto-server", "--fair-play-floor-count=11"])
            .map(|flags| flags.config)
            .unwrap();
        assert!(odd.fair_play.settings().is_err());
    }

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
