//! Chains: the expressions an APL programmer writes without parentheses.
//!
//! Every ordering of the cards with an operator between neighbours,
//! evaluated right to left (`a o (b o (c o d))`) and printed without
//! parentheses in that reading, e.g. `8 - 19 + 14 - 2 × 21`.

use rustc_hash::FxHashMap;

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
    let target = Rational::from_int(target);
    let (mut found, overflow) = if sorted.contains(&0) {
        // A zero card makes "c × z = 0" hold for every z, which the
        // backward search cannot invert; enumerate forwards instead.
        let mut fwd = Forward::new(&sorted, rules, Some(target));
        fwd.go(None, 0);
        let found = fwd
            .found
            .iter()
            .map(|&(_, code)| decode(&sorted, code, ""))
            .collect();
        (found, fwd.overflow)
    } else {
        let n = sorted.len();
        let mut mid = MeetInMiddle {
            rules,
            suffix_len: n - n / 2,
            tables: FxHashMap::default(),
            prefix: Vec::with_capacity(n),
            found: Vec::new(),
            overflow: false,
        };
        if n == 1 || rules.allows(target) {
            mid.go(&sorted, target);
        }
        (mid.found, mid.overflow)
    };
    if overflow {
        return Err(SolveError::Overflow);
    }
    found.sort_unstable();
    found.dedup();
    Ok(found)
}

/// A chain over a sorted multiset, packed 5 bits per card from the right:
/// the card's index in the multiset (3 bits) and the operator to its right
/// (2 bits; none for the last card).
type Code = u64;

/// Prints a packed chain over `cards` after `prefix`.
fn decode(cards: &[i64], code: Code, prefix: &str) -> String {
    let mut parts: Vec<(i64, Option<Op>)> = Vec::with_capacity(cards.len());
    for k in 0..cards.len() {
        let bits = (code >> (5 * k)) & 31;
        let op = (k > 0).then(|| Op::ALL[(bits & 3) as usize]);
        parts.push((cards[(bits >> 2) as usize], op));
    }
    let mut s = String::from(prefix);
    for (card, op) in parts.iter().rev() {
        s.push_str(&card.to_string());
        if let Some(op) = op {
            s.push(' ');
            s.push_str(op.symbol());
            s.push(' ');
        }
    }
    s
}

/// Chains by meet in the middle: the first cards are chosen from the left,
/// each time inverting the operator to get the value the rest of the chain
/// must have (`c + z = y` gives `z = y − c`, `c ÷ z = y` gives `z = c ÷ y`,
/// …), until only `suffix_len` cards remain; those are looked up in a table
/// of every chain over that multiset by value. Cards are non-zero here, so
/// every inversion is unique.
struct MeetInMiddle {
    rules: Rules,
    suffix_len: usize,
    /// Sorted multiset → value → packed chains over exactly those cards.
    tables: FxHashMap<Vec<i64>, FxHashMap<Rational, Vec<Code>>>,
    /// The cards and operators chosen so far, left to right.
    prefix: Vec<(i64, Op)>,
    found: Vec<String>,
    overflow: bool,
}

impl MeetInMiddle {
    /// Chains over the sorted multiset `rest` with value `need`.
    fn go(&mut self, rest: &[i64], need: Rational) {
        if rest.len() <= self.suffix_len {
            if !self.tables.contains_key(rest) {
                let mut fwd = Forward::new(rest, self.rules, None);
                fwd.go(None, 0);
                self.overflow |= fwd.overflow;
                let mut table: FxHashMap<Rational, Vec<Code>> = FxHashMap::default();
                for (v, code) in fwd.found {
                    table.entry(v).or_default().push(code);
                }
                self.tables.insert(rest.to_vec(), table);
            }
            if let Some(codes) = self.tables.get(rest).and_then(|t| t.get(&need)) {
                let mut prefix = String::new();
                for (c, op) in &self.prefix {
                    prefix.push_str(&format!("{c} {} ", op.symbol()));
                }
                for &code in codes {
                    self.found.push(decode(rest, code, &prefix));
                }
            }
            return;
        }
        let mut next: Vec<i64> = Vec::with_capacity(rest.len() - 1);
        for i in 0..rest.len() {
            if i > 0 && rest[i] == rest[i - 1] {
                continue;
            }
            let c = Rational::from_int(rest[i]);
            next.clear();
            next.extend_from_slice(&rest[..i]);
            next.extend_from_slice(&rest[i + 1..]);
            for op in Op::ALL {
                let z = match op {
                    Op::Add => need.checked_sub(c),
                    Op::Sub => c.checked_sub(need),
                    Op::Mul => need.checked_div(c),
                    Op::Div => c.checked_div(need),
                };
                let z = match z {
                    Ok(z) => z,
                    Err(e) => {
                        note_overflow(e, &mut self.overflow);
                        continue;
                    }
                };
                // The rest of the chain is an operator node when it has two
                // or more cards, so its value must obey the rules.
                if next.len() >= 2 && !self.rules.allows(z) {
                    continue;
                }
                self.prefix.push((rest[i], op));
                self.go(&next, z);
                self.prefix.pop();
            }
        }
    }
}

