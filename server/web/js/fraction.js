// Exact rational numbers on BigInt, for the live preview of a formula.
// The server alone judges; this only shows what a formula comes to.

function gcd(a, b) {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b) [a, b] = [b, a % b];
  return a;
}

export class Fraction {
  constructor(n, d = 1n) {
    if (d === 0n) throw new RangeError('division by zero');
    if (d < 0n) { n = -n; d = -d; }
    const g = gcd(n, d) || 1n;
    this.n = n / g;
    this.d = d / g;
  }
  add(o) { return new Fraction(this.n * o.d + o.n * this.d, this.d * o.d); }
  sub(o) { return new Fraction(this.n * o.d - o.n * this.d, this.d * o.d); }
  mul(o) { return new Fraction(this.n * o.n, this.d * o.d); }
  div(o) {
    if (o.n === 0n) throw new RangeError('division by zero');
    return new Fraction(this.n * o.d, this.d * o.n);
  }
  equals(o) { return this.n === o.n && this.d === o.d; }
  isInteger() { return this.d === 1n; }
  toString() { return this.d === 1n ? `${this.n}` : `${this.n}/${this.d}`; }
}
