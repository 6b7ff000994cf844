//! `krypto-load`'s flags.

use std::time::Duration;

use clap::{Parser, Subcommand};
use krypto_core::settings::DealMode;

use super::daily::DailyConfig;
use super::{random_prefix, LoadConfig};

/// Load generator for a krypto server: R rooms × P players, each a real
/// WebSocket, playing matches and submitting right and wrong formulas on a
/// schedule. Reports connections, message rates, verdict latency, the
/// spread of each round's deal across a room, errors, disconnects and the
/// server's memory.
///
/// A server of several nodes: give each node's URL (`--server` repeated, or
/// a comma list). Rooms are created on the nodes in turn, and each room's
/// other players connect through the next node, so their joins are
/// redirected to the room's node (the report counts the redirects).
///
/// Every player connects from this machine's one address, so the server's
/// per-address limits must be lifted for a run: start it with
/// `--max-connections-per-ip 0 --max-new-accounts 0 --ws-open-burst 0` and `--max-connections`
/// above rooms × players (and raise `ulimit -n` to match).
///
/// `krypto-load daily` is the daily's midnight rush instead of rooms (see
/// `krypto-load daily --help`).
#[derive(Debug, Parser)]
#[command(name = "krypto-load", version, args_conflicts_with_subcommands = true)]
pub struct Args {
    /// Another kind of load than rooms.
    #[command(subcommand)]
    pub mode: Option<Mode>,
    /// The server's WebSocket URL; repeat it (or give a comma list) for
    /// the nodes of a server of several nodes.
    #[arg(
        long = "server",
        value_name = "URL",
        value_delimiter = ',',
        default_value = "ws://127.0.0.1:7878/ws"
    )]
    pub servers: Vec<String>,
    /// Rooms to fill.
    #[arg(long, default_value_t = 1)]
    pub rooms: u32,
    /// Players per room (1–32); the first creates and hosts the room.
    #[arg(long, default_value_t = 4)]
    pub players: u32,
    /// Seconds of steady load, counted from when every room is playing.
    #[arg(long, default_value_t = 30)]
    pub duration: u64,
    /// Each player submits once per this many ms while a round is on.
    #[arg(long, default_value_t = 2000)]
    pub submit_every_ms: u64,
    /// Share of submissions that are wrong formulas (0–1).
    #[arg(long, default_value_t = 0.5)]
    pub wrong_ratio: f64,
    /// Seconds over which rooms start connecting.
    #[arg(long, default_value_t = 10)]
    pub ramp_secs: u64,
    /// The server's process id, to sample its memory (VmRSS).
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Start of every player name (1–8 letters, digits, '-', '_'); random
    /// by default, so concurrent generators and repeated runs never collide.
    #[arg(long)]
    pub name_prefix: Option<String>,
    /// Which hands the rooms deal: solvable, or any (unsolvable hands are
    /// answered by claiming "no solution").
    #[arg(long, default_value = "solvable", value_parser = deal_mode)]
    pub deal: DealMode,
    /// Print the report as one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Also write every round announced as won to this file, one JSON
    /// object a line ({"room", "match_no", "round", "winner", "formula"}),
    /// to compare with the database afterwards (bench/chaos).
    #[arg(long, value_name = "FILE")]
    pub won_rounds: Option<std::path::PathBuf>,
    /// No progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Another kind of load than rooms.
#[derive(Debug, Subcommand)]
pub enum Mode {
    /// The daily's midnight rush: P new players arrive spread over
    /// `--over-secs`, each on its own WebSocket: `hello` (a name of its own),
    /// `daily_start` (timed to the `daily` that answers it), a think of
    /// `--think-secs`, a right answer from the solver (a wrong one first
    /// for `--wrong-ratio` of them), and `daily_solved`. Reports the
    /// latencies to the hand and to the verdict, failures by error code,
    /// and the results the server recorded (`GET /api/daily`'s `solvers`,
    /// before and after); with `--metrics-url`, how many answers the
    /// fair-play signals assessed. Exits 0 when every player got the hand
    /// and solved, every result was recorded (and assessed).
    ///
    /// Lift the server's per-address limits as for rooms:
    /// `--max-connections-per-ip 0 --max-new-accounts 0 --ws-open-burst 0`,
    /// `--max-connections` above the players.
    Daily(DailyArgs),
}

