//! One file per offline subcommand. Each returns whether the answer was
//! positive (valid, solvable) so `main` can pick the exit status.

pub mod census;
pub mod check;
pub mod deal;
pub mod http;
pub mod leaderboard;
pub mod match_recap;
pub mod profile;
pub mod solve;

/// How a command that ran to completion answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Success, valid, solvable: exit status 0.
    Yes,
    /// Invalid formula or no solution: exit status 1.
    No,
}
