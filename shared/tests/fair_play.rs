//! The fair-play signals: a script answering from the solver is flagged
//! within its first ten rounds; the project's bots and fast human-like play
//! over a thousand rounds are not; each threshold's boundary, the windows and
//! the cleared-evidence rule. The distributions are in docs/design.md
//! ("Fair play: the signals").

use krypto_core::bot_pace::{band_column, JITTER_PERCENT, THINK_SECONDS};
use krypto_core::cards::{seeded_rng, Deal};
use krypto_core::fair_play::{
    assess, count_tokens, cv_permille, fast_human, hard_hands, too_regular, under_floor, Answer,
    Clearance, FairPlaySettings, Flag, Reason, ThresholdError,
};
use krypto_core::settings::{Difficulty, Variant};
use krypto_core::solver::{count_solutions, solve_all};
use krypto_core::Rules;
use rand::{Rng, SeedableRng};
use std::ops::RangeInclusive;

/// A right answer `elapsed_ms` after the deal, the `n`th of the player's.
fn answer(n: u64, elapsed_ms: u64, tokens: u32, band: Difficulty) -> Answer {
    Answer {
        answered_at_ms: 1_000_000 + n * 60_000,
        elapsed_ms,
        deal: Deal {
            objective: 10,
            hand: vec![1, 2, 3, 4, 5],
        },
        solutions: match band {
            Difficulty::Hard => 5,
            Difficulty::Medium => 20,
            _ => 50,
        },
        band,
        tokens,
    }
}

/// Answers with the given times, 11 tokens each, on medium hands.
fn timed(times: &[u64]) -> Vec<Answer> {
    times
        .iter()
        .zip(0..)
        .map(|(&t, n)| answer(n, t, 11, Difficulty::Medium))
        .collect()
}

fn defaults() -> FairPlaySettings {
    FairPlaySettings::default()
}

/// A solvable Krypto hand, its number of distinct solutions and the text of
/// each, as the solver prints them (what a script would send).
struct Hand {
    deal: Deal,
    solutions: u64,
    answers: Vec<String>,
}

fn hands(seed: u64, count: usize) -> Vec<Hand> {
    let mut rng = seeded_rng(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let deal = Deal::krypto(&mut rng);
        let Ok(exprs) = solve_all(&deal.hand, deal.objective, Rules::default()) else {
            continue;
        };
        if exprs.is_empty() {
            continue;
        }
        let Ok(solutions) = count_solutions(&deal.hand, deal.objective, Rules::default()) else {
            continue;
        };
        out.push(Hand {
            deal,
            solutions: solutions as u64,
            answers: exprs.iter().map(ToString::to_string).collect(),
        });
    }
    out
}

fn band_of(hand: &Hand) -> Difficulty {
    krypto_core::room::difficulty_of(Variant::Krypto, hand.solutions)
}

/// Plays `rounds` right answers, one a minute, on hands of `pool` drawn
/// with `seed`, with the times `time` gives for each hand, assessing after
/// each as the server will (with the latest 200 answers); the first flag
/// and the round it came in.
fn play(
    pool: &[Hand],
    rounds: u64,
    seed: u64,
    mut time: impl FnMut(&Hand, u32, &mut dyn rand::RngCore) -> u64,
) -> Option<(u64, Flag)> {
    let rng = &mut rand::rngs::StdRng::seed_from_u64(seed);
    let settings = defaults();
    let mut history: Vec<Answer> = Vec::new();
    for round in 1..=rounds {
        let hand = &pool[rng.random_range(0..pool.len())];
        let text = &hand.answers[rng.random_range(0..hand.answers.len())];
        let Ok(tokens) = count_tokens(text) else {
            panic!("the solver printed a formula that does not lex: {text}");
        };
        let elapsed = time(hand, tokens, rng);
        let Ok(a) = Answer::new(
            round * 60_000,
            elapsed,
            hand.deal.clone(),
            Variant::Krypto,
            hand.solutions,
            text,
        ) else {
            panic!("a right answer did not make a record: {text}");
        };
        history.push(a);
        let recent = &history[history.len().saturating_sub(200)..];
        if let Some(flag) = assess(recent, &settings, Clearance::NONE) {
            return Some((round, flag));
        }
    }
    None
}

