//! The boards of playing alone, one HTTP GET each, printed as a table:
//! `krypto daily --board [--date D] [--around NAME] [--json]`
//! (`GET /api/daily/board`) and `krypto run --board [--period P] [--around
//! NAME] [--json]` (`GET /api/runs/board`). They only read: no account,
//! nothing written to the config.

use crate::commands::leaderboard::{board_reader, row_mark};
use std::io::Write;

use anyhow::Context;
use krypto_core::modes::share::clock_text;
use serde::Deserialize;

use crate::cli::{DailyArgs, RunArgs};
use crate::commands::{http, Outcome};
use crate::play::config;

/// One row of the day's board.
#[derive(Debug, Deserialize)]
struct Row {
    rank: u32,
    name: String,
    elapsed_ms: u64,
    misses: u32,
}

/// The day's board as the server serves it (fields it adds are ignored).
#[derive(Debug, Deserialize)]
struct Board {
    #[serde(default)]
    number: Option<u32>,
    #[serde(default)]
    date: Option<String>,
    rows: Vec<Row>,
}

/// Fetches and prints the day's board.
pub fn run(args: &DailyArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let (server, me) = board_reader(args.player.server.as_deref(), args.player.name.as_deref())?;
    let limit = args.rows.limit.to_string();
    let mut query = vec![("limit", limit.as_str())];
    let date = args.date.as_deref().map(super::parse_date).transpose()?;
    let date_text = date.map(|d| d.to_string());
    if let Some(d) = &date_text {
        query.push(("date", d.as_str()));
    }
    let asked = Asked {
        path: &["api", "daily", "board"],
        query,
        around: args.rows.around.as_deref(),
        json: args.json,
        missing: "no such day or player",
        what: "the daily's board",
    };
    let board: Board = match asked.fetch(&server, out)? {
        Ok(board) => board,
        Err(told) => return Ok(told),
    };
    let title = match (board.number, &board.date) {
        (Some(n), Some(d)) => format!("Krypto #{n}, {d}"),
        (None, Some(d)) => format!("Krypto of {d}"),
        (Some(n), None) => format!("Krypto #{n}"),
        (None, None) => "Today's Krypto".to_owned(),
    };
    writeln!(out, "{title}: the board")?;
    if board.rows.is_empty() {
        writeln!(out, "Nobody has solved it yet.")?;
        return Ok(Outcome::Yes);
    }
    writeln!(
        out,
        "{:>5}  {:<20}  {:>8}  {:>6}",
        "Rank", "Player", "Time", "Misses"
    )?;
    for r in &board.rows {
        writeln!(
            out,
            "{}{:>4}.  {:<20}  {:>8}  {:>6}",
            row_mark(&r.name, [me.as_deref(), args.rows.around.as_deref()]),
            r.rank,
            r.name,
            clock_text(r.elapsed_ms),
            r.misses
        )?;
    }
    Ok(Outcome::Yes)
}

/// A board asked for: where, with what, and what to say when it is not
/// there.
struct Asked<'a> {
    path: &'a [&'a str],
    query: Vec<(&'a str, &'a str)>,
    /// The player to centre the board on.
    around: Option<&'a str>,
    /// Print the answer as is.
    json: bool,
    /// Said on a 404 the server explains no better.
    missing: &'a str,
    /// What the answer is (`"the runs board"`), for the error when it is not.
    what: &'a str,
}

impl Asked<'_> {
    /// GETs the board from `server`: `Ok` the board to print, or `Err` the
    /// outcome already told (404: the server's message or `missing`; with
    /// `json` the answer as is). A 400 is a usage error.
    fn fetch<T: serde::de::DeserializeOwned>(
        mut self,
        server: &str,
        out: &mut impl Write,
    ) -> anyhow::Result<Result<T, Outcome>> {
        if let Some(around) = self.around {
            self.query.push(("around", around.trim()));
        }
        let url = config::api_url(server, self.path, &self.query)?;
        let answer = http::get(&url)?;
        match answer.status {
            200 => {}
            404 => {
                writeln!(out, "{}", answer.error_message().unwrap_or(self.missing))?;
                return Ok(Err(Outcome::No));
            }
            400 => return Err(answer.refusal()),
            _ => return Err(answer.unexpected()),
        }
        if self.json {
            writeln!(out, "{}", answer.raw.trim())?;
            return Ok(Err(Outcome::Yes));
        }
        let what = self.what;
        let board = serde_json::from_value(answer.json)
            .with_context(|| format!("the server's answer is not {what}"))?;
        Ok(Ok(board))
    }
}

/// One row of the runs board.
#[derive(Debug, Deserialize)]
struct RunRow {
    rank: u32,
    name: String,
    score: u64,
}

/// The runs board as the server serves it.
#[derive(Debug, Deserialize)]
struct RunsBoard {
    rows: Vec<RunRow>,
}

/// `krypto run --board`: fetches and prints the runs board.
pub fn runs(args: &RunArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let (server, me) = board_reader(args.player.server.as_deref(), args.player.name.as_deref())?;
    let limit = args.rows.limit.to_string();
    let asked = Asked {
        path: &["api", "runs", "board"],
        query: vec![("period", args.period.as_str()), ("limit", limit.as_str())],
        around: args.rows.around.as_deref(),
        json: args.json,
        missing: "no such player",
        what: "the runs board",
    };
    let board: RunsBoard = match asked.fetch(&server, out)? {
        Ok(board) => board,
        Err(told) => return Ok(told),
    };
    let title = match args.period {
        crate::cli::RunPeriod::Day => "today",
        crate::cli::RunPeriod::Week => "this week",
        crate::cli::RunPeriod::Month => "this month",
        crate::cli::RunPeriod::All => "all time",
    };
    writeln!(out, "Best runs, {title}")?;
    if board.rows.is_empty() {
        writeln!(out, "No run finished yet.")?;
        return Ok(Outcome::Yes);
    }
    writeln!(out, "{:>5}  {:<20}  {:>6}", "Rank", "Player", "Solved")?;
    for r in &board.rows {
        writeln!(
            out,
            "{}{:>4}.  {:<20}  {:>6}",
            row_mark(&r.name, [me.as_deref(), args.rows.around.as_deref()]),
            r.rank,
            r.name,
            r.score
        )?;
    }
    Ok(Outcome::Yes)
}
