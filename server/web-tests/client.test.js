// The page's side of the protocol, against a scripted server (Playwright
// answers the WebSocket; the real server serves the page): roster deltas,
// bot marks, the LAN join link, reconnecting and resuming after a restart
// (close 1012), standing down when another tab takes over (close 1000),
// hostile chat shown as text, keyboard-only use, the exact preview, and
// following `redirect` to another node's page (another origin of the same
// real server) with the token handed over, refusing bad URLs and loops.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { phone, repo, engineLacks } from './harness.js';
import { gameNight } from './kit.js';

const night = gameNight();

const SETTINGS = {
  variant: 'krypto', rules: 'free', rounds: 10, target_score: null, round_seconds: 90, lockout_seconds: 5,
  wrong_penalty: 0, deal: 'solvable', difficulty: 'any', max_players: 8, public: false,
};

const person = (id, name, extra = {}) => ({ id, name, score: 0, connected: true, spectator: false, waiting: false, ...extra });

function snapshot(players) {
  return { type: 'room_state', code: 'KXR7P', host: 1, settings: SETTINGS, state: 'lobby', locked: false, players, rounds_total: 10 };
}

/**
 * Scripts the server: every connection's messages are recorded in `seen`;
 * `reply(message, socket)` answers each one.
 */
async function scripted(page, reply) {
  const sockets = [];
  const seen = [];
  await page.routeWebSocket(/\/ws$/, (ws) => {
    sockets.push(ws);
    ws.onMessage((text) => {
      const m = JSON.parse(text);
      seen.push(m);
      for (const out of reply(m, ws) ?? []) ws.send(JSON.stringify(m.id ? { id: m.id, ...out } : out));
    });
  });
  return { sockets, seen, push: (m) => sockets.at(-1).send(JSON.stringify(m)) };
}

const welcome = (resumed) => ({
  type: 'welcome', protocol: 1, player_id: 1, name: 'Ada', token: 'secret-1', server_version: '0.1.0', resumed,
  join_urls: ['http://localhost:7878', 'http://192.168.1.20:7878'],
});

