//! Why a formula was refused, with the column a player should look at.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The checker's refusal kinds, the one list of them: handed, with their
/// docs, to macro `$then` after its other arguments. [`ErrorKind`] is
/// these; a verdict's kind (`protocol::VerdictKind`) is these and the
/// room's.
macro_rules! checker_kinds {
    ($then:ident! { $($args:tt)* }) => {
        $then! { $($args)*
            /// The text is not a formula: an unexpected character, an unbalanced
            /// parenthesis, a missing operand or operator, or nothing at all.
            Syntax,
            /// More than [`MAX_LEN`](crate::formula::MAX_LEN) characters.
            TooLong,
            /// More than [`MAX_DEPTH`](crate::formula::MAX_DEPTH) levels of parentheses.
            TooDeep,
            /// A number that is not a card of the hand.
            UnknownCard,
            /// A card used more often than it was dealt.
            CardReused,
            /// Cards of the hand that the formula does not use.
            CardUnused,
            /// A division whose divisor comes to zero.
            DivisionByZero,
            /// An intermediate result the rule set does not allow.
            RuleViolation,
            /// A well-formed formula over the hand that does not make the objective.
            WrongValue,
            /// A value too large for exact 64-bit rationals.
            Overflow,
        }
    };
}
pub(crate) use checker_kinds;

/// A wire enum of the checker's kinds, then the variants in its braces.
macro_rules! kinds_enum {
    (
        $(#[$meta:meta])* $vis:vis enum $name:ident { $($more:tt)* }
        $($(#[$kind_meta:meta])* $kind:ident,)*
    ) => {
        wire_enum! {
            $(#[$meta])*
            $vis enum $name {
                $($(#[$kind_meta])* $kind,)*
                $($more)*
            }
        }
    };
}
pub(crate) use kinds_enum;

/// `From<$from>` for `$to`, two enums of the checker's kinds: each kind is
/// the kind of the same name.
macro_rules! kinds_from {
    ($from:ident => $to:ident $($(#[$kind_meta:meta])* $kind:ident,)*) => {
        impl From<$from> for $to {
            fn from(kind: $from) -> $to {
                match kind {
                    $($from::$kind => $to::$kind,)*
                }
            }
        }
    };
}
pub(crate) use kinds_from;

checker_kinds!(kinds_enum! {
    /// The category of a refusal. Clients switch on it (and the wire carries
    /// it as a snake_case string, also in `--json` output), so the set is
    /// part of the protocol.
    pub enum ErrorKind {}
});

/// A refused formula: what kind of problem, a sentence for the player, and
/// where it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Error, Serialize, Deserialize)]
#[error("{message}")]
pub struct FormulaError {
    /// What went wrong, for programs.
    pub kind: ErrorKind,
    /// What went wrong, for people; never repeats the column.
    pub message: String,
    /// The 1-based column, counted in characters (not bytes), where the
    /// problem is; `None` when it concerns the formula as a whole (cards left
    /// unused, the wrong value).
    pub column: Option<usize>,
}

impl FormulaError {
    /// An error pointing at `column`.
    pub(crate) fn at(kind: ErrorKind, column: usize, message: impl Into<String>) -> Self {
        FormulaError {
            kind,
            message: message.into(),
            column: Some(column),
        }
    }

    /// An error about the formula as a whole.
    pub(crate) fn whole(kind: ErrorKind, message: impl Into<String>) -> Self {
        FormulaError {
            kind,
            message: message.into(),
            column: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_kind_as_snake_case() {
        let e = FormulaError::at(ErrorKind::DivisionByZero, 3, "division by zero");
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"division_by_zero","message":"division by zero","column":3}"#
        );
        let back: FormulaError = serde_json::from_str(&json).unwrap();
        assert_eq!(back, e);
        assert_eq!(ErrorKind::CardUnused.as_str(), "card_unused");
    }
}
