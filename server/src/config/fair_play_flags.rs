//! The fair-play thresholds as server flags: one flag per field of
//! `krypto_core::fair_play::FairPlaySettings`, whose defaults are
//! krypto-core's (never typed again here). Why each default is what it is:
//! docs/design.md ("Fair play: the signals").

use krypto_core::fair_play::{
    FairPlaySettings, FloorSettings, HardHandSettings, RegularitySettings, ThresholdError,
};

/// The thresholds of the fair-play signals, each a flag.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct FairPlayFlags {
    /// Human floor of an answer: the reaction part, in milliseconds (the
    /// floor is react + read + token × the answer's tokens).
    #[arg(long = "fair-play-react-ms", env = "KRYPTO_FAIR_PLAY_REACT_MS",
          default_value_t = FloorSettings::default().react_ms)]
    pub react_ms: u64,
    /// Human floor of an answer: reading the hand, in milliseconds.
    #[arg(long = "fair-play-read-ms", env = "KRYPTO_FAIR_PLAY_READ_MS",
          default_value_t = FloorSettings::default().read_ms)]
    pub read_ms: u64,
    /// Human floor of an answer: entering one token, in milliseconds.
    #[arg(long = "fair-play-token-ms", env = "KRYPTO_FAIR_PLAY_TOKEN_MS",
          default_value_t = FloorSettings::default().token_ms)]
    pub token_ms: u64,
    /// Flag this many answers under the human floor ...
    #[arg(long = "fair-play-floor-count", env = "KRYPTO_FAIR_PLAY_FLOOR_COUNT",
          default_value_t = FloorSettings::default().count)]
    pub floor_count: u32,
    /// ... within this many consecutive right answers.
    #[arg(long = "fair-play-floor-window", env = "KRYPTO_FAIR_PLAY_FLOOR_WINDOW",
          default_value_t = FloorSettings::default().window)]
    pub floor_window: u32,
    /// Too regular: answer times measured over this many right answers ...
    #[arg(long = "fair-play-regularity-window", env = "KRYPTO_FAIR_PLAY_REGULARITY_WINDOW",
          default_value_t = RegularitySettings::default().window)]
    pub regularity_window: u32,
    /// ... flagged when their coefficient of variation is below this, in
    /// thousandths ...
    #[arg(long = "fair-play-max-cv-permille", env = "KRYPTO_FAIR_PLAY_MAX_CV_PERMILLE",
          default_value_t = RegularitySettings::default().max_cv_permille)]
    pub max_cv_permille: u32,
    /// ... with this many milliseconds added to each time first.
    #[arg(long = "fair-play-offset-ms", env = "KRYPTO_FAIR_PLAY_OFFSET_MS",
          default_value_t = RegularitySettings::default().offset_ms)]
    pub offset_ms: u64,
    /// Hard hands: an answer faster than this, in milliseconds, is fast ...
    #[arg(long = "fair-play-hard-fast-ms", env = "KRYPTO_FAIR_PLAY_HARD_FAST_MS",
          default_value_t = HardHandSettings::default().fast_ms)]
    pub hard_fast_ms: u64,
    /// ... flagged when this many of them ...
    #[arg(long = "fair-play-hard-count", env = "KRYPTO_FAIR_PLAY_HARD_COUNT",
          default_value_t = HardHandSettings::default().count)]
    pub hard_count: u32,
    /// ... fall within this many consecutive right answers to hard hands.
    #[arg(long = "fair-play-hard-window", env = "KRYPTO_FAIR_PLAY_HARD_WINDOW",
          default_value_t = HardHandSettings::default().window)]
    pub hard_window: u32,
}

impl FairPlayFlags {
    /// The thresholds, checked: a set that would flag everyone or no one,
    /// or overflow, is refused at the start.
    pub fn settings(&self) -> Result<FairPlaySettings, ThresholdError> {
        let settings = FairPlaySettings {
            floor: FloorSettings {
                react_ms: self.react_ms,
                read_ms: self.read_ms,
                token_ms: self.token_ms,
                window: self.floor_window,
                count: self.floor_count,
            },
            regularity: RegularitySettings {
                window: self.regularity_window,
                max_cv_permille: self.max_cv_permille,
                offset_ms: self.offset_ms,
            },
            hard_hands: HardHandSettings {
                fast_ms: self.hard_fast_ms,
                window: self.hard_window,
                count: self.hard_count,
            },
        };
        settings.validate()?;
        Ok(settings)
    }
}

impl From<FairPlaySettings> for FairPlayFlags {
    fn from(s: FairPlaySettings) -> Self {
        FairPlayFlags {
            react_ms: s.floor.react_ms,
            read_ms: s.floor.read_ms,
            token_ms: s.floor.token_ms,
            floor_count: s.floor.count,
            floor_window: s.floor.window,
            regularity_window: s.regularity.window,
            max_cv_permille: s.regularity.max_cv_permille,
            offset_ms: s.regularity.offset_ms,
            hard_fast_ms: s.hard_hands.fast_ms,
            hard_count: s.hard_hands.count,
            hard_window: s.hard_hands.window,
        }
    }
}
