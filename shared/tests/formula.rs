//! The formula checker as players and the server meet it: what it accepts,
//! what it refuses, and exactly where it points.

use krypto_core::formula::{analyze, check, parse, ErrorKind, FormulaError, MAX_DEPTH, MAX_LEN};
use krypto_core::{Expr, Op, Rational, Rules};
use proptest::prelude::*;

const HAND: [i64; 5] = [8, 19, 14, 2, 21];

fn r(n: i64) -> Rational {
    Rational::from_int(n)
}

fn err(formula: &str, cards: &[i64], target: i64, rules: Rules) -> FormulaError {
    match check(formula, cards, target, rules) {
        Ok(v) => panic!("{formula:?} was accepted with value {v}"),
        Err(e) => e,
    }
}

/// Asserts the kind and column of the refusal and returns its message.
fn refused(formula: &str, cards: &[i64], kind: ErrorKind, column: Option<usize>) -> String {
    let e = err(formula, cards, 17, Rules::Free);
    assert_eq!(
        (e.kind, e.column),
        (kind, column),
        "{formula:?}: {}",
        e.message
    );
    e.message
}

#[test]
fn accepts_a_solution_and_returns_its_value() {
    assert_eq!(
        check("8 - 19 + 14 ÷ 2 + 21", &HAND, 17, Rules::Free),
        Ok(r(17))
    );
    assert_eq!(
        check("21 + 14 / 2 + 8 - 19", &HAND, 17, Rules::International),
        Ok(r(17))
    );
}

#[test]
fn precedence_and_left_associativity() {
    assert_eq!(check("2 + 3 * 4", &[2, 3, 4], 14, Rules::Free), Ok(r(14)));
    assert_eq!(check("(2 + 3) * 4", &[2, 3, 4], 20, Rules::Free), Ok(r(20)));
    assert_eq!(check("8 - 3 - 2", &[8, 3, 2], 3, Rules::Free), Ok(r(3)));
    assert_eq!(check("8 - (3 - 2)", &[8, 3, 2], 7, Rules::Free), Ok(r(7)));
    assert_eq!(check("16 / 4 / 2", &[16, 4, 2], 2, Rules::Free), Ok(r(2)));
    assert_eq!(
        check("2 * 3 + 4 * 5", &[2, 3, 4, 5], 26, Rules::Free),
        Ok(r(26))
    );
    assert_eq!(check("12 / 3 * 2", &[12, 3, 2], 8, Rules::Free), Ok(r(8)));
    let e = parse("8 - 3 - 2 * 4 / 2").unwrap().to_expr();
    let expected = Expr::bin(
        Op::Sub,
        Expr::bin(Op::Sub, Expr::Card(8), Expr::Card(3)),
        Expr::bin(
            Op::Div,
            Expr::bin(Op::Mul, Expr::Card(2), Expr::Card(4)),
            Expr::Card(2),
        ),
    );
    assert_eq!(e, expected);
}

#[test]
fn unicode_and_letter_operators() {
    let cards = [8, 3, 3, 2];
    for f in ["8 − 3 ÷ 3 × 2", "8 - 3 / 3 * 2", "8 − 3 ÷ 3 x 2", "8-3/3X2"] {
        assert_eq!(check(f, &cards, 6, Rules::Free), Ok(r(6)), "{f}");
    }
}

#[test]
fn spaces_anywhere_but_no_other_whitespace() {
    assert_eq!(check(" 8+  3 ", &[8, 3], 11, Rules::Free), Ok(r(11)));
    assert_eq!(
        check(" ( 8 +3 ) *  2 ", &[8, 3, 2], 22, Rules::Free),
        Ok(r(22))
    );
    // A tab, a line break or an invisible character could make the formula
    // read differently on other screens: each is refused at its column.
    let m = refused("8\t+ 3", &[8, 3], ErrorKind::Syntax, Some(2));
    assert!(m.contains("U+0009") && !m.contains('\t'), "{m}");
    refused("8 +\n3", &[8, 3], ErrorKind::Syntax, Some(4));
    refused("8 + 3\r", &[8, 3], ErrorKind::Syntax, Some(6));
    refused("\u{202e}8 + 3", &[8, 3], ErrorKind::Syntax, Some(1));
    refused("8 \u{200b}+ 3", &[8, 3], ErrorKind::Syntax, Some(3));
}

