//! Text that players send to each other: what may be relayed, and how to
//! show text from a server that may not filter.
//!
//! One rule for every string a person types (chat, names, settings): no
//! character that moves the cursor, rewrites the terminal or reorders what is
//! shown. A terminal obeys `ESC ] 52` (write the clipboard) and `ESC [ 2J`
//! (clear the screen); `\r` and `\n` forge whole lines; bidi overrides make
//! "gnp.exe" read as "exe.png". Such text is refused where it enters and
//! stripped wherever it is shown.

use std::borrow::Cow;

/// A character that must never reach another player's screen: C0 and C1
/// controls (tab and newline included), the Unicode line and paragraph
/// separators, bidi embeddings, overrides and isolates, and every other
/// format character (zero-width spaces and joiners, the BOM, tags).
pub fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}'                      // soft hyphen
            | '\u{0600}'..='\u{0605}'       // Arabic number signs
            | '\u{061C}'                    // Arabic letter mark
            | '\u{06DD}' | '\u{070F}' | '\u{0890}'..='\u{0891}' | '\u{08E2}'
            | '\u{180E}'                    // Mongolian vowel separator
            | '\u{200B}'..='\u{200F}'       // zero-width space/joiners, LRM, RLM
            | '\u{2028}'..='\u{202E}'       // line/paragraph separators, bidi embeddings and overrides
            | '\u{2060}'..='\u{206F}'       // word joiner, invisible operators, bidi isolates
            | '\u{FEFF}'                    // zero-width no-break space (BOM)
            | '\u{FFF9}'..='\u{FFFB}'       // interlinear annotations
            | '\u{110BD}' | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}' | '\u{E0020}'..='\u{E007F}' // tags
        )
}

/// Why a text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// It holds a character from [`is_hidden`]; `column` is 1-based, in characters.
    #[error("character {column} ({code}) is a control or formatting character, which is not allowed", code = format!("U+{:04X}", u32::from(*ch)))]
    Hidden {
        /// The character.
        ch: char,
        /// Where it is, 1-based, in characters.
        column: usize,
    },
}

/// Refuses a text holding any [`is_hidden`] character.
pub fn check(text: &str) -> Result<(), TextError> {
    match text.chars().enumerate().find(|&(_, c)| is_hidden(c)) {
        Some((i, ch)) => Err(TextError::Hidden { ch, column: i + 1 }),
        None => Ok(()),
    }
}

/// The text with every [`is_hidden`] character removed (a tab or line break
/// becomes a space, so words stay apart): safe to draw on a terminal or a
/// single line of a page whatever the server sent.
pub fn for_display(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter_map(|c| match c {
                '\t' | '\n' | '\r' | '\u{2028}' | '\u{2029}' => Some(' '),
                c if is_hidden(c) => None,
                c => Some(c),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_escapes_line_breaks_and_bidi_are_refused() {
        for (bad, column) in [
            ("hi\u{1b}]52;c;aGk=\u{7}", 3),
            ("\u{1b}[2J", 1),
            ("ok\r\nSERVER: you won!", 3),
            ("a\u{9b}2J", 2),
            ("file\u{202E}gnp.exe", 5),
            ("zero\u{200B}width", 5),
            ("tab\there", 4),
            ("\u{2066}isolate", 1),
        ] {
            match check(bad) {
                Err(TextError::Hidden { column: c, .. }) => assert_eq!(c, column, "{bad:?}"),
                Ok(()) => panic!("{bad:?} was accepted"),
            }
        }
    }

    #[test]
    fn ordinary_text_in_any_script_passes() {
        for ok in [
            "gg, 3 × 4 = 12!",
            "José",
            "Ἀθηνᾶ",
            "東京",
            "emoji 🎉",
            "(6 + 15) ÷ 7",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok:?}");
            assert_eq!(for_display(ok), ok);
        }
    }

    #[test]
    fn display_strips_what_check_refuses() {
        assert_eq!(for_display("a\u{1b}[2Jb"), "a[2Jb");
        assert_eq!(for_display("one\r\ntwo"), "one  two");
        assert_eq!(for_display("x\u{202E}y\u{200B}z"), "xyz");
        assert!(check(&for_display("\u{1b}]52;c;x\u{7}\n\u{9b}")).is_ok());
    }
}
