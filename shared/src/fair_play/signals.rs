//! The three signals, each a pure function over a player's right answers in
//! the order they were given, each returning the evidence a reviewer reads:
//! the answers concerned, their times and the floor of each.
//!
//! Every signal looks at every window of the answers it is given and reports
//! the latest that meets its threshold, so it does not matter how often the
//! server asks, only which answers it passes.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::answer::Answer;
use super::settings::{FloorSettings, HardHandSettings, RegularitySettings};
use crate::settings::Difficulty;

/// One answer as shown in evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exhibit {
    /// The answer.
    pub answer: Answer,
    /// Its human floor under the settings assessed with.
    pub floor_ms: u64,
    /// Whether the signal counted it (under the floor, or a hard hand
    /// answered fast); every answer of a regularity window counts.
    pub counted: bool,
}

/// Answers under the human floor: `under` of them within `window`
/// consecutive right answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FloorEvidence {
    /// The right answers from the first to the last one counted.
    pub answers: Vec<Exhibit>,
    /// How many of them came in under their floor.
    pub under: u32,
    /// The window they fell within.
    pub window: u32,
}

/// Answer times too even: their coefficient of variation over a window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegularityEvidence {
    /// The window's right answers.
    pub answers: Vec<Exhibit>,
    /// Their mean time (without the offset), rounded down.
    pub mean_ms: u64,
    /// Their coefficient of variation (with the offset), in thousandths
    /// rounded down, for reading; the decision is exact.
    pub cv_permille: u64,
    /// The threshold it is below.
    pub max_cv_permille: u32,
}

/// Hard hands answered fast: `fast` of them within `window` consecutive
/// right answers to hard hands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HardEvidence {
    /// The right answers to hard hands from the first to the last one
    /// counted (answers to other hands left out).
    pub answers: Vec<Exhibit>,
    /// How many of them came in under `fast_ms`.
    pub fast: u32,
    /// The window they fell within.
    pub window: u32,
    /// What counted as fast.
    pub fast_ms: u64,
}

/// The latest run of `count` counted answers within `window` consecutive
/// ones (`counted[i]` says whether `answers[i]` counts), as exhibits.
fn latest_run<A: std::borrow::Borrow<Answer>>(
    answers: &[A],
    counted: &[bool],
    count: u32,
    window: u32,
    floor: &FloorSettings,
) -> Option<Vec<Exhibit>> {
    let (first, last) = latest_dense_run(counted, count, window)?;
    let shown = answers.get(first..=last)?;
    Some(
        shown
            .iter()
            .zip(&counted[first..=last])
            .map(|(a, &counted)| exhibit(a.borrow(), floor, counted))
            .collect(),
    )
}

/// Answers under their human floor: the latest run of `settings.count` such
/// answers within `settings.window` consecutive right answers, if any.
pub fn under_floor(answers: &[Answer], settings: &FloorSettings) -> Option<FloorEvidence> {
    let under: Vec<bool> = answers
        .iter()
        .map(|a| a.elapsed_ms < settings.floor_ms(a))
        .collect();
    Some(FloorEvidence {
        answers: latest_run(answers, &under, settings.count, settings.window, settings)?,
        under: settings.count,
        window: settings.window,
    })
}

/// Times too regular: the latest `settings.window` consecutive right
/// answers whose coefficient of variation is below the threshold, if any.
pub fn too_regular(
    answers: &[Answer],
    settings: &RegularitySettings,
    floor: &FloorSettings,
) -> Option<RegularityEvidence> {
    let window = usize::try_from(settings.window).ok()?;
    if window < 2 || answers.len() < window {
        return None;
    }
    let times: Vec<u128> = answers
        .iter()
        .map(|a| measured(a.elapsed_ms, settings.offset_ms))
        .collect();
    // Prefix sums of the times and their squares: each window in O(1).
    let mut sums = vec![(0u128, 0u128)];
    for &x in &times {
        let (s, q) = sums[sums.len() - 1];
        sums.push((s + x, q + x * x));
    }
    let n = window as u128;
    for end in (window..=answers.len()).rev() {
        let (s, q) = (
            sums[end].0 - sums[end - window].0,
            sums[end].1 - sums[end - window].1,
        );
        if below_cv(n, s, q, settings.max_cv_permille) {
            let shown = &answers[end - window..end];
            let elapsed: u128 = shown.iter().map(|a| u128::from(a.elapsed_ms)).sum();
            return Some(RegularityEvidence {
                answers: shown.iter().map(|a| exhibit(a, floor, true)).collect(),
                mean_ms: u64::try_from(elapsed / n).unwrap_or(u64::MAX),
                cv_permille: cv_permille_of(n, s, q),
                max_cv_permille: settings.max_cv_permille,
            });
        }
    }
    None
}

