//! The daily Krypto: one hand a day for everyone on a server, numbered from
//! the server's first day, by UTC day.
//!
//! The hand is dealt from a 32-byte secret the server generates once and
//! keeps (in its database, shared by every node): SHA-256 of a domain tag,
//! the secret and the date seeds a ChaCha20 generator, which draws from the
//! Krypto deck until a hand is solvable and "medium" by the distinct-solution
//! bands. The same secret and date give the same hand on every node and in
//! every release; without the secret, tomorrow's hand cannot be computed
//! from the source.
//!
//! A day is refused when it is before `#1` or still to come: [`Daily::deal`]
//! takes today's date and never deals a later one, whatever a client asks.

use std::fmt;

use chrono::{Days, NaiveDate};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::RULES;
use crate::cards::{secure_rng, Deal};
use crate::protocol::{Difficulty, Variant};
use crate::room::DifficultyBands;
use crate::solver;

/// Milliseconds in a UTC day (UTC has no leap seconds in Unix time).
pub const DAY_MS: u64 = 86_400_000;

/// 1970-01-01, the day Unix time counts from.
const EPOCH: NaiveDate = match NaiveDate::from_ymd_opt(1970, 1, 1) {
    Some(d) => d,
    None => NaiveDate::MIN,
};

/// The UTC date at `now_ms` (milliseconds since the Unix epoch). A clock
/// past the last date chrono can hold (the year 262,143) reads as that
/// date rather than failing.
pub fn utc_date(now_ms: u64) -> NaiveDate {
    EPOCH
        .checked_add_days(Days::new(now_ms / DAY_MS))
        .unwrap_or(NaiveDate::MAX)
}

/// The first millisecond of `date` (UTC), since the Unix epoch: when that
/// day's hand is dealt and the day before stops being rated. Dates before
/// the epoch read as 0.
pub fn day_start_ms(date: NaiveDate) -> u64 {
    let days = date.signed_duration_since(EPOCH).num_days();
    u64::try_from(days).map_or(0, |d| d.saturating_mul(DAY_MS))
}

/// Why a day has no daily hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum DayError {
    /// The day is still to come (UTC): it is never dealt early.
    #[error("the daily of {date} is not dealt yet (today is {today}, UTC)")]
    NotYet {
        /// The day asked for.
        date: NaiveDate,
        /// Today, UTC.
        today: NaiveDate,
    },
    /// The day is before the server's first day.
    #[error("{date} is before the first daily, #1 on {first_day}")]
    BeforeFirst {
        /// The day asked for.
        date: NaiveDate,
        /// The server's first day, `#1`.
        first_day: NaiveDate,
    },
    /// A number that is no daily's: 0, or beyond any date.
    #[error("there is no daily #{0}")]
    NoSuchNumber(u32),
}

/// The server's daily secret: 32 random bytes, generated once and kept,
/// never sent anywhere. `Debug` does not show it, so it cannot leak into
/// a log.
#[derive(Clone, PartialEq, Eq)]
pub struct DailySecret([u8; 32]);

impl DailySecret {
    /// A new secret from the operating system's generator, for a server's
    /// first start.
    pub fn generate() -> DailySecret {
        DailySecret(secure_rng().random())
    }

    /// The secret as stored.
    pub const fn from_bytes(bytes: [u8; 32]) -> DailySecret {
        DailySecret(bytes)
    }

    /// The bytes to store.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for DailySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DailySecret(…)")
    }
}

/// One day's hand, as the server deals it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DailyHand {
    /// `#1` for the server's first day.
    pub number: u32,
    /// The UTC day.
    pub date: NaiveDate,
    /// The objective and the five cards.
    pub deal: Deal,
    /// How many distinct solutions it has under [`RULES`].
    pub solutions: u64,
    /// Whether a result counts (streak, the day's board): only today's hand
    /// is rated; a past day from the archive is played for fun.
    pub rated: bool,
}