/// Every chain over a sorted multiset, built from the right, with its value.
struct Forward<'a> {
    cards: &'a [i64],
    rules: Rules,
    /// Keep only chains with this value (all of them if `None`).
    want: Option<Rational>,
    used: Vec<bool>,
    /// Cards placed so far (from the right).
    placed: usize,
    found: Vec<(Rational, Code)>,
    overflow: bool,
}

impl<'a> Forward<'a> {
    fn new(cards: &'a [i64], rules: Rules, want: Option<Rational>) -> Self {
        Forward {
            cards,
            rules,
            want,
            used: vec![false; cards.len()],
            placed: 0,
            found: Vec::new(),
            overflow: false,
        }
    }

    /// Places one more card to the left of the chain so far (`value` is the
    /// value of the chain so far, `None` before the first card; `code` the
    /// chain so far, packed).
    fn go(&mut self, value: Option<Rational>, code: Code) {
        if self.placed == self.cards.len() {
            if let Some(v) = value {
                if self.want.is_none_or(|w| w == v) {
                    self.found.push((v, code));
                }
            }
            return;
        }
        let shift = 5 * self.placed;
        for i in 0..self.cards.len() {
            // Equal cards: only the first unused copy, so each ordering of
            // values is generated once.
            if self.used[i] || (i > 0 && self.cards[i] == self.cards[i - 1] && !self.used[i - 1]) {
                continue;
            }
            let card = Rational::from_int(self.cards[i]);
            self.used[i] = true;
            self.placed += 1;
            match value {
                None => self.go(Some(card), (i as Code) << 2),
                Some(v) => {
                    for (k, op) in Op::ALL.into_iter().enumerate() {
                        match op.apply(card, v) {
                            Ok(w) if self.rules.allows(w) => {
                                let bits = ((i as Code) << 2 | k as Code) << shift;
                                self.go(Some(w), code | bits);
                            }
                            Ok(_) => {}
                            Err(e) => note_overflow(e, &mut self.overflow),
                        }
                    }
                }
            }
            self.placed -= 1;
            self.used[i] = false;
        }
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
        assert_eq!(
            chains(&[3, 3, 3], 9, Rules::Free).unwrap(),
            vec!["3 + 3 + 3"]
        );
        // A zero card: 0 × anything.
        assert_eq!(
            chains(&[0, 2, 5], 0, Rules::Free).unwrap(),
            vec![
                "0 × 2 + 5",
                "0 × 2 - 5",
                "0 × 2 × 5",
                "0 × 2 ÷ 5",
                "0 × 5 + 2",
                "0 × 5 - 2",
                "0 × 5 × 2",
                "0 × 5 ÷ 2",
                "0 ÷ 2 + 5",
                "0 ÷ 2 - 5",
                "0 ÷ 2 × 5",
                "0 ÷ 2 ÷ 5",
                "0 ÷ 5 + 2",
                "0 ÷ 5 - 2",
                "0 ÷ 5 × 2",
                "0 ÷ 5 ÷ 2",
                "2 × 0 × 5",
                "2 × 0 ÷ 5",
                "2 × 5 × 0",
                "5 × 0 × 2",
                "5 × 0 ÷ 2",
                "5 × 2 × 0"
            ]
        );
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
