//! `krypto-server`: parses flags and environment, sets up logging, binds the
//! port and hands over to [`krypto_server::run`].

use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, ValueEnum};
use ipnet::IpNet;
use krypto_server::Config;
use tokio::net::TcpListener;
use tracing_appender::non_blocking::NonBlocking;

/// The krypto game server.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Instead of serving, run a maintenance command.
    #[command(subcommand)]
    command: Option<Command>,
    /// Address and port to listen on (HTTP and WebSocket at /ws).
    #[arg(long, env = "KRYPTO_LISTEN", default_value = "0.0.0.0:7878")]
    listen: SocketAddr,
    /// Database URL: sqlite://path (the file is created if missing) or
    /// postgres://user:password@host/database.
    #[arg(
        long,
        env = "KRYPTO_DATABASE_URL",
        default_value = "sqlite://krypto.db"
    )]
    database: String,
    /// Serve GET /metrics (Prometheus) on this address only, e.g.
    /// 127.0.0.1:9100, instead of on the main port.
    #[arg(long, env = "KRYPTO_METRICS_LISTEN")]
    metrics_listen: Option<SocketAddr>,
    /// Log format.
    #[arg(long, env = "KRYPTO_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Log lines held while stdout does not take them (a full pipe, a
    /// stalled log collector); lines beyond are dropped and counted
    /// (krypto_log_lines_dropped_total), and the server never waits.
    #[arg(long, env = "KRYPTO_LOG_QUEUE_LINES", default_value_t = krypto_server::ops::logging::QUEUE_LINES)]
    log_queue_lines: usize,
    /// Most open connections; further ones wait in the backlog.
    #[arg(long, env = "KRYPTO_MAX_CONNECTIONS", default_value_t = 16_000)]
    max_connections: usize,
    /// Largest WebSocket frame or message in bytes (bigger: close 1009).
    #[arg(long, env = "KRYPTO_MAX_FRAME_BYTES", default_value_t = 16 * 1024)]
    max_frame_bytes: usize,
    /// Seconds a new connection has to send its HTTP headers (slow ones are
    /// closed: slowloris) and a new WebSocket has to say hello (then 1008).
    #[arg(long, env = "KRYPTO_HANDSHAKE_TIMEOUT_SECS", default_value_t = 10)]
    handshake_timeout_secs: u64,
    /// Most open connections from one client address (0: no cap).
    #[arg(long, env = "KRYPTO_MAX_CONNECTIONS_PER_IP", default_value_t = 100)]
    max_connections_per_ip: usize,
    /// Origins (comma-separated, e.g. https://krypto.example.com) whose
    /// pages may open /ws besides this server's own; the first is the
    /// address invite links and QR codes show.
    #[arg(long, env = "KRYPTO_ALLOWED_ORIGINS", value_delimiter = ',', value_parser = krypto_server::parse_origin)]
    allowed_origins: Vec<String>,
    /// Scores API requests and QR codes one client address may make at once
    /// (0: no limit)…
    #[arg(long, env = "KRYPTO_HTTP_BURST", default_value_t = 120)]
    http_burst: u32,
    /// …and per second after that.
    #[arg(long, env = "KRYPTO_HTTP_PER_SEC", default_value_t = 20)]
    http_per_sec: u32,
    /// WebSocket connections one client address may open at once (0: no
    /// limit; load tests from one address need that)…
    #[arg(long, env = "KRYPTO_WS_OPEN_BURST", default_value_t = 60)]
    ws_open_burst: u32,
    /// …and per second after that.
    #[arg(long, env = "KRYPTO_WS_OPEN_PER_SEC", default_value_t = 5)]
    ws_open_per_sec: u32,
    /// Bits of an IPv6 address that are one client for every per-address
    /// limit (64: one home connection's network).
    #[arg(long, env = "KRYPTO_IPV6_PREFIX", default_value_t = 64, value_parser = clap::value_parser!(u8).range(0..=128))]
    ipv6_prefix: u8,
    /// Reverse proxies (CIDR list, comma-separated, e.g. 127.0.0.1/32,::1/128)
    /// whose X-Forwarded-For names the client; anyone else's is ignored.
    #[arg(long, env = "KRYPTO_TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_network)]
    trusted_proxies: Vec<IpNet>,
    /// Wrong room codes allowed per client address, and per player, per minute (0: no limit).
    #[arg(long, env = "KRYPTO_MAX_CODE_MISSES", default_value_t = 10)]
    max_code_misses: u32,
    /// New players one client address may create per minute (0: no limit).
    #[arg(long, env = "KRYPTO_MAX_NEW_ACCOUNTS", default_value_t = 20)]
    max_new_accounts: u32,
    /// Spectators one room takes.
    #[arg(long, env = "KRYPTO_MAX_SPECTATORS", default_value_t = 100)]
    max_spectators: usize,
    /// Seconds between pings; no pong by the next ping closes the connection.
    #[arg(long, env = "KRYPTO_PING_INTERVAL_SECS", default_value_t = 20)]
    ping_interval_secs: u64,
    /// Messages queued per client before a slow reader is disconnected.
    #[arg(long, env = "KRYPTO_OUTGOING_QUEUE", default_value_t = 256)]
    outgoing_queue: usize,
    /// Most rooms open at once.
    #[arg(long, env = "KRYPTO_MAX_ROOMS", default_value_t = 10_000)]
    max_rooms: usize,
    /// Rated matches a player needs to appear on the rating leaderboard.
    #[arg(long, env = "KRYPTO_MIN_RATED_MATCHES", default_value_t = 3)]
    min_rated_matches: u32,
    /// Different opponents (met in rated matches) a player needs to appear
    /// on the rating leaderboard.
    #[arg(long, env = "KRYPTO_MIN_RATED_OPPONENTS", default_value_t = krypto_server::scores::ratings::MIN_OPPONENTS)]
    min_rated_opponents: u32,
    /// Makes this server one node of many sharing one PostgreSQL database:
    /// the ws:// or wss:// URL where clients reach this node (e.g.
    /// ws://host-b:7878/ws), sent to players whose room lives here. Needs
    /// --database postgres://…; without it the server is a single node.
    #[arg(long, env = "KRYPTO_PUBLIC_URL")]
    public_url: Option<String>,
    /// Seconds without a heartbeat after which a node is dead and its rooms
    /// leave the directory (heartbeats go every fifth of it).
    #[arg(
        long,
        visible_alias = "node-timeout",
        env = "KRYPTO_NODE_TIMEOUT_SECS",
        default_value_t = 15.0
    )]
    node_timeout_secs: f64,
    /// Seconds a starting server waits for an unreachable database
    /// (retrying with backoff, logging "waiting for the database at …")
    /// before giving up.
    #[arg(long, env = "KRYPTO_DATABASE_WAIT_SECS", default_value_t = 60)]
    database_wait_secs: u64,
    /// The file where results are journaled while the database is
    /// unavailable (replayed into it when it returns and at every start).
    /// Default: beside the SQLite file (krypto.db.recorder-journal), or
    /// krypto.recorder-journal in the working directory for PostgreSQL;
    /// each node of a cluster needs its own.
    #[arg(long, env = "KRYPTO_JOURNAL")]
    journal: Option<std::path::PathBuf>,
    /// Size in MiB at which the journal is full: new matches are refused
    /// (matches already playing go on) until the database takes it.
    #[arg(long, env = "KRYPTO_JOURNAL_MAX_MB", default_value_t = 256)]
    journal_max_mb: u64,
    /// Age in hours of the oldest journaled write at which the journal is
    /// full, likewise.
    #[arg(long, env = "KRYPTO_JOURNAL_MAX_AGE_HOURS", default_value_t = 24)]
    journal_max_age_hours: u64,
    /// Requests that may wait for the recorder's next commit. A result
    /// waits for room in this queue; writes that announce nothing (dealt
    /// hands, attempts) wait in their room instead, so verdicts never do.
    #[arg(long, env = "KRYPTO_RECORDER_QUEUE", default_value_t = krypto_server::scores::recorder::QUEUE)]
    recorder_queue: usize,
    /// Runs room clocks this many times faster than the wall clock, so
    /// tests of the real binary can play whole matches in moments.
    #[arg(long, env = "KRYPTO_ROOM_TIME_SCALE", default_value_t = 1, hide = true)]
    room_time_scale: u32,
}

