//! Recursive-descent parser from a formula's text to a spanned parse tree.
//!
//! Grammar (usual precedence, left-associative within a level):
//!
//! ```text
//! sum     = product { ("+" | "-") product }
//! product = atom { ("×" | "÷") atom }
//! atom    = number | "(" sum ")"
//! ```
//!
//! Recursion happens only through parentheses, and the depth of those is
//! checked before descending, so no input can overflow the stack. The tree
//! keeps where each node was written, so that later judgements (a rule
//! violation, a division by zero) can point at the player's own text.

use super::ast::{Expr, Op};
use super::error::{ErrorKind, FormulaError};
use super::lexer::{Lexer, Token, TokenKind};
use super::{MAX_DEPTH, MAX_LEN};
use crate::rational::Rational;
use crate::rules::Rules;

/// Index of a node in [`Parsed::nodes`].
pub type NodeId = usize;

/// Where a node was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the first character, for slicing the source.
    pub start: usize,
    /// Byte offset just past the last character.
    pub end: usize,
    /// 1-based column (in characters) of the first character.
    pub column: usize,
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A number as written.
    Number(i64),
    /// `lhs op rhs`.
    Bin {
        /// The operation.
        op: Op,
        /// Column of the operator symbol, where a division by zero points.
        op_column: usize,
        /// The left operand.
        lhs: NodeId,
        /// The right operand.
        rhs: NodeId,
    },
}

/// One node of the parse tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Its text, without any parentheses around it as a whole, so messages
    /// quote `8 - 19` from `(8 - 19) × 2`.
    pub span: Span,
}

/// A formula that parsed: its source and its spanned tree.
///
/// Nodes are stored in post-order (every node after its operands), so that
/// a single forward pass evaluates the tree, leftmost innermost first, and
/// the numbers appear in the order they were written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The text as the player typed it.
    source: String,
    /// Post-order nodes; the last one is the root.
    nodes: Vec<Node>,
}

impl Parsed {
    /// The text as the player typed it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Every node, operands before the operator that combines them.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The root: the node for the whole formula.
    pub fn root(&self) -> NodeId {
        // A successful parse has at least one node.
        self.nodes.len().saturating_sub(1)
    }

    /// The text of a node, as the player wrote it, with runs of whitespace
    /// shown as one space.
    pub fn text(&self, id: NodeId) -> String {
        let Some(node) = self.nodes.get(id) else {
            return String::new();
        };
        let raw = self
            .source
            .get(node.span.start..node.span.end)
            .unwrap_or("");
        raw.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The numbers in the order they were written, each with its column.
    pub fn numbers(&self) -> impl Iterator<Item = (i64, usize)> + '_ {
        self.nodes.iter().filter_map(|n| match n.kind {
            NodeKind::Number(v) => Some((v, n.span.column)),
            NodeKind::Bin { .. } => None,
        })
    }

    /// The expression tree, without positions.
    pub fn to_expr(&self) -> Expr {
        self.expr_at(self.root())
    }

    fn expr_at(&self, id: NodeId) -> Expr {
        // Depth is bounded by the number of operators (under 100 in 200
        // characters), so this recursion is shallow.
        match self.nodes.get(id).map(|n| n.kind) {
            Some(NodeKind::Number(v)) => Expr::Card(v),
            Some(NodeKind::Bin { op, lhs, rhs, .. }) => {
                Expr::bin(op, self.expr_at(lhs), self.expr_at(rhs))
            }
            None => Expr::Card(0),
        }
    }

    /// The exact value, checking every operator node (the whole formula
    /// included) against `rules`. The first failure in evaluation order
    /// (leftmost innermost) is reported: a division by zero at its `÷`, a
    /// rule violation where its sub-expression starts, an overflow at its
    /// operator.
    pub fn evaluate(&self, rules: Rules) -> Result<Rational, FormulaError> {
        let mut values: Vec<Rational> = Vec::with_capacity(self.nodes.len());
        for (id, node) in self.nodes.iter().enumerate() {
            let value = match node.kind {
                NodeKind::Number(v) => Rational::from_int(v),
                NodeKind::Bin {
                    op,
                    op_column,
                    lhs,
                    rhs,
                } => {
                    let (a, b) = (values[lhs], values[rhs]);
                    let v = op
                        .apply(a, b)
                        .map_err(|e| self.arith_error(e, id, rhs, op_column))?;
                    if !rules.allows(v) {
                        return Err(self.rule_violation(id, v, rules));
                    }
                    v
                }
            };
            values.push(value);
        }
        values
            .last()
            .copied()
            .ok_or_else(|| FormulaError::at(ErrorKind::Syntax, 1, "the formula is empty"))
    }

