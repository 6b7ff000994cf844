//! Leaderboard periods: UTC calendar days, ISO weeks (Monday to Sunday) and
//! months, as millisecond ranges.
//!
//! Calendar periods rather than rolling windows so that a period's summary
//! row can be kept up to date by adding to it, and so that "this week" means
//! the same to every player.

use crate::protocol::Period;
use chrono::{DateTime, Datelike, Duration, NaiveDate, SecondsFormat, Utc};

/// Every period a recorded result counts towards.
pub const ALL_PERIODS: [Period; 4] = [Period::All, Period::Month, Period::Week, Period::Day];

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

/// The name stored in `player_stats.period`.
pub fn name(period: Period) -> &'static str {
    period.as_str()
}

/// The first millisecond of the period containing `at_ms` (0 for `all`).
pub fn start(period: Period, at_ms: i64) -> i64 {
    let Some(at) = DateTime::<Utc>::from_timestamp_millis(at_ms) else {
        return 0;
    };
    let day = at.date_naive();
    let first: Option<NaiveDate> = match period {
        Period::All => return 0,
        Period::Day => Some(day),
        Period::Week => day.checked_sub_signed(Duration::days(i64::from(
            day.weekday().num_days_from_monday(),
        ))),
        Period::Month => day.with_day(1),
    };
    first
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map_or(0, |t| t.and_utc().timestamp_millis())
}

/// `at_ms` as RFC 3339 text in UTC ("2025-03-01T12:00:00.000Z").
pub fn iso(at_ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(at_ms)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true))
        .unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ms(s: &str) -> i64 {
        DateTime::parse_from_rfc3339(s).unwrap().timestamp_millis()
    }

    #[test]
    fn calendar_starts() {
        // Wednesday 2025-03-12.
        let t = ms("2025-03-12T15:04:05.678Z");
        assert_eq!(start(Period::All, t), 0);
        assert_eq!(start(Period::Day, t), ms("2025-03-12T00:00:00Z"));
        assert_eq!(start(Period::Week, t), ms("2025-03-10T00:00:00Z"));
        assert_eq!(start(Period::Month, t), ms("2025-03-01T00:00:00Z"));
        // A Monday starts its own week; a Sunday belongs to the week before.
        let monday = ms("2025-03-10T00:00:00Z");
        assert_eq!(start(Period::Week, monday), monday);
        let sunday = ms("2025-03-09T23:59:59.999Z");
        assert_eq!(start(Period::Week, sunday), ms("2025-03-03T00:00:00Z"));
        // A week across a month boundary.
        assert_eq!(
            start(Period::Week, ms("2025-06-01T10:00:00Z")),
            ms("2025-05-26T00:00:00Z")
        );
        assert_eq!(iso(monday), "2025-03-10T00:00:00.000Z");
    }
}