/// A script's times: anywhere in `ms` after the deal, whatever the hand.
fn anywhere_in(ms: RangeInclusive<u64>) -> impl FnMut(&Hand, u32, &mut dyn rand::RngCore) -> u64 {
    move |_, _, rng| rng.random_range(ms.clone())
}

#[test]
fn a_script_answering_from_the_solver_within_a_second_is_flagged_within_ten_rounds() {
    let pool = hands(31, 40);
    let mut by_floor = 0;
    for seed in 0..20 {
        let Some((round, flag)) = play(&pool, 10, seed, anywhere_in(200..=1000)) else {
            panic!("seed {seed}: a solver script played 10 rounds unflagged");
        };
        assert!(round <= 10);
        // Mostly the floor; a run of answers just over it (0.8–1 s) is
        // caught by the hard hands among them instead.
        for reason in &flag.reasons {
            let counted: Vec<_> = reason.exhibits().iter().filter(|e| e.counted).collect();
            assert!(counted.len() >= 3, "seed {seed}: {reason}");
            for e in counted {
                assert!(e.answer.elapsed_ms <= 1000, "seed {seed}: {e:?}");
                match reason {
                    Reason::UnderFloor(_) => assert!(e.answer.elapsed_ms < e.floor_ms),
                    Reason::HardHands(_) => assert_eq!(e.answer.band, Difficulty::Hard),
                    Reason::TooRegular(_) => panic!("seed {seed}: ten rounds fill no window"),
                }
            }
        }
        by_floor += u32::from(matches!(flag.reasons[0], Reason::UnderFloor(_)));
    }
    assert!(
        by_floor >= 15,
        "the floor caught only {by_floor} of 20 scripts"
    );
}

#[test]
fn a_script_waiting_out_the_floor_is_caught_by_its_hard_hands() {
    // Answers 1.5–2.9 s after the deal: above every floor, too uneven to
    // be too regular, but hard hands solved in under 3 s one after another.
    let pool = hands(7, 60);
    let Some((_, flag)) = play(&pool, 60, 5, anywhere_in(1500..=2900)) else {
        panic!("a script answering in 1.5–2.9 s played 60 rounds unflagged");
    };
    assert_eq!(flag.reasons.len(), 1);
    assert!(matches!(flag.reasons[0], Reason::HardHands(_)), "{flag:?}");
}

#[test]
fn a_script_waiting_a_steady_time_is_caught_by_its_regularity() {
    // 8 s ± 8 %: slow enough for every floor and every hard hand.
    let pool = hands(8, 40);
    let Some((round, flag)) = play(&pool, 60, 9, anywhere_in(7360..=8640)) else {
        panic!("a steady script played 60 rounds unflagged");
    };
    assert_eq!(round, 40, "flagged as soon as the window is full");
    assert!(matches!(flag.reasons[0], Reason::TooRegular(_)), "{flag:?}");
}

/// The real hands of `pool` of band `band`, or all of them.
fn of_band(pool: &[Hand], band: Option<Difficulty>) -> Vec<Hand> {
    pool.iter()
        .filter(|h| band.is_none_or(|b| band_of(h) == b))
        .map(|h| Hand {
            deal: h.deal.clone(),
            solutions: h.solutions,
            answers: h.answers.clone(),
        })
        .collect()
}

#[test]
fn the_project_bots_at_every_skill_are_never_flagged_over_a_thousand_rounds() {
    let pool = hands(2024, 90);
    // A room of any difficulty, and rooms of one band each: one band is
    // where the bots' times are most even.
    let rooms = [
        None,
        Some(Difficulty::Easy),
        Some(Difficulty::Medium),
        Some(Difficulty::Hard),
    ];
    for (skill, row) in THINK_SECONDS.iter().enumerate() {
        for room in rooms {
            let hands = of_band(&pool, room);
            assert!(hands.len() >= 5, "too few {room:?} hands in the pool");
            for seed in 0..3 {
                // At pace 100, as `krypto bots` plays by default; the
                // network only adds to the server's time, so none is added.
                let found = play(&hands, 1000, seed, |hand, _, rng| {
                    let median_ms = row[band_column(band_of(hand))] * 1000;
                    median_ms * u64::from(rng.random_range(JITTER_PERCENT)) / 100
                });
                assert!(
                    found.is_none(),
                    "bot skill {skill}, room {room:?}, seed {seed}: {found:?}"
                );
            }
        }
    }
}