/// A network in CIDR notation, or one address (a network of one).
fn parse_network(text: &str) -> Result<IpNet, String> {
    let text = text.trim();
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{text:?} is not an address or a CIDR network (like 10.0.0.0/8)"))
}

/// The node timeout: at least half a second (heartbeats go every fifth),
/// at most a day.
fn node_timeout(secs: f64) -> anyhow::Result<Duration> {
    anyhow::ensure!(
        (0.5..=86_400.0).contains(&secs),
        "--node-timeout-secs must be between 0.5 and 86400, not {secs}"
    );
    Ok(Duration::from_secs_f64(secs))
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Copies every player, match, rating and leaderboard row from one
    /// database into an empty PostgreSQL database (ids and tokens kept),
    /// then exits. Stop the server first.
    MigrateDb {
        /// The database to copy from (sqlite://… or postgres://…).
        #[arg(long)]
        from: String,
        /// The empty PostgreSQL database to copy into (postgres://…).
        #[arg(long)]
        to: String,
    },
    /// Reviews the players the fair-play signals flagged (docs/design.md,
    /// "Fair play: what a flag does"), on the database of --database.
    Review {
        #[command(subcommand)]
        action: ReviewAction,
    },
}

#[derive(Debug, clap::Subcommand)]
enum ReviewAction {
    /// Flagged and banned players with their evidence.
    List {
        /// As a JSON array of objects (`name`, `status`, `flagged_at`, `evidence`, …).
        #[arg(long)]
        json: bool,
    },
    /// One player's flag and evidence.
    Show {
        name: String,
        /// As a JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Puts a flagged player back on the boards; the same evidence does not
    /// flag them again.
    Clear { name: String },
    /// Off the boards for good and never rated again; every rating is
    /// recomputed without the player's matches, in one transaction.
    Ban { name: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // Logs go to stdout through a queue and a thread of their own: a stdout
    // nobody reads costs lines, never the server's progress.
    let log = krypto_server::ops::logging::to_stdout(args.log_queue_lines);
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour codes only when stdout is a terminal (in a file or a log
    // collector they are noise).
    let ansi = std::io::stdout().is_terminal();
    match args.log_format {
        LogFormat::Text => tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(ansi)
            .with_writer(log.writer.clone())
            .init(),
        LogFormat::Json => tracing_subscriber::fmt()
            .json()
            .with_ansi(false)
            .with_env_filter(filter)
            .with_writer(log.writer.clone())
            .init(),
    }
    let served = tokio::runtime::Runtime::new()
        .context("cannot start the async runtime")
        .and_then(|runtime| runtime.block_on(serve(args, log.writer, log.stats)));
    log.guard.close();
    served
}

/// Serves (or runs the maintenance command) until shut down; `out` takes the
/// banner, `log` is what the log's output took and lost.
async fn serve(
    args: Args,
    mut out: NonBlocking,
    log: krypto_server::ops::logging::LogStats,
) -> anyhow::Result<()> {
    if let Some(Command::MigrateDb { from, to }) = &args.command {
        let copied = krypto_server::db::copy::migrate(from, to).await?;
        for (table, rows) in copied.tables {
            println!("{table}: {rows} rows");
        }
        println!("copied into {to}");
        return Ok(());
    }
    if let Some(Command::Review { action }) = &args.command {
        use krypto_server::fair_play::review::{run, Review};
        let review = match action {
            ReviewAction::List { json } => Review::List { json: *json },
            ReviewAction::Show { name, json } => Review::Show {
                name: name.clone(),
                json: *json,
            },
            ReviewAction::Clear { name } => Review::Clear { name: name.clone() },
            ReviewAction::Ban { name } => Review::Ban { name: name.clone() },
        };
        let db = krypto_server::Db::open(&args.database).await?;
        let report = run(&db, &review).await;
        db.close().await;
        println!("{}", report?);
        return Ok(());
    }
    // Every connection is a file descriptor; the usual soft limit (1024) would
    // cap the server far below --max-connections.
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => {
            tracing::info!(open_files = limit, "open-files limit");
            if (limit as usize) < args.max_connections + 64 {
                tracing::warn!(
                    open_files = limit,
                    max_connections = args.max_connections,
                    "the open-files limit is below --max-connections; raise `ulimit -n`"
                );
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot raise the open-files limit"),
    }
    let config = Config {
        database_url: args.database,
        max_connections: args.max_connections,
        max_frame_bytes: args.max_frame_bytes,
        handshake_timeout: Duration::from_secs(args.handshake_timeout_secs.max(1)),
        ping_interval: Duration::from_secs(args.ping_interval_secs.max(1)),
        outgoing_queue: args.outgoing_queue.max(1),
        max_rooms: args.max_rooms,
        max_connections_per_ip: args.max_connections_per_ip,
        trusted_proxies: args.trusted_proxies,
        ipv6_prefix: args.ipv6_prefix,
        http_burst: args.http_burst,
        http_refill_per_sec: args.http_per_sec,
        ws_open_burst: args.ws_open_burst,
        ws_open_refill_per_sec: args.ws_open_per_sec,
        allowed_origins: args.allowed_origins,
        max_code_misses: args.max_code_misses,
        max_new_accounts: args.max_new_accounts,
        max_spectators: args.max_spectators,
        min_rated_matches: args.min_rated_matches,
        min_rated_opponents: args.min_rated_opponents,
        room_time_scale: args.room_time_scale.max(1),
        public_url: args.public_url,
        node_timeout: node_timeout(args.node_timeout_secs)?,
        metrics_listen: args.metrics_listen,
        database_wait: Duration::from_secs(args.database_wait_secs),
        journal: args.journal,
        journal_max_bytes: args.journal_max_mb.saturating_mul(1024 * 1024),
        journal_max_age: Duration::from_secs(args.journal_max_age_hours.saturating_mul(3600)),
        recorder_queue: args.recorder_queue,
        log,
        ..Config::default()
    };
    let listener = TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let bound = listener.local_addr()?;
    tracing::info!(address = %bound, "listening");
    // The banner goes the log's way: on a full or closed stdout, println!
    // would block or panic.
    let mut banner = format!(
        "krypto-server {} — friends can join at:\n",
        env!("CARGO_PKG_VERSION")
    );
    for line in krypto_server::banner_lines(bound) {
        banner.push_str(&line);
        banner.push('\n');
    }
    let _ = out.write_all(banner.as_bytes());
    krypto_server::run(listener, config, shutdown_signal()).await?;
    Ok(())
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM (docker stop, systemd).
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut sig) => {
                sig.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT received"),
        () = term => tracing::info!("SIGTERM received"),
    }
}
