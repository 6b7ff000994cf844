//! The solver checked against independent, naive methods written here.

use std::collections::HashSet;

use krypto_core::formula;
use krypto_core::solver::census::{self, CensusConfig, DeckMode, Variant};
use krypto_core::solver::{
    all_expressions, chains, count_solutions, solve_all, solve_one, solve_subset, SolveError,
};
use krypto_core::{Expr, Op, Rational, Rules};
use proptest::prelude::*;

const RULES: [Rules; 4] = [
    Rules::Free,
    Rules::Integer,
    Rules::International,
    Rules::Positive,
];

/// Every split of the card positions into a non-empty (left, right) pair,
/// both orders: the root of every expression tree over `cards`.
fn ordered_splits(cards: &[i64]) -> impl Iterator<Item = (Vec<i64>, Vec<i64>)> + '_ {
    let n = cards.len();
    (1..(1u32 << n) - 1).map(move |left| {
        let side = |bit: u32| -> Vec<i64> {
            (0..n)
                .filter(|i| left >> i & 1 == bit)
                .map(|i| cards[i])
                .collect()
        };
        (side(1), side(0))
    })
}

/// Every value any expression over `cards` (each used once) can take,
/// obeying `rules` at every operator node: every split of the cards into an
/// ordered (left, right) pair, recursively, with all four operations.
fn naive_values(cards: &[i64], rules: Rules) -> HashSet<Rational> {
    if cards.len() == 1 {
        return HashSet::from([Rational::from_int(cards[0])]);
    }
    let mut out = HashSet::new();
    for (l, r) in ordered_splits(cards) {
        let (lv, rv) = (naive_values(&l, rules), naive_values(&r, rules));
        for &a in &lv {
            for &b in &rv {
                for op in Op::ALL {
                    if let Ok(v) = op.apply(a, b) {
                        if rules.allows(v) {
                            out.insert(v);
                        }
                    }
                }
            }
        }
    }
    out
}

fn naive_solvable(cards: &[i64], target: i64, rules: Rules) -> bool {
    if cards.len() == 1 {
        return cards[0] == target;
    }
    naive_values(cards, rules).contains(&Rational::from_int(target))
}

/// A fingerprint unlike the solver's: the prime 2^62 − 57 and points from a
/// different hash, three evaluations.
const Q: u128 = (1 << 62) - 57;

fn q_pow(mut a: u128, mut e: u128) -> u128 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = r * a % Q;
        }
        a = a * a % Q;
        e >>= 1;
    }
    r
}

type Fp3 = [u128; 3];

fn q_point(v: i64, k: u128) -> u128 {
    let x = (v as i128 as u128).wrapping_mul(0x2545_F491_4F6C_DD1D) ^ (k * 0x1234_5678_9ABC_DEF1);
    x.wrapping_mul(0xD6E8_FEB8_6659_FD93) % Q
}

/// Every tree over `cards` (every ordering × every shape × every operator),
/// as (value, fingerprint), dropping trees that divide by zero or break the
/// rules anywhere.
fn all_trees(cards: &[i64], rules: Rules) -> Vec<(Rational, Fp3)> {
    if cards.len() == 1 {
        let c = cards[0];
        return vec![(
            Rational::from_int(c),
            [q_point(c, 1), q_point(c, 2), q_point(c, 3)],
        )];
    }
    let mut out = Vec::new();
    for (l, r) in ordered_splits(cards) {
        let (lt, rt) = (all_trees(&l, rules), all_trees(&r, rules));
        for &(a, fa) in &lt {
            for &(b, fb) in &rt {
                for op in Op::ALL {
                    let Ok(v) = op.apply(a, b) else { continue };
                    if !rules.allows(v) {
                        continue;
                    }
                    let f = |i: usize| match op {
                        Op::Add => (fa[i] + fb[i]) % Q,
                        Op::Sub => (fa[i] + Q - fb[i]) % Q,
                        Op::Mul => fa[i] * fb[i] % Q,
                        Op::Div => fa[i] * q_pow(fb[i], Q - 2) % Q,
                    };
                    out.push((v, [f(0), f(1), f(2)]));
                }
            }
        }
    }
    out
}