/// `krypto-load daily`'s flags.
#[derive(Debug, clap::Args)]
pub struct DailyArgs {
    /// The server's WebSocket URL.
    #[arg(long, value_name = "URL", default_value = "ws://127.0.0.1:7878/ws")]
    pub server: String,
    /// Players arriving, each a new name.
    #[arg(long, default_value_t = 1000)]
    pub players: u32,
    /// Seconds over which they arrive (evenly spread).
    #[arg(long, default_value_t = 10.0)]
    pub over_secs: f64,
    /// Each player's think before answering, seconds, drawn evenly from
    /// MIN-MAX (or exactly N).
    #[arg(long, value_name = "MIN-MAX", default_value = "5-15", value_parser = think_range)]
    pub think_secs: (Duration, Duration),
    /// Share of players (0–1) whose first answer is wrong (a miss, 10 s
    /// on their time), then right.
    #[arg(long, default_value_t = 0.1)]
    pub wrong_ratio: f64,
    /// The server's `/metrics` (`http://127.0.0.1:9xxx/metrics`, its
    /// `--metrics-listen`), to count the answers the fair-play signals
    /// assessed during the rush.
    #[arg(long, value_name = "URL")]
    pub metrics_url: Option<String>,
    /// The server's process id, to sample its memory (VmRSS).
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Start of every player name (1–8 letters, digits, '-', '_'); random
    /// by default.
    #[arg(long)]
    pub name_prefix: Option<String>,
    /// Print the report as one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// No progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

impl DailyArgs {
    /// The rush these flags describe.
    pub fn to_config(&self) -> DailyConfig {
        let mut config = DailyConfig::new(self.server.trim());
        config.players = self.players;
        config.over = Duration::try_from_secs_f64(self.over_secs).unwrap_or(Duration::ZERO);
        config.think = self.think_secs;
        config.wrong_ratio = self.wrong_ratio;
        config.metrics_url = self.metrics_url.clone();
        config.server_pid = self.server_pid;
        if let Some(prefix) = &self.name_prefix {
            config.name_prefix = prefix.clone();
        }
        config.progress_every = (!self.quiet).then_some(Duration::from_secs(5));
        config
    }
}

/// `MIN-MAX` or `N` seconds (decimals allowed).
fn think_range(text: &str) -> Result<(Duration, Duration), String> {
    let secs = |t: &str| {
        t.trim()
            .parse::<f64>()
            .ok()
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .ok_or_else(|| format!("{t:?} is not a number of seconds"))
    };
    let (least, most) = match text.split_once('-') {
        Some((a, b)) => (secs(a)?, secs(b)?),
        None => (secs(text)?, secs(text)?),
    };
    if least > most {
        return Err(format!("{text:?}: the least is more than the most"));
    }
    Ok((least, most))
}

/// The rooms' `deal` setting, by its wire name.
fn deal_mode(text: &str) -> Result<DealMode, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{text:?} is neither solvable nor any"))
}

