//! Fingerprints of expressions as rational functions of the cards.
//!
//! Two expressions are the same solution when they are equal as rational
//! functions once each card value is replaced by a variable. Evaluating both
//! at a random point modulo a large prime decides that with error at most
//! (degree / p) per comparison (Schwartz–Zippel); two independent points
//! modulo p = 2^61 − 1 make a collision among even millions of classes
//! negligible. The points are fixed (derived from the card value), so output
//! is deterministic.

/// The Mersenne prime 2^61 − 1: reduction needs only shifts and adds.
pub(crate) const P: u64 = (1 << 61) - 1;

#[inline]
fn reduce(x: u128) -> u64 {
    let lo = (x as u64) & P;
    let hi = (x >> 61) as u64;
    // For a product of two values below P, hi < 2^61, so s < 2^62.
    let s = lo + hi;
    let s = (s & P) + (s >> 61);
    if s >= P {
        s - P
    } else {
        s
    }
}

#[inline]
pub(crate) fn add(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

#[inline]
pub(crate) fn sub(a: u64, b: u64) -> u64 {
    if a >= b {
        a - b
    } else {
        a + P - b
    }
}

#[inline]
pub(crate) fn mul(a: u64, b: u64) -> u64 {
    reduce(a as u128 * b as u128)
}

/// `x` squared `n` times: x^(2^n).
#[inline]
fn square_n(mut x: u64, n: u32) -> u64 {
    for _ in 0..n {
        x = mul(x, x);
    }
    x
}

/// The inverse of `x` (zero for zero): x^(P − 2) by Fermat, with an
/// addition chain that uses P − 2 = 4 (2^59 − 1) + 1. With `e(k)` for
/// x^(2^k − 1), `e(a + b) = e(a)^(2^b) e(b)`: 62 squarings and 10
/// multiplications instead of the 121 of square-and-multiply.
fn invert(x: u64) -> u64 {
    let e1 = x;
    let e2 = mul(square_n(e1, 1), e1);
    let e3 = mul(square_n(e2, 1), e1);
    let e6 = mul(square_n(e3, 3), e3);
    let e8 = mul(square_n(e6, 2), e2);
    let e12 = mul(square_n(e6, 6), e6);
    let e24 = mul(square_n(e12, 12), e12);
    let e48 = mul(square_n(e24, 24), e24);
    let e56 = mul(square_n(e48, 8), e8);
    let e59 = mul(square_n(e56, 3), e3);
    mul(square_n(e59, 2), x)
}

#[cfg(test)]
fn pow(mut a: u64, mut e: u64) -> u64 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, a);
        }
        a = mul(a, a);
        e >>= 1;
    }
    r
}

/// SplitMix64: a fixed, well-mixed hash from card value to evaluation point.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// An expression evaluated at two independent points modulo [`P`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Fp(pub u64, pub u64);

impl Fp {
    /// The variable standing for card value `v` (equal values, same variable).
    pub fn card(v: i64) -> Fp {
        let point = |seed: u64| {
            let x = splitmix(splitmix(v as u64 ^ seed)) % P;
            x.max(2)
        };
        Fp(point(0x6B72_7970_746F_0001), point(0x6B72_7970_746F_0002))
    }

    #[inline]
    pub fn add(self, o: Fp) -> Fp {
        Fp(add(self.0, o.0), add(self.1, o.1))
    }

    #[inline]
    pub fn sub(self, o: Fp) -> Fp {
        Fp(sub(self.0, o.0), sub(self.1, o.1))
    }

    #[inline]
    pub fn mul(self, o: Fp) -> Fp {
        Fp(mul(self.0, o.0), mul(self.1, o.1))
    }

    /// Whether either evaluation is zero (then there is no inverse).
    #[inline]
    pub fn has_zero(self) -> bool {
        self.0 == 0 || self.1 == 0
    }

    /// The multiplicative inverse (zero components stay zero).
    pub fn inverse(self) -> Fp {
        Fp(invert(self.0), invert(self.1))
    }
}

/// The fingerprint of a whole expression (its cards as variables), the
/// class [`crate::solver::solve_all`] would put it in; `None` when it
/// divides by something whose fingerprint has no inverse (a division by an
/// expression that is zero as a function of the cards, such as `5 − 5`).
pub(crate) fn of_expr(e: &crate::Expr) -> Option<Fp> {
    match e {
        crate::Expr::Card(v) => Some(Fp::card(*v)),
        crate::Expr::Bin(op, l, r) => {
            let (l, r) = (of_expr(l)?, of_expr(r)?);
            match op {
                crate::Op::Add => Some(l.add(r)),
                crate::Op::Sub => Some(l.sub(r)),
                crate::Op::Mul => Some(l.mul(r)),
                crate::Op::Div if r.has_zero() => None,
                crate::Op::Div => Some(l.mul(r.inverse())),
            }
        }
    }
}

/// A whole number modulo [`P`].
#[inline]
pub(crate) fn residue(n: i64) -> u64 {
    // P < 2^63, so it is a positive i64 and the remainder fits.
    n.rem_euclid(P as i64) as u64
}

/// `num / den` modulo [`P`] and the inverse of that (zero for zero), for
/// parts below P in absolute value (so the denominator has an inverse).
pub(crate) fn residue_pair(num: i64, den: i64) -> (u64, u64) {
    let (n, d) = (residue(num), residue(den));
    if n == 0 {
        return (0, 0);
    }
    // One exponentiation for both: 1 / (n d), then n / d = n² / (n d).
    let x = invert(mul(n, d));
    (mul(mul(n, n), x), mul(mul(d, d), x))
}

/// Inverts every element of `xs` in place with one modular exponentiation
/// for all of them (Montgomery's batch trick); `prefix` is scratch space.
/// Zeros stay zero: callers never divide by them (the exact value is
/// checked first).
pub(crate) fn invert_all(xs: &mut [u64], prefix: &mut Vec<u64>) {
    prefix.clear();
    let mut acc = 1u64;
    for &x in xs.iter() {
        prefix.push(acc);
        if x != 0 {
            acc = mul(acc, x);
        }
    }
    let mut inv = invert(acc);
    for (x, &before) in xs.iter_mut().zip(prefix.iter()).rev() {
        if *x != 0 {
            let next = mul(inv, *x);
            *x = mul(inv, before);
            inv = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_arithmetic() {
        let a = Fp::card(7);
        let b = Fp::card(11);
        assert_eq!(a.mul(a.inverse()), Fp(1, 1));
        assert_eq!(a.add(b).sub(b), a);
        assert_eq!(a.mul(b), b.mul(a));
        let mut xs = [a.0, 0, b.1, a.1];
        invert_all(&mut xs, &mut Vec::new());
        let (ai, bi) = (a.inverse(), b.inverse());
        assert_eq!(xs, [ai.0, 0, bi.1, ai.1]);
        let (r, r_inv) = residue_pair(-3, 7);
        assert_eq!(mul(r, 7), residue(-3));
        assert_eq!(mul(r, r_inv), 1);
        assert_eq!(residue_pair(0, 5), (0, 0));
        for x in [
            1,
            2,
            3,
            12345,
            P - 1,
            P - 2,
            splitmix(7) % P,
            splitmix(8) % P,
        ] {
            assert_eq!(invert(x), pow(x, P - 2));
            assert_eq!(mul(x, invert(x)), 1);
        }
        assert_eq!(invert(0), 0);
        assert_eq!(mul(P - 1, P - 1), 1);
        assert_ne!(Fp::card(7), Fp::card(8));
    }
}