#[test]
fn repeated_values_match_as_a_multiset() {
    assert_eq!(check("5 × 5", &[5, 5], 25, Rules::Free), Ok(r(25)));
    let msg = refused("5 × 5 × 5", &[5, 5], ErrorKind::CardReused, Some(9));
    assert!(msg.contains("2 times"), "{msg}");
}

#[test]
fn syntax_errors_point_at_the_problem() {
    use ErrorKind::Syntax;
    let m = refused("8 + & 3", &HAND, Syntax, Some(5));
    assert!(m.contains("unexpected character '&'"), "{m}");
    let m = refused("8 × 2.5", &HAND, Syntax, Some(6));
    assert!(m.contains("whole numbers"), "{m}");
    let m = refused("(8 + 3", &HAND, Syntax, Some(1));
    assert!(m.contains("unbalanced parenthesis"), "{m}");
    let m = refused("8 + 3)", &HAND, Syntax, Some(6));
    assert!(m.contains("unbalanced parenthesis"), "{m}");
    let m = refused("((8 + 3) × 2", &HAND, Syntax, Some(1));
    assert!(m.contains("never closed"), "{m}");
    let m = refused("8 + ", &HAND, Syntax, Some(3));
    assert!(m.contains("missing number after '+'"), "{m}");
    let m = refused("8 ÷ ", &HAND, Syntax, Some(3));
    assert!(m.contains("missing number after '÷'"), "{m}");
    let m = refused("8 × × 3", &HAND, Syntax, Some(3));
    assert!(m.contains("missing number between"), "{m}");
    let m = refused("- 8 + 3", &HAND, Syntax, Some(1));
    assert!(m.contains("missing number before '-'"), "{m}");
    let m = refused("2 × (−8)", &HAND, Syntax, Some(6));
    assert!(m.contains("missing number before '−'"), "{m}");
    let m = refused("8 × ()", &HAND, Syntax, Some(5));
    assert!(m.contains("empty"), "{m}");
    let m = refused("8 3", &HAND, Syntax, Some(3));
    assert!(m.contains("missing operator before '3'"), "{m}");
    let m = refused("8 × (3)(2)", &HAND, Syntax, Some(8));
    assert!(m.contains("missing operator before '('"), "{m}");
    let m = refused("(8 2)", &HAND, Syntax, Some(4));
    assert!(m.contains("missing operator"), "{m}");
    let m = refused("", &HAND, Syntax, Some(1));
    assert!(m.contains("empty"), "{m}");
    let m = refused("   ", &HAND, Syntax, Some(1));
    assert!(m.contains("empty"), "{m}");
    let m = refused(" \t ", &HAND, Syntax, Some(2));
    assert!(m.contains("U+0009"), "{m}");
}

#[test]
fn the_first_problem_in_reading_order_wins() {
    let m = refused("8 + + &", &HAND, ErrorKind::Syntax, Some(3));
    assert!(m.contains("missing number"), "{m}");
}

#[test]
fn length_limit_counts_characters() {
    // 100 ones joined by "+": 199 characters, plus a space: exactly 200.
    let ok = format!("{} ", vec!["1"; 100].join("+"));
    assert_eq!(ok.chars().count(), MAX_LEN);
    assert_eq!(check(&ok, &[1; 100], 100, Rules::Free), Ok(r(100)));
    let long = format!("{ok}1");
    let e = err(&long, &[1; 100], 100, Rules::Free);
    assert_eq!((e.kind, e.column), (ErrorKind::TooLong, Some(201)));
    // 200 "×" are 400 bytes but 200 characters: not too long, just wrong.
    let wide = "×".repeat(200);
    assert_eq!(err(&wide, &HAND, 17, Rules::Free).kind, ErrorKind::Syntax);
}

