// Two nodes of a cluster on one throwaway PostgreSQL, in real Chromium: a
// phone plays on node a with a bot; node a is stopped mid-round; the page
// follows the room to node b by itself, token in hand, and plays on with
// the same hand, and the bot with it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startPostgres, startNode, startBots, solve, launch, phone, readHand, tapFormula,
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

test('a drained node sends the page to the room on the other node, mid-round', async () => {
  const [a, b] = [await startNode(pg.url), await startNode(pg.url)];
  const page = await phone(browser);
  let stopBots = async () => {};
  try {
    await page.goto(`${a.base}/`);
    await page.keyboard.type('Edna');
    await page.keyboard.press('Enter');
    await page.getByText('Hi Edna!').waitFor();
    await page.getByRole('button', { name: 'Create a room' }).click();
    await page.waitForURL(/\/r\/[A-Z0-9]{5}$/);
    const code = page.url().split('/').pop();
    stopBots = startBots(a, code, { count: 1, pace: 1000 });
    await page.locator('.roster li', { hasText: '-bot' }).waitFor();
    await page.getByRole('button', { name: /Start/ }).click();
    const hand = await readHand(page);

    await a.stop();
    await page.waitForURL(`${b.base}/r/${code}`);
    assert.deepEqual(await readHand(page), hand, 'the same round, the same hand');
    assert.equal(new URL(page.url()).hash, '', 'the token left the address bar');
    await page.getByText(/-bot$/).first().waitFor();

    // Edna wins the round on node b.
    await tapFormula(page, solve(hand.cards, hand.target));
    await page.getByRole('button', { name: 'Submit' }).tap();
    await page.getByText('You won the round').waitFor();
    await page.getByText('You: 1').waitFor();
    assert.deepEqual(page.problems, []);
  } finally {
    await stopBots();
    await a.stop();
    await b.stop();
  }
});