test('roster deltas, bot marks, the LAN link, chat as text, restart and takeover', { skip: engineLacks('routeWebSocket') }, async () => {
  const page = await phone(night.browser);
  const server1 = await scripted(page, (m) => {
    if (m.type === 'hello' && m.token === 'secret-1') return [welcome(true), snapshot([person(1, 'Ada'), person(2, 'Bot Grace', { bot: true })])];
    if (m.type === 'hello') return [welcome(false)];
    if (m.type === 'list_rooms') return [{ type: 'rooms', rooms: [] }];
    if (m.type === 'start') return [{ type: 'match_started', rounds_total: 5, settings: SETTINGS, countdown_ms: 3000 }];
    if (m.type === 'create_room') return [snapshot([person(1, 'Ada'), person(2, 'Bot Grace', { bot: true })])];
    return [];
  });
  // The scripted server's LAN address is not this machine's, so the real
  // server would rightly refuse to draw its QR code; draw a blank one.
  await page.route(/qr\.svg/, (r) => r.fulfill({ contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' }));
  await page.goto(`${night.server.base}/`);

  // Keyboard alone: the name field has focus; Tab reaches "Create a room".
  await page.keyboard.type('Ada');
  await page.keyboard.press('Enter');
  await page.getByText('Hi Ada!').waitFor();
  for (let i = 0; i < 10; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.textContent === 'Create a room')) break;
  }
  await page.keyboard.press('Enter');
  await page.locator('.room-code', { hasText: 'KXR7P' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/r/KXR7P');
  assert.equal(server1.seen.find((m) => m.type === 'hello').name, 'Ada');

  const roster = page.locator('.roster');
  await roster.locator('li', { hasText: 'Bot Grace' }).getByText('🤖 bot').waitFor();

  // The invitation uses the server's LAN address, not localhost.
  await page.getByRole('link', { name: '192.168.1.20:7878/r/KXR7P' }).waitFor();
  const qr = await page.getByRole('img', { name: /QR code/ }).getAttribute('src');
  assert.equal(qr, `/r/KXR7P/qr.svg?base=${encodeURIComponent('http://192.168.1.20:7878')}`);

  // Roster deltas.
  server1.push({ type: 'player_joined', player: 3, name: 'Cy', spectator: false });
  server1.push({ type: 'player_joined', player: 4, name: 'Bot Kurt', spectator: false, bot: true });
  await roster.locator('li', { hasText: 'Cy' }).waitFor();
  await roster.locator('li', { hasText: 'Bot Kurt' }).getByText('🤖 bot').waitFor();
  assert.equal(await roster.locator('li', { hasText: 'Cy' }).getByText('🤖 bot').count(), 0);
  await page.getByRole('heading', { name: 'Players (4/8)' }).waitFor();
  // Kicking a person asks first: "no" sends nothing, "yes" kicks.
  page.once('dialog', (d) => d.dismiss());
  await page.getByRole('button', { name: 'Kick Cy' }).click();
  page.once('dialog', (d) => { assert.match(d.message(), /Remove Cy from room KXR7P/); d.accept(); });
  await page.getByRole('button', { name: 'Kick Cy' }).click();
  // A person can be made host; a bot cannot (it would never start a match).
  await page.getByRole('button', { name: 'Make host Cy' }).click();
  assert.equal(await page.getByRole('button', { name: 'Make host Bot Kurt' }).count(), 0);
  server1.push({ type: 'player_left', player: 3, name: 'Cy', reason: 'left' });
  await page.getByRole('heading', { name: 'Players (3/8)' }).waitFor();
  await page.getByRole('list', { name: 'Room feed' }).getByText('Cy left').waitFor();

  // The host's controls send their requests.
  const sent = (type) => server1.seen.filter((m) => m.type === type).map(({ id, ...m }) => m);
  // A bot is removed, not kicked: no question, it may be added again.
  assert.equal(await page.getByRole('button', { name: 'Kick Bot Kurt' }).count(), 0);
  await page.getByRole('button', { name: 'Remove bot Bot Kurt' }).click();
  await page.getByRole('button', { name: /lock it/ }).click();
  const rounds = page.getByLabel('Rounds', { exact: true });
  await rounds.fill('5');
  await rounds.press('Enter');
  await page.getByLabel('Game', { exact: true }).selectOption('24');
  await page.getByRole('button', { name: 'Start the match' }).click();
  // The answer to `start` shows only after every earlier request arrived.
  await page.getByText('Get ready…').waitFor();
  assert.equal(sent('start').length, 1);
  assert.deepEqual(sent('kick'), [{ type: 'kick', player: 3 }]);
  assert.deepEqual(sent('remove_bot'), [{ type: 'remove_bot', player: 4 }]);
  assert.deepEqual(sent('transfer_host'), [{ type: 'transfer_host', player: 3 }]);
  assert.deepEqual(sent('lock'), [{ type: 'lock', locked: true }]);
  assert.deepEqual(sent('update_settings'), [
    { type: 'update_settings', settings: { rounds: 5 } },
    { type: 'update_settings', settings: { variant: '24' } },
  ]);

  // Hostile chat is shown as the text it is.
  const evil = '<img src=x onerror="window.pwned=1"><b>hi</b>';
  server1.push({ type: 'chat', from: 4, name: 'Bot Kurt', text: evil });
  await page.getByRole('list', { name: 'Room feed' }).getByText(evil).waitFor();
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await page.locator('.feed img, .feed b:not(:first-child)').count(), 0);

  // A restarting server (1012): the page reconnects and resumes with its token.
  server1.sockets.at(-1).close({ code: 1012, reason: 'restarting' });
  await page.getByText('Connection lost: reconnecting…').waitFor();
  await page.waitForFunction(() => !document.querySelector('.banner')?.textContent.includes('reconnecting'));
  const hellos = server1.seen.filter((m) => m.type === 'hello');
  assert.equal(hellos.length, 2);
  assert.equal(hellos[1].token, 'secret-1');
  await page.locator('.room-code', { hasText: 'KXR7P' }).waitFor();
  await roster.locator('li', { hasText: 'Bot Grace' }).waitFor();

  // Another tab took the seat (1000): say so, and do not fight over it.
  server1.sockets.at(-1).close({ code: 1000, reason: 'replaced' });
  await page.getByText('in another tab or on another device').waitFor();
  const connections = server1.sockets.length;
  await page.getByRole('button', { name: 'Play here instead' }).click();
  await page.waitForFunction(() => !document.querySelector('.banner')?.textContent.includes('another tab'));
  assert.equal(server1.sockets.length, connections + 1);
  assert.deepEqual(page.problems, []);
});

test('the live preview computes exactly and tracks used cards', async () => {
  const page = await phone(night.browser);
  await page.goto(`${night.server.base}/leaderboard`);
  const results = await page.evaluate(async () => {
    const f = await import('/assets/js/formula.js');
    const show = (t) => {
      const p = f.preview(t);
      return p.state === 'value' ? String(p.value) : p.state;
    };
    return {
      fraction: show('1/3 + 1/6'),
      big: show('25*25*25*25*25*25*25*25*25*25*25*25*25*25*25*25 / 25'),
      precedence: show('2 + 3 × 4 − 6 ÷ 4'),
      unicode: show('8 x 2 − 3'),
      incomplete: show('8 × (2 +'),
      zero: show('8 / (2 - 2)'),
      junk: show('8 ^ 2'),
      used: f.usedCards('8 + 8 × 3', [8, 2, 8, 3, 5]),
      undo: f.removeLast('8 × 13'),
      afterOp: f.wantsOperand('8 ×'),
      afterNumber: f.wantsOperand('8'),
    };
  });
  assert.equal(results.fraction, '1/2');
  assert.equal(results.big, (25n ** 15n).toString());
  assert.equal(results.precedence, '25/2');
  assert.equal(results.unicode, '13');
  assert.equal(results.incomplete, 'incomplete');
  assert.equal(results.zero, 'invalid');
  assert.equal(results.junk, 'invalid');
  assert.deepEqual(results.used, [true, false, true, true, false]);
  assert.equal(results.undo, '8 ×');
  assert.equal(results.afterOp, true);
  assert.equal(results.afterNumber, false);
});

test('no script builds HTML from strings', () => {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.js')) files.push(path);
    }
  };
  walk(join(repo, 'server', 'web'));
  assert.ok(files.length > 10);
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function']) {
      assert.ok(!source.includes(sink), `${file} uses ${sink}`);
    }
  }
});