#[test]
fn depth_limit() {
    let nest = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(check(&nest(MAX_DEPTH), &[1], 1, Rules::Free), Ok(r(1)));
    let e = err(&nest(MAX_DEPTH + 1), &[1], 1, Rules::Free);
    assert_eq!((e.kind, e.column), (ErrorKind::TooDeep, Some(33)));
    // Unbalanced deep input is refused for depth, not by a stack overflow.
    let e = err(&"(".repeat(199), &[1], 1, Rules::Free);
    assert_eq!((e.kind, e.column), (ErrorKind::TooDeep, Some(33)));
}

#[test]
fn card_errors_in_order_unknown_reused_unused() {
    let m = refused("8 + 19 - 7", &HAND, ErrorKind::UnknownCard, Some(10));
    assert!(m.contains("7 is not a card"), "{m}");
    // An unknown card is reported before a reused one further left.
    refused("8 + 8 + 99", &[8, 19], ErrorKind::UnknownCard, Some(9));
    let m = refused("8 + 8 + 19", &[8, 19], ErrorKind::CardReused, Some(5));
    assert!(m.contains("8 is used more often than it was dealt"), "{m}");
    let m = refused("8 + 19", &HAND, ErrorKind::CardUnused, None);
    assert!(m.contains("14, 2, 21"), "{m}");
    // Cards are judged before arithmetic.
    refused("8 ÷ 0 + 99", &[8, 0], ErrorKind::UnknownCard, Some(9));
}

#[test]
fn division_by_zero_points_at_the_operator() {
    // Column 7 in characters; the byte offset would be 8 because of the "×".
    let e = err("2 × 8 ÷ (3 − 3)", &[2, 8, 3, 3], 0, Rules::Free);
    assert_eq!((e.kind, e.column), (ErrorKind::DivisionByZero, Some(7)));
    assert!(e.message.contains("3 − 3 comes to 0"), "{}", e.message);
}

#[test]
fn rule_violations_name_the_sub_expression() {
    let e = err("8 - 19 + 14 ÷ 2 + 21", &HAND, 17, Rules::International);
    assert_eq!((e.kind, e.column), (ErrorKind::RuleViolation, Some(1)));
    assert_eq!(
        e.message,
        "8 - 19 = -11 is negative; international rules allow only non-negative whole numbers"
    );
    let e = err("2 × (8 − 19)", &[2, 8, 19], -22, Rules::International);
    assert_eq!((e.kind, e.column), (ErrorKind::RuleViolation, Some(6)));
    assert!(
        e.message.starts_with("8 − 19 = -11 is negative"),
        "{}",
        e.message
    );
    let e = err("21 ÷ 2 × 2", &[21, 2, 2], 21, Rules::Integer);
    assert_eq!((e.kind, e.column), (ErrorKind::RuleViolation, Some(1)));
    assert_eq!(
        e.message,
        "21 ÷ 2 = 21/2 is not a whole number; integer rules allow only whole numbers"
    );
    assert_eq!(check("21 ÷ 2 × 2", &[21, 2, 2], 21, Rules::Free), Ok(r(21)));
    // The whole expression is an intermediate result too.
    let e = err("8 - 19", &[8, 19], -11, Rules::International);
    assert_eq!((e.kind, e.column), (ErrorKind::RuleViolation, Some(1)));
    let e = err("5 - 5", &[5, 5], 0, Rules::Positive);
    assert!(e.message.contains("= 0 is not positive"), "{}", e.message);
    assert_eq!(check("5 - 5", &[5, 5], 0, Rules::International), Ok(r(0)));
}

#[test]
fn wrong_value_says_what_it_came_to() {
    let e = err("8 + 8", &[8, 8], 17, Rules::Free);
    assert_eq!((e.kind, e.column), (ErrorKind::WrongValue, None));
    assert_eq!(e.message, "comes to 16, not 17");
    let e = err("8+19-14+2*21", &HAND, 17, Rules::Free);
    assert_eq!(e.message, "comes to 55, not 17");
    let e = err("1 ÷ 3", &[1, 3], 17, Rules::Free);
    assert_eq!(e.message, "comes to 1/3, not 17");
}

