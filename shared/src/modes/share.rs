//! The share line: what a player pastes into a chat after the daily. It
//! tells the number, the time, the misses and the streak, and nothing of
//! the hand or its solution.
//!
//! `Krypto #312 ✓ 0:42 · 1 miss · 🔥5`, then the server's link on a line of
//! its own when there is one. Its parts, in order, joined by ` · `:
//!
//! - `Krypto #N ✓ TIME`: only solved days are shared; the time as
//!   [`clock_text`] writes it, penalties included.
//! - `1 miss` / `N misses`, left out when there were none: a clean solve
//!   reads shortest, and "0 misses" would only be noise in a chat.
//! - `🔥N`, the streak, left out when it is 0 (a past day from the archive
//!   counts for no streak).

use std::fmt::Write;

/// Writes a time as a stopwatch does, whole seconds rounded down: `0:42`,
/// `12:05`, and `1:02:03` from an hour on.
pub fn clock_text(ms: u64) -> String {
    let seconds = ms / 1000;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// A solved daily, as it is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShareLine {
    /// The daily's number.
    pub number: u32,
    /// The time, penalties included.
    pub elapsed_ms: u64,
    /// Wrong answers.
    pub misses: u32,
    /// The streak after this day; 0 for an unrated day.
    pub streak: u32,
}

impl ShareLine {
    /// The text to copy; `link` (the server's address of the daily, or a
    /// challenge's) goes on a second line.
    pub fn text(&self, link: Option<&str>) -> String {
        let mut out = format!("Krypto #{} ✓ {}", self.number, clock_text(self.elapsed_ms));
        match self.misses {
            0 => {}
            1 => out.push_str(" · 1 miss"),
            n => {
                let _ = write!(out, " · {n} misses");
            }
        }
        if self.streak > 0 {
            let _ = write!(out, " · 🔥{}", self.streak);
        }
        if let Some(link) = link.filter(|l| !l.is_empty()) {
            out.push('\n');
            out.push_str(link);
        }
        out
    }
}