#[test]
fn fast_human_like_play_over_a_thousand_rounds_raises_no_flag() {
    let pool = hands(1999, 90);
    for room in [None, Some(Difficulty::Hard)] {
        let hands = of_band(&pool, room);
        for seed in 0..5 {
            let found = play(&hands, 1000, seed, |hand, tokens, rng| {
                fast_human::answer_ms(band_of(hand), tokens, rng)
            });
            assert!(found.is_none(), "room {room:?}, seed {seed}: {found:?}");
        }
    }
}

#[test]
fn every_solver_answer_to_a_krypto_hand_has_a_floor_of_at_least_660_ms() {
    let floor = defaults().floor;
    for hand in hands(5, 20) {
        for text in &hand.answers {
            let Ok(a) = Answer::new(0, 0, hand.deal.clone(), Variant::Krypto, 1, text) else {
                panic!("{text} did not lex");
            };
            assert!(
                a.tokens >= 9,
                "{text}: five numbers and four operators at least"
            );
            assert!(floor.floor_ms(&a) >= 660, "{text}");
        }
    }
}

#[test]
fn records_count_tokens_as_the_lexer_reads_them_and_band_the_hand() {
    assert_eq!(count_tokens("(12+7)×(3−1)"), Ok(11));
    assert_eq!(count_tokens("  12 * 7 "), Ok(3));
    assert!(count_tokens("1 + 2.5").is_err());
    let deal = Deal {
        objective: 24,
        hand: vec![3, 3, 8, 8],
    };
    let Ok(a) = Answer::new(5, 900, deal.clone(), Variant::TwentyFour, 1, "8/(3-8/3)") else {
        panic!("a right answer did not make a record");
    };
    assert_eq!((a.tokens, a.band, a.solutions), (9, Difficulty::Hard, 1));
    let Ok(easy) = Answer::new(5, 900, deal, Variant::Krypto, 40, "3") else {
        panic!("a number did not make a record");
    };
    assert_eq!(easy.band, Difficulty::Easy);
    // Plain data the server can store and read back.
    let Ok(json) = serde_json::to_string(&a) else {
        panic!("a record did not serialize");
    };
    assert_eq!(serde_json::from_str::<Answer>(&json).ok(), Some(a));
}

#[test]
fn the_floor_counts_answers_strictly_under_it() {
    let s = defaults().floor;
    let probe = answer(0, 0, 11, Difficulty::Medium);
    assert_eq!(s.floor_ms(&probe), 100 + 200 + 40 * 11);
    let at = |t| vec![answer(0, t, 11, Difficulty::Medium); 1];
    let mut one = s.clone();
    one.count = 1;
    assert!(under_floor(&at(739), &one).is_some());
    assert!(under_floor(&at(740), &one).is_none());
}

#[test]
fn the_floor_needs_three_answers_under_it_within_ten() {
    let s = defaults().floor;
    let fast = 500;
    let slow = 9000;
    // Two under the floor: a lucky fast answer or two is never enough.
    let mut times = vec![slow; 30];
    times[3] = fast;
    times[12] = fast;
    assert!(under_floor(&timed(&times), &s).is_none());
    // A third, eleven answers from the first: still outside one window.
    times[13] = fast;
    assert!(under_floor(&timed(&times), &s).is_none());
    // Within ten (positions 12 to 21).
    times[21] = fast;
    let Some(evidence) = under_floor(&timed(&times), &s) else {
        panic!("three under the floor within ten answers were not flagged");
    };
    assert_eq!(evidence.answers.len(), 10);
    assert_eq!(evidence.answers.iter().filter(|e| e.counted).count(), 3);
    assert_eq!(evidence.answers[0].answer.elapsed_ms, fast);
    assert_eq!(evidence.answers[0].floor_ms, 740);
    // One position further apart is outside the window again.
    times[21] = slow;
    times[22] = fast;
    assert!(under_floor(&timed(&times), &s).is_none());
}