impl Args {
    /// The run these flags describe.
    pub fn to_config(&self) -> LoadConfig {
        let mut config = LoadConfig::new("");
        config.servers = self.servers.iter().map(|s| s.trim().to_owned()).collect();
        config.rooms = self.rooms;
        config.players = self.players;
        config.duration = Duration::from_secs(self.duration);
        config.submit_every = Duration::from_millis(self.submit_every_ms);
        config.wrong_ratio = self.wrong_ratio;
        config.ramp = Duration::from_secs(self.ramp_secs);
        config.server_pid = self.server_pid;
        config.name_prefix = self.name_prefix.clone().unwrap_or_else(random_prefix);
        config.deal = self.deal;
        config.progress_every = (!self.quiet).then_some(Duration::from_secs(5));
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_become_the_config() {
        let args = Args::parse_from([
            "krypto-load",
            "--server",
            "ws://127.0.0.1:9/ws",
            "--rooms",
            "250",
            "--players",
            "4",
            "--duration",
            "45",
            "--submit-every-ms",
            "1500",
            "--wrong-ratio",
            "0.25",
            "--ramp-secs",
            "20",
            "--server-pid",
            "42",
            "--name-prefix",
            "a1",
            "--deal",
            "any",
            "--json",
            "--won-rounds",
            "won.jsonl",
        ]);
        let c = args.to_config();
        assert_eq!((c.rooms, c.players), (250, 4));
        assert_eq!(c.duration, Duration::from_secs(45));
        assert_eq!(c.submit_every, Duration::from_millis(1500));
        assert_eq!(c.ramp, Duration::from_secs(20));
        assert_eq!(c.server_pid, Some(42));
        assert_eq!(c.name_prefix, "a1");
        assert_eq!(c.deal, DealMode::Any);
        assert!(args.json);
        assert_eq!(args.won_rounds, Some("won.jsonl".into()));
        assert!(c.validate().is_ok());
        assert_eq!(c.servers, ["ws://127.0.0.1:9/ws"]);
    }

    #[test]
    fn the_daily_rush_has_flags_of_its_own() {
        let args = Args::parse_from([
            "krypto-load",
            "daily",
            "--server",
            "ws://127.0.0.1:9/ws",
            "--players",
            "10000",
            "--over-secs",
            "10",
            "--think-secs",
            "2-4.5",
            "--wrong-ratio",
            "0.2",
            "--metrics-url",
            "http://127.0.0.1:9100/metrics",
            "--name-prefix",
            "rush",
            "--json",
        ]);
        let Some(Mode::Daily(daily)) = &args.mode else {
            panic!("{args:?}");
        };
        let c = daily.to_config();
        assert_eq!(c.players, 10_000);
        assert_eq!(c.over, Duration::from_secs(10));
        assert_eq!(
            c.think,
            (Duration::from_secs(2), Duration::from_millis(4500))
        );
        assert_eq!(c.name_prefix, "rush");
        assert_eq!(
            c.metrics_url.as_deref(),
            Some("http://127.0.0.1:9100/metrics")
        );
        assert!(daily.json);
        assert!(c.validate().is_ok());
        let exact = Args::parse_from(["krypto-load", "daily", "--think-secs", "3"]);
        let Some(Mode::Daily(exact)) = exact.mode else {
            panic!("no daily");
        };
        assert_eq!(
            exact.think_secs,
            (Duration::from_secs(3), Duration::from_secs(3))
        );
        assert!(Args::try_parse_from(["krypto-load", "daily", "--think-secs", "5-2"]).is_err());
        assert!(Args::try_parse_from(["krypto-load", "--rooms", "2", "daily"]).is_err());
        assert!(Args::parse_from(["krypto-load", "--rooms", "2"])
            .mode
            .is_none());
    }

    #[test]
    fn several_nodes_are_a_comma_list_or_a_repeated_flag() {
        let c = Args::parse_from(["krypto-load"]).to_config();
        assert_eq!(c.servers, ["ws://127.0.0.1:7878/ws"]);
        let c = Args::parse_from(["krypto-load", "--server", "ws://a/ws, ws://b/ws"]).to_config();
        assert_eq!(c.servers, ["ws://a/ws", "ws://b/ws"]);
        let c = Args::parse_from([
            "krypto-load",
            "--server",
            "ws://a/ws",
            "--server",
            "ws://b/ws,ws://c/ws",
        ])
        .to_config();
        assert_eq!(c.servers, ["ws://a/ws", "ws://b/ws", "ws://c/ws"]);
    }
}
