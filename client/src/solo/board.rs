//! `krypto daily --board [--date D] [--around NAME] [--json]`:
//! `GET /api/daily/board` on the server's HTTP side, printed as a table.
//! It only reads: no account, nothing written to the config.

use crate::commands::leaderboard::row_mark;
use std::io::Write;

use anyhow::Context;
use krypto_core::modes::share::clock_text;
use serde::Deserialize;

use crate::cli::{DailyArgs, UsageError};
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
    let settings = config::ConfigDir::locate()?.settings()?;
    let server = config::chosen_server(args.server.as_deref(), settings.server);
    // Only to mark our own row: the name is never sent.
    let me = args.name.clone().or(settings.name);
    let limit = args.limit.to_string();
    let mut query = vec![("limit", limit.as_str())];
    let date = args.date.as_deref().map(super::parse_date).transpose()?;
    let date_text = date.map(|d| d.to_string());
    if let Some(d) = &date_text {
        query.push(("date", d.as_str()));
    }
    if let Some(around) = &args.around {
        query.push(("around", around.trim()));
    }
    let url = config::api_url(&server, &["api", "daily", "board"], &query)?;
    let answer = http::get(&url)?;
    match answer.status {
        200 => {}
        404 => {
            writeln!(
                out,
                "{}",
                answer.error_message().unwrap_or("no such day or player")
            )?;
            return Ok(Outcome::No);
        }
        400 => {
            let why = answer
                .error_message()
                .unwrap_or("the server refused the request");
            return Err(UsageError(why.to_owned()).into());
        }
        _ => return Err(answer.unexpected()),
    }
    if args.json {
        writeln!(out, "{}", answer.raw.trim())?;
        return Ok(Outcome::Yes);
    }
    let board: Board = serde_json::from_value(answer.json)
        .context("the server's answer is not the daily's board")?;
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
            row_mark(&r.name, [me.as_deref(), args.around.as_deref()]),
            r.rank,
            r.name,
            clock_text(r.elapsed_ms),
            r.misses
        )?;
    }
    Ok(Outcome::Yes)
}
