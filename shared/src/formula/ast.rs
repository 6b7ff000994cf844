//! The expression tree shared by the parser, the checker and the solver, and
//! its printing with the fewest parentheses the usual precedence allows.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::rational::{ArithError, Rational};

/// One of the four operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `×`
    Mul,
    /// `÷`
    Div,
}

impl Op {
    /// All four, in a fixed order (the solver's enumeration order).
    pub const ALL: [Op; 4] = [Op::Add, Op::Sub, Op::Mul, Op::Div];

    /// Applies the operation exactly.
    #[inline]
    pub fn apply(self, a: Rational, b: Rational) -> Result<Rational, ArithError> {
        match self {
            Op::Add => a.checked_add(b),
            Op::Sub => a.checked_sub(b),
            Op::Mul => a.checked_mul(b),
            Op::Div => a.checked_div(b),
        }
    }

    /// Binding strength: `×` and `÷` bind tighter than `+` and `-`.
    #[inline]
    pub const fn precedence(self) -> u8 {
        match self {
            Op::Add | Op::Sub => 1,
            Op::Mul | Op::Div => 2,
        }
    }

    /// The symbol used when printing solutions (`+ - × ÷`).
    pub const fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "×",
            Op::Div => "÷",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// An arithmetic expression over card values.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A card, by its value.
    Card(i64),
    /// `lhs op rhs`.
    Bin(Op, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// `lhs op rhs`.
    pub fn bin(op: Op, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Bin(op, Box::new(lhs), Box::new(rhs))
    }

    /// The exact value, ignoring rule sets.
    pub fn value(&self) -> Result<Rational, ArithError> {
        match self {
            Expr::Card(v) => Ok(Rational::from_int(*v)),
            Expr::Bin(op, l, r) => op.apply(l.value()?, r.value()?),
        }
    }

    /// The cards in the order they are written.
    pub fn cards(&self) -> Vec<i64> {
        let mut out = Vec::new();
        self.collect_cards(&mut out);
        out
    }

    fn collect_cards(&self, out: &mut Vec<i64>) {
        match self {
            Expr::Card(v) => out.push(*v),
            Expr::Bin(_, l, r) => {
                l.collect_cards(out);
                r.collect_cards(out);
            }
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            Expr::Card(_) => u8::MAX,
            Expr::Bin(op, _, _) => op.precedence(),
        }
    }

    fn fmt_child(&self, f: &mut fmt::Formatter<'_>, parens: bool) -> fmt::Result {
        if parens {
            write!(f, "({self})")
        } else {
            write!(f, "{self}")
        }
    }
}

impl fmt::Display for Expr {
    /// Prints with the fewest parentheses that usual precedence (left to
    /// right within a level) allows. `a + (b - c)` prints as `a + b - c` and
    /// `a × (b ÷ c)` as `a × b ÷ c`: the re-parsed tree differs but has the
    /// same value, and its intermediates obey every rule set the original
    /// obeyed, provided its numbers are values the rule set allows (sums and
    /// products of allowed values are allowed, and `a × b ÷ c` divides evenly
    /// when `b ÷ c` did). Not so for a 0 under positive rules, which no deck
    /// of that rule set holds: `0 + (0 + 6)` prints as `0 + 0 + 6`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Card(v) => write!(f, "{v}"),
            Expr::Bin(op, l, r) => {
                let p = op.precedence();
                l.fmt_child(f, l.precedence() < p)?;
                write!(f, " {op} ")?;
                let right_parens =
                    r.precedence() < p || (r.precedence() == p && matches!(op, Op::Sub | Op::Div));
                r.fmt_child(f, right_parens)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(v: i64) -> Expr {
        Expr::Card(v)
    }

    #[test]
    fn prints_minimal_parentheses() {
        let e = Expr::bin(Op::Sub, c(8), Expr::bin(Op::Sub, c(2), c(1)));
        assert_eq!(e.to_string(), "8 - (2 - 1)");
        let e = Expr::bin(Op::Add, c(8), Expr::bin(Op::Sub, c(2), c(1)));
        assert_eq!(e.to_string(), "8 + 2 - 1");
        let e = Expr::bin(Op::Mul, Expr::bin(Op::Add, c(1), c(2)), c(3));
        assert_eq!(e.to_string(), "(1 + 2) × 3");
        let e = Expr::bin(Op::Div, c(8), Expr::bin(Op::Mul, c(2), c(2)));
        assert_eq!(e.to_string(), "8 ÷ (2 × 2)");
        let e = Expr::bin(Op::Add, Expr::bin(Op::Mul, c(1), c(2)), c(3));
        assert_eq!(e.to_string(), "1 × 2 + 3");
    }

    #[test]
    fn evaluates_exactly() {
        let e = Expr::bin(Op::Div, c(1), c(3));
        assert_eq!(e.value().unwrap(), Rational::new(1, 3).unwrap());
        assert_eq!(e.cards(), vec![1, 3]);
    }
}
