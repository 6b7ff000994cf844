//! krypto's side of `bench/peers`: writes seeded instance files and solves
//! them, timing only the solving. Not a criterion bench; `bench/peers` runs
//! it as
//!
//! ```text
//! cargo bench -p krypto-core --bench peers -- countdown-instances FIRST_SEED COUNT > FILE
//! cargo bench -p krypto-core --bench peers -- countdown REPS < FILE
//! ```
//!
//! An instance is a line of tiles followed by the target (`25 3 7 7 100 1 417`).
//! Solving prints one line per instance, `yes` when some subset of the tiles
//! makes the target exactly and `no` when none does, then `time_ns N`: the
//! wall-clock time of REPS passes over every instance. A peer's driver reads
//! and prints the same, so the answers can be compared line by line.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::time::Instant;

use krypto_core::cards::{seeded_rng, Deal, Deck};
use krypto_core::solver::{solve_all, solve_subset};
use krypto_core::Rules;
use rand::Rng;

fn main() -> ExitCode {
    // `cargo bench` adds `--bench`; flags are not ours.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["countdown-instances", first, count] => countdown_instances(first, count),
        ["krypto-instances", first, count] => krypto_instances(first, count),
        ["countdown", reps] => solve(reps, |tiles, target| {
            Ok(yes_no(
                solve_subset(tiles, target, Rules::Positive)?.is_some(),
            ))
        }),
        ["krypto-all", reps] => solve(reps, |hand, objective| {
            Ok(solve_all(hand, objective, Rules::Free)?.len().to_string())
        }),
        _ => Err(USAGE.into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("peers: {e}");
            ExitCode::from(2)
        }
    }
}

type Error = Box<dyn std::error::Error>;

const USAGE: &str = "usage: peers countdown-instances|krypto-instances FIRST_SEED COUNT > FILE
       peers countdown|krypto-all REPS < FILE";

fn yes_no(b: bool) -> String {
    String::from(if b { "yes" } else { "no" })
}

/// Countdown games as the solver bench draws them: game `s` is six of the
/// 24 tiles and a target 101–999 from `seeded_rng(s)`.
fn countdown_instances(first: &str, count: &str) -> Result<(), Error> {
    write_instances(first, count, |seed| {
        let mut rng = seeded_rng(seed);
        let tiles = Deck::countdown().draw(6, &mut rng);
        (tiles, rng.random_range(101..=999))
    })
}

/// Krypto deals as the solver bench deals them: `Deal::from_seed(s)`, five
/// cards and the objective.
fn krypto_instances(first: &str, count: &str) -> Result<(), Error> {
    write_instances(first, count, |seed| {
        let deal = Deal::from_seed(seed);
        (deal.hand, deal.objective)
    })
}

fn write_instances(
    first: &str,
    count: &str,
    game: impl Fn(u64) -> (Vec<i64>, i64),
) -> Result<(), Error> {
    let first: u64 = first.parse()?;
    let count: u64 = count.parse()?;
    let mut out = io::stdout().lock();
    for seed in first..first + count {
        let (cards, target) = game(seed);
        for c in cards {
            write!(out, "{c} ")?;
        }
        writeln!(out, "{target}")?;
    }
    Ok(())
}

/// Reads the instances on stdin, answers each REPS times with `answer`,
/// prints the last answers and the time.
fn solve(reps: &str, answer: impl Fn(&[i64], i64) -> Result<String, Error>) -> Result<(), Error> {
    let reps: u32 = reps.parse()?;
    let mut games: Vec<(Vec<i64>, i64)> = Vec::new();
    for line in io::stdin().lock().lines() {
        let line = line?;
        let numbers = line
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<Vec<i64>, _>>()?;
        match numbers.split_last() {
            Some((&target, cards)) if !cards.is_empty() => games.push((cards.to_vec(), target)),
            _ if numbers.is_empty() => {}
            _ => return Err(format!("not an instance: {line:?}").into()),
        }
    }
    let mut answers = vec![String::new(); games.len()];
    let start = Instant::now();
    for _ in 0..reps {
        for (i, (cards, target)) in games.iter().enumerate() {
            answers[i] = answer(cards, *target)?;
        }
    }
    let ns = start.elapsed().as_nanos();
    let mut out = io::stdout().lock();
    for a in answers {
        writeln!(out, "{a}")?;
    }
    writeln!(out, "time_ns {ns}")?;
    Ok(())
}
