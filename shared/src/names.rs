//! Player names: one rule for the server that stores them and the clients
//! that ask for them.

/// Longest name, in characters.
pub const MAX_NAME_CHARS: usize = 20;

/// A checked name: what to show and the key that makes it unique.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// Trimmed, inner runs of spaces collapsed to one.
    pub display: String,
    /// The comparison key; two names with the same key are the same name.
    pub key: String,
}

/// Why a name was refused; the message is a sentence for the person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Empty once trimmed, or too long.
    #[error("a name has 1 to {MAX_NAME_CHARS} characters")]
    Length,
    /// A character outside letters, digits, space, `-` and `_`.
    #[error("a name may hold letters, digits, space, - and _, not {0:?}")]
    Character(char),
}

/// Checks a name: 1–20 characters of letters, digits, space, `-` and `_`
/// once trimmed. Runs of spaces become one so "Ann  B" cannot pose as "Ann B".
pub fn validate(raw: &str) -> Result<Name, NameError> {
    let display = raw
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let len = display.chars().count();
    if len == 0 || len > MAX_NAME_CHARS {
        return Err(NameError::Length);
    }
    if let Some(bad) = display
        .chars()
        .find(|&c| !(c.is_alphabetic() || c.is_ascii_digit() || matches!(c, ' ' | '-' | '_')))
    {
        return Err(NameError::Character(bad));
    }
    let key = display.to_lowercase();
    Ok(Name { display, key })
}