/// Hard hands answered fast: the latest run of `settings.count` right
/// answers to hard hands under `settings.fast_ms` within `settings.window`
/// consecutive right answers to hard hands, if any.
pub fn hard_hands(
    answers: &[Answer],
    settings: &HardHandSettings,
    floor: &FloorSettings,
) -> Option<HardEvidence> {
    let hard: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.band == Difficulty::Hard)
        .collect();
    let fast: Vec<bool> = hard
        .iter()
        .map(|a| a.elapsed_ms < settings.fast_ms)
        .collect();
    Some(HardEvidence {
        answers: latest_run(&hard, &fast, settings.count, settings.window, floor)?,
        fast: settings.count,
        window: settings.window,
        fast_ms: settings.fast_ms,
    })
}

/// The coefficient of variation (sample standard deviation over mean) of
/// `times_ms`, each plus `offset_ms`, in thousandths rounded down; `None`
/// for fewer than two times or a zero mean. For reading: the signal decides
/// exactly.
pub fn cv_permille(times_ms: &[u64], offset_ms: u64) -> Option<u64> {
    if times_ms.len() < 2 {
        return None;
    }
    let (s, q) = times_ms
        .iter()
        .map(|&t| measured(t, offset_ms))
        .fold((0u128, 0u128), |(s, q), x| (s + x, q + x * x));
    (s > 0).then(|| cv_permille_of(times_ms.len() as u128, s, q))
}

/// A time as measured for the variation: capped at a day (a longer round
/// is no more telling, and the cap keeps the exact sums far from overflow),
/// plus the offset, capped likewise.
fn measured(elapsed_ms: u64, offset_ms: u64) -> u128 {
    const DAY_MS: u64 = 86_400_000;
    u128::from(elapsed_ms.min(DAY_MS)) + u128::from(offset_ms.min(DAY_MS))
}

/// Whether `n` times summing to `s`, their squares to `q`, have a
/// coefficient of variation below `max_permille`/1000, exactly:
///
/// cv² = variance / mean² = n·(n·q − s²) / ((n − 1)·s²), so
/// cv < p/1000  ⇔  1000²·n·(n·q − s²) < p²·(n − 1)·s².
///
/// An overflow (impossible within the validated settings) flags nothing.
fn below_cv(n: u128, s: u128, q: u128, max_permille: u32) -> bool {
    let spread = n.checked_mul(q).and_then(|nq| nq.checked_sub(s * s));
    let left = spread
        .and_then(|d| d.checked_mul(n))
        .and_then(|d| d.checked_mul(1_000_000));
    let p = u128::from(max_permille);
    let right = s
        .checked_mul(s)
        .and_then(|s2| s2.checked_mul(n - 1))
        .and_then(|r| r.checked_mul(p * p));
    matches!((left, right), (Some(l), Some(r)) if l < r)
}

/// ⌊1000·cv⌋ = ⌊√(1000²·n·(n·q − s²) / ((n − 1)·s²))⌋.
fn cv_permille_of(n: u128, s: u128, q: u128) -> u64 {
    let spread = (n * q).saturating_sub(s * s);
    let numerator = spread.saturating_mul(n).saturating_mul(1_000_000);
    let denominator = (n - 1).saturating_mul(s.saturating_mul(s)).max(1);
    u64::try_from((numerator / denominator).isqrt()).unwrap_or(u64::MAX)
}

/// The latest `count` hits spanning at most `window` positions: the
/// positions of the first and last of them.
fn latest_dense_run(hits: &[bool], count: u32, window: u32) -> Option<(usize, usize)> {
    let count = usize::try_from(count).ok()?;
    let window = usize::try_from(window).ok()?;
    if count == 0 {
        return None;
    }
    let at: Vec<usize> = (0..hits.len()).filter(|&i| hits[i]).collect();
    (count..=at.len()).rev().find_map(|end| {
        let (first, last) = (at[end - count], at[end - 1]);
        (last - first < window).then_some((first, last))
    })
}

fn exhibit(answer: &Answer, floor: &FloorSettings, counted: bool) -> Exhibit {
    Exhibit {
        answer: answer.clone(),
        floor_ms: floor.floor_ms(answer),
        counted,
    }
}

impl fmt::Display for FloorEvidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} right answers within {} in a row came faster than a person can read the hand and enter the answer:",
            self.under,
            self.window
        )?;
        for e in self.answers.iter().filter(|e| e.counted) {
            write!(
                f,
                " {} ms for {} tokens (floor {} ms);",
                e.answer.elapsed_ms, e.answer.tokens, e.floor_ms
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for RegularityEvidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} right answers in a row took {} ms on average with a coefficient of variation of {}.{:03} (below {}.{:03})",
            self.answers.len(),
            self.mean_ms,
            self.cv_permille / 1000,
            self.cv_permille % 1000,
            self.max_cv_permille / 1000,
            self.max_cv_permille % 1000
        )
    }
}

impl fmt::Display for HardEvidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} hard hands within {} in a row answered in under {} ms:",
            self.fast, self.window, self.fast_ms
        )?;
        for e in self.answers.iter().filter(|e| e.counted) {
            write!(
                f,
                " {} ms ({} solutions);",
                e.answer.elapsed_ms, e.answer.solutions
            )?;
        }
        Ok(())
    }
}