fn naive_count(cards: &[i64], target: i64, rules: Rules) -> usize {
    let t = Rational::from_int(target);
    if cards.len() == 1 {
        return usize::from(cards[0] == target);
    }
    all_trees(cards, rules)
        .into_iter()
        .filter(|(v, _)| *v == t)
        .map(|(_, f)| f)
        .collect::<HashSet<_>>()
        .len()
}

/// Whether every operator node of `e` is computable and obeys `rules`.
fn obeys(e: &Expr, rules: Rules) -> bool {
    match e {
        Expr::Card(_) => true,
        Expr::Bin(_, l, r) => {
            obeys(l, rules) && obeys(r, rules) && e.value().is_ok_and(|v| rules.allows(v))
        }
    }
}

fn sorted(mut v: Vec<i64>) -> Vec<i64> {
    v.sort_unstable();
    v
}

/// Asserts `e` is a valid solution: right cards, right value, rules obeyed,
/// and accepted by the checker that judges players.
fn assert_solution(e: &Expr, cards: &[i64], target: i64, rules: Rules) {
    assert_eq!(sorted(e.cards()), sorted(cards.to_vec()), "{e}");
    assert_eq!(e.value(), Ok(Rational::from_int(target)), "{e}");
    assert!(obeys(e, rules), "{e} breaks {rules}");
    let checked = formula::check(&e.to_string(), cards, target, rules);
    assert_eq!(checked, Ok(Rational::from_int(target)), "checker on {e}");
}

/// Evaluates a printed chain right to left.
fn eval_chain(s: &str, rules: Rules) -> Option<Rational> {
    let tokens: Vec<&str> = s.split(' ').collect();
    let mut v = Rational::from_int(tokens.last()?.parse().ok()?);
    let mut i = tokens.len() - 1;
    while i >= 2 {
        let card = Rational::from_int(tokens[i - 2].parse().ok()?);
        let op = Op::ALL.into_iter().find(|o| o.symbol() == tokens[i - 1])?;
        v = op.apply(card, v).ok()?;
        if !rules.allows(v) {
            return None;
        }
        i -= 2;
    }
    Some(v)
}

/// Every ordering × every operator choice, printed and evaluated right to
/// left, kept when equal to the target.
fn naive_chains(cards: &[i64], target: i64, rules: Rules) -> HashSet<String> {
    fn perms(rest: &[i64], cur: &mut Vec<i64>, out: &mut Vec<Vec<i64>>) {
        if rest.is_empty() {
            out.push(cur.clone());
        }
        for i in 0..rest.len() {
            let mut r = rest.to_vec();
            cur.push(r.remove(i));
            perms(&r, cur, out);
            cur.pop();
        }
    }
    let mut orders = Vec::new();
    perms(cards, &mut Vec::new(), &mut orders);
    let mut out = HashSet::new();
    let n = cards.len();
    for order in orders {
        for ops in 0..4usize.pow(n as u32 - 1) {
            let mut s = String::new();
            for (i, c) in order.iter().enumerate() {
                s.push_str(&c.to_string());
                if i + 1 < n {
                    let op = Op::ALL[ops / 4usize.pow(i as u32) % 4];
                    s.push_str(&format!(" {} ", op.symbol()));
                }
            }
            if eval_chain(&s, rules) == Some(Rational::from_int(target)) {
                out.insert(s);
            }
        }
    }
    out
}

