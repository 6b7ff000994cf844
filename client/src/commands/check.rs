//! `krypto check`: judges a formula exactly as the server does.

use std::io::Write;

use krypto_core::formula::{self, ErrorKind, FormulaError};
use serde::Serialize;

use super::Outcome;
use crate::cli::{parse_card, CheckArgs, UsageError};

/// The `--json` answer; field names are part of the contract.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// Whether the formula solves the game.
    valid: bool,
    /// Its exact value ("17", "17/3") whenever it could be computed under
    /// the rule set, even if it is not the objective.
    value: Option<String>,
    /// Why it was refused.
    error: Option<&'a FormulaError>,
}

/// Checks the formula and prints the verdict.
pub fn run(args: &CheckArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let (cards, formula) = split_cards_and_formula(args)?;
    let result = formula::check(&formula, &cards, args.target, args.rules);
    let value = match &result {
        Ok(v) => Some(*v),
        Err(e) if e.kind == ErrorKind::WrongValue => formula::parse(&formula)
            .ok()
            .and_then(|p| p.evaluate(args.rules).ok()),
        Err(_) => None,
    };
    let error = result.as_ref().err();
    if args.json {
        let report = Report {
            valid: error.is_none(),
            value: value.map(|v| v.to_string()),
            error,
        };
        serde_json::to_writer(&mut *out, &report)?;
        writeln!(out)?;
    } else {
        match error {
            None => writeln!(out, "valid: {formula} = {}", args.target)?,
            Some(e) => print_refusal(out, &formula, e)?,
        }
    }
    Ok(if error.is_none() {
        Outcome::Yes
    } else {
        Outcome::No
    })
}

/// Separates the hand from the formula: the formula is the positional
/// argument, or else the last value clap gathered after `--cards`.
fn split_cards_and_formula(args: &CheckArgs) -> Result<(Vec<i64>, String), UsageError> {
    let mut texts: Vec<&str> = args.cards.iter().map(String::as_str).collect();
    let formula = match &args.formula {
        Some(f) => f.clone(),
        // A bare number after --cards is a card, not a formula: without a
        // formula there is nothing to judge (a usage error, not "invalid").
        None => match texts.pop() {
            Some(f) if !texts.is_empty() && f.trim().parse::<i64>().is_err() => f.to_owned(),
            _ => {
                return Err(UsageError(
                    "missing FORMULA: give the hand with --cards and then the formula".to_owned(),
                ))
            }
        },
    };
    let cards = texts
        .iter()
        .map(|t| parse_card(t))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((cards, formula))
}

/// The refusal in words, with a caret under the column it names.
fn print_refusal(out: &mut impl Write, formula: &str, e: &FormulaError) -> std::io::Result<()> {
    match e.column {
        Some(column) => {
            writeln!(
                out,
                "invalid ({}) at column {column}: {}",
                e.kind, e.message
            )?;
            // Tabs would throw the caret off; columns count them as one.
            let shown: String = formula
                .chars()
                .map(|c| if c.is_whitespace() { ' ' } else { c })
                .collect();
            writeln!(out, "  {shown}")?;
            writeln!(out, "  {}^", " ".repeat(column.saturating_sub(1)))
        }
        None => writeln!(out, "invalid ({}): {}", e.kind, e.message),
    }
}