    fn arith_error(
        &self,
        e: crate::rational::ArithError,
        id: NodeId,
        rhs: NodeId,
        op_column: usize,
    ) -> FormulaError {
        use crate::rational::ArithError;
        match e {
            ArithError::DivisionByZero => {
                let divisor = self.text(rhs);
                let message = if divisor == "0" {
                    "division by zero".to_owned()
                } else {
                    format!("division by zero: {divisor} comes to 0")
                };
                FormulaError::at(ErrorKind::DivisionByZero, op_column, message)
            }
            ArithError::Overflow => FormulaError::at(
                ErrorKind::Overflow,
                op_column,
                format!("{} is too large to compute exactly", self.text(id)),
            ),
        }
    }

    fn rule_violation(&self, id: NodeId, v: Rational, rules: Rules) -> FormulaError {
        let why = if !v.is_integer() {
            "is not a whole number"
        } else if v.is_negative() {
            "is negative"
        } else {
            "is not positive"
        };
        let column = self.nodes.get(id).map_or(1, |n| n.span.column);
        FormulaError::at(
            ErrorKind::RuleViolation,
            column,
            format!(
                "{} = {v} {why}; {} rules allow only {}",
                self.text(id),
                rules.as_str(),
                rules.describe()
            ),
        )
    }
}

/// Parses a formula into its spanned tree, refusing input longer than
/// [`MAX_LEN`] characters or nested deeper than [`MAX_DEPTH`] parentheses.
pub fn parse(input: &str) -> Result<Parsed, FormulaError> {
    // Bytes bound characters from above, so most input skips the count.
    if input.len() > MAX_LEN {
        let chars = input.chars().count();
        if chars > MAX_LEN {
            return Err(FormulaError::at(
                ErrorKind::TooLong,
                MAX_LEN + 1,
                format!("the formula is {chars} characters long; at most {MAX_LEN} are allowed"),
            ));
        }
    }
    let mut lexer = Lexer::new(input);
    let current = lexer.next_token()?;
    let mut parser = Parser {
        src: input,
        lexer,
        current,
        depth: 0,
        nodes: Vec::with_capacity(16),
    };
    parser.sum(None)?;
    match parser.current.kind {
        TokenKind::End => {}
        TokenKind::RParen => {
            return Err(FormulaError::at(
                ErrorKind::Syntax,
                parser.current.column,
                "unbalanced parenthesis: this ')' closes nothing",
            ))
        }
        _ => return Err(parser.missing_operator()),
    }
    Ok(Parsed {
        source: input.to_owned(),
        nodes: parser.nodes,
    })
}

/// Parser state: one token of lookahead and the current nesting depth.
struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    current: Token,
    depth: usize,
    nodes: Vec<Node>,
}

/// A parsed operand: its node, and its extent including any parentheses
/// around it (which the enclosing operator's span must cover).
#[derive(Clone, Copy)]
struct Operand {
    id: NodeId,
    outer: Span,
}