/// A server's daily: its first day and its secret. Cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Daily {
    first_day: NaiveDate,
    secret: DailySecret,
}

impl Daily {
    /// Domain tag hashed before the secret, so this hash can never collide
    /// with another use of the same secret; bump `v1` only to re-deal every
    /// day.
    const TAG: &'static [u8] = b"krypto daily v1\0";

    /// Draws tried for a medium hand before settling for the first solvable
    /// one seen. Medium is about a third of the solvable hands, so 500
    /// misses in a row happen with odds below 10^-80; the bound only keeps
    /// the deal total.
    pub const MAX_TRIES: usize = 500;

    /// The daily of a server whose `#1` is `first_day`.
    pub fn new(first_day: NaiveDate, secret: DailySecret) -> Daily {
        Daily { first_day, secret }
    }

    /// The server's first day, `#1`.
    pub fn first_day(&self) -> NaiveDate {
        self.first_day
    }

    /// The number of `date`'s daily: 1 on the first day, counting UTC days.
    /// A day before the first or after `today` has none.
    pub fn number(&self, date: NaiveDate, today: NaiveDate) -> Result<u32, DayError> {
        if date > today {
            return Err(DayError::NotYet { date, today });
        }
        let days = date.signed_duration_since(self.first_day).num_days();
        if days < 0 {
            return Err(DayError::BeforeFirst {
                date,
                first_day: self.first_day,
            });
        }
        // Past u32::MAX days (eleven million years) there are no numbers.
        u32::try_from(days + 1).map_err(|_| DayError::NoSuchNumber(u32::MAX))
    }

    /// The date of daily `#number`; a number of a day still to come has
    /// none.
    pub fn date(&self, number: u32, today: NaiveDate) -> Result<NaiveDate, DayError> {
        let offset = number
            .checked_sub(1)
            .ok_or(DayError::NoSuchNumber(number))?;
        let date = self
            .first_day
            .checked_add_days(Days::new(u64::from(offset)))
            .ok_or(DayError::NoSuchNumber(number))?;
        if date > today {
            return Err(DayError::NotYet { date, today });
        }
        Ok(date)
    }

    /// The hand of `date`, if that day has a daily by `today` (UTC).
    pub fn deal(&self, date: NaiveDate, today: NaiveDate) -> Result<DailyHand, DayError> {
        let number = self.number(date, today)?;
        let (deal, solutions) = self.hand_of(date);
        Ok(DailyHand {
            number,
            date,
            deal,
            solutions,
            rated: date == today,
        })
    }

    /// The hand of `date`, whatever today is: private, so no caller can
    /// deal a day to come.
    fn hand_of(&self, date: NaiveDate) -> (Deal, u64) {
        let mut hasher = Sha256::new();
        hasher.update(Self::TAG);
        hasher.update(self.secret.as_bytes());
        hasher.update(date.format("%Y-%m-%d").to_string().as_bytes());
        let mut rng = ChaCha20Rng::from_seed(hasher.finalize().into());
        let bands = DifficultyBands::for_variant(Variant::Krypto);
        let mut fallback: Option<(Deal, u64)> = None;
        for _ in 0..Self::MAX_TRIES {
            let deal = Deal::krypto(&mut rng);
            let Ok(n) = solver::count_solutions(&deal.hand, deal.objective, RULES) else {
                continue;
            };
            let n = n as u64;
            if n == 0 {
                continue;
            }
            if bands.classify(n) == Difficulty::Medium {
                return (deal, n);
            }
            fallback.get_or_insert((deal, n));
        }
        if let Some(found) = fallback {
            return found;
        }
        // Not one solvable hand in 500 draws (three in four deals have a
        // solution): draw on until one is.
        loop {
            let deal = Deal::krypto(&mut rng);
            if let Ok(n @ 1..) = solver::count_solutions(&deal.hand, deal.objective, RULES) {
                return (deal, n as u64);
            }
        }
    }
}
