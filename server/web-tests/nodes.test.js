// Matches that outlive their server, in real Chromium: a server restarted
// mid-round, and two nodes of a cluster on one throwaway PostgreSQL where
// node a is stopped mid-round. Each time the page (and the bot with it)
// comes back to its seat by itself and plays on with the same hand.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startPostgres, startNode, startServer, startBots, solve, launch, phone, readHand, tapFormula,
  wrongFormula, engineLacks, refusedSocket, noteShown, shown,
} from './harness.js';

let pg;
let browser;
before(async () => {
  pg = await startPostgres();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await pg?.stop();
});

/** A phone page (`page`, or a new one) hosting a new room on `server` with
 * a bot; the match is started. Returns the page, the room's code, the hand
 * and the bots' stop. */
async function hostWithBot(server, name, page = null) {
  page ??= await phone(browser);
  await page.goto(`${server.base}/`);
  await page.keyboard.type(name);
  await page.keyboard.press('Enter');
  await page.getByText(`Hi ${name}!`).waitFor();
  await page.getByRole('button', { name: 'Create a room' }).click();
  await page.waitForURL(/\/r\/[A-Z0-9]{5}$/);
  const code = page.url().split('/').pop();
  const stopBots = startBots(server, code, { count: 1, pace: 1000 });
  await page.locator('.roster li', { hasText: '-bot' }).waitFor();
  await page.getByRole('button', { name: /Start/ }).click();
  return { page, code, hand: await readHand(page), stopBots };
}

/**
 * Waits until `page` has said it won the round: the result shows for the 4 s pause before the
 * next deal, so the page notes it as it shows.
 */
const wonRound = (page) => shown(page, '.result-head', /^🏆 You won the round/);

/** Wins the round on `page`, whose hand is `hand`. */
async function win(page, hand) {
  await noteShown(page, '.result-head');
  await tapFormula(page, solve(hand.cards, hand.target));
  await page.getByRole('button', { name: 'Submit' }).tap();
  await wonRound(page);
  await page.getByText('You: 1').waitFor();
}

// The page reconnects by itself; an answer tapped before its seat is back
// (the restarted server starts listening before its database is open) is
// kept and sent then, not dropped.
test('a server restarted mid-round gives the page its seat back, same hand', async () => {
  const server = await startServer();
  let stopBots = async () => {};
  try {
    const hosted = await hostWithBot(server, 'Fern');
    stopBots = hosted.stopBots;
    await server.restart();
    await hosted.page.getByText(/-bot$/).first().waitFor();
    assert.equal(new URL(hosted.page.url()).pathname, `/r/${hosted.code}`);
    assert.deepEqual(await readHand(hosted.page), hosted.hand);
    await win(hosted.page, hosted.hand);
    assert.deepEqual(hosted.page.problems.filter((p) => !refusedSocket(p)), []);
  } finally {
    await stopBots();
    await server.stop();
  }
});

test('a drained node sends the page to the room on the other node, mid-round', async () => {
  const [a, b] = [await startNode(pg.url), await startNode(pg.url)];
  let stopBots = async () => {};
  try {
    const { page, code, hand, stopBots: stop } = await hostWithBot(a, 'Edna');
    stopBots = stop;
    await a.stop();
    await page.waitForURL(`${b.base}/r/${code}`);
    assert.deepEqual(await readHand(page), hand, 'the same round, the same hand');
    assert.equal(new URL(page.url()).hash, '', 'the token left the address bar');
    await page.getByText(/-bot$/).first().waitFor();
    await win(page, hand);
    assert.deepEqual(page.problems, []);
  } finally {
    await stopBots();
    await a.stop();
    await b.stop();
  }
});

/**
 * The page's WebSocket through a relay the test can cut, as a phone's
 * network drops: `cut()` closes both ends (1001) and refuses new ones until
 * `restore()`; `cutAfter(type)` cuts when the server sends a message of
 * that type, before the page gets it.
 */
async function relay(page) {
  let online = true;
  let cutOn = null;
  const live = [];
  const cut = () => {
    online = false;
    for (const { ws, server } of live.splice(0)) {
      ws.close({ code: 1001, reason: 'network down' });
      server.close();
    }
  };
  await page.routeWebSocket(/\/ws$/, (ws) => {
    if (!online) {
      ws.close({ code: 1001, reason: 'network down' });
      return;
    }
    const server = ws.connectToServer();
    live.push({ ws, server });
    ws.onMessage((m) => server.send(m));
    server.onMessage((m) => {
      if (cutOn && JSON.parse(m).type === cutOn) {
        cutOn = null;
        cut();
      } else {
        ws.send(m);
      }
    });
  });
  return {
    cut,
    cutAfter: (type) => { cutOn = type; },
    restore: () => { online = true; },
  };
}

test('an answer tapped while the phone is offline goes once it is back; a lost verdict is said', {
  skip: engineLacks('routeWebSocket'),
}, async () => {
  const server = await startServer();
  let stopBots = async () => {};
  try {
    const page = await phone(browser);
    const net = await relay(page);
    const hosted = await hostWithBot(server, 'Gail', page);
    stopBots = hosted.stopBots;
    const { hand } = hosted;
    const submit = page.getByRole('button', { name: 'Submit' });

    // A wrong answer whose verdict is lost with the connection: not sent
    // again by itself (it may have counted), and the player is told.
    // The lockout (5 s) may be over by the time the page is back on a loaded machine: noted as it shows.
    await noteShown(page, '.lockout');
    await noteShown(page, '.result-head');
    net.cutAfter('verdict');
    await tapFormula(page, wrongFormula(hand.cards, hand.target));
    await submit.tap();
    await page.getByText('Connection lost: reconnecting…').waitFor();
    net.restore();
    await page.getByText('The connection dropped before the verdict came: submit again').waitFor();
    await shown(page, '.lockout', /🔒 Locked out/);
    await page.getByText('Connection lost: reconnecting…').waitFor({ state: 'hidden' });

    // Offline: the right answer is kept, said so, and sent on the way back.
    net.cut();
    await page.getByText('Connection lost: reconnecting…').waitFor();
    await page.getByRole('button', { name: 'Clear' }).tap();
    await tapFormula(page, solve(hand.cards, hand.target));
    await page.locator('.lockout', { hasText: '🔒 Locked out' }).waitFor({ state: 'hidden' });
    await submit.tap();
    await page.getByText('⏳ Not sent yet: it goes as soon as the connection is back').waitFor();
    net.restore();
    await wonRound(page);
    await page.getByText('You: 1').waitFor();
    assert.deepEqual(page.problems.filter((p) => !refusedSocket(p)), []);
  } finally {
    await stopBots();
    await server.stop();
  }
});
