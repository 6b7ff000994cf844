//! `krypto leaderboard`: `GET /api/leaderboard` on the server's HTTP side
//! (the same port as the WebSocket), printed as a table. It only reads: no
//! account is created and nothing is written to the config.

use std::io::Write;

use anyhow::Context;
use krypto_core::protocol::{LeaderboardRow, Metric, Period};
use serde::Deserialize;

use super::{http, Outcome};
use crate::cli::LeaderboardArgs;
use crate::play::config;
use crate::play::wording::{metric_value, PROVISIONAL_NOTE};

/// A board as `GET /api/leaderboard` serves it.
#[derive(Debug, Deserialize)]
struct Board {
    metric: Metric,
    #[serde(default)]
    total: u64,
    period: Period,
    rows: Vec<LeaderboardRow>,
}

/// The server a board is read from and the name whose row it marks: the
/// flags', else the config's. The name is only for the marking: it is never
/// sent.
pub(crate) fn board_reader(
    server: Option<&str>,
    name: Option<&str>,
) -> anyhow::Result<(String, Option<String>)> {
    let settings = config::ConfigDir::locate()?.settings()?;
    let server = config::chosen_server(server, settings.server);
    Ok((server, name.map(str::to_owned).or(settings.name)))
}

/// Fetches and prints the board.
pub fn run(args: &LeaderboardArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let (server, me) = board_reader(args.server.as_deref(), args.name.as_deref())?;
    let limit = args.limit.to_string();
    let mut query = vec![
        ("metric", args.metric.as_str()),
        ("period", args.period.as_str()),
        ("limit", limit.as_str()),
    ];
    if let Some(around) = &args.around {
        query.push(("around", around.trim()));
    }
    let url = config::api_url(&server, &["api", "leaderboard"], &query)?;
    let answer = http::get(&url)?;
    match answer.status {
        200 => {}
        404 => {
            let around = args.around.as_deref().unwrap_or_default().trim();
            writeln!(out, "No player called {around:?} on this server.")?;
            return Ok(Outcome::No);
        }
        400 => return Err(answer.refusal()),
        _ => return Err(answer.unexpected()),
    }
    if args.json {
        writeln!(out, "{}", answer.raw.trim())?;
        return Ok(Outcome::Yes);
    }
    let board: Board =
        serde_json::from_value(answer.json).context("the server's answer is not a leaderboard")?;
    let origin = url.origin().ascii_serialization();
    writeln!(
        out,
        "Leaderboard: {}, {} ({origin})",
        board.metric, board.period,
    )?;
    if board.rows.is_empty() {
        match args.around.as_deref().map(str::trim) {
            Some(around) => {
                let others = match board.total {
                    0 => String::new(),
                    1 => " (1 player is)".to_owned(),
                    n => format!(" ({n} players are)"),
                };
                writeln!(out, "{around} is not on this board yet{others}.")?;
                let why = match board.metric {
                    Metric::Rating => super::profile::provisional_reason(&server, around),
                    _ => None,
                };
                writeln!(
                    out,
                    "{}",
                    why.unwrap_or_else(|| empty_reason(board.metric).to_owned())
                )?;
            }
            None => writeln!(out, "No rows yet: {}", empty_reason(board.metric))?,
        }
        return Ok(Outcome::Yes);
    }
    writeln!(
        out,
        "{:>5}  {:<20}  {:>10}  {:>7}",
        "Rank", "Player", "Value", "Matches"
    )?;
    for r in &board.rows {
        writeln!(
            out,
            "{}{:>4}.  {:<20}  {:>10}  {:>7}",
            row_mark(&r.name, [me.as_deref(), args.around.as_deref()]),
            r.rank,
            r.name,
            metric_value(board.metric, r.value),
            r.matches
        )?;
    }
    if board.metric == Metric::Rating {
        writeln!(out, "{PROVISIONAL_NOTE}")?;
    }
    Ok(Outcome::Yes)
}

/// Why a board can be empty, by metric.
fn empty_reason(metric: Metric) -> &'static str {
    match metric {
        Metric::Rating => {
            "players are ranked after a few rated matches against different people \
             (a match against bots only is not rated)."
        }
        Metric::Wins => {
            "a rated match won puts a player here (a match against bots only is not rated)."
        }
        Metric::Rounds => "a round won puts a player here.",
        Metric::Fastest => "a round won with a formula puts a player here.",
    }
}

/// The margin of a board's row: `›` for the player's own row or the one
/// asked `--around`, so either is found at a glance (any case, spaces
/// trimmed, as the server compares names).
pub(crate) fn row_mark(name: &str, wanted: [Option<&str>; 2]) -> &'static str {
    let marked = wanted
        .into_iter()
        .flatten()
        .any(|n| n.trim().eq_ignore_ascii_case(name));
    if marked {
        "›"
    } else {
        " "
    }
}
