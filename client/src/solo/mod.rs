//! `krypto daily`, `krypto run` and `krypto challenge CODE`: a hand (or a
//! run of them) played alone against the server's clock, line by line;
//! `krypto practice`: a practice table, unrated, with hints.
//!
//! - [`session`]: the state of the first three (pure): server messages,
//!   typed lines and ticks in, lines to print and requests to send out.
//! - [`practice`]: the state of a practice table, with the same inputs and
//!   steps.
//! - [`board`]: `krypto daily --board`, one HTTP GET.
//!
//! This file is the run loop: the connection task of `krypto play` (its
//! hello, saved token and reconnects), standard-input lines and a clock
//! tick merged in one queue. `--json` prints every server message as
//! received instead of the lines, the command's own notes going to stderr.

pub mod board;
pub mod practice;
pub mod session;
#[cfg(test)]
mod testkit;

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use krypto_core::protocol::ChallengeCode;
use tokio::sync::mpsc;

use crate::cli::{ChallengeArgs, DailyArgs, PlayerArgs, PracticeArgs, RunArgs, UsageError};
use crate::play::config;
use crate::play::net::NetEvent;
use crate::play::Target;
use session::{Input, Mode, Session, Step};

/// How often the clock ticks.
const TICK: Duration = Duration::from_millis(250);

/// One event of the run loop.
#[derive(Debug)]
enum Event {
    Net(NetEvent),
    Line(String),
    InputClosed,
    Tick(Duration),
}

impl From<NetEvent> for Event {
    fn from(event: NetEvent) -> Event {
        Event::Net(event)
    }
}

/// `krypto daily` (without `--board`).
pub fn daily(args: &DailyArgs) -> anyhow::Result<bool> {
    let date = args.date.as_deref().map(parse_date).transpose()?;
    play(Mode::Daily(date), &args.player, args.json)
}

/// `krypto run`.
pub fn run(args: &RunArgs) -> anyhow::Result<bool> {
    play(Mode::Run, &args.player, args.json)
}

/// `krypto challenge CODE` (the code, or a link ending in `/c/CODE`).
pub fn challenge(args: &ChallengeArgs) -> anyhow::Result<bool> {
    let raw = args.code.trim().trim_end_matches('/');
    let tail = raw.rsplit('/').next().unwrap_or(raw);
    let code: ChallengeCode = tail
        .parse()
        .map_err(|e| UsageError(format!("{:?}: {e}", args.code)))?;
    play(Mode::Challenge(code), &args.player, args.json)
}

/// `krypto practice [--band B]`.
pub fn practice(args: &PracticeArgs) -> anyhow::Result<bool> {
    let player = &args.player;
    let target = crate::play::target(player.server.as_deref(), player.name.as_deref())?;
    let mut table = practice::Practice::new(args.band);
    drive(&target, args.json, |input| table.handle(input))
}

/// The last line when another connection took the name over: reconnecting
/// would only take it back from the other, which would take it back again.
fn replaced(reason: &str) -> String {
    let why = if reason.is_empty() {
        String::new()
    } else {
        format!(" ({reason})")
    };
    format!(
        "Stopped: this name is playing on another connection now{why}, a krypto \
         or a browser under the same name. Run the command again to take it back."
    )
}

/// `line` printed, then the end of a command that did not end as it should.
fn last_words(line: String) -> Vec<Step> {
    vec![Step::Print(line), Step::Done(false)]
}

/// A `YYYY-MM-DD` day from the command line.
pub fn parse_date(text: &str) -> Result<chrono::NaiveDate, UsageError> {
    chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .map_err(|_| UsageError(format!("{text:?} is not a day: write it YYYY-MM-DD")))
}

fn play(mode: Mode, player: &PlayerArgs, json: bool) -> anyhow::Result<bool> {
    let target = crate::play::target(player.server.as_deref(), player.name.as_deref())?;
    let base = config::http_base(&target.server)?;
    let mut session = Session::new(mode, &base);
    drive(&target, json, |input| session.handle(input))
}

/// The run loop of every command here: `state` takes each input and says
/// what to do.
fn drive(
    target: &Target,
    json: bool,
    mut state: impl FnMut(Input) -> Vec<Step>,
) -> anyhow::Result<bool> {
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let result = runtime.block_on(async move {
        let (tx, mut rx) = mpsc::channel::<Event>(crate::play::net::QUEUE);
        let net = target.connect(tx.clone());
        crate::play::spawn_ticks(tx.clone(), TICK, Event::Tick);
        crate::play::spawn_lines(tx, Event::Line, Event::InputClosed);
        let mut out = std::io::stdout();
        while let Some(event) = rx.recv().await {
            let steps = match event {
                Event::Net(NetEvent::Message { envelope, raw }) => {
                    if json {
                        writeln!(out, "{raw}")?;
                    }
                    state(Input::Server(Box::new(envelope.message)))
                }
                Event::Net(NetEvent::Disconnected { reason, .. }) => state(Input::Dropped(reason)),
                Event::Net(NetEvent::Home { .. }) => continue,
                // The connection is over for good, and so is the command,
                // whatever the state was doing.
                Event::Net(NetEvent::Refused { message, .. }) => {
                    last_words(format!("The server refused us: {message}"))
                }
                Event::Net(NetEvent::Replaced { reason }) => last_words(replaced(&reason)),
                Event::Line(line) => state(Input::Line(line)),
                Event::InputClosed => state(Input::Closed),
                Event::Tick(now) => state(Input::Tick(now)),
            };
            for step in steps {
                match step {
                    Step::Print(line) if json => eprintln!("{line}"),
                    Step::Print(line) => writeln!(out, "{line}")?,
                    Step::Send(message) => net.send(message),
                    Step::Save { name, token } => {
                        if let Err(e) = target.save(&name, &token) {
                            eprintln!("could not save the token: {e:#}");
                        }
                    }
                    Step::Done(ok) => {
                        out.flush()?;
                        return Ok(ok);
                    }
                }
            }
            out.flush()?;
        }
        Ok(false)
    });
    // Standard input's reader may be blocked in a read that never ends.
    runtime.shutdown_background();
    result
}
