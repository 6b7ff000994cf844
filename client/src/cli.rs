//! The command line as clap sees it: every subcommand, flag and default.
//!
//! Flags and JSON field names of the offline commands are a contract
//! (game.md, "The offline commands"); the human-readable output is not.

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::str::FromStr;

use clap::{Args, Parser, Subcommand};
use krypto_core::protocol::{Difficulty, Metric, Period};
use krypto_core::solver::census::{DeckMode, Variant};
use krypto_core::Rules;
use thiserror::Error;

/// The largest card value accepted on the command line. The engine takes any
/// value, but a "card" of a billion is a typo, and keeping values small keeps
/// every intermediate exact.
pub const MAX_CARD: i64 = 1_000_000;

/// Krypto: play, solve and check the card game of arithmetic.
#[derive(Debug, Parser)]
#[command(name = "krypto", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge a formula against a hand and an objective, as the server would.
    Check(CheckArgs),
    /// Deal a game: an objective and five cards from the 56-card deck.
    Deal(DealArgs),
    /// Solve a game: one solution, every distinct solution, or how many.
    Solve(SolveArgs),
    /// Count the unsolvable games of a whole variant.
    Census(CensusArgs),
    /// Play live on a server: rooms, matches, chat (a terminal UI, or lines
    /// with --plain / --json).
    Play(PlayArgs),
    /// Show a leaderboard of a server.
    Leaderboard(LeaderboardArgs),
    /// Show a player's profile on a server.
    Profile(ProfileArgs),
    /// Show a match's recap: round by round the hand, who won in how long,
    /// who missed, and the hand's solutions.
    Match(MatchArgs),
    /// Fill a room with practice opponents that use the solver.
    Bots(BotsArgs),
    /// The daily Krypto: today's hand against the clock (or a past day's
    /// with --date), or the day's board with --board.
    Daily(DailyArgs),
    /// A solo run: three minutes, hands getting harder, the score is the
    /// hands solved.
    Run(RunArgs),
    /// Take a friend's challenge: the hand they solved, then both results.
    Challenge(ChallengeArgs),
    /// Practice alone, unrated: a hand at a time, hints (the next step of a
    /// solution), every solution after each hand; a miss costs nothing.
    Practice(PracticeArgs),
}

/// `krypto daily [--date YYYY-MM-DD] [--board [--around NAME] [--limit N]]
/// [--server URL] [--name NAME] [--json]`
#[derive(Debug, Args)]
pub struct DailyArgs {
    /// A past UTC day, YYYY-MM-DD (the archive: unrated); default today.
    #[arg(long, short = 'd')]
    pub date: Option<String>,
    /// Show the day's board (over HTTP) instead of playing.
    #[arg(long)]
    pub board: bool,
    /// With --board: which rows.
    #[command(flatten)]
    pub rows: BoardRows,
    /// Where to play, and as whom.
    #[command(flatten)]
    pub player: PlayerArgs,
    /// Print the server's messages (or the board) as JSON, one object a
    /// line; the command's own lines go to stderr.
    #[arg(long)]
    pub json: bool,
}

/// `krypto run [--board [--period P] [--around NAME] [--limit N]]
/// [--server URL] [--name NAME] [--json]`
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Show the runs board (over HTTP) instead of playing.
    #[arg(long)]
    pub board: bool,
    /// With --board: each player's best run of the day, the week (ISO,
    /// UTC), the month or all time.
    #[arg(long, short = 'p', value_enum, default_value_t = RunPeriod::Day, requires = "board")]
    pub period: RunPeriod,
    /// With --board: which rows.
    #[command(flatten)]
    pub rows: BoardRows,
    /// Where to play, and as whom.
    #[command(flatten)]
    pub player: PlayerArgs,
    /// Print the server's messages as JSON, one object a line.
    #[arg(long)]
    pub json: bool,
}

