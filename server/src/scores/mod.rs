//! Scores: the one writer (the recorder, with its journal for database
//! outages), the ratings, the calendar periods of the boards, and the
//! leaderboards with the copy in memory they are served from.

pub mod board_cache;
pub mod journal;
pub mod leaderboard;
pub mod recorder;

/// The boards' calendar and the ratings are game rules, kept in krypto-core.
pub use krypto_core::{periods, ratings};
