//! Solutions as expressions and as text, straight from the tables.

use super::{Build, Distinct, Ref};
use crate::formula::ast::{Expr, Op};

impl Distinct<'_> {
    pub(super) fn expr(&self, r: Ref) -> Expr {
        let (op, l, rr) = match r {
            Ref::Entry(i) => match self.entry(i).map(|e| e.build) {
                Some(Build::Leaf(c)) => return Expr::Card(self.cards[c as usize]),
                Some(Build::Bin(op, l, r)) => (op, l, r),
                // Unreachable by construction; a harmless placeholder keeps
                // this total without a panic.
                None => return Expr::Card(0),
            },
            Ref::Node(id) => self.nodes[id as usize],
        };
        Expr::bin(op, self.expr(l), self.expr(rr))
    }

    /// A card or an operator node.
    pub(super) fn node(&self, r: Ref) -> Result<(Op, Ref, Ref), i64> {
        match r {
            Ref::Entry(i) => match self.entry(i).map(|e| e.build) {
                Some(Build::Bin(op, l, r)) => Ok((op, l, r)),
                Some(Build::Leaf(c)) => Err(self.cards[c as usize]),
                None => Err(0),
            },
            Ref::Node(id) => Ok(self.nodes[id as usize]),
        }
    }

    /// Appends `r` printed exactly as [`Expr`]'s `Display` prints the
    /// expression [`Distinct::expr`] builds, without building it.
    pub(super) fn print(&self, r: Ref, out: &mut String) {
        let prec = |r: Ref| self.node(r).map_or(u8::MAX, |(op, _, _)| op.precedence());
        let (op, l, rr) = match self.node(r) {
            Ok(bin) => bin,
            Err(card) => return push_int(out, card),
        };
        let p = op.precedence();
        self.print_child(l, prec(l) < p, out);
        out.push(' ');
        out.push_str(op.symbol());
        out.push(' ');
        let rp = prec(rr);
        self.print_child(
            rr,
            rp < p || (rp == p && matches!(op, Op::Sub | Op::Div)),
            out,
        );
    }

    pub(super) fn print_child(&self, r: Ref, parens: bool, out: &mut String) {
        if parens {
            out.push('(');
            self.print(r, out);
            out.push(')');
        } else {
            self.print(r, out);
        }
    }
}

/// Appends `v` in decimal, as `{v}` formats it.
fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let mut digits = [0u8; 20];
    let mut n = v.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}
