//! `krypto-load`: parses flags, raises the open-files limit, runs the load
//! generator (rooms, or with `daily` the daily's rush) and prints its
//! report. Exits 0 when the run was clean (no errors, disconnects or lost
//! verdicts; for the rush, every player solved and every result recorded),
//! 1 when it was not, 2 on bad flags.

use std::process::ExitCode;

use clap::Parser;
use krypto_client::load::cli::{Args, DailyArgs, Mode};
use krypto_client::load::{self, system, LoadError};

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(Mode::Daily(daily)) = &args.mode {
        return rush(daily);
    }
    let config = args.to_config();
    let Some(runtime) = ready(config.validate(), args.quiet) else {
        return ExitCode::from(2);
    };
    let report = match runtime.block_on(load::run(config)) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    print(args.json, || report.to_json(), &report);
    if let Some(path) = &args.won_rounds {
        if let Err(e) = std::fs::write(path, report.won_rounds_lines()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    verdict(report.is_clean())
}

/// `krypto-load daily`.
fn rush(args: &DailyArgs) -> ExitCode {
    let config = args.to_config();
    let Some(runtime) = ready(config.validate(), args.quiet) else {
        return ExitCode::from(2);
    };
    let report = match runtime.block_on(load::daily::run(config)) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    print(args.json, || report.to_json(), &report);
    verdict(report.is_clean())
}

/// Once the flags are `valid`: lifts the soft limit of open files to the
/// hard one (every player is a socket) and starts the runtime every
/// player's task runs on. `None`, said, when the flags are bad or the
/// runtime cannot start.
fn ready(valid: Result<(), LoadError>, quiet: bool) -> Option<tokio::runtime::Runtime> {
    if let Err(e) = valid {
        eprintln!("error: {e}");
        return None;
    }
    match system::raise_open_files_limit() {
        Ok(limit) if !quiet => eprintln!("open files limit: {limit}"),
        Ok(_) => {}
        Err(e) => eprintln!("warning: cannot raise the open files limit: {e}"),
    }
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => Some(rt),
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            None
        }
    }
}

/// Prints a report as JSON or as text.
fn print(json: bool, to_json: impl FnOnce() -> String, text: &impl std::fmt::Display) {
    if json {
        println!("{}", to_json());
    } else {
        println!("{text}");
    }
}

/// 0 for a clean run, 1 otherwise.
fn verdict(clean: bool) -> ExitCode {
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
