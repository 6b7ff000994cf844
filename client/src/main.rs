//! The `krypto` command line: parses flags, runs one command, and turns its
//! answer into the exit status the contract fixes (0 yes, 1 no, 2 usage).

mod cli;
mod commands;

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
