//! The daily streak: consecutive UTC days solved.

use std::collections::BTreeSet;

use chrono::NaiveDate;

/// The streak on `today` (UTC) of a player who solved the rated dailies of
/// `solved` (any order, repeats allowed; days after `today` are ignored).
///
/// It counts consecutive days back from today when today is solved, and
/// back from yesterday when it is not yet: until today's UTC day ends the
/// player can still keep the streak, so the profile shows it alive (as
/// Wordle does) rather than dropping to 0 every morning. A day missed
/// before yesterday ends it. Only rated days belong in `solved`: a past
/// day played from the archive never mends a streak.
pub fn streak(solved: &[NaiveDate], today: NaiveDate) -> u32 {
    let days: BTreeSet<NaiveDate> = solved.iter().copied().filter(|d| *d <= today).collect();
    let start = if days.contains(&today) {
        Some(today)
    } else {
        today.pred_opt()
    };
    let mut count = 0u32;
    let mut day = start;
    while let Some(d) = day.filter(|d| days.contains(d)) {
        count = count.saturating_add(1);
        day = d.pred_opt();
    }
    count
}
