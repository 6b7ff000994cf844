//! The thresholds of the fair-play signals, with their defaults. The reasons
//! and measurements behind each default are in docs/design.md ("Fair play:
//! the signals"); the server exposes them as flags.

use serde::{Deserialize, Serialize};

use super::answer::Answer;

/// Every threshold of the signals. Missing fields take their defaults when
/// read with serde.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FairPlaySettings {
    /// Answers faster than a person can read the hand and enter the answer.
    pub floor: FloorSettings,
    /// Answer times too even to be a person's.
    pub regularity: RegularitySettings,
    /// The hardest hands solved fast too often.
    pub hard_hands: HardHandSettings,
}

/// The human floor of one answer is `react_ms + read_ms + token_ms ×
/// tokens`; the signal fires when `count` answers under their floor fall
/// within `window` consecutive right answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FloorSettings {
    /// Seeing that a hand is there at all: 100 ms, the limit under which
    /// athletics calls a start a false start.
    pub react_ms: u64,
    /// Taking in the hand's numbers: two of the shortest eye fixations of
    /// reading, 100 ms each.
    pub read_ms: u64,
    /// Entering one token: 40 ms, a keystroke at about 300 words a minute,
    /// above the fastest typing bursts reported.
    pub token_ms: u64,
    /// How many consecutive right answers the count is taken over.
    pub window: u32,
    /// How many answers under the floor within `window` raise the signal:
    /// one is never enough (a hand seen before, a clock's hiccup).
    pub count: u32,
}

impl Default for FloorSettings {
    fn default() -> Self {
        FloorSettings {
            react_ms: 100,
            read_ms: 200,
            token_ms: 40,
            window: 10,
            count: 3,
        }
    }
}

impl FloorSettings {
    /// The human floor for `answer`: no person reads its hand and enters
    /// its tokens faster.
    pub fn floor_ms(&self, answer: &Answer) -> u64 {
        self.react_ms
            .saturating_add(self.read_ms)
            .saturating_add(self.token_ms.saturating_mul(u64::from(answer.tokens)))
    }
}

/// The signal fires when the coefficient of variation (sample standard
/// deviation over mean) of `window` consecutive right answers' times, each
/// plus `offset_ms`, is below `max_cv_permille` thousandths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RegularitySettings {
    /// How many consecutive right answers the variation is measured over.
    pub window: u32,
    /// The variation below which times are too regular, in thousandths.
    pub max_cv_permille: u32,
    /// Added to each time before measuring, as lichess adds 0.1 s to move
    /// times, so a run of near-zero times is not all noise.
    pub offset_ms: u64,
}

impl Default for RegularitySettings {
    fn default() -> Self {
        RegularitySettings {
            window: 40,
            max_cv_permille: 80,
            offset_ms: 100,
        }
    }
}

/// The signal fires when `count` of `window` consecutive right answers to
/// hands of band `hard` came in under `fast_ms`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HardHandSettings {
    /// A hard hand answered in less than this is answered fast.
    pub fast_ms: u64,
    /// How many consecutive right answers to hard hands are looked at.
    pub window: u32,
    /// How many of them answered fast raise the signal.
    pub count: u32,
}

impl Default for HardHandSettings {
    fn default() -> Self {
        HardHandSettings {
            fast_ms: 3_000,
            window: 10,
            count: 5,
        }
    }
}

/// The largest window accepted: more answers than any player's recent play,
/// and small enough that the exact variance cannot overflow.
pub const MAX_WINDOW: u32 = 10_000;

/// The largest coefficient of variation accepted as a threshold, in
/// thousandths (10, far above any person's).
pub const MAX_CV_PERMILLE: u32 = 10_000;

/// A threshold that would flag everyone or no one, or overflow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThresholdError {
    /// A count of zero, or larger than its window.
    #[error("{signal}: the count must be from 1 to the window ({window}), not {count}")]
    Count {
        /// Which signal's setting.
        signal: &'static str,
        /// Its count.
        count: u32,
        /// Its window.
        window: u32,
    },
    /// A window too small to measure or too large to compute.
    #[error("{signal}: the window must be from {min} to {MAX_WINDOW}, not {window}")]
    Window {
        /// Which signal's setting.
        signal: &'static str,
        /// Its window.
        window: u32,
        /// The smallest window it accepts.
        min: u32,
    },
    /// A variation threshold beyond [`MAX_CV_PERMILLE`].
    #[error(
        "regularity: the coefficient of variation must be at most {MAX_CV_PERMILLE}‰, not {0}‰"
    )]
    Variation(u32),
}

impl FairPlaySettings {
    /// Whether the thresholds make sense: every count from 1 to its
    /// window, every window within [`MAX_WINDOW`] (the regularity's at least
    /// 2, to have a variance), the variation within [`MAX_CV_PERMILLE`].
    pub fn validate(&self) -> Result<(), ThresholdError> {
        let counted = [
            ("floor", self.floor.count, self.floor.window),
            ("hard_hands", self.hard_hands.count, self.hard_hands.window),
        ];
        for (signal, count, window) in counted {
            check_window(signal, window, 1)?;
            if count == 0 || count > window {
                return Err(ThresholdError::Count {
                    signal,
                    count,
                    window,
                });
            }
        }
        check_window("regularity", self.regularity.window, 2)?;
        if self.regularity.max_cv_permille > MAX_CV_PERMILLE {
            return Err(ThresholdError::Variation(self.regularity.max_cv_permille));
        }
        Ok(())
    }
}

fn check_window(signal: &'static str, window: u32, min: u32) -> Result<(), ThresholdError> {
    if (min..=MAX_WINDOW).contains(&window) {
        Ok(())
    } else {
        Err(ThresholdError::Window {
            signal,
            window,
            min,
        })
    }
}
