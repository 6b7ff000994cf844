//! Turns what a player typed into tokens, one at a time, with the column of
//! each.
//!
//! The lexer is lazy (the parser pulls one token at a time) so that errors
//! come out in reading order: in `8 + + &` the player hears about the second
//! `+` before the `&`.

use super::ast::Op;
use super::error::{ErrorKind, FormulaError};

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A whole number as written (digits only; no sign).
    Number(i64),
    /// `+`, `-`/`−`, `*`/`×`/`x`/`X`, `/`/`÷`.
    Op(Op),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// The end of the input.
    End,
}

/// A token and where it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// Byte offset of its first character, for slicing the source.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
    /// 1-based column of its first character, counted in characters so
    /// that `×` and `÷` count as one, as the player sees them.
    pub column: usize,
}

/// A pull lexer over one formula.
#[derive(Debug, Clone)]
pub struct Lexer<'a> {
    /// The formula being read.
    src: &'a str,
    /// Byte offset of the next unread character.
    pos: usize,
    /// Column of the next unread character.
    column: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Lexer {
            src,
            pos: 0,
            column: 1,
        }
    }

    /// The next token; [`TokenKind::End`] (repeatedly) once the input is
    /// exhausted.
    pub fn next_token(&mut self) -> Result<Token, FormulaError> {
        let bytes = self.src.as_bytes();
        // Only plain spaces separate tokens: a tab, a line break or an
        // invisible character could make a formula read differently on
        // another player's screen than it was judged, so each is refused
        // below at its column like any stray character.
        while bytes.get(self.pos) == Some(&b' ') {
            self.pos += 1;
            self.column += 1;
        }
        let start = self.pos;
        let column = self.column;
        let token = |kind, end| Token {
            kind,
            start,
            end,
            column,
        };
        let Some(c) = self.peek_char() else {
            return Ok(token(TokenKind::End, start));
        };
        if c.is_ascii_digit() {
            return self.number(start, column);
        }
        let kind = match c {
            '+' => TokenKind::Op(Op::Add),
            '-' | '\u{2212}' => TokenKind::Op(Op::Sub),
            '*' | '×' | 'x' | 'X' => TokenKind::Op(Op::Mul),
            '/' | '÷' => TokenKind::Op(Op::Div),
            '(' => TokenKind::LParen,
            ')' => TokenKind::RParen,
            _ => return Err(unexpected(c, column)),
        };
        self.bump(c);
        Ok(token(kind, self.pos))
    }

    /// Reads a run of digits. A number too large for 64 bits is refused here,
    /// since it can be no card and no exact value.
    fn number(&mut self, start: usize, column: usize) -> Result<Token, FormulaError> {
        let bytes = self.src.as_bytes();
        let mut value: Option<i64> = Some(0);
        while let Some(&b) = bytes.get(self.pos) {
            if !b.is_ascii_digit() {
                break;
            }
            value = value
                .and_then(|v| v.checked_mul(10))
                .and_then(|v| v.checked_add(i64::from(b - b'0')));
            self.pos += 1;
            self.column += 1;
        }
        let text = &self.src[start..self.pos];
        match value {
            Some(v) => Ok(Token {
                kind: TokenKind::Number(v),
                start,
                end: self.pos,
                column,
            }),
            None => Err(FormulaError::at(
                ErrorKind::Overflow,
                column,
                format!("the number {text} is too large"),
            )),
        }
    }

    fn peek_char(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn bump(&mut self, c: char) {
        self.pos += c.len_utf8();
        self.column += 1;
    }
}

/// The message for a character that has no place in a formula, with a hint
/// for the ones players are likely to try. A hidden character (a control or
/// format character) is named by its code point, never printed: the message
/// is shown to the player and must not carry it onto their screen.
fn unexpected(c: char, column: usize) -> FormulaError {
    let hint = match c {
        '.' | ',' => ": only whole numbers are allowed",
        '^' => ": powers are not allowed",
        '=' => ": type only the formula, not its result",
        c if c.is_whitespace() || crate::text::is_hidden(c) => {
            ": only spaces may separate numbers and operators"
        }
        _ => "",
    };
    let shown = if crate::text::is_hidden(c) || c.is_whitespace() {
        format!("U+{:04X}", u32::from(c))
    } else {
        format!("'{c}'")
    };
    FormulaError::at(
        ErrorKind::Syntax,
        column,
        format!("unexpected character {shown}{hint}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(TokenKind, usize)> {
        let mut lx = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token().unwrap();
            out.push((t.kind, t.column));
            if t.kind == TokenKind::End {
                return out;
            }
        }
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        use TokenKind::*;
        assert_eq!(
            kinds("12×3 ÷ 4−5"),
            vec![
                (Number(12), 1),
                (Op(super::Op::Mul), 3),
                (Number(3), 4),
                (Op(super::Op::Div), 6),
                (Number(4), 8),
                (Op(super::Op::Sub), 9),
                (Number(5), 10),
                (End, 11),
            ]
        );
    }

    #[test]
    fn refuses_strange_characters_with_their_column() {
        let mut lx = Lexer::new("×2.5");
        assert!(lx.next_token().is_ok());
        assert!(lx.next_token().is_ok());
        let e = lx.next_token().unwrap_err();
        assert_eq!((e.kind, e.column), (ErrorKind::Syntax, Some(3)));
        assert!(e.message.contains("whole numbers"), "{}", e.message);
    }

    #[test]
    fn only_spaces_separate_tokens() {
        // Tab, newline, carriage return, no-break space, zero-width space,
        // a right-to-left override and an escape: each is a syntax error
        // at its own column, named by code point rather than printed.
        for (c, code) in [
            ('\t', "U+0009"),
            ('\n', "U+000A"),
            ('\r', "U+000D"),
            ('\u{a0}', "U+00A0"),
            ('\u{200b}', "U+200B"),
            ('\u{202e}', "U+202E"),
            ('\u{1b}', "U+001B"),
        ] {
            let src = format!("1 +{c}2");
            let mut lx = Lexer::new(&src);
            assert!(lx.next_token().is_ok());
            assert!(lx.next_token().is_ok());
            let e = lx.next_token().unwrap_err();
            assert_eq!((e.kind, e.column), (ErrorKind::Syntax, Some(4)), "{code}");
            assert!(e.message.contains(code), "{}", e.message);
            assert!(!e.message.contains(c), "{code} printed raw");
        }
        assert_eq!(kinds("  7  ").len(), 2);
    }

    #[test]
    fn huge_numbers_are_an_error() {
        let e = Lexer::new(" 99999999999999999999999")
            .next_token()
            .unwrap_err();
        assert_eq!((e.kind, e.column), (ErrorKind::Overflow, Some(2)));
    }
}