/// `[--around NAME] [--limit N]`: which rows of a solo board (`--board`).
#[derive(Debug, Args)]
pub struct BoardRows {
    /// With --board: centre the board on this player.
    #[arg(long, requires = "board")]
    pub around: Option<String>,
    /// With --board: how many rows.
    #[arg(long, short = 'l', default_value_t = 20, requires = "board")]
    pub limit: u32,
}

/// `[--server URL] [--name NAME]`: the server of a command that plays on
/// it, and the name to play under.
#[derive(Debug, Args)]
pub struct PlayerArgs {
    /// The server (default: the config's, else ws://127.0.0.1:7878).
    #[arg(long, short = 's')]
    pub server: Option<String>,
    /// Your name on the server (default: the config's, else your login).
    #[arg(long, short = 'n')]
    pub name: Option<String>,
}

/// The period of the runs board, as `GET /api/runs/board?period=` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RunPeriod {
    /// Today (UTC).
    Day,
    /// This ISO week (UTC).
    Week,
    /// This month (UTC).
    Month,
    /// All time.
    All,
}

impl RunPeriod {
    /// The name the API takes.
    pub fn as_str(self) -> &'static str {
        match self {
            RunPeriod::Day => "day",
            RunPeriod::Week => "week",
            RunPeriod::Month => "month",
            RunPeriod::All => "all",
        }
    }
}

/// `krypto challenge CODE [--server URL] [--name NAME] [--json]`
#[derive(Debug, Args)]
pub struct ChallengeArgs {
    /// The challenge's code, or its link (`http://HOST/c/CODE`).
    pub code: String,
    /// Where to play, and as whom.
    #[command(flatten)]
    pub player: PlayerArgs,
    /// Print the server's messages as JSON, one object a line.
    #[arg(long)]
    pub json: bool,
}

/// `krypto practice [--band any|easy|medium|hard] [--server URL] [--name
/// NAME] [--json]`
#[derive(Debug, Args)]
pub struct PracticeArgs {
    /// Which hands, by their number of distinct solutions: any, easy (many),
    /// medium or hard (few).
    #[arg(long, short = 'b', default_value = "any", value_parser = band())]
    pub band: Difficulty,
    /// Where to play, and as whom.
    #[command(flatten)]
    pub player: PlayerArgs,
    /// Print the server's messages as JSON, one object a line; the
    /// command's own lines go to stderr.
    #[arg(long)]
    pub json: bool,
}

/// `krypto play [--server URL] [--name NAME] [--plain] [--json]`
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The server, e.g. ws://192.168.1.20:7878 (default: the config's, else
    /// ws://127.0.0.1:7878).
    #[arg(long, short = 's')]
    pub server: Option<String>,
    /// Your name on the server (default: the config's, else your login).
    #[arg(long, short = 'n')]
    pub name: Option<String>,
    /// Line mode: type commands and formulas, read events as text lines
    /// (for scripts, screen readers and terminals without a TUI).
    #[arg(long, conflicts_with = "json")]
    pub plain: bool,
    /// Like --plain, but print every server message as received, one JSON
    /// object per line.
    #[arg(long)]
    pub json: bool,
}

/// `krypto leaderboard [--server URL] [--metric M] [--period P] [--limit N]
/// [--around NAME] [--json]`
#[derive(Debug, Args)]
pub struct LeaderboardArgs {
    /// The server (default: the config's, else ws://127.0.0.1:7878).
    #[arg(long, short = 's')]
    pub server: Option<String>,
    /// Your name, to mark your row (default: the config's); never sent.
    #[arg(long, short = 'n')]
    pub name: Option<String>,
    /// rating, wins, rounds or fastest.
    #[arg(long, short = 'm', default_value = "rating", value_parser = wire_enum::<Metric>)]
    pub metric: Metric,
    /// all, month, week or day (UTC).
    #[arg(long, short = 'p', default_value = "all", value_parser = wire_enum::<Period>)]
    pub period: Period,
    /// How many rows.
    #[arg(long, short = 'l', default_value_t = 20)]
    pub limit: u32,
    /// Centre the table on this player.
    #[arg(long)]
    pub around: Option<String>,
    /// Print the server's reply as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `krypto profile NAME [--server URL] [--json]`
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// Whose profile.
    pub player: String,
    /// The server (default: the config's, else ws://127.0.0.1:7878).
    #[arg(long, short = 's')]
    pub server: Option<String>,
    /// Print the server's JSON as is.
    #[arg(long)]
    pub json: bool,
}

