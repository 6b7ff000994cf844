//! Combining two classes: the shape, fingerprint and residue of `l op r`,
//! and the value one operand needs for `l op r` to equal a target.

use super::{Ref, Shape};
use crate::formula::ast::Op;
use crate::rational::{ArithError, Rational};
use crate::solver::fingerprint::{self as modp, Fp};

#[inline]
pub(super) fn combine_shape(op: Op, l: Shape, r: Shape) -> Shape {
    let p = op.precedence();
    let lp = u16::from(l.prec < p);
    let rp = u16::from(r.prec < p || (r.prec == p && matches!(op, Op::Sub | Op::Div)));
    let rn = u16::from(r.prec == p);
    // `+` and `×`: the operand with fewer cards first, as people write
    // `5 × (5 − 1 ÷ 5)`; then cards in ascending order, `1 + 2 + 3`.
    let commutes = matches!(op, Op::Add | Op::Mul);
    let size = u16::from(commutes && l.n > r.n);
    let order = u16::from(commutes && l.hi > r.lo);
    Shape {
        cost: (
            l.cost.0.saturating_add(r.cost.0).saturating_add(lp + rp),
            l.cost.1.saturating_add(r.cost.1).saturating_add(rn),
            l.cost.2.saturating_add(r.cost.2).saturating_add(size),
            l.cost.3.saturating_add(r.cost.3).saturating_add(order),
        ),
        prec: p,
        lo: l.lo.min(r.lo),
        hi: l.hi.max(r.hi),
        n: l.n.saturating_add(r.n),
    }
}

/// The shape of `l op r` and what to build; for `+` and `×` the cheaper of
/// the two orders (they are the same class).
pub(super) fn oriented<T>(
    op: Op,
    l: (Shape, Ref),
    r: (Shape, Ref),
    make: impl Fn(Op, Ref, Ref) -> T,
) -> (Shape, T) {
    let shape = combine_shape(op, l.0, r.0);
    if matches!(op, Op::Add | Op::Mul) {
        let flipped = combine_shape(op, r.0, l.0);
        if flipped.cost < shape.cost {
            return (flipped, make(op, r.1, l.1));
        }
    }
    (shape, make(op, l.1, r.1))
}

/// The fingerprint of `l op r`; `None` when dividing by a fingerprint with
/// no inverse (probability about 2^-61, and the class is then skipped).
#[inline]
pub(super) fn combine_fp(op: Op, l: Fp, r: Fp, r_inv: impl FnOnce() -> Fp) -> Option<Fp> {
    Some(match op {
        Op::Add => l.add(r),
        Op::Sub => l.sub(r),
        Op::Mul => l.mul(r),
        Op::Div => {
            if r.has_zero() {
                return None;
            }
            l.mul(r_inv())
        }
    })
}

/// The residue of `l op r` (the right operand's inverse for division).
#[inline]
pub(super) fn combine_res(op: Op, l: u64, r: u64, r_inv: u64) -> u64 {
    match op {
        Op::Add => modp::add(l, r),
        Op::Sub => modp::sub(l, r),
        Op::Mul => modp::mul(l, r),
        Op::Div => modp::mul(l, r_inv),
    }
}

/// The value `y` with `v op y = t` (`v_left`) or `y op v = t`: exactly.
#[inline]
pub(super) fn exact_need(
    op: Op,
    v_left: bool,
    t: Rational,
    v: Rational,
) -> Result<Rational, ArithError> {
    match (op, v_left) {
        (Op::Add, _) => t.checked_sub(v),
        (Op::Sub, true) => v.checked_sub(t),
        (Op::Sub, false) => t.checked_add(v),
        (Op::Mul, _) => t.checked_div(v),
        (Op::Div, true) => v.checked_div(t),
        (Op::Div, false) => t.checked_mul(v),
    }
}

/// [`exact_need`] modulo the prime, from residues and their inverses (`v`
/// and `t` non-zero where they divide).
#[inline]
pub(super) fn residue_need(op: Op, v_left: bool, t: (u64, u64), v: (u64, u64)) -> u64 {
    match (op, v_left) {
        (Op::Add, _) => modp::sub(t.0, v.0),
        (Op::Sub, true) => modp::sub(v.0, t.0),
        (Op::Sub, false) => modp::add(t.0, v.0),
        (Op::Mul, _) => modp::mul(t.0, v.1),
        (Op::Div, true) => modp::mul(v.0, t.1),
        (Op::Div, false) => modp::mul(t.0, v.0),
    }
}
