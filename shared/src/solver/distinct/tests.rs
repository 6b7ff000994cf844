use super::*;

fn strings(cards: &[i64], target: i64, rules: Rules) -> Vec<String> {
    solve_all(cards, target, rules)
        .unwrap()
        .iter()
        .map(|e| e.to_string())
        .collect()
}

#[test]
fn counts_expressions_like_oeis_a140606() {
    let cards = [2, 30, 500, 7000, 110000];
    for (n, want) in [(1, 1), (2, 6), (3, 68), (4, 1170), (5, 27142)] {
        assert_eq!(
            all_expressions(&cards[..n], Rules::Free).unwrap(),
            want,
            "{n} cards"
        );
    }
}

#[test]
fn commuted_and_regrouped_forms_are_one_solution() {
    assert_eq!(strings(&[8, 2], 10, Rules::Free), vec!["2 + 8"]);
    // 2 + 2 and 2 × 2 are different solutions.
    assert_eq!(strings(&[2, 2], 4, Rules::Free), vec!["2 + 2", "2 × 2"]);
    // Representatives read naturally.
    assert_eq!(
        strings(&[5, 1, 5, 5], 24, Rules::Free),
        vec!["5 × (5 - 1 ÷ 5)"]
    );
    assert_eq!(strings(&[3, 2, 1], 6, Rules::Integer)[0], "1 + 2 + 3");
    // a + b + c, a × b × c and c ÷ a × b.
    assert_eq!(count_solutions(&[1, 2, 3], 6, Rules::Free).unwrap(), 3);
    // a - (b - c) and a + c - b are one solution.
    assert_eq!(count_solutions(&[9, 2, 3], 10, Rules::Free).unwrap(), 1);
}

#[test]
fn rules_filter_intermediates() {
    // 8 ÷ (3 − 8 ÷ 3) = 24 needs a fraction.
    assert_eq!(count_solutions(&[3, 3, 8, 8], 24, Rules::Free).unwrap(), 1);
    assert_eq!(
        count_solutions(&[3, 3, 8, 8], 24, Rules::Integer).unwrap(),
        0
    );
    assert!(count_solutions(&[1, 5], -4, Rules::Integer).unwrap() == 1);
    assert!(count_solutions(&[1, 5], -4, Rules::International).unwrap() == 0);
}

#[test]
fn every_solution_is_exact_and_deterministic() {
    let cards = [4, 9, 9, 13, 21];
    let a = solve_all(&cards, 11, Rules::Free).unwrap();
    assert!(!a.is_empty());
    for e in &a {
        assert_eq!(e.value().unwrap(), Rational::from_int(11));
    }
    assert_eq!(a, solve_all(&cards, 11, Rules::Free).unwrap());
    assert_eq!(a.len(), count_solutions(&cards, 11, Rules::Free).unwrap());
}