/// `krypto match ID [--server URL] [--json]`
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// The match's id, as `match over` prints it, or its recap's link.
    pub id: String,
    /// The server (default: the config's, else ws://127.0.0.1:7878).
    #[arg(long, short = 's')]
    pub server: Option<String>,
    /// Print the server's JSON as is.
    #[arg(long)]
    pub json: bool,
}

/// How well a bot plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Skill {
    /// Slow, and sometimes wrong.
    Easy,
    /// About as fast as a good player.
    Medium,
    /// Fast and never wrong.
    Hard,
}

/// `krypto bots --server URL --room CODE --count N --skill S`
#[derive(Debug, Args)]
pub struct BotsArgs {
    /// The server (default: the config's, else ws://127.0.0.1:7878).
    #[arg(long, short = 's')]
    pub server: Option<String>,
    /// The room to join.
    #[arg(long, short = 'r')]
    pub room: String,
    /// How many bots (1–16).
    #[arg(long, short = 'c', default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub count: u32,
    /// easy, medium or hard.
    #[arg(long, default_value = "medium")]
    pub skill: Skill,
    /// Thinking time as a percentage of a human-like pace (100); lower is
    /// faster.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub pace: u32,
}

/// `--band`: a difficulty by its wire name, the names (the room setting's
/// own) listed in `--help` and in the usage error.
fn band() -> impl clap::builder::TypedValueParser<Value = Difficulty> {
    use clap::builder::TypedValueParser;
    use krypto_core::settings::{Allowed, Field};
    let names = match Field::Difficulty.allowed() {
        Allowed::Choice { choices } => choices,
        _ => Vec::new(),
    };
    clap::builder::PossibleValuesParser::new(names).try_map(|name| name.parse::<Difficulty>())
}

/// Parses a protocol enum by its wire name (`rating`, `week`, ...).
fn wire_enum<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("{text:?} is not one of the allowed values"))
}

/// `krypto check --target T --cards CARD... [--rules R] [--json] FORMULA`
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The objective the formula must make.
    #[arg(long, short = 't', allow_negative_numbers = true)]
    pub target: i64,
    /// The hand: several values (`--cards 8 19 14 2 21`) or a comma-separated
    /// list (`--cards 8,19,14,2,21`).
    ///
    /// Kept as text because clap cannot tell where a list of cards ends and
    /// the formula begins when the formula follows `--cards`: the last value
    /// is taken as the formula when no other is given.
    #[arg(long, short = 'c', num_args = 1.., value_delimiter = ',', required = true)]
    pub cards: Vec<String>,
    /// Which intermediate results are allowed: free, integer, international
    /// or positive.
    #[arg(long, short = 'r', default_value = "free")]
    pub rules: Rules,
    /// Print {"valid", "value", "error"} as JSON.
    #[arg(long)]
    pub json: bool,
    /// The formula, e.g. "21 + 14 / 2 + 8 - 19" (quote it for the shell).
    #[arg(allow_hyphen_values = true)]
    pub formula: Option<String>,
}

