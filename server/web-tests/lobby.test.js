// The lobby's public rooms, in a real browser against the real server: the
// server sends them a page at a time (krypto-core's ROOMS_PAGE, 50), and
// "More rooms" adds the next page under the first, each room once.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startServer, launch, phone } from './harness.js';

const ROOMS = 55;
/** The public rooms open so far, by code. */
const codes = [];

let server;
let browser;
const hosts = [];
before(async () => {
  // One address opens every host here; the server's new-player limit per
  // address (20 a minute) is for strangers, not this test.
  process.env.KRYPTO_MAX_NEW_ACCOUNTS = '0';
  // …nor the rooms one address may hold (20 by default).
  process.env.KRYPTO_MAX_ROOMS_PER_ADDRESS = '0';
  server = await startServer();
  browser = await launch();
});
after(async () => {
  for (const ws of hosts) ws.close();
  await browser?.close();
  await server?.stop();
});

/** A player named `name` on its own WebSocket who opens a public room; resolves with its code. */
function publicRoom(name) {
  const ws = new WebSocket(server.ws);
  hosts.push(ws);
  return new Promise((ok, fail) => {
    ws.on('error', fail);
    ws.on('open', () => ws.send(JSON.stringify({ id: '1', type: 'hello', protocol: 1, name })));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.type === 'welcome') ws.send(JSON.stringify({ id: '2', type: 'create_room', public: true }));
      else if (m.type === 'room_state') ok(m.code);
      else if (m.type === 'error') fail(new Error(`${name}: ${m.message}`));
    });
  });
}

test('the public rooms count their players as people join, without a Refresh', async () => {
  const code = await publicRoom('Host 0');
  codes.push(code);
  const page = await phone(browser);
  await page.goto(`${server.base}/`);
  await page.getByLabel('Name').fill('Mo');
  await page.getByRole('button', { name: 'Let’s play' }).click();
  const item = page.locator('.room-item', { hasText: code });
  await item.getByText('1/8 players').waitFor();

  const guest = new WebSocket(server.ws);
  hosts.push(guest);
  guest.on('open', () => guest.send(JSON.stringify({ id: '1', type: 'hello', protocol: 1, name: 'Guest' })));
  guest.on('message', (data) => {
    if (JSON.parse(String(data)).type === 'welcome') guest.send(JSON.stringify({ id: '2', type: 'join_room', code }));
  });
  // The lobby asks again every 5 s while it is shown.
  await item.getByText('2/8 players').waitFor({ timeout: 12_000 });
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('more than a page of public rooms: "More rooms" shows the rest, each once', async () => {
  while (codes.length < ROOMS) codes.push(await publicRoom(`Host ${codes.length}`));

  const page = await phone(browser);
  await page.goto(`${server.base}/`);
  await page.getByLabel('Name').fill('Lena');
  await page.getByRole('button', { name: 'Let’s play' }).click();
  const joins = page.getByRole('button', { name: /^Join room / });
  await joins.first().waitFor();
  assert.equal(await joins.count(), 50, 'the first page');

  await page.getByRole('button', { name: 'More rooms' }).click();
  await page.waitForFunction((n) => document.querySelectorAll('.room-item').length === n, ROOMS);
  const listed = (await page.locator('.room-item .code-small').allTextContents()).map((c) => c.trim());
  assert.deepEqual([...listed].sort(), [...codes].sort(), 'every room, each once');
  assert.equal(await page.getByRole('button', { name: 'More rooms' }).count(), 0, 'the last page has no more');

  // A room from the second page can be joined from the list.
  const last = [...codes].sort().at(-1);
  await page.getByRole('button', { name: `Join room ${last}` }).click();
  await page.locator('.room-code', { hasText: last }).waitFor();
  assert.deepEqual(page.problems, []);
});
