// Ratings, places and records as people read them: the podium gives medals
// to real places only and says what "unrated" means; the profile shows a
// provisional rating with "?" and its margin; the leaderboard shows whole
// ratings; both pages lead back to the game. The real server serves the
// pages; the WebSocket and the HTTP API answers are scripted, so every case
// shows on cue.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { phone, ROOM_SETTINGS, engineLacks } from './harness.js';
import { gameNight } from './kit.js';

const night = gameNight();

const member = (id, name, score, extra = {}) => ({ id, name, score, connected: true, spectator: false, waiting: false, ...extra });

test('medals only for real places, rating changes in whole points, provisional ones with "?", unrated explained', { skip: engineLacks('routeWebSocket') }, async () => {
  const page = await phone(night.browser);
  const over = {
    type: 'match_over',
    standings: [
      { player: 1, name: 'Ada', score: 2, rank: 1, rating_before: 1500, rating_after: 1658 },
      { player: 2, name: 'Bob', score: 0, rank: 2, rating_before: 1500, rating_after: 1342, rating_provisional: true },
      { player: 3, name: 'Ada-easy-bot', score: 0, rank: 2 },
    ],
  };
  await page.routeWebSocket(/\/ws$/, (ws) => ws.onMessage((text) => {
    const m = JSON.parse(text);
    const answer = (out) => ws.send(JSON.stringify(m.id ? { id: m.id, ...out } : out));
    if (m.type === 'hello') {
      answer({ type: 'welcome', protocol: 1, player_id: 1, name: 'Ada', token: 'secret-1', server_version: '0.1.0', resumed: true, join_urls: [] });
      answer({
        type: 'room_state', code: 'KXR7P', host: 1, settings: ROOM_SETTINGS, state: 'finished', locked: false, rounds_total: 10,
        players: [member(1, 'Ada', 2), member(2, 'Bob', 0), member(3, 'Ada-easy-bot', 0, { bot: true })],
        recent: [over],
      });
    }
    if (m.type === 'list_rooms') answer({ type: 'rooms', rooms: [] });
  }));
  await page.route(/qr\.svg/, (r) => r.fulfill({ contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' }));
  await page.goto(`${night.server.base}/leaderboard`);
  await page.evaluate(() => localStorage.setItem('krypto.identity', JSON.stringify({ name: 'Ada', token: 'secret-1' })));
  await page.goto(`${night.server.base}/r/KXR7P`);
  const standings = page.getByRole('list', { name: 'Final standings' });
  await standings.waitFor();
  const medals = await standings.locator('.medal').allTextContents();
  assert.deepEqual(medals.map((t) => t.trim()), ['🥇 1st', '2nd', '2nd']);
  await standings.getByText('rating 1500 → 1658 (+158)').waitFor();
  // Bob's new rating is still provisional: "?", as on his profile.
  await standings.getByText('rating 1500 → 1342? (−158)').waitFor();
  await page.getByText('Unrated: a match rates the people (not bots) who answered, when two or more did.').waitFor();
  assert.deepEqual(page.problems, []);
});

test('a provisional rating reads 1560? with its ± 402, unrated is explained, and the way back is there', { skip: engineLacks('route') }, async () => {
  const page = await phone(night.browser);
  await page.route(/\/api\/players\/Eli$/, (r) => r.fulfill({
    contentType: 'application/json',
    body: JSON.stringify({
      player: 9, name: 'Eli', rating: 1560, rating_deviation: 402, mu: 26, sigma: 6.7, ranked: false,
      min_rated_matches: 3, min_opponents: 3, rated_matches: 1, matches: 2, wins: 1, rounds_won: 2, fastest_ms: 9435,
      recent_matches: [
        { match: 'a', finished_at: '2026-11-20T21:04:00Z', players: 2, rounds: 3, score: 2, rank: 1, rating_before: 1500, rating_after: 1560 },
        { match: 'b', finished_at: '2026-11-20T20:04:00Z', players: 1, rounds: 3, score: 3, rank: 1, rating_before: null, rating_after: null },
      ],
    }),
  }));
  await page.goto(`${night.server.base}/p/Eli`);
  await page.getByText('1560?', { exact: true }).waitFor();
  await page.getByText('± 402 · Provisional (?) until 3 rated matches against 3 different people.').waitFor();
  await page.getByRole('cell', { name: '1500 → 1560 (+60)' }).waitFor();
  await page.getByText('Unrated: a match rates the people (not bots) who answered, when two or more did.').waitFor();
  const back = page.getByRole('link', { name: '← Back to the game' });
  assert.equal(new URL(await back.evaluate((a) => a.href)).pathname, '/');
  assert.deepEqual(page.problems, []);
});

test('the rating board shows whole numbers and leads back to the game', { skip: engineLacks('route') }, async () => {
  const page = await phone(night.browser);
  await page.route(/\/api\/leaderboard\?/, (r) => r.fulfill({
    contentType: 'application/json',
    body: JSON.stringify({
      metric: 'rating', period: 'all', total: 2,
      rows: [{ rank: 1, player: 1, name: 'Ben', value: 1688, matches: 12 }, { rank: 1, player: 2, name: 'Ann', value: 1688, matches: 9 }],
    }),
  }));
  await page.goto(`${night.server.base}/leaderboard`);
  const table = page.getByRole('table');
  await table.getByRole('link', { name: 'Ben' }).waitFor();
  const ranks = await table.locator('tbody tr td:first-child').allTextContents();
  assert.deepEqual(ranks, ['1', '1'], 'ties share a rank');
  assert.deepEqual(await table.locator('tbody tr td.num:nth-child(3)').allTextContents(), ['1688', '1688']);
  await page.getByText('Players with a provisional rating', { exact: false }).waitFor();
  await page.getByRole('link', { name: '← Back to the game' }).click();
  await page.waitForURL(`${night.server.base}/`);
  assert.deepEqual(page.problems, []);
});