/// `krypto deal [--seed S] [--json]`
#[derive(Debug, Args)]
pub struct DealArgs {
    /// Deal reproducibly from this seed; without it the deal is unpredictable.
    #[arg(long, short = 's')]
    pub seed: Option<u64>,
    /// Print {"objective", "hand"} as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `krypto solve --target T [--rules R] [--all | --count] [--chain | --subset] [--json] CARD...`
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The objective to make.
    #[arg(long, short = 't', allow_negative_numbers = true)]
    pub target: i64,
    /// Which intermediate results are allowed: free, integer, international
    /// or positive.
    #[arg(long, short = 'r', default_value = "free")]
    pub rules: Rules,
    /// Show every distinct solution (and how many there are).
    #[arg(long, conflicts_with = "count")]
    pub all: bool,
    /// Count the distinct solutions (and show one).
    #[arg(long)]
    pub count: bool,
    /// Only parenthesis-free chains evaluated right to left (APL style).
    #[arg(long, conflicts_with = "subset")]
    pub chain: bool,
    /// Any non-empty subset of the cards may be used, each at most once
    /// (Countdown's rule); one solution uses as few cards as possible.
    #[arg(long)]
    pub subset: bool,
    /// Print {"target", "cards", "rules", "subset", "solvable", "count",
    /// "solutions"} as JSON.
    #[arg(long)]
    pub json: bool,
    /// The hand, e.g. `8 19 14 2 21` (commas also work).
    #[arg(required = true, num_args = 1.., value_delimiter = ',', value_parser = card_value)]
    pub cards: Vec<i64>,
}

/// `krypto census [--variant V] [--deck D] [--rules R] [--cards N] [--max M]
/// [--targets A..B] [--unsolvable FILE] [--json]`
#[derive(Debug, Args)]
pub struct CensusArgs {
    /// The game: krypto, 24 or countdown; it sets the defaults below.
    #[arg(long, default_value = "krypto")]
    pub variant: Variant,
    /// Which hands count: every multiset of values (unbounded) or only what
    /// the 56-card deck can deal (krypto), weighted by how likely the deal is.
    #[arg(long, default_value = "unbounded")]
    pub deck: DeckMode,
    /// The rule set (default: free; countdown: positive).
    #[arg(long, short = 'r')]
    pub rules: Option<Rules>,
    /// Cards per hand (default: the variant's).
    #[arg(long)]
    pub cards: Option<usize>,
    /// Largest card value for unbounded hands (default: the variant's).
    #[arg(long)]
    pub max: Option<i64>,
    /// Targets: A..B or a single number (default: the variant's).
    #[arg(long, allow_negative_numbers = true)]
    pub targets: Option<Targets>,
    /// Write every unsolvable game to FILE, one a line: "c1 c2 c3 c4 c5 : target".
    #[arg(long, value_name = "FILE")]
    pub unsolvable: Option<PathBuf>,
    /// Print {"variant", "rules", "deck", "hands", "games", "solvable",
    /// "unsolvable", "solvable_probability", "seconds"} as JSON.
    #[arg(long)]
    pub json: bool,
}

/// A target range from the command line: `A..B`, `A..=B` or a single `N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Targets(pub RangeInclusive<i64>);

impl FromStr for Targets {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let num = |t: &str| {
            t.trim()
                .parse::<i64>()
                .map_err(|_| format!("{s:?} is not a target range: use A..B or a single number"))
        };
        let (lo, hi) = match s.split_once("..") {
            Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
            None => {
                let n = num(s)?;
                (n, n)
            }
        };
        if lo > hi {
            return Err(format!("the target range {lo}..{hi} is empty"));
        }
        Ok(Targets(lo..=hi))
    }
}

/// A bad value that clap's own parsing cannot catch; exits with status 2
/// like clap's usage errors.
#[derive(Debug, Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Parses one card value, refusing anything outside `1..=MAX_CARD`.
pub fn parse_card(text: &str) -> Result<i64, UsageError> {
    let t = text.trim();
    match t.parse::<i64>() {
        Ok(v) if (1..=MAX_CARD).contains(&v) => Ok(v),
        Ok(v) => Err(UsageError(format!(
            "card {v} is out of range: cards are whole numbers from 1 to {MAX_CARD}"
        ))),
        Err(_) => Err(UsageError(format!(
            "{t:?} is not a card: cards are whole numbers from 1 to {MAX_CARD}"
        ))),
    }
}

/// The clap value parser for cards given as positional arguments, so a bad
/// card is a usage error (status 2) with the same message as `--cards`.
pub fn card_value(text: &str) -> Result<i64, String> {
    parse_card(text).map_err(|e| e.0)
}