test('a redirect takes the page to the room on its node with a ticket, never the token; bad ones are refused', { skip: engineLacks('routeWebSocket') }, async () => {
  const node = `localhost:${night.server.port}`;
  const page = await phone(night.browser);
  const nodes = await scripted(page, (m, ws) => {
    const onB = new URL(ws.url()).host === node;
    if (m.type === 'hello' && onB && (m.token === 'secret-1' || m.ticket === 'tkt-1')) return [welcome(true), snapshot([person(1, 'Ada')])];
    if (m.type === 'hello') return [welcome(false)];
    if (m.type === 'list_rooms') return [{ type: 'rooms', rooms: [] }];
    if (m.type === 'join_room') return [{ type: 'redirect', url: `ws://${node}/ws`, code: 'KXR7P', ticket: 'tkt-1' }];
    return [];
  });
  const remember = () => localStorage.setItem('krypto.identity', JSON.stringify({ name: 'Ada', token: 'secret-1' }));
  // As above: the scripted LAN address is not this machine's.
  await page.route(/qr\.svg/, (r) => r.fulfill({ contentType: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg"/>' }));
  await page.goto(`${night.server.base}/leaderboard`);
  await page.evaluate(remember);
  await page.goto(`${night.server.base}/r/KXR7P`);
  await page.locator('.room-code', { hasText: 'KXR7P' }).waitFor();
  const url = new URL(page.url());
  assert.equal(url.host, node);
  assert.equal(url.pathname, '/r/KXR7P');
  assert.equal(url.hash, '', 'the ticket stays out of the address');
  // Node B's origin has its own storage: the page signed in there with the
  // ticket and keeps the token the welcome gave.
  assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('krypto.identity')).token), 'secret-1');
  assert.deepEqual(nodes.seen.filter((m) => m.type === 'hello').map((m) => m.token ?? m.ticket), ['secret-1', 'tkt-1']);
  assert.ok(!nodes.seen.some((m) => m.type === 'hello' && m.token && m.ticket));

  /** A new page, signed in, that opens /r/KXR7P and is redirected to `url`;
   * what it sent. */
  const redirectedTo = async (url) => {
    const p = await phone(night.browser);
    const sent = await scripted(p, (m) => {
      if (m.type === 'hello') return [welcome(false)];
      if (m.type === 'list_rooms') return [{ type: 'rooms', rooms: [] }];
      if (m.type === 'join_room') return [{ type: 'redirect', url, code: 'KXR7P' }];
      return [];
    });
    await p.goto(`${night.server.base}/leaderboard`);
    await p.evaluate(remember);
    await p.goto(`${night.server.base}/r/KXR7P`);
    return { page: p, sent };
  };

  // Not a WebSocket: refused with a sentence, the page stays.
  const { page: hostile } = await redirectedTo('javascript:alert(1)\u001b[2J');
  const refused = hostile.getByText(/not a ws:\/\/ or wss:\/\/ address/);
  await refused.waitFor();
  assert.ok(!/\u001b/.test(await refused.textContent()));
  assert.equal(new URL(hostile.url()).host, new URL(night.server.base).host);

  // Sent round in circles (here: back to this very node): given up after five.
  const { page: circles, sent: seenInCircles } = await redirectedTo(night.server.ws);
  await circles.getByText(/sent from server to server 5 times/).waitFor();
  assert.equal(seenInCircles.seen.filter((m) => m.type === 'join_room').length, 6);
  for (const p of [page, hostile, circles]) assert.deepEqual(p.problems, []);
});
