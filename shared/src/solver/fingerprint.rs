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
fn add(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

#[inline]
fn sub(a: u64, b: u64) -> u64 {
    if a >= b {
        a - b
    } else {
        a + P - b
    }
}

#[inline]
fn mul(a: u64, b: u64) -> u64 {
    reduce(a as u128 * b as u128)
}

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
        Fp(pow(self.0, P - 2), pow(self.1, P - 2))
    }
}

/// Inverts every fingerprint with one modular exponentiation per component
/// (Montgomery's batch trick). Components that are zero get inverse zero;
/// callers never divide by them (the exact value is checked first).
pub(crate) fn batch_inverse(fps: &[Fp]) -> Vec<Fp> {
    fn one(xs: &[u64]) -> Vec<u64> {
        let mut prefix = Vec::with_capacity(xs.len());
        let mut acc = 1u64;
        for &x in xs {
            prefix.push(acc);
            if x != 0 {
                acc = mul(acc, x);
            }
        }
        let mut inv = pow(acc, P - 2);
        let mut out = vec![0; xs.len()];
        for i in (0..xs.len()).rev() {
            if xs[i] != 0 {
                out[i] = mul(inv, prefix[i]);
                inv = mul(inv, xs[i]);
            }
        }
        out
    }
    let a = one(&fps.iter().map(|f| f.0).collect::<Vec<_>>());
    let b = one(&fps.iter().map(|f| f.1).collect::<Vec<_>>());
    a.into_iter().zip(b).map(|(x, y)| Fp(x, y)).collect()
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
        let inv = batch_inverse(&[a, Fp(0, 0), b]);
        assert_eq!(inv, vec![a.inverse(), Fp(0, 0), b.inverse()]);
        assert_eq!(mul(P - 1, P - 1), 1);
        assert_ne!(Fp::card(7), Fp::card(8));
    }
}
