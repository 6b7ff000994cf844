//! The rule sets that decide which intermediate results a formula may have.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::rational::Rational;

/// Which values every operator node of a formula (the whole formula included)
/// may take. Dividing by zero is never allowed under any of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// Any rational number: negative and fractional intermediates are fine.
    #[default]
    Free,
    /// Whole numbers only (negative allowed): every division must come out even.
    Integer,
    /// Non-negative whole numbers only: Krypto's "International Rules".
    International,
    /// Positive whole numbers only: the Countdown numbers game.
    Positive,
}

impl Rules {
    /// Every rule set, in the order the docs list them.
    pub const ALL: [Rules; 4] = [
        Rules::Free,
        Rules::Integer,
        Rules::International,
        Rules::Positive,
    ];

    /// Whether an intermediate result `v` is allowed.
    #[inline]
    pub fn allows(self, v: Rational) -> bool {
        match self {
            Rules::Free => true,
            Rules::Integer => v.is_integer(),
            Rules::International => v.is_integer() && !v.is_negative(),
            Rules::Positive => v.is_integer() && v.numer() > 0,
        }
    }

    /// The name used on the command line and on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Free => "free",
            Rules::Integer => "integer",
            Rules::International => "international",
            Rules::Positive => "positive",
        }
    }

    /// What the rule set demands, in words, for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            Rules::Free => "any rational number",
            Rules::Integer => "whole numbers",
            Rules::International => "non-negative whole numbers",
            Rules::Positive => "positive whole numbers",
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rule-set name that is not one of `free`, `integer`, `international`, `positive`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule set {0:?} (expected free, integer, international or positive)")]
pub struct UnknownRules(pub String);

impl FromStr for Rules {
    type Err = UnknownRules;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Rules::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownRules(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_by_rule_set() {
        let half = Rational::new(1, 2).unwrap();
        let neg = Rational::from_int(-3);
        let zero = Rational::ZERO;
        assert!(Rules::Free.allows(half) && Rules::Free.allows(neg));
        assert!(!Rules::Integer.allows(half) && Rules::Integer.allows(neg));
        assert!(!Rules::International.allows(neg) && Rules::International.allows(zero));
        assert!(!Rules::Positive.allows(zero) && Rules::Positive.allows(Rational::ONE));
    }

    #[test]
    fn parses_names() {
        for r in Rules::ALL {
            assert_eq!(r.name().parse::<Rules>().unwrap(), r);
        }
        assert!("decimal".parse::<Rules>().is_err());
    }
}