#[test]
fn overflow_is_an_error() {
    let big = 3_000_000_000;
    let e = err(
        "3000000000 × 3000000000 × 3000000000",
        &[big; 3],
        1,
        Rules::Free,
    );
    assert_eq!((e.kind, e.column), (ErrorKind::Overflow, Some(25)));
    let e = err("99999999999999999999999 + 1", &HAND, 17, Rules::Free);
    assert_eq!((e.kind, e.column), (ErrorKind::Overflow, Some(1)));
}

#[test]
fn errors_serialize_for_the_wire() {
    let e = err("8 + 19", &HAND, 17, Rules::Free);
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json["kind"], "card_unused");
    assert_eq!(json["column"], serde_json::Value::Null);
    assert_eq!(ErrorKind::RuleViolation.as_str(), "rule_violation");
}

#[test]
fn parse_tree_keeps_spans() {
    let p = parse("2 × (8 − 19)").unwrap();
    assert_eq!(p.text(p.root()), "2 × (8 − 19)");
    let numbers: Vec<_> = p.numbers().collect();
    assert_eq!(numbers, vec![(2, 1), (8, 6), (19, 10)]);
    assert_eq!(p.to_expr().to_string(), "2 × (8 - 19)");
}

#[test]
fn analysis_for_a_live_preview() {
    let a = analyze("21 + 14 ÷ 2", &HAND, Rules::Free);
    assert_eq!(a.used, vec![false, false, true, true, true]);
    assert_eq!(a.value, Some(r(28)));
    assert_eq!(a.error.map(|e| e.kind), Some(ErrorKind::CardUnused));
    let a = analyze("21 + 14 ÷ 2 + 8 - 19", &HAND, Rules::Free);
    assert_eq!(a.used, vec![true; 5]);
    assert_eq!((a.value, a.error), (Some(r(17)), None));
    let a = analyze("21 + (", &HAND, Rules::Free);
    assert_eq!(a.used, vec![false, false, false, false, true]);
    assert_eq!(a.value, None);
}

fn expr_strategy() -> impl Strategy<Value = Expr> {
    let leaf = (1i64..=13).prop_map(Expr::Card);
    leaf.prop_recursive(4, 6, 2, |inner| {
        (prop::sample::select(Op::ALL.to_vec()), inner.clone(), inner)
            .prop_map(|(op, l, r)| Expr::bin(op, l, r))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn never_panics_on_arbitrary_text(s in "\\PC{0,260}") {
        let _ = check(&s, &HAND, 17, Rules::International);
        let _ = analyze(&s, &HAND, Rules::Integer);
    }

    #[test]
    fn never_panics_on_formula_like_text(s in "[0-9+*/×÷−xX() \\t-]{0,260}") {
        let _ = check(&s, &HAND, 17, Rules::Free);
        let a = analyze(&s, &HAND, Rules::International);
        prop_assert_eq!(a.used.len(), HAND.len());
        if let Err(e) = parse(&s) {
            prop_assert!(e.column.is_some());
        }
    }

    #[test]
    fn huge_numbers_are_errors(digits in "[1-9][0-9]{19,40}") {
        let e = check(&digits, &HAND, 17, Rules::Free).unwrap_err();
        prop_assert_eq!(e.kind, ErrorKind::Overflow);
    }

    #[test]
    fn printed_expressions_reparse_with_the_same_value(e in expr_strategy()) {
        let text = e.to_string();
        let cards = e.cards();
        match e.value() {
            Ok(v) => {
                prop_assert_eq!(parse(&text).unwrap().evaluate(Rules::Free), Ok(v));
                match v.to_integer() {
                    Some(t) => prop_assert_eq!(check(&text, &cards, t, Rules::Free), Ok(v)),
                    None => {
                        let err = check(&text, &cards, 0, Rules::Free).unwrap_err();
                        prop_assert_eq!(err.kind, ErrorKind::WrongValue);
                    }
                }
            }
            Err(_) => {
                let err = check(&text, &cards, 0, Rules::Free).unwrap_err();
                prop_assert_eq!(err.kind, ErrorKind::DivisionByZero);
            }
        }
    }
}