fn hand(max_len: usize) -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(1i64..=13, 2..=max_len)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn solve_one_agrees_with_brute_force(cards in hand(5), target in -5i64..=30) {
        for rules in RULES {
            let got = solve_one(&cards, target, rules).unwrap();
            prop_assert_eq!(got.is_some(), naive_solvable(&cards, target, rules), "{:?} {} {}", cards, target, rules);
            if let Some(e) = got {
                assert_solution(&e, &cards, target, rules);
            }
        }
    }

    #[test]
    fn solve_all_solutions_are_valid_and_counts_agree(cards in hand(4), target in -5i64..=30) {
        for rules in RULES {
            let all = solve_all(&cards, target, rules).unwrap();
            for e in &all {
                assert_solution(e, &cards, target, rules);
            }
            prop_assert_eq!(all.len(), naive_count(&cards, target, rules), "{:?} {} {}", cards, target, rules);
            prop_assert_eq!(all.len(), count_solutions(&cards, target, rules).unwrap());
            prop_assert_eq!(all.is_empty(), solve_one(&cards, target, rules).unwrap().is_none());
        }
    }

    #[test]
    fn five_card_solutions_are_valid(cards in prop::collection::vec(1i64..=25, 5), target in 1i64..=25) {
        for rules in [Rules::Free, Rules::International] {
            let all = solve_all(&cards, target, rules).unwrap();
            for e in &all {
                assert_solution(e, &cards, target, rules);
            }
            let strings: HashSet<String> = all.iter().map(|e| e.to_string()).collect();
            prop_assert_eq!(strings.len(), all.len());
            prop_assert_eq!(all.is_empty(), solve_one(&cards, target, rules).unwrap().is_none());
        }
    }

    #[test]
    fn solve_subset_agrees_with_brute_force(cards in hand(5), target in 1i64..=60) {
        for rules in RULES {
            check_subset(&cards, target, rules)?;
        }
    }

    /// Countdown-sized tiles: the subset search with its shared tables and
    /// split queries (six tiles are too slow for the brute force in a debug
    /// build, five are not).
    #[test]
    fn solve_subset_on_countdown_tiles(
        cards in prop::collection::vec(prop::sample::select(vec![1i64, 2, 3, 4, 5, 6, 7, 8, 9, 10, 25, 50, 75, 100]), 5),
        target in 100i64..=999,
    ) {
        check_subset(&cards, target, Rules::Positive)?;
    }
}

/// The smallest number of cards of any sub-multiset of `cards` that makes
/// `target` under `rules` (brute force over every subset), if any does.
fn naive_subset_size(cards: &[i64], target: i64, rules: Rules) -> Option<usize> {
    (1u32..1 << cards.len())
        .filter(|m| {
            let sub: Vec<i64> = (0..cards.len())
                .filter(|i| m >> i & 1 == 1)
                .map(|i| cards[i])
                .collect();
            naive_solvable(&sub, target, rules)
        })
        .map(|m| m.count_ones() as usize)
        .min()
}

