//! `krypto deal`: an objective and a hand, reproducible with `--seed`.

use std::io::Write;

use krypto_core::cards::Deal;

use super::Outcome;
use crate::cli::DealArgs;

/// Deals and prints one game.
pub fn run(args: &DealArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let deal = match args.seed {
        Some(seed) => Deal::from_seed(seed),
        None => Deal::random(),
    };
    if args.json {
        serde_json::to_writer(&mut *out, &deal)?;
        writeln!(out)?;
    } else {
        let hand: Vec<String> = deal.hand.iter().map(i64::to_string).collect();
        writeln!(
            out,
            "Objective {}   Hand {}",
            deal.objective,
            hand.join(" ")
        )?;
    }
    Ok(Outcome::Yes)
}