/// 20 answers `d` ms under and 20 `d` ms over 9.9 s (10 s with the offset):
/// a coefficient of variation of d/10 000 × √(40/39).
fn two_sided(d: u64) -> Vec<Answer> {
    let times: Vec<u64> = (0..40)
        .map(|i| if i % 2 == 0 { 9900 - d } else { 9900 + d })
        .collect();
    timed(&times)
}

#[test]
fn regularity_flags_a_variation_just_under_the_threshold_and_not_just_over() {
    let s = defaults();
    // d = 789: cv = 0.079905…; d = 790: cv = 0.080006….
    let Some(evidence) = too_regular(&two_sided(789), &s.regularity, &s.floor) else {
        panic!("a variation of 0.0799 was not flagged");
    };
    assert_eq!(evidence.cv_permille, 79);
    assert_eq!(evidence.mean_ms, 9900);
    assert_eq!(evidence.answers.len(), 40);
    assert!(too_regular(&two_sided(790), &s.regularity, &s.floor).is_none());
}

#[test]
fn regularity_decides_exactly_at_the_threshold() {
    // Three times 920, 1000 and 1080 ms with the offset: a variation of
    // exactly 80/1000, which is not below 80‰; 79 ms apart it is.
    let mut s = defaults();
    s.regularity.window = 3;
    let exact = timed(&[820, 900, 980]);
    assert_eq!(cv_permille(&[820, 900, 980], 100), Some(80));
    assert!(too_regular(&exact, &s.regularity, &s.floor).is_none());
    let under = timed(&[821, 900, 979]);
    assert!(too_regular(&under, &s.regularity, &s.floor).is_some());
}

#[test]
fn regularity_needs_a_full_window() {
    let s = defaults();
    let steady = vec![8000; 39];
    assert!(too_regular(&timed(&steady), &s.regularity, &s.floor).is_none());
    let steady = vec![8000; 40];
    assert!(too_regular(&timed(&steady), &s.regularity, &s.floor).is_some());
    // A steady run broken by one uneven answer in every 40.
    let mut broken = vec![8000; 100];
    for i in (0..100).step_by(39) {
        broken[i] = 30_000;
    }
    assert!(too_regular(&timed(&broken), &s.regularity, &s.floor).is_none());
}

/// Answers whose bands and times are given, 13 tokens each.
fn banded(list: &[(Difficulty, u64)]) -> Vec<Answer> {
    list.iter()
        .zip(0..)
        .map(|(&(band, t), n)| answer(n, t, 13, band))
        .collect()
}

#[test]
fn hard_hands_need_five_fast_of_ten_and_count_only_hard_hands() {
    use Difficulty::{Easy, Hard};
    let s = defaults();
    let fast = 2999;
    let slow = 3000;
    let mut list: Vec<(Difficulty, u64)> = vec![(Hard, 12_000); 10];
    for i in [0, 2, 4, 6] {
        list[i] = (Hard, fast);
    }
    // 3000 ms is not under 3000.
    list[9] = (Hard, slow);
    assert!(hard_hands(&banded(&list), &s.hard_hands, &s.floor).is_none());
    list[9] = (Hard, fast);
    let Some(evidence) = hard_hands(&banded(&list), &s.hard_hands, &s.floor) else {
        panic!("five of ten hard hands under 3 s were not flagged");
    };
    assert_eq!(evidence.answers.len(), 10);
    assert_eq!(evidence.answers.iter().filter(|e| e.counted).count(), 5);
    // Easy hands between them, however fast, neither count nor widen it.
    let mut spread = Vec::new();
    for entry in &list {
        spread.push(*entry);
        spread.push((Easy, 900));
    }
    let Some(evidence) = hard_hands(&banded(&spread), &s.hard_hands, &s.floor) else {
        panic!("hard hands among easy ones were not flagged");
    };
    assert!(evidence.answers.iter().all(|e| e.answer.band == Hard));
    // Eleven hard hands from the first fast one to the fifth: not flagged.
    list.insert(1, (Hard, 12_000));
    assert!(hard_hands(&banded(&list), &s.hard_hands, &s.floor).is_none());
}

