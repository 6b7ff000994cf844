//! Hands as the line commands print them ("make 24 from 8 3 5 5 1 …"),
//! read back and answered with krypto-core's solver: the daily's, a run's
//! and practice's hands are the server's own, so the tests read them from
//! the output.

use krypto_core::solver::solve_one;
use krypto_core::Rules;

/// The objective and cards of a "… make N from A B C D E …" line.
pub fn hand(line: &str) -> (i64, Vec<i64>) {
    let rest = line.split("make ").nth(1).unwrap();
    let (objective, cards) = rest.split_once(" from ").unwrap();
    let cards = cards
        .split_whitespace()
        .map_while(|c| c.parse().ok())
        .collect();
    (objective.parse().unwrap(), cards)
}

/// A right formula for the hand on `line`.
pub fn solution(line: &str) -> String {
    let (objective, cards) = hand(line);
    solve_one(&cards, objective, Rules::Free)
        .unwrap()
        .unwrap()
        .to_string()
}

/// A complete formula over the hand on `line` that is wrong: a miss.
pub fn wrong(line: &str) -> String {
    let (objective, cards) = hand(line);
    let texts: Vec<String> = cards.iter().map(i64::to_string).collect();
    let sum: i64 = cards.iter().sum();
    if sum == objective {
        texts.join("*")
    } else {
        texts.join("+")
    }
}