impl Parser<'_> {
    fn advance(&mut self) -> Result<Token, FormulaError> {
        let t = self.current;
        self.current = self.lexer.next_token()?;
        Ok(t)
    }

    fn text(&self, t: Token) -> &str {
        self.src.get(t.start..t.end).unwrap_or("?")
    }

    /// `before` is the token just before this operand: an operator, a `(`,
    /// or `None` at the start. It shapes the message when the operand is
    /// missing.
    fn sum(&mut self, before: Option<Token>) -> Result<Operand, FormulaError> {
        self.left_to_right(before, [Op::Add, Op::Sub], Self::product)
    }

    fn product(&mut self, before: Option<Token>) -> Result<Operand, FormulaError> {
        self.left_to_right(before, [Op::Mul, Op::Div], Self::atom)
    }

    /// `operand`s joined by `ops` (one level of precedence), grouped from
    /// the left.
    fn left_to_right(
        &mut self,
        before: Option<Token>,
        ops: [Op; 2],
        operand: fn(&mut Self, Option<Token>) -> Result<Operand, FormulaError>,
    ) -> Result<Operand, FormulaError> {
        let mut lhs = operand(self, before)?;
        while let TokenKind::Op(op) = self.current.kind {
            if !ops.contains(&op) {
                break;
            }
            let op_tok = self.advance()?;
            let rhs = operand(self, Some(op_tok))?;
            lhs = self.push_bin(op, op_tok, lhs, rhs);
        }
        Ok(lhs)
    }

    fn push_bin(&mut self, op: Op, op_tok: Token, lhs: Operand, rhs: Operand) -> Operand {
        let span = Span {
            start: lhs.outer.start,
            end: rhs.outer.end,
            column: lhs.outer.column,
        };
        self.nodes.push(Node {
            kind: NodeKind::Bin {
                op,
                op_column: op_tok.column,
                lhs: lhs.id,
                rhs: rhs.id,
            },
            span,
        });
        Operand {
            id: self.nodes.len() - 1,
            outer: span,
        }
    }

    fn atom(&mut self, before: Option<Token>) -> Result<Operand, FormulaError> {
        let t = self.current;
        match t.kind {
            TokenKind::Number(v) => {
                self.advance()?;
                let span = Span {
                    start: t.start,
                    end: t.end,
                    column: t.column,
                };
                self.nodes.push(Node {
                    kind: NodeKind::Number(v),
                    span,
                });
                Ok(Operand {
                    id: self.nodes.len() - 1,
                    outer: span,
                })
            }
            TokenKind::LParen => {
                if self.depth >= MAX_DEPTH {
                    return Err(FormulaError::at(
                        ErrorKind::TooDeep,
                        t.column,
                        format!("more than {MAX_DEPTH} levels of parentheses"),
                    ));
                }
                self.depth += 1;
                self.advance()?;
                let inner = self.sum(Some(t))?;
                self.depth -= 1;
                match self.current.kind {
                    TokenKind::RParen => {
                        let close = self.advance()?;
                        Ok(Operand {
                            id: inner.id,
                            outer: Span {
                                start: t.start,
                                end: close.end,
                                column: t.column,
                            },
                        })
                    }
                    TokenKind::End => Err(FormulaError::at(
                        ErrorKind::Syntax,
                        t.column,
                        "unbalanced parenthesis: this '(' is never closed",
                    )),
                    _ => Err(self.missing_operator()),
                }
            }
            TokenKind::RParen | TokenKind::End | TokenKind::Op(_) => {
                Err(self.missing_operand(before))
            }
        }
    }

    /// The current token cannot start an operand although one is needed.
    fn missing_operand(&self, before: Option<Token>) -> FormulaError {
        let here = self.current;
        match (before.map(|b| b.kind), here.kind) {
            (None, TokenKind::End) => {
                FormulaError::at(ErrorKind::Syntax, 1, "the formula is empty")
            }
            (None, TokenKind::RParen) => FormulaError::at(
                ErrorKind::Syntax,
                here.column,
                "unbalanced parenthesis: this ')' closes nothing",
            ),
            (None | Some(TokenKind::LParen), TokenKind::Op(_)) => FormulaError::at(
                ErrorKind::Syntax,
                here.column,
                format!(
                    "missing number before '{}' (there is no unary minus)",
                    self.text(here)
                ),
            ),
            (Some(TokenKind::LParen), TokenKind::RParen) => FormulaError::at(
                ErrorKind::Syntax,
                before.map_or(here.column, |b| b.column),
                "missing number: the parentheses are empty",
            ),
            (Some(TokenKind::LParen), _) => FormulaError::at(
                ErrorKind::Syntax,
                before.map_or(here.column, |b| b.column),
                "unbalanced parenthesis: this '(' is never closed",
            ),
            (Some(TokenKind::Op(_)), TokenKind::Op(_)) => {
                let op = before.unwrap_or(here);
                FormulaError::at(
                    ErrorKind::Syntax,
                    op.column,
                    format!(
                        "missing number between '{}' and '{}'",
                        self.text(op),
                        self.text(here)
                    ),
                )
            }
            _ => {
                let op = before.unwrap_or(here);
                FormulaError::at(
                    ErrorKind::Syntax,
                    op.column,
                    format!("missing number after '{}'", self.text(op)),
                )
            }
        }
    }

    /// An operand ended and the next token starts another one.
    fn missing_operator(&self) -> FormulaError {
        let here = self.current;
        FormulaError::at(
            ErrorKind::Syntax,
            here.column,
            format!("missing operator before '{}'", self.text(here)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_exclude_the_nodes_own_parentheses() {
        let p = parse("( 8 - 19 ) × 2").unwrap();
        let sub = p
            .nodes()
            .iter()
            .position(|n| matches!(n.kind, NodeKind::Bin { op: Op::Sub, .. }))
            .unwrap();
        assert_eq!(p.text(sub), "8 - 19");
        assert_eq!(p.nodes()[sub].span.column, 3);
        assert_eq!(p.text(p.root()), "( 8 - 19 ) × 2");
    }

    #[test]
    fn nodes_are_in_post_order() {
        let p = parse("1 + 2 × 3").unwrap();
        let kinds: Vec<_> = p
            .nodes()
            .iter()
            .map(|n| match n.kind {
                NodeKind::Number(v) => v.to_string(),
                NodeKind::Bin { op, .. } => op.symbol().to_owned(),
            })
            .collect();
        assert_eq!(kinds, ["1", "2", "3", "×", "+"]);
        assert_eq!(p.evaluate(Rules::Free), Ok(Rational::from_int(7)));
    }
}
