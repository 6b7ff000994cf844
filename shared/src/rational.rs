//! Exact rational numbers with overflow reported as an error.
//!
//! Every value the checker and the solver compute goes through this type, so a
//! formula can never be judged on a rounded or wrapped-around number: an
//! operation either gives the exact result or says why it could not.

use std::cmp::Ordering;
use std::fmt;

use thiserror::Error;

/// Why an exact operation produced no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ArithError {
    /// The divisor was zero.
    #[error("division by zero")]
    DivisionByZero,
    /// The exact result does not fit in 64-bit numerator and denominator.
    #[error("the result is too large to compute exactly")]
    Overflow,
}

/// A reduced fraction `num / den` with `den > 0`.
///
/// The invariant (reduced, positive denominator) makes equality and hashing
/// structural, which the solver relies on for deduplicating values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rational {
    num: i64,
    den: i64,
}

#[inline]
fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    // Binary GCD: no divisions, which matters in the solver's inner loop.
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

impl Rational {
    /// Zero.
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    /// One.
    pub const ONE: Rational = Rational { num: 1, den: 1 };

    /// The whole number `n`.
    #[inline]
    pub const fn from_int(n: i64) -> Rational {
        Rational { num: n, den: 1 }
    }

    /// `num / den`, reduced.
    pub fn new(num: i64, den: i64) -> Result<Rational, ArithError> {
        Self::from_i128(num as i128, den as i128)
    }

    /// Reduces a fraction computed in 128 bits and narrows it back to 64.
    /// Kept out of line: the solvers' loops take only the whole-number
    /// fast paths inline and stay small.
    #[inline(never)]
    fn from_i128(num: i128, den: i128) -> Result<Rational, ArithError> {
        // Most fractions fit in 64 bits before reducing: reduce them there,
        // without 128-bit divisions.
        if let (Ok(n), Ok(d)) = (i64::try_from(num), i64::try_from(den)) {
            if n != i64::MIN && d != i64::MIN {
                return Self::from_i64(n, d);
            }
        }
        Self::from_wide(num, den)
    }

    /// [`Rational::from_i128`] beyond 64 bits: reduced in 128 bits first.
    #[cold]
    fn from_wide(num: i128, den: i128) -> Result<Rational, ArithError> {
        if den == 0 {
            return Err(ArithError::DivisionByZero);
        }
        let g = gcd_u128(num.unsigned_abs(), den.unsigned_abs()) as i128;
        match (i64::try_from(num / g), i64::try_from(den / g)) {
            (Ok(num), Ok(den)) if num != i64::MIN && den != i64::MIN => Self::from_i64(num, den),
            // Reduced already; -2^63 cannot change sign.
            (Ok(num), Ok(den)) if den > 0 => Ok(Rational { num, den }),
            _ => Err(ArithError::Overflow),
        }
    }

    /// `num / den`, reduced, for parts that are not `i64::MIN` (so
    /// negating cannot overflow).
    #[inline]
    fn from_i64(num: i64, den: i64) -> Result<Rational, ArithError> {
        if den == 0 {
            return Err(ArithError::DivisionByZero);
        }
        let (mut num, mut den) = if den < 0 { (-num, -den) } else { (num, den) };
        if num == 0 {
            return Ok(Rational::ZERO);
        }
        if den != 1 {
            // Both parts are below 2^63, so their gcd is too.
            let g = gcd_u64(num.unsigned_abs(), den as u64) as i64;
            if g > 1 {
                num /= g;
                den /= g;
            }
        }
        Ok(Rational { num, den })
    }

    /// The numerator (carries the sign).
    #[inline]
    pub const fn numer(&self) -> i64 {
        self.num
    }

    /// The denominator, always positive.
    #[inline]
    pub const fn denom(&self) -> i64 {
        self.den
    }

    /// Whether the value is a whole number.
    #[inline]
    pub const fn is_integer(&self) -> bool {
        self.den == 1
    }

    /// The value as a whole number, if it is one.
    #[inline]
    pub const fn to_integer(&self) -> Option<i64> {
        if self.den == 1 {
            Some(self.num)
        } else {
            None
        }
    }

    /// Whether the value is below zero.
    #[inline]
    pub const fn is_negative(&self) -> bool {
        self.num < 0
    }

    /// Whether the value is zero.
    #[inline]
    pub const fn is_zero(&self) -> bool {
        self.num == 0
    }

    /// `self + rhs`, exactly.
    #[inline]
    pub fn checked_add(self, rhs: Rational) -> Result<Rational, ArithError> {
        if self.den == 1 && rhs.den == 1 {
            return whole(self.num.checked_add(rhs.num));
        }
        let num = self.num as i128 * rhs.den as i128 + rhs.num as i128 * self.den as i128;
        Self::from_i128(num, self.den as i128 * rhs.den as i128)
    }

    /// `self - rhs`, exactly.
    #[inline]
    pub fn checked_sub(self, rhs: Rational) -> Result<Rational, ArithError> {
        if self.den == 1 && rhs.den == 1 {
            return whole(self.num.checked_sub(rhs.num));
        }
        let num = self.num as i128 * rhs.den as i128 - rhs.num as i128 * self.den as i128;
        Self::from_i128(num, self.den as i128 * rhs.den as i128)
    }

