//! What must hold for any input, however hostile: each function panics when
//! a property fails, which is how libFuzzer (and the corpus test) notice.
//!
//! Beyond "no panic, no hang", each checks that what the game relies on is
//! consistent: error columns point inside the text, a printed formula parses
//! back to the same value, the checker accepts a formula over its own numbers
//! and value, and a parsed client message survives a round trip.

use krypto_core::formula::lexer::{Lexer, TokenKind};
use krypto_core::formula::{analyze, check, parse, ErrorKind, FormulaError, MAX_LEN};
use krypto_core::protocol::{parse_client_message, ClientEnvelope};
use krypto_core::{Rational, Rules};

/// A hand every input is also checked against (the example of the rules).
const HAND: [i64; 5] = [8, 19, 14, 2, 21];
const TARGET: i64 = 17;

/// The formula lexer, parser, evaluator and checker. The first byte picks the
/// rule set; the rest, as UTF-8, is the formula.
pub fn formula(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let rules = Rules::ALL[usize::from(pick) % Rules::ALL.len()];
    let chars = text.chars().count();

    lex_all(text);

    let parsed = match parse(text) {
        Ok(parsed) => parsed,
        Err(e) => {
            assert_column_inside(&e, chars, text);
            // A number too large for 64 bits is refused while reading.
            assert!(
                matches!(
                    e.kind,
                    ErrorKind::Syntax
                        | ErrorKind::TooLong
                        | ErrorKind::TooDeep
                        | ErrorKind::Overflow
                ),
                "parse gave {e:?} for {text:?}"
            );
            // A formula that does not parse is refused by the checker the same way.
            assert_eq!(check(text, &HAND, TARGET, rules), Err(e), "{text:?}");
            return;
        }
    };
    assert!(chars <= MAX_LEN, "parsed {chars} characters: {text:?}");

    let evaluated = parsed.evaluate(rules);
    if let Err(e) = &evaluated {
        assert_column_inside(e, chars, text);
    }

    // The formula as the parser prints it (what a room broadcasts) parses
    // back, over the same cards, to the same value. Printing puts a space on
    // each side of every operator, so a formula typed tightly near the length
    // limit can print past it (found by this target); only then may the
    // printed form be refused, and only for its length.
    let expr = parsed.to_expr();
    let printed = expr.to_string();
    let reparsed = match parse(&printed) {
        Ok(p) => p,
        Err(e) if e.kind == ErrorKind::TooLong && printed.chars().count() > MAX_LEN => return,
        Err(e) => panic!("{text:?} printed as {printed:?}, which does not parse: {e}"),
    };
    let mut cards = expr.cards();
    let mut cards_again = reparsed.to_expr().cards();
    cards.sort_unstable();
    cards_again.sort_unstable();
    assert_eq!(cards, cards_again, "{text:?} printed as {printed:?}");
    // Printing regroups sums and products, whose intermediates the rule set
    // allows when the numbers themselves are allowed values: not a 0 under
    // positive rules (found by this target: `0 + (0 + 6)` prints as
    // `0 + 0 + 6`), which no deck of that rule set holds.
    let cards_allowed = cards.iter().all(|&v| rules.allows(Rational::from_int(v)));
    match (&evaluated, reparsed.evaluate(rules)) {
        (Ok(a), Ok(b)) => assert_eq!(*a, b, "{text:?} printed as {printed:?}"),
        // Printing drops parentheses, so an intermediate may grow past 64 bits.
        (Ok(_), Err(e)) if cards_allowed => {
            assert_eq!(e.kind, ErrorKind::Overflow, "{printed:?}: {e}")
        }
        (Ok(a), Err(_)) => {
            if let Ok(b) = reparsed.evaluate(Rules::Free) {
                assert_eq!(*a, b, "{text:?} printed as {printed:?}");
            }
        }
        (Err(_), _) => {}
    }

    // Over its own numbers and its own (whole) value, the formula wins.
    let numbers: Vec<i64> = parsed.numbers().map(|(v, _)| v).collect();
    if let Ok(value) = evaluated {
        if let Some(target) = whole(value) {
            assert_eq!(
                check(text, &numbers, target, rules),
                Ok(value),
                "{text:?} under {rules}"
            );
            assert_eq!(analyze(text, &numbers, rules).error, None, "{text:?}");
        }
    }

    // Against the example hand: an accepted formula makes the target, and the
    // live preview agrees with the checker about everything but the value.
    let verdict = check(text, &HAND, TARGET, rules);
    if let Ok(value) = &verdict {
        assert_eq!(*value, Rational::from_int(TARGET), "{text:?}");
    }
    if let Err(e) = &verdict {
        assert_column_inside(e, chars, text);
    }
    let preview = analyze(text, &HAND, rules);
    assert_eq!(preview.used.len(), HAND.len());
    match (&verdict, &preview.error) {
        (Ok(_), None) => {}
        (Err(e), None) => assert_eq!(e.kind, ErrorKind::WrongValue, "{text:?}"),
        (Err(e), Some(p)) => assert_eq!(e, p, "{text:?}"),
        (Ok(_), Some(p)) => panic!("{text:?} accepted, but the preview says {p:?}"),
    }
}

/// Pulls every token: offsets on character boundaries, columns moving
/// forward, and an end (or an error) within one token per character.
fn lex_all(text: &str) {
    let mut lexer = Lexer::new(text);
    let mut last_column = 0;
    for _ in 0..=text.len() + 1 {
        match lexer.next_token() {
            Ok(token) => {
                assert!(
                    text.get(token.start..token.end).is_some(),
                    "{token:?} is not a slice of {text:?}"
                );
                assert!(token.column > last_column || token.kind == TokenKind::End);
                last_column = token.column;
                if token.kind == TokenKind::End {
                    return;
                }
            }
            Err(e) => {
                assert_column_inside(&e, text.chars().count(), text);
                return;
            }
        }
    }
    panic!("the lexer never reached the end of {text:?}");
}

/// A column, when given, points at a character of the text or just past it.
fn assert_column_inside(e: &FormulaError, chars: usize, text: &str) {
    if let Some(column) = e.column {
        assert!(
            (1..=chars + 1).contains(&column),
            "column {column} outside {text:?} ({chars} characters): {e:?}"
        );
    }
}

fn whole(v: Rational) -> Option<i64> {
    v.is_integer().then(|| v.numer())
}

/// The parser of incoming client frames. A frame that parses serializes back
/// to JSON that parses to the same message.
pub fn client_message(data: &[u8]) {
    // The transport closes a connection on a frame that is not UTF-8 before
    // the parser sees it.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(envelope) = parse_client_message(text) else {
        return;
    };
    let json = match envelope.to_json() {
        Ok(json) => json,
        Err(e) => panic!("{text:?} parsed, but did not serialize: {e}"),
    };
    let again: ClientEnvelope = match parse_client_message(&json) {
        Ok(e) => e,
        Err(e) => panic!("{text:?} parsed, but its JSON {json:?} did not: {e}"),
    };
    assert_eq!(again, envelope, "{text:?} round-tripped through {json:?}");
}
