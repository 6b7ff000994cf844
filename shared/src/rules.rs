//! The rule sets that decide which intermediate results a formula may have.

use crate::rational::Rational;

wire_enum! {
    /// Which values every operator node of a formula (the whole formula
    /// included) may take. Dividing by zero is never allowed under any of
    /// them.
    #[derive(Default, strum::VariantArray)]
    #[strum(
        parse_err_ty = UnknownRules,
        parse_err_fn = UnknownRules::from
    )]
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
}

impl Rules {
    /// Every rule set, in the order the docs list them.
    pub const ALL: &'static [Rules] = <Rules as strum::VariantArray>::VARIANTS;

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

/// A rule-set name that is not one of `free`, `integer`, `international`, `positive`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule set {0:?} (expected free, integer, international or positive)")]
pub struct UnknownRules(pub String);

impl From<&str> for UnknownRules {
    fn from(name: &str) -> Self {
        UnknownRules(name.to_owned())
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
        for &r in Rules::ALL {
            assert_eq!(r.as_str().parse::<Rules>().unwrap(), r);
        }
        assert!("decimal".parse::<Rules>().is_err());
    }
}