    /// `self × rhs`, exactly.
    #[inline]
    pub fn checked_mul(self, rhs: Rational) -> Result<Rational, ArithError> {
        if self.den == 1 && rhs.den == 1 {
            return whole(self.num.checked_mul(rhs.num));
        }
        Self::from_i128(
            self.num as i128 * rhs.num as i128,
            self.den as i128 * rhs.den as i128,
        )
    }

    /// `self ÷ rhs`, exactly; dividing by zero is an error.
    #[inline]
    pub fn checked_div(self, rhs: Rational) -> Result<Rational, ArithError> {
        if rhs.num == 0 {
            return Err(ArithError::DivisionByZero);
        }
        if self.den == 1 && rhs.den == 1 && self.num.checked_rem(rhs.num) == Some(0) {
            return whole(self.num.checked_div(rhs.num));
        }
        Self::from_i128(
            self.num as i128 * rhs.den as i128,
            self.den as i128 * rhs.num as i128,
        )
    }
}

/// The result of a whole-number fast path: `None` from a checked `i64`
/// operation is an overflow.
#[inline]
fn whole(n: Option<i64>) -> Result<Rational, ArithError> {
    n.map(Rational::from_int).ok_or(ArithError::Overflow)
}

#[inline]
fn gcd_u128(a: u128, b: u128) -> u128 {
    match (u64::try_from(a), u64::try_from(b)) {
        (Ok(a), Ok(b)) => gcd_u64(a, b) as u128,
        _ => {
            let (mut a, mut b) = (a, b);
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        }
    }
}

impl From<i64> for Rational {
    fn from(n: i64) -> Self {
        Rational::from_int(n)
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Rational {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.num as i128 * other.den as i128).cmp(&(other.num as i128 * self.den as i128))
    }
}

impl fmt::Display for Rational {
    /// `17`, `-3` or `17/3`: the form the JSON contract uses for values.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i64, d: i64) -> Rational {
        Rational::new(n, d).unwrap()
    }

    #[test]
    fn reduces_and_normalises_sign() {
        assert_eq!(r(6, -4), r(-3, 2));
        assert_eq!(r(0, -5), Rational::ZERO);
        assert_eq!(r(-6, -3).to_string(), "2");
        assert_eq!(r(17, 3).to_string(), "17/3");
    }

    #[test]
    fn the_64_bit_and_128_bit_reductions_agree_at_the_edges() {
        let parts = (
            Rational::new(i64::MIN, 2).unwrap().numer(),
            r(i64::MIN, 2).denom(),
        );
        assert_eq!(parts, (i64::MIN / 2, 1));
        assert_eq!(r(i64::MIN, i64::MIN), Rational::ONE);
        assert_eq!(r(i64::MAX, -i64::MAX), r(-1, 1));
        assert_eq!(r(-4, i64::MIN), r(1, 1 << 61));
        // 2^63 does not fit: neither way may wrap it around.
        assert_eq!(Rational::new(1, i64::MIN), Err(ArithError::Overflow));
        assert_eq!(Rational::new(i64::MIN, -1), Err(ArithError::Overflow));
        let big = r(i64::MAX, 3);
        assert_eq!(big.checked_add(big), Err(ArithError::Overflow));
        assert_eq!(
            r(i64::MAX - 1, 2).checked_sub(r(1, 2)),
            Ok(r(i64::MAX - 2, 2))
        );
    }

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(r(1, 3).checked_add(r(1, 6)).unwrap(), r(1, 2));
        assert_eq!(r(1, 3).checked_sub(r(1, 2)).unwrap(), r(-1, 6));
        assert_eq!(r(2, 3).checked_mul(r(9, 4)).unwrap(), r(3, 2));
        assert_eq!(r(2, 3).checked_div(r(4, 9)).unwrap(), r(3, 2));
        assert_eq!(r(7, 1).checked_div(r(2, 1)).unwrap(), r(7, 2));
    }

    #[test]
    fn division_by_zero_and_overflow_are_errors() {
        assert_eq!(
            r(1, 1).checked_div(Rational::ZERO),
            Err(ArithError::DivisionByZero)
        );
        assert_eq!(Rational::new(1, 0), Err(ArithError::DivisionByZero));
        let big = Rational::from_int(i64::MAX);
        assert_eq!(big.checked_add(Rational::ONE), Err(ArithError::Overflow));
        assert_eq!(
            big.checked_mul(Rational::from_int(2)),
            Err(ArithError::Overflow)
        );
        assert_eq!(
            Rational::from_int(i64::MIN).checked_div(Rational::from_int(-1)),
            Err(ArithError::Overflow)
        );
        assert_eq!(
            r(1, i64::MAX).checked_mul(r(1, 3)),
            Err(ArithError::Overflow)
        );
    }

    #[test]
    fn ordering_is_numeric() {
        assert!(r(1, 3) < r(1, 2));
        assert!(r(-1, 2) < r(-1, 3));
    }
}
