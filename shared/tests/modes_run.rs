//! A solo run's rules: the ladder of hands, the combo's bonuses, the
//! penalty, the clock running out, and replaying a run from its seed.

#![allow(clippy::unwrap_used)]

use krypto_core::cards::Deal;
use krypto_core::modes::run::{
    band_of, combo_bonus_ms, Run, RunError, RunOutcome, RunSeed, LONGEST_RUN_MS, RUN_MS,
};
use krypto_core::modes::{judge, Judgement, PENALTY_MS, RULES};
use krypto_core::protocol::{Difficulty, Variant};
use krypto_core::room::difficulty_of;
use krypto_core::solver::{count_solutions, solve_one};

const T0: u64 = 1_795_737_600_000;

fn seed(byte: u8) -> RunSeed {
    RunSeed::from_bytes([byte; 32])
}

/// A right answer to the hand on the table.
fn right(run: &Run) -> String {
    let deal = run.deal();
    solve_one(&deal.hand, deal.objective, RULES)
        .unwrap()
        .unwrap()
        .to_string()
}

/// A complete formula over the hand that is wrong.
fn wrong(deal: &Deal) -> String {
    let cards: Vec<String> = deal.hand.iter().map(i64::to_string).collect();
    ["+", "*", "-"]
        .iter()
        .map(|op| cards.join(op))
        .find(|f| matches!(judge(f, deal, RULES), Judgement::Wrong(_)))
        .unwrap()
}

