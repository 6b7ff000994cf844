//! The `krypto` command line: parses flags, runs one command, and turns its
//! answer into the exit status the contract fixes (0 yes, 1 no, 2 usage).

mod bots;
mod cli;
mod commands;
mod play;
mod solo;

use std::io::StdoutLock;
use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};
use commands::Outcome;

fn main() -> ExitCode {
    // clap prints its own usage errors and exits with status 2.
    let cli = Cli::parse();
    let mut out = std::io::stdout().lock();
    let result = match &cli.command {
        Command::Check(args) => commands::check::run(args, &mut out),
        Command::Deal(args) => commands::deal::run(args, &mut out),
        Command::Solve(args) => commands::solve::run(args, &mut out),
        Command::Census(args) => commands::census::run(args, &mut out),
        Command::Play(args) => return live(out, || play::run(args)),
        Command::Leaderboard(args) => commands::leaderboard::run(args, &mut out),
        Command::Profile(args) => commands::profile::run(args, &mut out),
        Command::Match(args) => commands::match_recap::run(args, &mut out),
        Command::Bots(args) => return live(out, || bots::run(args)),
        Command::Daily(args) if args.board => solo::board::run(args, &mut out),
        Command::Daily(args) => return live(out, || solo::daily(args)),
        Command::Run(args) if args.board => solo::board::runs(args, &mut out),
        Command::Run(args) => return live(out, || solo::run(args)),
        Command::Challenge(args) => return live(out, || solo::challenge(args)),
        Command::Practice(args) => return live(out, || solo::practice(args)),
    };
    match result {
        Ok(Outcome::Yes) => ExitCode::SUCCESS,
        Ok(Outcome::No) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs a live command, which prints as it goes (standard output is
/// unlocked for it first); its exit status: 0 when it ended normally, 1
/// when the server refused us, 2 on an error.
fn live(out: StdoutLock<'_>, run: impl FnOnce() -> anyhow::Result<bool>) -> ExitCode {
    drop(out);
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
