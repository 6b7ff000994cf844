// The formula a player builds: tokens, the live preview of its exact value,
// which cards it uses, and the edits the tap pad makes. The syntax is the
// server's (whole numbers, + - * / × ÷ − x X, parentheses); the limits match
// it too, so the preview never recurses deeper than the server would.

import { Fraction } from './fraction.js';
import { LIMITS } from './limits.js';

export const MAX_LEN = LIMITS.formula_chars;
const MAX_DEPTH = LIMITS.formula_depth;

const OPS = { '+': '+', '-': '-', '−': '-', '*': '*', '×': '*', x: '*', X: '*', '/': '/', '÷': '/' };

/** Splits text into tokens; `{error}` on a character the server refuses. */
export function tokenize(text) {
  const tokens = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t') { i++; continue; }
    if (c >= '0' && c <= '9') {
      let j = i;
      while (j < text.length && text[j] >= '0' && text[j] <= '9') j++;
      tokens.push({ kind: 'num', value: BigInt(text.slice(i, j)), start: i, end: j });
      i = j;
    } else if (OPS[c]) {
      tokens.push({ kind: 'op', op: OPS[c], start: i, end: i + 1 });
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c, start: i, end: i + 1 });
      i++;
    } else {
      return { error: `“${c}” is not part of a formula`, tokens };
    }
  }
  return { tokens };
}

class Incomplete extends Error {}
class Invalid extends Error {}

/** Recursive descent with the usual precedence, left to right in a level. */
function parse(tokens) {
  let pos = 0;
  const peek = () => tokens[pos];
  function expr(depth) {
    let left = term(depth);
    while (peek()?.kind === 'op' && (peek().op === '+' || peek().op === '-')) {
      const op = tokens[pos++].op;
      const right = term(depth);
      left = op === '+' ? left.add(right) : left.sub(right);
    }
    return left;
  }
  function term(depth) {
    let left = factor(depth);
    while (peek()?.kind === 'op' && (peek().op === '*' || peek().op === '/')) {
      const op = tokens[pos++].op;
      const right = factor(depth);
      if (op === '/' && right.n === 0n) throw new Invalid('divides by zero');
      left = op === '*' ? left.mul(right) : left.div(right);
    }
    return left;
  }
  function factor(depth) {
    const t = peek();
    if (!t) throw new Incomplete();
    if (t.kind === 'num') { pos++; return new Fraction(t.value); }
    if (t.kind === '(') {
      if (depth >= MAX_DEPTH) throw new Invalid('too many parentheses');
      pos++;
      const v = expr(depth + 1);
      if (!peek()) throw new Incomplete();
      if (peek().kind !== ')') throw new Invalid('a “)” is missing');
      pos++;
      return v;
    }
    throw new Invalid(t.kind === ')' ? 'a “(” is missing' : 'a number is missing');
  }
  const value = expr(0);
  if (pos < tokens.length) {
    const t = tokens[pos];
    throw new Invalid(t.kind === ')' ? 'a “(” is missing' : 'an operator is missing');
  }
  return value;
}

/**
 * What the formula comes to so far: `{state: 'empty'}`, `{state:
 * 'incomplete'}` (it could still become a formula), `{state: 'invalid',
 * message}`, or `{state: 'value', value}` with an exact Fraction.
 */
export function preview(text) {
  if (text.length > MAX_LEN) return { state: 'invalid', message: `longer than ${MAX_LEN} characters` };
  const { tokens, error } = tokenize(text);
  if (error) return { state: 'invalid', message: error };
  if (tokens.length === 0) return { state: 'empty' };
  try {
    return { state: 'value', value: parse(tokens) };
  } catch (e) {
    if (e instanceof Incomplete) return { state: 'incomplete' };
    if (e instanceof Invalid) return { state: 'invalid', message: e.message };
    if (e instanceof RangeError) return { state: 'invalid', message: 'divides by zero' };
    throw e;
  }
}

/**
 * Which cards of the hand the formula's numbers use, matched in order (a
 * number that matches no free card is left out): an array of booleans, one
 * per card.
 */
export function usedCards(text, cards) {
  const used = cards.map(() => false);
  const { tokens } = tokenize(text);
  for (const t of tokens) {
    if (t.kind !== 'num') continue;
    const i = cards.findIndex((c, k) => !used[k] && BigInt(c) === t.value);
    if (i >= 0) used[i] = true;
  }
  return used;
}

/**
 * Why the formula cannot be right for the hand whatever else is typed, or
 * null: a number that is not one of the cards, or a card used more times
 * than the hand holds it. The server refuses the same (`unknown_card`,
 * `card_reused`) at the cost of a lockout; the page never sends it.
 */
export function handProblem(text, cards) {
  const left = cards.map((c) => BigInt(c));
  const { tokens } = tokenize(text);
  for (const t of tokens) {
    if (t.kind !== 'num') continue;
    const i = left.indexOf(t.value);
    if (i >= 0) {
      left.splice(i, 1);
      continue;
    }
    const held = cards.filter((c) => BigInt(c) === t.value).length;
    if (held === 0) return `${t.value} is not in your hand`;
    return held === 1 ? `${t.value} is used twice: the hand has it once` : `${t.value} is used more than the ${held} times the hand has it`;
  }
  return null;
}

/** Whether the next token should be a number or "(" (else an operator or ")"). */
export function wantsOperand(text) {
  const { tokens } = tokenize(text);
  const last = tokens[tokens.length - 1];
  return !last || last.kind === 'op' || last.kind === '(';
}

/** The text with a tapped piece appended, spaced for reading. */
export function appendPiece(text, piece) {
  const trimmed = text.trimEnd();
  if (trimmed === '') return piece;
  if (piece === ')' || trimmed.endsWith('(')) return `${trimmed}${piece}`;
  return `${trimmed} ${piece}`;
}

/** The text without its last token (a whole number, an operator or a parenthesis). */
export function removeLast(text) {
  const { tokens } = tokenize(text);
  const last = tokens[tokens.length - 1];
  if (!last) return text.trimEnd().slice(0, -1);
  return text.slice(0, last.start).trimEnd();
}