fn solve(run: &mut Run, at: u64) -> u64 {
    let hand = run.hand();
    match run.submit(hand, &right(run), at).unwrap() {
        RunOutcome::Solved { bonus_ms, .. } => bonus_ms,
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_ladder_goes_from_easy_to_medium_to_hard() {
    let bands: Vec<Difficulty> = (1..=14).map(band_of).collect();
    use Difficulty::*;
    assert_eq!(
        bands,
        [
            Easy, Easy, Easy, Easy, Easy, Medium, Medium, Medium, Medium, Medium, Medium, Medium,
            Hard, Hard
        ]
    );
    assert_eq!(band_of(1000), Hard);
    for s in [1, 2] {
        let seed = seed(s);
        for hand in 1..=14 {
            let deal = seed.hand(hand);
            let n = count_solutions(&deal.hand, deal.objective, RULES).unwrap() as u64;
            assert!(n > 0, "hand {hand} of seed {s} is unsolvable: {deal:?}");
            assert_eq!(
                difficulty_of(Variant::Krypto, n),
                band_of(hand),
                "hand {hand}: {deal:?} has {n} solutions"
            );
        }
    }
}

#[test]
fn combos_add_storms_bonuses() {
    let bonuses: Vec<(u32, u64)> = (0..=61)
        .map(|c| (c, combo_bonus_ms(c)))
        .filter(|(_, b)| *b > 0)
        .collect();
    assert_eq!(
        bonuses,
        [
            (5, 3_000),
            (12, 5_000),
            (20, 7_000),
            (30, 10_000),
            (40, 10_000),
            (50, 10_000),
            (60, 10_000)
        ]
    );
}

#[test]
fn right_answers_add_bonuses_and_a_wrong_one_costs_ten_seconds_and_the_combo() {
    let mut run = Run::new(seed(3), T0);
    assert_eq!(run.remaining_ms(T0), RUN_MS);
    assert_eq!((run.hand(), run.score(), run.combo()), (1, 0, 0));
    // Five right answers, one a second: the fifth adds 3 s.
    let mut added = Vec::new();
    for i in 1..=5 {
        added.push(solve(&mut run, T0 + i * 1_000));
    }
    assert_eq!(added, [0, 0, 0, 0, 3_000]);
    assert_eq!((run.hand(), run.score(), run.combo()), (6, 5, 5));
    assert_eq!(run.remaining_ms(T0 + 5_000), RUN_MS - 5_000 + 3_000);

    // A wrong answer: 10 s off, the combo back to 0, on to the next hand.
    let deal = run.deal().clone();
    let outcome = run.submit(6, &wrong(&deal), T0 + 6_000).unwrap();
    assert!(matches!(outcome, RunOutcome::Missed(_)), "{outcome:?}");
    assert_eq!(
        (run.hand(), run.score(), run.combo(), run.misses()),
        (7, 5, 0, 1)
    );
    assert_ne!(run.deal(), &deal);
    assert_eq!(
        run.remaining_ms(T0 + 6_000),
        RUN_MS - 6_000 + 3_000 - PENALTY_MS
    );

    // The combo counts again from 0: the bonus comes at five in a row.
    for i in 1..=4 {
        assert_eq!(solve(&mut run, T0 + 6_000 + i * 500), 0);
    }
    assert_eq!(solve(&mut run, T0 + 9_000), 3_000);

    // A typo is no attempt: nothing moves.
    let before = run.clone();
    let typo = run.submit(run.hand(), "(1+", T0 + 9_500).unwrap();
    assert!(matches!(typo, RunOutcome::NotAnAttempt(_)));
    assert_eq!(run, before);

    // An answer for another hand is refused, unjudged.
    assert_eq!(
        run.submit(3, "1", T0 + 9_600),
        Err(RunError::WrongHand {
            given: 3,
            current: run.hand()
        })
    );
    let result = run.result();
    assert_eq!((result.score, result.misses, result.best_combo), (10, 1, 5));
    assert_eq!(result.duration_ms, RUN_MS + 6_000 - PENALTY_MS);
}

#[test]
fn a_combo_of_twelve_adds_five_seconds_more() {
    let mut run = Run::new(seed(4), T0);
    let added: u64 = (1..=12).map(|i| solve(&mut run, T0 + i * 100)).sum();
    assert_eq!(added, 3_000 + 5_000);
    assert_eq!(run.ends_at_ms(), T0 + RUN_MS + 8_000);
}

#[test]
fn the_run_ends_when_the_clock_reaches_zero() {
    let mut run = Run::new(seed(5), T0);
    assert!(!run.is_over(T0 + RUN_MS - 1));
    assert_eq!(run.remaining_ms(T0 + RUN_MS - 1), 1);
    assert!(run.is_over(T0 + RUN_MS));
    assert_eq!(run.remaining_ms(T0 + RUN_MS + 5_000), 0);
    let hand = run.hand();
    let answer = right(&run);
    assert_eq!(run.submit(hand, &answer, T0 + RUN_MS), Err(RunError::Over));
    assert_eq!(run.score(), 0);
    // A clock stepped back before the start never shows more than the run had.
    assert_eq!(run.remaining_ms(T0 - 10_000), RUN_MS);

    // Wrong answers alone empty the clock: 18 × 10 s.
    let mut run = Run::new(seed(5), T0);
    for i in 0..18 {
        let deal = run.deal().clone();
        let hand = run.hand();
        assert!(!run.is_over(T0 + i), "over after {i} misses");
        run.submit(hand, &wrong(&deal), T0 + i).unwrap();
    }
    assert!(run.is_over(T0 + 18));
    assert_eq!(run.ends_at_ms(), T0);
}

#[test]
fn no_run_lasts_longer_than_the_longest() {
    // A stored run whose bonuses would last hours (a program answering at
    // the rate limit): the cap holds.
    let mut stored = serde_json::to_value(Run::new(seed(6), T0)).unwrap();
    stored["bonus_ms"] = serde_json::json!(10 * LONGEST_RUN_MS);
    let run: Run = serde_json::from_value(stored).unwrap();
    assert_eq!(run.ends_at_ms(), T0 + LONGEST_RUN_MS);
    assert!(run.is_over(T0 + LONGEST_RUN_MS));
}

#[test]
fn a_run_replays_exactly_from_its_seed_start_and_answers() {
    let mut run = Run::new(seed(7), T0);
    assert_eq!(Run::new(seed(7), T0 + 1).deal(), run.deal());
    assert_ne!(Run::new(seed(8), T0).deal(), run.deal());
    for i in 1..=6 {
        if i == 3 {
            let deal = run.deal().clone();
            let hand = run.hand();
            run.submit(hand, &wrong(&deal), T0 + i * 2_000).unwrap();
        } else {
            solve(&mut run, T0 + i * 2_000);
        }
    }
    let replayed = Run::replay(seed(7), T0, run.answers()).unwrap();
    assert_eq!(replayed, run);
    assert_eq!(replayed.result(), run.result());
    // Answers that do not fit the run fail its replay.
    let mut late = run.answers().to_vec();
    if let Some(last) = late.last_mut() {
        last.at_ms = T0 + 10 * RUN_MS;
    }
    assert_eq!(Run::replay(seed(7), T0, &late), Err(RunError::Over));
    // Stored and read back as it is; its seed never shows in a log.
    let text = serde_json::to_string(&run).unwrap();
    assert_eq!(serde_json::from_str::<Run>(&text).unwrap(), run);
    assert_eq!(format!("{:?}", seed(7)), "RunSeed(…)");
    assert_ne!(RunSeed::generate(), RunSeed::generate());
}
