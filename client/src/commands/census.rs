//! `krypto census`: how many games of a whole variant have no solution.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::time::Instant;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use krypto_core::solver::census::{self, CensusConfig, DeckMode, Variant};
use krypto_core::solver::SolveError;
use krypto_core::Rules;
use serde::Serialize;

use super::Outcome;
use crate::cli::{CensusArgs, UsageError};

/// The `--json` answer; field names are part of the contract.
#[derive(Debug, Serialize)]
struct Report {
    /// `krypto`, `24` or `countdown`.
    variant: &'static str,
    /// The rule set, by name.
    rules: Rules,
    /// `unbounded` or `krypto`.
    deck: &'static str,
    /// Distinct card multisets considered.
    hands: u64,
    /// Games (hand and target) considered.
    games: u64,
    /// Games with a solution.
    solvable: u64,
    /// Games without one.
    unsolvable: u64,
    /// For deck-dealt censuses, the chance a random deal is solvable.
    solvable_probability: Option<f64>,
    /// Wall-clock time of the census itself.
    seconds: f64,
}

/// Runs the census and prints the counts.
pub fn run(args: &CensusArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let cfg = config(args);
    let bar = progress_bar();
    let progress = |done: u64, total: u64| {
        if let Some(bar) = &bar {
            bar.set_length(total);
            bar.set_position(done);
        }
    };
    let started = Instant::now();
    let result = census::run(&cfg, &progress).map_err(|e| match e {
        SolveError::InvalidCensus(_) => anyhow::Error::new(UsageError(e.to_string())),
        other => anyhow::Error::new(other),
    })?;
    let seconds = started.elapsed().as_secs_f64();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(path) = &args.unsolvable {
        let write = || -> std::io::Result<()> {
            let mut file = BufWriter::new(File::create(path)?);
            for (cards, target) in &result.unsolvable_games {
                let cards: Vec<String> = cards.iter().map(i64::to_string).collect();
                writeln!(file, "{} : {target}", cards.join(" "))?;
            }
            file.flush()
        };
        write().with_context(|| format!("cannot write {}", path.display()))?;
    }
    let report = Report {
        variant: cfg.variant.as_str(),
        rules: cfg.rules,
        deck: cfg.deck.as_str(),
        hands: result.hands,
        games: result.games,
        solvable: result.solvable,
        unsolvable: result.unsolvable,
        solvable_probability: result.solvable_probability,
        seconds,
    };
    if args.json {
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        print_human(out, &cfg, &report)?;
    }
    Ok(Outcome::Yes)
}

/// The variant's defaults, overridden by whatever flags were given.
fn config(args: &CensusArgs) -> CensusConfig {
    let mut cfg = CensusConfig::defaults(args.variant);
    cfg.deck = args.deck;
    if let Some(rules) = args.rules {
        cfg.rules = rules;
    }
    if let Some(n) = args.cards {
        cfg.cards = n;
    }
    if let Some(max) = args.max {
        cfg.max = max;
    }
    if let Some(targets) = &args.targets {
        cfg.targets = targets.0.clone();
    }
    cfg.collect_unsolvable = args.unsolvable.is_some();
    cfg
}

/// A bar on stderr when a person is watching; nothing when piped.
fn progress_bar() -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(0);
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {percent:>3}% {elapsed} (eta {eta})")
    {
        bar.set_style(style);
    }
    Some(bar)
}

fn print_human(out: &mut impl Write, cfg: &CensusConfig, r: &Report) -> std::io::Result<()> {
    let deck = match (cfg.variant, cfg.deck) {
        (Variant::Countdown, _) => "the 24 tiles".to_owned(),
        (_, DeckMode::Krypto) => "dealt from the deck".to_owned(),
        (_, DeckMode::Unbounded) => format!("values 1–{}", cfg.max),
    };
    writeln!(
        out,
        "{} census, {} rules: {} cards, {deck}, targets {}–{}",
        r.variant,
        r.rules,
        cfg.cards,
        cfg.targets.start(),
        cfg.targets.end()
    )?;
    writeln!(out, "hands       {}", r.hands)?;
    writeln!(out, "games       {}", r.games)?;
    writeln!(out, "solvable    {}", r.solvable)?;
    writeln!(out, "unsolvable  {}", r.unsolvable)?;
    if let Some(p) = r.solvable_probability {
        writeln!(out, "a random deal is solvable with probability {p:.6}")?;
    }
    writeln!(out, "in {:.2} s", r.seconds)
}
