// The page's state reducer (server/web/js/state.js) fed server messages
// directly, without a browser: what the feed says after the roster changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The page keeps drafts in sessionStorage; node has none: a Map stands in.
const kept = new Map();
globalThis.sessionStorage ??= {
  getItem: (k) => kept.get(k) ?? null,
  setItem: (k, v) => kept.set(k, String(v)),
  removeItem: (k) => kept.delete(k),
};
const { createState, applyServer } = await import('../web/js/state.js');
import { seconds } from '../web/js/clock.js';

const settings = { variant: 'krypto', rules: 'free', rounds: 3, round_seconds: 60, lockout_seconds: 5 };

function inRoom() {
  const state = createState({ name: 'room', code: 'ABCDE' });
  applyServer(state, { type: 'welcome', player_id: 1, name: 'Ann', token: 't', resumed: false });
  applyServer(state, {
    type: 'room_state', code: 'ABCDE', host: 1, settings, state: 'playing', locked: false, rounds_total: 3,
    players: [
      { id: 1, name: 'Ann', score: 0, connected: true },
      { id: 2, name: 'Ben', score: 0, connected: true },
    ],
    round: { number: 1, objective: 15, cards: [1, 2, 3, 4, 5], ms_left: 50000 },
  });
  return state;
}

test('a win announced after its winner left still names them', () => {
  const state = inRoom();
  applyServer(state, { type: 'player_left', player: 2, name: 'Ben', reason: 'left' });
  applyServer(state, { type: 'attempt_failed', round: 1, player: 2, score: 0 });
  applyServer(state, {
    type: 'round_won', round: 1, winner: 2, formula: '1+2+3+4+5', no_solution: false, elapsed_ms: 4200, points: 1,
    scores: [{ player: 1, score: 0 }],
  });
  const feed = state.room.feed.map((l) => l.text);
  assert.ok(feed.includes('Ben tried and missed'), feed.join('\n'));
  assert.ok(feed.includes('Ben won round 1: 1+2+3+4+5'), feed.join('\n'));
  assert.ok(!feed.some((t) => t.includes('Someone')), feed.join('\n'));
});

test('a win time is rounded as the terminal rounds it', () => {
  assert.equal(seconds(14950), '15.0 s');
  assert.equal(seconds(14949), '14.9 s');
  assert.equal(seconds(4200), '4.2 s');
});

test('a devices list from the server is typed and bounded, and a new device is noted for "not you?"', () => {
  const state = inRoom();
  const many = Array.from({ length: 1000 }, (_, i) => ({ id: `${i}`, label: `phone ${i}`, created_ms: 1, last_used_ms: 2 }));
  applyServer(state, { type: 'devices', devices: [{ id: 7, label: 'not an id' }, null, ...many] });
  assert.equal(state.devices.list.length, 62, 'at most 64 looked at; the two malformed dropped');
  assert.deepEqual(state.devices.list[0], { id: '0', label: 'phone 0', created: 1, lastUsed: 2, mine: false });
  applyServer(state, { type: 'device_added', device: { id: 'x', label: 'Safari on iOS' } });
  assert.equal(state.deviceAdded, 'Safari on iOS');
});
