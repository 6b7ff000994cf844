//! How long attempts are kept one by one (docs/design.md, "Retention of
//! attempts"): every flag of the pruner.

use std::time::Duration;

/// The retention of attempts, each a flag.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct RetentionFlags {
    /// Days a wrong answer is kept one by one; then it is deleted and
    /// counted per player and round (the recap shows the count). Right
    /// answers are always kept. 0 keeps none past the next pruning.
    #[arg(
        long = "attempts-retention-days",
        env = "KRYPTO_ATTEMPTS_RETENTION_DAYS",
        default_value_t = 7
    )]
    pub days: u32,
    /// Seconds between two prunings (each deletes at most
    /// `--attempts-prune-batch` rows per statement, a bounded number of times).
    #[arg(
        long = "attempts-prune-every-secs",
        value_name = "ATTEMPTS_PRUNE_EVERY_SECS",
        env = "KRYPTO_ATTEMPTS_PRUNE_EVERY_SECS",
        default_value = "600",
        value_parser = seconds
    )]
    pub every: Duration,
    /// Wrong answers deleted per statement (one short transaction each).
    #[arg(
        long = "attempts-prune-batch",
        env = "KRYPTO_ATTEMPTS_PRUNE_BATCH",
        default_value_t = 2_000,
        value_parser = clap::value_parser!(u32).range(1..=100_000)
    )]
    pub batch: u32,
}

impl RetentionFlags {
    /// The pruner's settings.
    pub fn settings(&self) -> crate::scores::retention::Retention {
        crate::scores::retention::Retention {
            days: self.days,
            every: self.every,
            batch: self.batch,
        }
    }
}

fn seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(Duration::from_secs(n)),
        _ => Err("a whole number of seconds, at least 1".into()),
    }
}
