//! Chains: the expressions an APL programmer writes without parentheses.
//!
//! Every ordering of the cards with an operator between neighbours,
//! evaluated right to left (`a o (b o (c o d))`) and printed without
//! parentheses in that reading, e.g. `8 - 19 + 14 - 2 × 21`.

use super::{note_overflow, validate, SolveError};
use crate::formula::ast::Op;
use crate::rational::Rational;
use crate::rules::Rules;

/// Every distinct chain of the cards equal to `target`, each intermediate
/// (right to left) obeying `rules`, sorted by printed string. Equal cards
/// give one chain per distinct printed string.
pub fn chains(cards: &[i64], target: i64, rules: Rules) -> Result<Vec<String>, SolveError> {
    validate(cards)?;
    let mut sorted = cards.to_vec();
    sorted.sort_unstable();
    let mut search = Chains {
        cards: &sorted,
        target: Rational::from_int(target),
        rules,
        used: vec![false; sorted.len()],
        // Placed from the right: (card, operator to its right).
        placed: Vec::with_capacity(sorted.len()),
        found: Vec::new(),
        overflow: false,
    };
    search.go(None);
    if search.overflow {
        return Err(SolveError::Overflow);
    }
    let mut found = search.found;
    found.sort_unstable();
    found.dedup();
    Ok(found)
}

struct Chains<'a> {
    cards: &'a [i64],
    target: Rational,
    rules: Rules,
    used: Vec<bool>,
    placed: Vec<(i64, Option<Op>)>,
    found: Vec<String>,
    overflow: bool,
}

impl Chains<'_> {
    /// Places one more card to the left of the chain so far (`value` is the
    /// value of the chain so far, `None` before the first card).
    fn go(&mut self, value: Option<Rational>) {
        if self.placed.len() == self.cards.len() {
            if value == Some(self.target) {
                self.record();
            }
            return;
        }
        for i in 0..self.cards.len() {
            // Equal cards: only the first unused copy, so each ordering of
            // values is generated once.
            if self.used[i] || (i > 0 && self.cards[i] == self.cards[i - 1] && !self.used[i - 1]) {
                continue;
            }
            let card = self.cards[i];
            self.used[i] = true;
            match value {
                None => {
                    self.placed.push((card, None));
                    self.go(Some(Rational::from_int(card)));
                    self.placed.pop();
                }
                Some(v) => {
                    for op in Op::ALL {
                        match op.apply(Rational::from_int(card), v) {
                            Ok(w) if self.rules.allows(w) => {
                                self.placed.push((card, Some(op)));
                                self.go(Some(w));
                                self.placed.pop();
                            }
                            Ok(_) => {}
                            Err(e) => note_overflow(e, &mut self.overflow),
                        }
                    }
                }
            }
            self.used[i] = false;
        }
    }

    fn record(&mut self) {
        let mut s = String::new();
        for (card, op) in self.placed.iter().rev() {
            s.push_str(&card.to_string());
            if let Some(op) = op {
                s.push(' ');
                s.push_str(op.symbol());
                s.push(' ');
            }
        }
        self.found.push(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_right_to_left() {
        // 2 × 3 + 4 read right to left is 2 × (3 + 4) = 14.
        let c = chains(&[2, 3, 4], 14, Rules::Free).unwrap();
        assert!(c.contains(&"2 × 3 + 4".to_string()));
        assert!(!chains(&[2, 3, 4], 10, Rules::Free)
            .unwrap()
            .contains(&"2 × 3 + 4".to_string()));
    }

    #[test]
    fn equal_cards_do_not_double_count() {
        assert_eq!(
            chains(&[2, 2], 4, Rules::Free).unwrap(),
            vec!["2 + 2", "2 × 2"]
        );
        assert_eq!(chains(&[5], 5, Rules::Free).unwrap(), vec!["5"]);
    }

    #[test]
    fn rules_apply_to_every_intermediate() {
        // 1 - 3 = -2 is not allowed under international rules.
        assert_eq!(chains(&[1, 3], -2, Rules::Free).unwrap(), vec!["1 - 3"]);
        assert!(chains(&[1, 3], -2, Rules::International)
            .unwrap()
            .is_empty());
    }
}
