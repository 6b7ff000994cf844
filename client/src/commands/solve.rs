//! `krypto solve`: one solution, every distinct solution, or their number;
//! optionally only APL-style chains, or any subset of the cards.

use std::io::Write;

use krypto_core::solver::{self, SolveError};
use krypto_core::Rules;
use serde::Serialize;

use super::Outcome;
use crate::cli::{SolveArgs, UsageError};

/// The `--json` answer; field names are part of the contract.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// The objective.
    target: i64,
    /// The hand, as given.
    cards: &'a [i64],
    /// The rule set, by name.
    rules: Rules,
    /// Whether any subset of the cards could be used (`--subset`).
    subset: bool,
    /// Whether any solution exists.
    solvable: bool,
    /// How many distinct solutions (or chains) there are, when `--all` or
    /// `--count` asked for it.
    count: Option<usize>,
    /// The solution shown, or every one with `--all`.
    solutions: Vec<String>,
}

/// Solves and prints the answer.
pub fn run(args: &SolveArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let (cards, target, rules) = (&args.cards[..], args.target, args.rules);
    let (count, solutions) = if args.chain {
        let all = solver::chains(cards, target, rules).map_err(usage)?;
        let count = (args.all || args.count).then_some(all.len());
        let shown = if args.all {
            all
        } else {
            all.into_iter().take(1).collect()
        };
        (count, shown)
    } else if args.all {
        let all = if args.subset {
            solver::solve_all_subsets(cards, target, rules)
        } else {
            solver::solve_all(cards, target, rules)
        };
        let shown: Vec<String> = all
            .map_err(usage)?
            .iter()
            .map(ToString::to_string)
            .collect();
        (Some(shown.len()), shown)
    } else {
        type Count = fn(&[i64], i64, Rules) -> Result<usize, SolveError>;
        let (one, count): (_, Count) = if args.subset {
            let one = solver::solve_subset(cards, target, rules);
            (one, solver::count_solutions_subsets)
        } else {
            (
                solver::solve_one(cards, target, rules),
                solver::count_solutions,
            )
        };
        let one = one.map_err(usage)?;
        let count = if args.count {
            Some(count(cards, target, rules).map_err(usage)?)
        } else {
            None
        };
        (count, one.iter().map(ToString::to_string).collect())
    };
    let solvable = !solutions.is_empty();
    if args.json {
        let report = Report {
            target,
            cards,
            rules,
            subset: args.subset,
            solvable,
            count,
            solutions,
        };
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        print_human(out, args, count, &solutions)?;
    }
    Ok(if solvable { Outcome::Yes } else { Outcome::No })
}

/// A hand the solver refuses (none, or too many cards) is the caller's
/// mistake; an overflow is reported the same way, as the answer is unknown.
fn usage(e: SolveError) -> anyhow::Error {
    match e {
        SolveError::NoCards | SolveError::TooManyCards { .. } => UsageError(e.to_string()).into(),
        other => anyhow::Error::new(other),
    }
}

fn print_human(
    out: &mut impl Write,
    args: &SolveArgs,
    count: Option<usize>,
    solutions: &[String],
) -> std::io::Result<()> {
    if solutions.is_empty() {
        let what = if args.chain {
            "no chain"
        } else if args.subset {
            "no solution from any subset of the cards"
        } else {
            "no solution"
        };
        return writeln!(out, "{what} under {} rules", args.rules);
    }
    if args.chain {
        writeln!(out, "chains, read right to left (APL style):")?;
    }
    for s in solutions {
        writeln!(out, "{s} = {}", args.target)?;
    }
    if let Some(n) = count {
        let noun = match (args.chain, n == 1) {
            (true, true) => "chain",
            (true, false) => "chains",
            (false, true) => "distinct solution",
            (false, false) => "distinct solutions",
        };
        writeln!(out, "{n} {noun}")?;
    }
    Ok(())
}
