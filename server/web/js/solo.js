// The daily (`/daily`), a challenge (`/c/CODE`), a solo run (`/run`) and
// practice (`/practice`, unrated, with hints):
// their state, changed only by the server's messages (`applySolo`) and the
// player's actions (app.js), with no socket and no DOM here. The server
// keeps the only clock that counts; the page shows its last figure moved on
// by the time since it came, a miss's penalty added at once.

import { now } from './clock.js';
import { LIMITS } from './limits.js';

/** The routes that are played alone. */
export const SOLO_ROUTES = new Set(['daily', 'challenge', 'run', 'practice']);

/** The messages only these pages take. */
const MESSAGES = new Set([
  'daily', 'daily_solved', 'run', 'run_hand', 'run_over', 'challenge', 'challenge_hand', 'challenge_result',
  'practice', 'practice_hint', 'practice_solutions',
]);

/** Errors that answer a request of these pages (the rest are the app's: names, tokens). */
const ERRORS = new Set([
  'no_such_day', 'challenge_not_found', 'wrong_state', 'wrong_round', 'rate_limited', 'bad_message', 'internal',
]);

/** A refused answer that costs the penalty: a complete formula over the hand that is wrong. */
const MISSES = new Set(['wrong_value', 'division_by_zero', 'rule_violation', 'overflow']);

/** The state of a page at `route`, or null for any other page. */
export function createSolo(route) {
  if (!SOLO_ROUTES.has(route.kind)) return null;
  return {
    kind: route.kind,
    date: route.date ?? null,
    code: route.code ?? null,
    // The start request went out on this page (a daily or challenge resumes
    // its clock when asked again; a run is taken up with run_resume).
    started: false,
    // {objective, cards, number (a run's hand, else 0), rules}
    hand: null,
    // {up, ms, at}: counting up (daily, challenge) or down (run) from `ms` at `at`.
    clock: null,
    formula: '',
    pending: false,
    verdict: null,
    error: null,
    // daily: {number, date, rated}; challenge: {by, toBeat}; run: {score, combo, bonus, duration}
    info: null,
    // The final message: daily_solved, challenge_result or run_over, with `kind`.
    result: null,
    // The code of the challenge made of this page's solved hand, once asked and answered.
    challenge: null,
    askedChallenge: false,
    lost: false,
    // A `run_resume` is out after a reconnect.
    resuming: false,
    // A challenge's setter and time to beat, read over HTTP before its clock starts.
    preview: null,
    // Practice: the band asked for, the hand's hint steps shown so far and
    // how many it has, and the last hand that ended (practice_solutions).
    difficulty: 'any',
    hints: [],
    ended: null,
  };
}

/** The request that starts (or resumes) the page's play. */
export function startMessage(solo) {
  if (solo.kind === 'daily') return solo.date ? { type: 'daily_start', date: solo.date } : { type: 'daily_start' };
  if (solo.kind === 'challenge') return { type: 'challenge_start', code: solo.code };
  if (solo.kind === 'practice') return { type: 'practice_start', difficulty: solo.difficulty };
  return { type: 'run_start' };
}

/** Whether `m` is for these pages. */
export function takesMessage(solo, m) {
  if (!solo) return false;
  if (MESSAGES.has(m.type)) return true;
  if (m.type === 'verdict') return solo.pending;
  return m.type === 'error' && ERRORS.has(m.code) && solo.started;
}

/** The time on the clock now: elapsed (up) or left (down). */
export function clockMs(solo) {
  const c = solo.clock;
  if (!c) return 0;
  if (c.frozen !== undefined) return c.frozen;
  const passed = Math.max(0, now() - c.at);
  return c.up ? c.ms + passed : Math.max(0, c.ms - passed);
}

function deal(solo, m, number, up, ms) {
  const same = solo.hand && solo.hand.objective === m.objective && solo.hand.cards.join() === m.cards.join()
    && solo.hand.number === number;
  solo.hand = {
    objective: m.objective, cards: m.cards, number, rules: m.rules ?? 'free',
  };
  solo.clock = { up, ms, at: now() };
  if (!same) solo.formula = '';
  solo.error = null;
}

/** Applies a server message to the page's state. */
export function applySolo(solo, m) {
  switch (m.type) {
    case 'daily':
      solo.info = { number: m.number, date: m.date, rated: m.rated };
      deal(solo, m, 0, true, m.elapsed_ms);
      return;
    case 'challenge_hand':
      solo.info = { by: m.by, toBeat: m.to_beat };
      deal(solo, m, 0, true, m.elapsed_ms);
      return;
    case 'run':
      solo.resuming = false;
      solo.result = null;
      solo.info = { score: m.score, combo: m.combo, bonus: 0, duration: m.duration_ms };
      deal(solo, m, m.hand, false, m.remaining_ms);
      return;
    case 'practice':
      // Nothing is recorded: the clock only shows how long this hand took.
      solo.info = { difficulty: m.difficulty, steps: m.steps };
      solo.hints = [];
      deal(solo, m, m.hand, true, 0);
      return;
    case 'practice_hint':
      if (solo.hand?.number === m.hand) solo.hints = [...solo.hints, m.step];
      return;
    case 'practice_solutions':
      solo.ended = m;
      return;
    case 'run_hand':
      solo.info = { ...solo.info, score: m.score, combo: m.combo, bonus: m.bonus_ms ?? 0 };
      deal(solo, m, m.hand, false, m.remaining_ms);
      return;
    case 'daily_solved':
    case 'challenge_result':
      solo.result = { ...m, kind: m.type };
      solo.pending = false;
      if (solo.clock) solo.clock.frozen = m.type === 'daily_solved' ? m.elapsed_ms : m.yours.elapsed_ms;
      return;
    case 'run_over':
      solo.result = { ...m, kind: m.type };
      solo.pending = false;
      solo.hand = null;
      if (solo.clock) solo.clock.frozen = 0;
      return;
    case 'challenge':
      solo.challenge = m.code;
      return;
    case 'verdict': {
      solo.pending = false;
      solo.verdict = {
        accepted: m.accepted, value: m.value ?? null,
        kind: m.error?.kind ?? null, message: m.error?.message ?? '', column: m.error?.column ?? null,
      };
      // Practice costs nothing for a wrong answer.
      const miss = !m.accepted && MISSES.has(solo.verdict.kind) && solo.kind !== 'practice';
      solo.verdict.miss = miss;
      if (miss && solo.clock?.up && solo.clock.frozen === undefined) solo.clock.ms += LIMITS.penalty_ms;
      return;
    }
    case 'error':
      solo.pending = false;
      solo.askedChallenge = false;
      if (solo.resuming && m.code === 'wrong_state') {
        // The run is gone (kept only by the server it started on).
        solo.resuming = false;
        solo.lost = true;
        solo.started = false;
        solo.hand = null;
        return;
      }
      solo.error = m.message;
      return;
    default:
  }
}

/** Whether the page has a solved hand to challenge a friend with. */
export function canChallenge(solo) {
  const r = solo.result;
  if (solo.kind === 'practice') return false;
  if (!r) return false;
  return r.kind !== 'run_over' || r.score > 0;
}

/** `0:42`, `12:05`, `1:02:03`: whole seconds, rounded down, as the share line writes them. */
export function stopwatch(ms) {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** `no misses`, `1 miss`, `3 misses`. */
export function missesText(n) {
  if (n === 0) return 'no misses';
  return n === 1 ? '1 miss' : `${n} misses`;
}
