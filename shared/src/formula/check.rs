//! Judging a formula against a hand: the checker that arbitrates a round, and
//! the lenient analysis behind a live preview while the player types.

use super::error::{ErrorKind, FormulaError};
use super::parser::{parse, Parsed};
use crate::rational::Rational;
use crate::rules::Rules;

/// Judges `formula` as a solution: it must parse, use every card of `cards`
/// exactly once (matched by value, so a hand of 5, 5 allows two 5s), obey
/// `rules` at every operator node, and come to `target`.
///
/// Problems are reported in that order (syntax, length and depth; then
/// unknown, reused and unused cards; then the evaluation; then the value), so
/// a player fixes the most basic one first. `Ok` carries the formula's value.
pub fn check(
    formula: &str,
    cards: &[i64],
    target: i64,
    rules: Rules,
) -> Result<Rational, FormulaError> {
    let parsed = parse(formula)?;
    match_cards(&parsed, cards)?;
    let value = parsed.evaluate(rules)?;
    if value != Rational::from_int(target) {
        return Err(FormulaError::whole(
            ErrorKind::WrongValue,
            format!("comes to {value}, not {target}"),
        ));
    }
    Ok(value)
}

/// Whether `formula` is a complete formula over the hand: it parses and
/// uses every card of `cards` exactly once, whatever it comes to and
/// whatever rule set it breaks. This is what makes an answer a real attempt
/// at the hand for ratings and boards (`room::counts_as_attempt`): a wrong
/// value is one, `1+1` is not.
pub fn uses_hand(formula: &str, cards: &[i64]) -> bool {
    parse(formula).is_ok_and(|parsed| match_cards(&parsed, cards).is_ok())
}

/// What the input typed so far amounts to, for a live preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The exact value of the input, when it parses and can be computed
    /// (ignoring the rule set, so the player sees where a forbidden
    /// intermediate would lead).
    pub value: Option<Rational>,
    /// Per hand card (same order as the hand): whether a typed number
    /// consumes it. Numbers take the first free card of their value, so the
    /// preview can grey out cards as they are typed, even mid-formula.
    pub used: Vec<bool>,
    /// The first problem [`check`] would report, apart from the value; `None`
    /// when the input is a complete formula over the whole hand that obeys
    /// the rules.
    pub error: Option<FormulaError>,
}

/// Analyses input that may still be incomplete; never fails.
pub fn analyze(formula: &str, cards: &[i64], rules: Rules) -> Analysis {
    let mut used = vec![false; cards.len()];
    for v in typed_numbers(formula) {
        if let Some(i) = (0..cards.len()).find(|&i| !used[i] && cards[i] == v) {
            used[i] = true;
        }
    }
    let (value, error) = match parse(formula) {
        Err(e) => (None, Some(e)),
        Ok(parsed) => {
            let value = parsed.evaluate(Rules::Free).ok();
            let error = match_cards(&parsed, cards)
                .and_then(|()| parsed.evaluate(rules))
                .err();
            (value, error)
        }
    };
    Analysis { value, used, error }
}

/// Every run of digits in the input, whatever surrounds it; runs too long
/// for 64 bits are skipped (they match no card).
fn typed_numbers(input: &str) -> impl Iterator<Item = i64> + '_ {
    input
        .split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .filter_map(|run| run.parse::<i64>().ok())
}

/// Checks that the numbers of the formula are exactly the hand, as
/// multisets: first any number that is no card at all, then any card used
/// more often than dealt, then any card left over.
fn match_cards(parsed: &Parsed, cards: &[i64]) -> Result<(), FormulaError> {
    if let Some((v, column)) = parsed.numbers().find(|(v, _)| !cards.contains(v)) {
        return Err(FormulaError::at(
            ErrorKind::UnknownCard,
            column,
            format!("{v} is not a card of the hand ({})", list(cards, " ")),
        ));
    }
    let mut used = vec![false; cards.len()];
    for (v, column) in parsed.numbers() {
        match (0..cards.len()).find(|&i| !used[i] && cards[i] == v) {
            Some(i) => used[i] = true,
            None => {
                let dealt = cards.iter().filter(|&&c| c == v).count();
                let times = if dealt == 1 {
                    "once".to_owned()
                } else {
                    format!("{dealt} times")
                };
                return Err(FormulaError::at(
                    ErrorKind::CardReused,
                    column,
                    format!("{v} is used more often than it was dealt (the hand has it {times})"),
                ));
            }
        }
    }
    let unused: Vec<i64> = cards
        .iter()
        .zip(&used)
        .filter(|(_, &u)| !u)
        .map(|(&c, _)| c)
        .collect();
    if !unused.is_empty() {
        let noun = if unused.len() == 1 { "card" } else { "cards" };
        return Err(FormulaError::whole(
            ErrorKind::CardUnused,
            format!(
                "every card must be used once; {noun} not used: {}",
                list(&unused, ", ")
            ),
        ));
    }
    Ok(())
}

fn list(cards: &[i64], sep: &str) -> String {
    cards
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_marks_cards_as_they_are_typed() {
        let a = analyze("8 + 19 - (", &[8, 19, 14, 2, 21], Rules::Free);
        assert_eq!(a.used, vec![true, true, false, false, false]);
        assert_eq!(a.value, None);
        assert_eq!(a.error.unwrap().kind, ErrorKind::Syntax);

        let a = analyze("5 × 5", &[5, 3, 5], Rules::Free);
        assert_eq!(a.used, vec![true, false, true]);
        assert_eq!(a.value, Some(Rational::from_int(25)));
        assert_eq!(a.error.unwrap().kind, ErrorKind::CardUnused);
    }

    #[test]
    fn preview_of_a_complete_formula_has_no_error() {
        let a = analyze("8-19", &[8, 19], Rules::Free);
        assert_eq!((a.value, a.error), (Some(Rational::from_int(-11)), None));
        let a = analyze("8-19", &[8, 19], Rules::International);
        assert_eq!(a.value, Some(Rational::from_int(-11)));
        assert_eq!(a.error.unwrap().kind, ErrorKind::RuleViolation);
    }

    #[test]
    fn a_complete_formula_uses_the_whole_hand_whatever_its_value() {
        let hand = [1, 2, 3, 4, 5];
        assert!(uses_hand("1+2+3+4+5", &hand));
        assert!(
            uses_hand("(1+2)*3-4/5", &hand),
            "a wrong value is an attempt"
        );
        assert!(uses_hand("1/(2-2+3-3)*4*5", &[1, 2, 2, 3, 3, 4, 5]));
        assert!(uses_hand("5/(4-4)+1+2+3", &[1, 2, 3, 4, 4, 5]));
        for not_one in [
            "1+1",
            "1+2",
            "1+2+3+4",
            "1+2+3+4+5+5",
            "1+2+3+4+6",
            "1+2+3+4+",
            "",
        ] {
            assert!(!uses_hand(not_one, &hand), "{not_one:?}");
        }
    }
}