#[test]
fn a_cleared_player_is_flagged_again_only_for_new_answers() {
    let s = defaults();
    let mut times = vec![9000; 20];
    for i in [4, 6, 8] {
        times[i] = 400;
    }
    let first = timed(&times);
    let Some(flag) = assess(&first, &s, Clearance::NONE) else {
        panic!("three answers under the floor were not flagged");
    };
    let cleared = flag.clearance();
    assert_eq!(cleared.through_ms, Some(first[8].answered_at_ms));
    assert_eq!(assess(&first, &s, cleared), None);

    // Two more under the floor after the clearance: with the cleared ones
    // they would make a window, but cleared answers no longer count.
    let mut later = times.clone();
    later.extend([9000, 400, 9000, 400]);
    let later = timed(&later);
    assert_eq!(assess(&later, &s, cleared), None);
    // A third after the clearance: flagged again, for the new answers only.
    let mut again: Vec<u64> = later.iter().map(|a| a.elapsed_ms).collect();
    again.push(400);
    let again = timed(&again);
    let Some(flag) = assess(&again, &s, cleared) else {
        panic!("three new answers under the floor were not flagged");
    };
    let shown: Vec<u64> = flag.reasons[0]
        .exhibits()
        .iter()
        .map(|e| e.answer.answered_at_ms)
        .collect();
    assert!(
        shown.iter().all(|&t| Some(t) > cleared.through_ms),
        "{shown:?}"
    );
    // Clearing is never undone: the later clearance stands.
    let both = cleared.and(flag.clearance());
    assert_eq!(both, flag.clearance().and(cleared));
    assert_eq!(assess(&again, &s, both), None);
}

#[test]
fn assess_orders_the_answers_itself_and_reports_every_signal() {
    let s = defaults();
    // 40 hard hands in 1 s each: under the floor, steady, and hard.
    let list: Vec<Answer> = (0..40)
        .map(|n| answer(n, 1000 - 300 * (n % 2), 20, Difficulty::Hard))
        .collect();
    let mut shuffled = list.clone();
    shuffled.reverse();
    let Some(flag) = assess(&list, &s, Clearance::NONE) else {
        panic!("a steady fast player of hard hands was not flagged");
    };
    assert_eq!(assess(&shuffled, &s, Clearance::NONE), Some(flag.clone()));
    let signals: Vec<&str> = flag.reasons.iter().map(Reason::signal).collect();
    assert_eq!(signals, ["under_floor", "hard_hands"]);
    // A reviewer reads each reason.
    let text = flag.reasons[0].to_string();
    assert!(text.contains("floor 1100 ms"), "{text}");
    let Ok(json) = serde_json::to_value(&flag) else {
        panic!("a flag did not serialize");
    };
    assert_eq!(json["reasons"][0]["signal"], "under_floor");
    assert_eq!(json["reasons"][1]["fast_ms"], 3000);
}

#[test]
fn settings_have_documented_defaults_and_refuse_nonsense() {
    let Ok(read) = serde_json::from_str::<FairPlaySettings>(r#"{"floor": {"count": 4}}"#) else {
        panic!("partial settings were refused");
    };
    assert_eq!(read.floor.count, 4);
    assert_eq!(read.floor.window, 10);
    assert_eq!(read.regularity, defaults().regularity);
    assert!(serde_json::from_str::<FairPlaySettings>(r#"{"flor": {}}"#).is_err());
    assert_eq!(defaults().validate(), Ok(()));

    let mut s = defaults();
    s.floor.count = 0;
    assert!(matches!(s.validate(), Err(ThresholdError::Count { .. })));
    let mut s = defaults();
    s.hard_hands.count = 11;
    assert!(matches!(s.validate(), Err(ThresholdError::Count { .. })));
    let mut s = defaults();
    s.regularity.window = 1;
    assert!(matches!(s.validate(), Err(ThresholdError::Window { .. })));
    let mut s = defaults();
    s.regularity.max_cv_permille = 10_001;
    assert_eq!(s.validate(), Err(ThresholdError::Variation(10_001)));
}
