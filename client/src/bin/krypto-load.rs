//! `krypto-load`: parses flags, raises the open-files limit, runs the load
//! generator (rooms, or with `daily` the daily's rush) and prints its
//! report. Exits 0 when the run was clean (no errors, disconnects or lost
//! verdicts; for the rush, every player solved and every result recorded),
//! 1 when it was not, 2 on bad flags.

use std::process::ExitCode;

use clap::Parser;
use krypto_client::load::cli::{Args, DailyArgs, Mode};
use krypto_client::load::{self, system};

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(Mode::Daily(daily)) = &args.mode {
        return rush(daily);
    }
    let config = args.to_config();
    if let Err(e) = config.validate() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    // Every player is a socket: lift the soft limit of open files to the
    // hard one before opening thousands of them.
    match system::raise_open_files_limit() {
        Ok(limit) if !args.quiet => eprintln!("open files limit: {limit}"),
        Ok(_) => {}
        Err(e) => eprintln!("warning: cannot raise the open files limit: {e}"),
    }
    let Some(runtime) = runtime() else {
        return ExitCode::from(2);
    };
    let report = match runtime.block_on(load::run(config)) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if args.json {
        println!("{}", report.to_json());
    } else {
        println!("{report}");
    }
    if let Some(path) = &args.won_rounds {
        if let Err(e) = std::fs::write(path, report.won_rounds_lines()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The runtime every player's task runs on (`None`, said, if it cannot
/// start).
fn runtime() -> Option<tokio::runtime::Runtime> {
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

/// `krypto-load daily`.
fn rush(args: &DailyArgs) -> ExitCode {
    let config = args.to_config();
    if let Err(e) = config.validate() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    match system::raise_open_files_limit() {
        Ok(limit) if !args.quiet => eprintln!("open files limit: {limit}"),
        Ok(_) => {}
        Err(e) => eprintln!("warning: cannot raise the open files limit: {e}"),
    }
    let Some(runtime) = runtime() else {
        return ExitCode::from(2);
    };
    let report = match runtime.block_on(load::daily::run(config)) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if args.json {
        println!("{}", report.to_json());
    } else {
        println!("{report}");
    }
    if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