/// `solve_subset` finds a witness exactly when some subset makes the target,
/// and the witness is valid, uses a sub-multiset of the cards and no more
/// cards than the smallest solving subset.
fn check_subset(cards: &[i64], target: i64, rules: Rules) -> Result<(), TestCaseError> {
    let want = naive_subset_size(cards, target, rules);
    let got = solve_subset(cards, target, rules).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(
        got.is_some(),
        want.is_some(),
        "{:?} {} {}",
        cards,
        target,
        rules
    );
    if let Some(e) = got {
        prop_assert_eq!(e.value(), Ok(Rational::from_int(target)));
        prop_assert!(obeys(&e, rules));
        let mut left = cards.to_vec();
        for c in e.cards() {
            let at = left.iter().position(|&x| x == c);
            prop_assert!(
                at.is_some(),
                "{} used too often in {} from {:?}",
                c,
                e,
                cards
            );
            left.swap_remove(at.unwrap_or_default());
        }
        prop_assert_eq!(
            Some(e.cards().len()),
            want,
            "{} is not a smallest witness",
            e
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Zero and negative cards and small targets exercise the corner cases
    /// (0 × anything, 0 ÷ anything, division by a zero sub-expression).
    #[test]
    fn zero_and_negative_cards(
        cards in prop::collection::vec(-3i64..=6, 1..=4),
        target in -4i64..=8,
    ) {
        for rules in RULES {
            let one = solve_one(&cards, target, rules).unwrap();
            prop_assert_eq!(one.is_some(), naive_solvable(&cards, target, rules), "{:?} {} {}", cards, target, rules);
            let all = solve_all(&cards, target, rules).unwrap();
            for e in &all {
                prop_assert_eq!(e.value(), Ok(Rational::from_int(target)));
                prop_assert!(obeys(e, rules));
            }
            prop_assert_eq!(all.len(), naive_count(&cards, target, rules), "{:?} {} {}", cards, target, rules);
            check_subset(&cards, target, rules)?;
        }
    }

    /// Six and seven cards go through the subset search and the recursive
    /// class queries; the naive check is too slow there, so check the
    /// witnesses and the agreement between the entry points.
    #[test]
    fn larger_hands_agree(
        cards in prop::collection::vec(1i64..=9, 6..=7),
        target in 0i64..=60,
    ) {
        for rules in [Rules::Integer, Rules::Positive] {
            let one = solve_one(&cards, target, rules).unwrap();
            if let Some(e) = &one {
                assert_solution(e, &cards, target, rules);
            }
            if cards.len() == 6 {
                let all = solve_all(&cards, target, rules).unwrap();
                prop_assert_eq!(all.is_empty(), one.is_none());
                for e in all.iter().take(20) {
                    assert_solution(e, &cards, target, rules);
                }
            }
        }
    }
}

proptest! {
    // The naive enumeration is slow in debug builds: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn chains_are_distinct_correct_and_complete(
        cards in prop::collection::vec(0i64..=13, 2..=5),
        target in -5i64..=30,
    ) {
        for rules in RULES {
            let found = chains(&cards, target, rules).unwrap();
            let distinct: HashSet<&String> = found.iter().collect();
            prop_assert_eq!(distinct.len(), found.len());
            for c in &found {
                prop_assert_eq!(eval_chain(c, rules), Some(Rational::from_int(target)), "{}", c);
            }
            let naive = naive_chains(&cards, target, rules);
            prop_assert_eq!(distinct, naive.iter().collect::<HashSet<_>>());
        }
    }
}

#[test]
fn distinct_expressions_match_oeis_a140606() {
    let cards = [2, 30, 500, 7000, 110000];
    for (n, want) in [(1, 1), (2, 6), (3, 68), (4, 1170), (5, 27142)] {
        assert_eq!(all_expressions(&cards[..n], Rules::Free).unwrap(), want);
    }
}

#[test]
fn known_answers() {
    // 8 ÷ (3 − 8 ÷ 3), 6 ÷ (1 − 3 ÷ 4), 5 × (5 − 1 ÷ 5): fractions needed.
    for (cards, target) in [([3, 3, 8, 8], 24), ([1, 3, 4, 6], 24), ([1, 5, 5, 5], 24)] {
        assert_eq!(count_solutions(&cards, target, Rules::Free).unwrap(), 1);
        assert!(solve_one(&cards, target, Rules::Integer).unwrap().is_none());
        assert!(solve_one(&cards, target, Rules::International)
            .unwrap()
            .is_none());
    }
    // Negative intermediates: integer yes, international no.
    assert!(solve_one(&[1, 5], -4, Rules::Integer).unwrap().is_some());
    assert!(solve_one(&[1, 5], -4, Rules::International)
        .unwrap()
        .is_none());
    assert_eq!(solve_one(&[1, 1, 1, 1], 24, Rules::Free), Ok(None));
    let all = solve_all(&[2, 2], 4, Rules::Free).unwrap();
    let printed: Vec<String> = all.iter().map(|e| e.to_string()).collect();
    assert_eq!(printed, ["2 + 2", "2 × 2"]);
    // Right-to-left: 8 − (19 + (14 − (2 × 21))) = 17.
    assert!(chains(&[8, 19, 14, 2, 21], 17, Rules::Free)
        .unwrap()
        .contains(&"8 - 19 + 14 - 2 × 21".to_string()));
}

#[test]
fn larger_hands_and_errors() {
    let seven = [3, 5, 7, 11, 13, 17, 19];
    let e = solve_one(&seven, 1000, Rules::Positive).unwrap().unwrap();
    assert_solution(&e, &seven, 1000, Rules::Positive);
    let eight = [1, 1, 1, 1, 1, 1, 1, 1];
    assert_eq!(solve_one(&eight, 10_000, Rules::Free), Ok(None));
    assert_eq!(solve_one(&[], 1, Rules::Free), Err(SolveError::NoCards));
    assert!(matches!(
        solve_all(&[1; 9], 1, Rules::Free),
        Err(SolveError::TooManyCards { .. })
    ));
    let big = i64::MAX / 3;
    assert_eq!(
        solve_one(&[big, big, big], 5, Rules::Free),
        Err(SolveError::Overflow)
    );
    assert_eq!(
        solve_all(&[big, big, big], 5, Rules::Free),
        Err(SolveError::Overflow)
    );
    assert_eq!(
        chains(&[big, big, big], 5, Rules::Free),
        Err(SolveError::Overflow)
    );
}

/// Every multiset of `k` values from `1..=max`.
fn multisets(k: usize, max: i64) -> Vec<Vec<i64>> {
    if k == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for m in multisets(k - 1, max) {
        let start = m.last().copied().unwrap_or(1);
        for v in start..=max {
            let mut m2 = m.clone();
            m2.push(v);
            out.push(m2);
        }
    }
    out
}

#[test]
fn census_agrees_with_solve_one_on_every_game() {
    for cards in [3, 4] {
        for rules in RULES {
            let cfg = CensusConfig {
                variant: Variant::Krypto,
                deck: DeckMode::Unbounded,
                rules,
                cards,
                max: 6,
                targets: -2..=12,
                collect_unsolvable: true,
            };
            let r = census::run(&cfg, &|_, _| {}).unwrap();
            let mut want = Vec::new();
            let hands = multisets(cards, 6);
            for h in &hands {
                for t in -2..=12 {
                    if solve_one(h, t, rules).unwrap().is_none() {
                        want.push((h.clone(), t));
                    }
                }
            }
            let mut got = r.unsolvable_games.clone();
            got.sort();
            want.sort();
            assert_eq!(got, want, "{cards} cards, {rules}");
            assert_eq!(r.hands, hands.len() as u64);
            assert_eq!(r.games, hands.len() as u64 * 15);
            assert_eq!(r.unsolvable, want.len() as u64);
        }
    }
}

#[test]
fn countdown_census_agrees_with_solve_subset() {
    let cfg = CensusConfig {
        cards: 3,
        targets: 1..=120,
        collect_unsolvable: true,
        ..CensusConfig::defaults(Variant::Countdown)
    };
    let r = census::run(&cfg, &|_, _| {}).unwrap();
    let mut got = r.unsolvable_games.clone();
    got.sort();
    let mut hands = HashSet::new();
    let tiles: Vec<i64> = (1..=10).chain(1..=10).chain([25, 50, 75, 100]).collect();
    for a in 0..tiles.len() {
        for b in a + 1..tiles.len() {
            for c in b + 1..tiles.len() {
                hands.insert(sorted(vec![tiles[a], tiles[b], tiles[c]]));
            }
        }
    }
    let mut want = Vec::new();
    for h in &hands {
        for t in 1..=120 {
            if solve_subset(h, t, Rules::Positive).unwrap().is_none() {
                want.push((h.clone(), t));
            }
        }
    }
    want.sort();
    assert_eq!(r.hands, hands.len() as u64);
    assert_eq!(got, want);
    assert!(r.solvable_probability.is_some());
}

#[test]
fn deck_census_weights_deals() {
    // Two-card Krypto hands from the real deck, objective from what is left.
    let cfg = CensusConfig {
        deck: DeckMode::Krypto,
        cards: 2,
        collect_unsolvable: true,
        ..CensusConfig::defaults(Variant::Krypto)
    };
    let r = census::run(&cfg, &|_, _| {}).unwrap();
    let deck = krypto_core::cards::Deck::krypto();
    let (mut total, mut good) = (0u64, 0u64);
    let mut games = 0;
    for a in 1..=25i64 {
        for b in a..=25 {
            let hand_ways = if a == b {
                let c = u64::from(deck.copies(a));
                c * c.saturating_sub(1) / 2
            } else {
                u64::from(deck.copies(a) * deck.copies(b))
            };
            if hand_ways == 0 {
                continue;
            }
            for t in 1..=25 {
                let used = u64::from(a == t) + u64::from(b == t);
                let left = u64::from(deck.copies(t)).saturating_sub(used);
                if left == 0 {
                    continue;
                }
                games += 1;
                total += hand_ways * left;
                if solve_one(&[a, b], t, Rules::Free).unwrap().is_some() {
                    good += hand_ways * left;
                }
            }
        }
    }
    assert_eq!(r.games, games);
    let p = r.solvable_probability.unwrap();
    assert!((p - good as f64 / total as f64).abs() < 1e-12);
}
