//! `krypto-load`'s flags.

use std::time::Duration;

use clap::Parser;
use krypto_core::settings::DealMode;

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
/// `--max-connections-per-ip 0 --max-new-accounts 0` and `--max-connections`
/// above rooms × players (and raise `ulimit -n` to match).
#[derive(Debug, Parser)]
#[command(name = "krypto-load", version)]
pub struct Args {
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
