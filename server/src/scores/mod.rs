//! Scores: the one writer (the recorder, with its journal for database
//! outages), the ratings, the calendar periods of the boards, and the
//! leaderboards with the copy in memory they are served from; [`rated_play`]:
//! rated matches on their way to the fair-play signals; [`recap`]: a match
//! told round by round; [`retention`]: old wrong answers pruned into counts.

pub mod board_cache;
pub mod journal;
pub mod leaderboard;
pub mod rated_play;
pub mod recap;
pub mod recorder;
pub mod retention;

/// The boards' calendar and the ratings are game rules, kept in krypto-core.
pub use krypto_core::{periods, ratings};
