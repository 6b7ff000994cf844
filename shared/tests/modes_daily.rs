//! The daily Krypto's rules: numbers and dates, the day's hand, the clock,
//! streaks, the share line and the marked list of solutions.

#![allow(clippy::unwrap_used)]

use chrono::NaiveDate;
use krypto_core::cards::Deal;
use krypto_core::formula::parse;
use krypto_core::modes::clock::{Attempt, AttemptError};
use krypto_core::modes::daily::{day_start_ms, utc_date, Daily, DailySecret, DayError, DAY_MS};
use krypto_core::modes::share::{clock_text, ShareLine};
use krypto_core::modes::solutions::marked_solutions;
use krypto_core::modes::streak::streak;
use krypto_core::modes::{Judgement, PENALTY_MS, RULES};
use krypto_core::protocol::{Difficulty, Timed, Variant};
use krypto_core::room::difficulty_of;
use krypto_core::solver::{count_solutions, same_solution};

fn day(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

fn daily(first: &str) -> Daily {
    Daily::new(day(first), DailySecret::from_bytes([7; 32]))
}

#[test]
fn utc_days_start_at_midnight_utc() {
    // 2026-11-27T00:00:00Z is 1_795_737_600 s after the epoch.
    let midnight = 1_795_737_600_000;
    assert_eq!(utc_date(midnight), day("2026-11-27"));
    assert_eq!(utc_date(midnight - 1), day("2026-11-26"));
    assert_eq!(utc_date(midnight + DAY_MS - 1), day("2026-11-27"));
    assert_eq!(utc_date(0), day("1970-01-01"));
    assert_eq!(day_start_ms(day("2026-11-27")), midnight);
    assert_eq!(day_start_ms(day("1969-12-31")), 0);
}

#[test]
fn the_first_day_is_number_one_and_numbers_map_back_to_dates() {
    let d = daily("2026-01-01");
    let today = day("2027-03-01");
    assert_eq!(d.number(day("2026-01-01"), today), Ok(1));
    assert_eq!(d.number(day("2026-01-02"), today), Ok(2));
    assert_eq!(d.number(day("2026-12-31"), today), Ok(365));
    assert_eq!(d.number(day("2027-01-01"), today), Ok(366));
    // Through a leap day.
    let leap = daily("2028-02-28");
    assert_eq!(leap.number(day("2028-03-01"), day("2028-03-01")), Ok(3));
    for n in [1, 2, 59, 365, 366, 425] {
        let date = d.date(n, today).unwrap();
        assert_eq!(d.number(date, today), Ok(n), "#{n} is {date}");
    }
    assert_eq!(d.date(0, today), Err(DayError::NoSuchNumber(0)));
}

#[test]
fn a_day_to_come_or_before_the_first_is_refused() {
    let d = daily("2026-01-01");
    let today = day("2026-06-15");
    assert_eq!(
        d.number(day("2026-06-16"), today),
        Err(DayError::NotYet {
            date: day("2026-06-16"),
            today
        })
    );
    assert!(matches!(
        d.deal(day("2026-06-16"), today),
        Err(DayError::NotYet { .. })
    ));
    // Tomorrow's number is refused too, not only its date.
    let tomorrow = d.number(today, today).unwrap() + 1;
    assert!(matches!(
        d.date(tomorrow, today),
        Err(DayError::NotYet { .. })
    ));
    assert_eq!(
        d.deal(day("2025-12-31"), today).map(|h| h.number),
        Err(DayError::BeforeFirst {
            date: day("2025-12-31"),
            first_day: day("2026-01-01")
        })
    );
}

#[test]
fn the_days_hand_is_the_same_everywhere_solvable_and_medium() {
    let secrets = [
        [0u8; 32],
        [1; 32],
        [0xA5; 32],
        *b"a thirty-two byte server secret!",
    ];
    let dates = ["2026-01-01", "2026-02-28", "2026-07-14", "2027-01-01"];
    let today = day("2027-06-01");
    for secret in secrets {
        // Two nodes, built apart, from the same stored bytes.
        let a = Daily::new(day("2026-01-01"), DailySecret::from_bytes(secret));
        let b = Daily::new(day("2026-01-01"), DailySecret::from_bytes(secret));
        for date in dates {
            let hand = a.deal(day(date), today).unwrap();
            assert_eq!(Ok(&hand), b.deal(day(date), today).as_ref(), "{date}");
            let n = count_solutions(&hand.deal.hand, hand.deal.objective, RULES).unwrap() as u64;
            assert_eq!(n, hand.solutions);
            assert_eq!(
                difficulty_of(Variant::Krypto, n),
                Difficulty::Medium,
                "{hand:?}"
            );
            assert_eq!(hand.deal.hand.len(), 5);
            assert!(!hand.rated, "a past day is unrated");
        }
    }
    // Another secret or another day: another hand (for these, at least).
    let a = daily("2026-01-01").deal(day("2026-03-01"), today).unwrap();
    let b = daily("2026-01-01").deal(day("2026-03-02"), today).unwrap();
    let c = Daily::new(day("2026-01-01"), DailySecret::from_bytes([8; 32]))
        .deal(day("2026-03-01"), today)
        .unwrap();
    assert_ne!(a.deal, b.deal);
    assert_ne!(a.deal, c.deal);
    // The first day does not change a date's hand, only its number.
    let later = Daily::new(day("2026-02-01"), DailySecret::from_bytes([7; 32]))
        .deal(day("2026-03-01"), today)
        .unwrap();
    assert_eq!(later.deal, a.deal);
    assert_eq!((a.number, later.number), (60, 29));
}

#[test]
fn only_todays_hand_is_rated() {
    let d = daily("2026-01-01");
    let today = day("2026-01-10");
    assert!(d.deal(today, today).unwrap().rated);
    assert!(!d.deal(day("2026-01-09"), today).unwrap().rated);
}

#[test]
fn secrets_stay_out_of_logs() {
    let secret = DailySecret::from_bytes([0x42; 32]);
    assert_eq!(format!("{secret:?}"), "DailySecret(…)");
    assert!(!format!("{:?}", Daily::new(day("2026-01-01"), secret)).contains("66"));
    assert_ne!(DailySecret::generate(), DailySecret::generate());
}

#[test]
fn the_clock_runs_from_the_first_sending_and_misses_add_the_penalty() {
    let sent = 1_000_000;
    let mut a = Attempt::start(sent);
    assert_eq!(a.elapsed_ms(sent + 42_000), 42_000);
    // Asking again later resumes the stored attempt: same start.
    let again = Attempt::resume(Some(a), sent + 60_000);
    assert_eq!(again, a);
    assert_eq!(Attempt::resume(None, sent + 5).started_ms, sent + 5);

    a.miss().unwrap();
    a.miss().unwrap();
    assert_eq!(a.elapsed_ms(sent + 42_000), 42_000 + 2 * PENALTY_MS);
    assert_eq!(PENALTY_MS, 10_000);
    assert_eq!(a.solve(sent + 50_500), Ok(70_500));
    // Solved: the time stops, and no answer changes it.
    assert_eq!(a.elapsed_ms(sent + 999_000), 70_500);
    assert_eq!(a.solve(sent + 60_000), Err(AttemptError::AlreadySolved));
    assert_eq!(a.miss(), Err(AttemptError::AlreadySolved));
    assert_eq!(
        a.result(),
        Some(Timed {
            elapsed_ms: 70_500,
            misses: 2
        })
    );
    // A clock stepped back counts no time rather than wrapping.
    assert_eq!(Attempt::start(sent).elapsed_ms(sent - 1), 0);
    // Plain data, stored and read back as it is.
    let stored = serde_json::to_string(&a).unwrap();
    assert_eq!(serde_json::from_str::<Attempt>(&stored).unwrap(), a);
}

#[test]
fn answers_move_the_clock_as_judged() {
    let deal = Deal {
        objective: 10,
        hand: vec![1, 2, 3, 4, 5],
    };
    let mut a = Attempt::start(0);
    // A typo is no attempt: no miss.
    let typo = a.answer(&deal, RULES, "(1+2", 1_000).unwrap();
    assert!(matches!(typo, Judgement::NotAnAttempt(_)));
    assert_eq!(a.misses, 0);
    // A complete formula with the wrong value is a miss.
    let wrong = a.answer(&deal, RULES, "1+2+3+4+5", 2_000).unwrap();
    assert!(matches!(wrong, Judgement::Wrong(_)));
    assert_eq!(a.misses, 1);
    let right = a.answer(&deal, RULES, "(5+4+3-2)*1", 4_000).unwrap();
    assert!(right.is_right());
    assert_eq!(a.elapsed_ms(99_000), 4_000 + PENALTY_MS);
    assert_eq!(
        a.answer(&deal, RULES, "(5+4+3-2)*1", 5_000),
        Err(AttemptError::AlreadySolved)
    );
}

#[test]
fn streaks_count_consecutive_utc_days_across_months_and_years() {
    let days = |list: &[&str]| list.iter().map(|d| day(d)).collect::<Vec<_>>();
    let solved = days(&["2026-12-30", "2026-12-31", "2027-01-01", "2027-01-02"]);
    assert_eq!(streak(&solved, day("2027-01-02")), 4);
    // Today not solved yet: the streak still stands from yesterday.
    assert_eq!(streak(&solved, day("2027-01-03")), 4);
    // A whole day missed ends it.
    assert_eq!(streak(&solved, day("2027-01-04")), 0);
    // Month end, in a leap year, in any order, with repeats.
    let solved = days(&["2028-03-01", "2028-02-28", "2028-02-29", "2028-03-01"]);
    assert_eq!(streak(&solved, day("2028-03-01")), 3);
    // A gap: only the days after it count.
    let solved = days(&["2026-05-01", "2026-05-02", "2026-05-04", "2026-05-05"]);
    assert_eq!(streak(&solved, day("2026-05-05")), 2);
    assert_eq!(streak(&solved, day("2026-05-02")), 2);
    assert_eq!(streak(&solved, day("2026-05-03")), 2);
    // Days after today (a clock stepped back) are not counted.
    assert_eq!(streak(&days(&["2026-05-06"]), day("2026-05-05")), 0);
    assert_eq!(streak(&[], day("2026-05-05")), 0);
}

#[test]
fn the_share_line_gives_the_result_and_nothing_of_the_hand() {
    let line = |elapsed_ms, misses, streak| ShareLine {
        number: 312,
        elapsed_ms,
        misses,
        streak,
    };
    assert_eq!(
        line(42_999, 1, 5).text(None),
        "Krypto #312 ✓ 0:42 · 1 miss · 🔥5"
    );
    assert_eq!(line(42_000, 0, 5).text(None), "Krypto #312 ✓ 0:42 · 🔥5");
    assert_eq!(
        line(125_000, 3, 1).text(None),
        "Krypto #312 ✓ 2:05 · 3 misses · 🔥1"
    );
    // An unrated day from the archive: no streak.
    assert_eq!(line(61_000, 0, 0).text(None), "Krypto #312 ✓ 1:01");
    assert_eq!(
        line(42_000, 1, 5).text(Some("https://krypto.example/daily")),
        "Krypto #312 ✓ 0:42 · 1 miss · 🔥5\nhttps://krypto.example/daily"
    );
    assert_eq!(
        line(42_000, 0, 2).text(Some("")),
        "Krypto #312 ✓ 0:42 · 🔥2"
    );
    assert_eq!(clock_text(0), "0:00");
    assert_eq!(clock_text(599_999), "9:59");
    assert_eq!(clock_text(3_723_000), "1:02:03");
}

#[test]
fn every_solution_is_listed_with_the_players_own_marked() {
    let deal = Deal {
        objective: 10,
        hand: vec![2, 3, 4, 1, 1],
    };
    let all = marked_solutions(&deal, RULES, "").unwrap();
    let n = count_solutions(&deal.hand, deal.objective, RULES).unwrap();
    assert_eq!(all.len(), n);
    assert!(all.iter().all(|s| !s.yours));
    // The player's formula, written another way than the solver prints
    // it, is found in its class.
    let mine = marked_solutions(&deal, RULES, "4 * (1 + 1) + 3 - 2... ").unwrap();
    assert!(
        mine.iter().all(|s| !s.yours),
        "a formula that does not parse marks none"
    );
    let marked = |formula: &str| {
        let list = marked_solutions(&deal, RULES, formula).unwrap();
        let yours: Vec<String> = list
            .iter()
            .filter(|s| s.yours)
            .map(|s| s.formula.clone())
            .collect();
        yours
    };
    assert_eq!(marked("4*3 - 2*1*1"), ["3 × 4 - 1 × 1 × 2"]);
    assert_eq!(marked("(4*3*1*1) - 2"), ["1 × 1 × 3 × 4 - 2"]);
    let parse = |f: &str| parse(f).unwrap().to_expr();
    assert!(same_solution(
        &parse("4*3 - 2*1*1"),
        &parse("3 × 4 - 1 × 1 × 2")
    ));
    assert!(!same_solution(
        &parse("4*3 - 2*1*1"),
        &parse("1 × 1 × 3 × 4 - 2")
    ));
    // A wrong answer marks nothing.
    assert!(marked("4*3 - 2*1 + 1").is_empty());
    // Every listed solution marks itself, and only itself.
    for s in &all {
        let again = marked_solutions(&deal, RULES, &s.formula).unwrap();
        let marked: Vec<_> = again
            .iter()
            .filter(|e| e.yours)
            .map(|e| &e.formula)
            .collect();
        assert_eq!(marked, vec![&s.formula]);
    }
}
