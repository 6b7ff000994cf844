// A match's recap: after a one-round match the podium (phones) and the TV
// link to `/m/ID`, which tells the round — the hand, who won in how long,
// who missed, the solutions with the winner's, the shortest and one nobody
// found marked — and offers CSV and JSON; the winner's profile links to it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { solve, tv, shoot, readHand, wrongFormula } from './harness.js';
import { answerRight, gameNight, hosting, joining, send, settings } from './kit.js';

const night = gameNight();

test('a one-round match is recapped on phones, the TV and the profile, with CSV and JSON', async () => {
  const { page: ada, code } = await hosting(night, 'Ada');
  const bob = await joining(night, 'Bob', code);
  const screen = await tv(night.browser);
  await screen.goto(`${night.server.base}/tv/${code}`);
  await screen.locator('.tv-big-code', { hasText: code }).waitFor();
  await settings(ada, [['Rounds', 1]]);
  await bob.getByText(/^1 round /).waitFor();
  await ada.getByRole('button', { name: 'Start the match' }).click();
  await ada.locator('.objective-number').waitFor();
  await bob.locator('.objective-number').waitFor();
  const hand = await readHand(ada);

  await send(bob, wrongFormula(hand.cards, hand.target));
  await bob.getByText('✗ Not the target').waitFor();
  await send(ada, solve(hand.cards, hand.target));

  // The podium and the TV lead to the recap.
  const link = ada.getByRole('link', { name: /Recap: every round/ });
  await link.waitFor();
  const path = new URL(await link.evaluate((a) => a.href)).pathname;
  assert.match(path, /^\/m\/[0-9a-f-]{36}$/);
  await bob.getByRole('link', { name: /Recap: every round/ }).waitFor();
  await screen.locator('.recap-address', { hasText: path }).waitFor();

  await bob.goto(`${night.server.base}${path}`);
  const round = bob.locator('.recap-round[data-round="1"]');
  await round.waitFor();
  await round.locator('.recap-objective', { hasText: String(hand.target) }).waitFor();
  assert.deepEqual((await round.locator('.recap-hand .card').allTextContents()).map(Number), hand.cards);
  await round.getByText(/^Ada won in \d+\.\d s\.$/).waitFor();
  await round.getByText('Missed: Bob').waitFor();
  await round.locator('.recap-marked .mark-winner').waitFor();
  await round.locator('.recap-marked .mark-shortest').waitFor();
  const total = Number((await round.locator('h3').textContent()).match(/^(\d+) distinct/)[1]);
  if (total > 1) await round.locator('.recap-marked .mark-unfound').waitFor();
  await bob.locator('.recap-summary .standing', { hasText: 'Ada' }).first().waitFor();

  // The downloads hold the recap: one CSV line per answer, and the JSON.
  const csvHref = await bob.getByRole('link', { name: 'Download CSV' }).evaluate((a) => a.href);
  assert.match(csvHref, /^data:text\/csv;charset=utf-8,/);
  const csv = decodeURIComponent(csvHref.slice(csvHref.indexOf(',') + 1));
  const lines = csv.trim().split('\r\n');
  assert.equal(lines[0], 'round,objective,cards,winner,winner_seconds,who,seconds,right,formula,solutions');
  assert.equal(lines.length, 3, csv);
  assert.match(lines[1], /^"1","\d+","[\d ]+","Ada","[\d.]+","Bob","[\d.]+","no","",/);
  assert.match(lines[2], /"Ada","[\d.]+","yes","/);
  const json = JSON.parse(await bob.getByRole('link', { name: 'Download JSON' }).evaluate((a) => fetch(a.href).then((r) => r.text())));
  assert.equal(json.rounds[0].winner, 'Ada');
  assert.equal(json.rounds[0].solutions_total, total);
  await bob.evaluate(() => window.scrollTo(0, 0));
  await shoot(bob, 'phone-match-recap');

  // The TV opens the same page at its size.
  await screen.goto(`${night.server.base}${path}`);
  await screen.locator('.recap-round[data-round="1"]').getByText('Missed: Bob').waitFor();
  await shoot(screen, 'tv-match-recap');

  // The profile's recent matches link to it.
  await ada.goto(`${night.server.base}/p/Ada`);
  const recent = ada.getByRole('link', { name: 'Recap' });
  await recent.waitFor();
  assert.equal(new URL(await recent.evaluate((a) => a.href)).pathname, path);
  for (const p of [ada, bob, screen]) assert.deepEqual(p.problems, []);
});

test('an address that is no match id says so without asking the server', async () => {
  const page = await (await import('./harness.js')).phone(night.browser);
  await page.goto(`${night.server.base}/m/not-a-match`);
  await page.locator('.error', { hasText: 'This is not a match’s address' }).waitFor();
  await page.goto(`${night.server.base}/m/0192f0c4-0000-7000-8000-000000000001`);
  await page.locator('.error', { hasText: 'Could not load this match: no match has this id' }).waitFor();
  // The API's 404 is the page's to explain, not a console error of its own.
  assert.ok(page.problems.every((p) => /404/.test(p)), page.problems.join('\n'));
});

/**
 * A match of `rounds` rounds hosted by `host` with `guest` (on a phone of
 * `guestViewport` if given), where everyone who solves scores, started.
 */
async function everyoneScores(host, guest, rounds, guestViewport = null) {
  const { page: ada, code } = await hosting(night, host);
  const bob = await joining(night, guest, code);
  if (guestViewport) await bob.setViewportSize(guestViewport);
  await settings(ada, [['Rounds', rounds]]);
  await ada.getByLabel('Scoring', { exact: true }).selectOption('everyone');
  await bob.getByText('everyone who solves scores: 3, 2, 1, then 1 each').waitFor();
  await ada.getByRole('button', { name: 'Start the match' }).click();
  return { ada, bob };
}

test('scoring "everyone": both solve one round, 3 and 2 points, and the round ends when both have', async () => {
  const { ada, bob } = await everyoneScores('Cy', 'Dee', 1);
  await ada.locator('.objective-number').waitFor();
  await bob.locator('.objective-number').waitFor();
  const hand = await answerRight(ada);
  // Cy scored; the round goes on for Dee, who is told.
  await bob.getByText('Cy solved it (+3)').waitFor();
  await send(bob, solve(hand.cards, hand.target));
  for (const p of [ada, bob]) {
    const standings = p.getByRole('list', { name: 'Final standings' });
    await standings.waitFor();
    assert.deepEqual((await standings.locator('.score').allTextContents()).map((t) => t.trim()), ['3 pts', '2 pts']);
  }
  await bob.evaluate(() => window.scrollTo(0, 0));
  await shoot(bob, 'phone-everyone-scores');
  for (const p of [ada, bob]) assert.deepEqual(p.problems, []);
});

test('scoring "everyone": a tie on points shows the total time of right answers that breaks it', async () => {
  // The narrowest phone the client supports: its standings rows are the most crowded.
  const { ada, bob } = await everyoneScores('Eve', 'Fay', 2, { width: 320, height: 640 });
  // Eve first in round 1, Fay first in round 2: 5 points each.
  for (const [round, [first, second], name] of [[1, [ada, bob], 'Eve'], [2, [bob, ada], 'Fay']]) {
    for (const p of [ada, bob]) {
      await p.getByText(`Round ${round} of 2`).waitFor();
      await p.locator('.objective-number').waitFor();
    }
    const hand = await readHand(ada);
    await send(first, solve(hand.cards, hand.target));
    await second.getByText(`${name} solved it (+3)`).waitFor();
    await send(second, solve(hand.cards, hand.target));
  }
  for (const p of [ada, bob]) {
    const standings = p.getByRole('list', { name: 'Final standings' });
    await standings.waitFor();
    assert.deepEqual((await standings.locator('.score').allTextContents()).map((t) => t.trim()), ['5 pts', '5 pts']);
    const times = (await standings.locator('.tiebreak').allTextContents()).map((t) => t.trim());
    assert.equal(times.length, 2, 'both times shown, since the points are equal');
    // Tenths, or milliseconds where both round to the same tenth.
    for (const t of times) assert.match(t, /^· \d+\.(\d|\d{3}) s$/);
    assert.notEqual(times[0], times[1], 'ranked apart, shown apart');
    const [first, second] = times.map((t) => Number(t.replace(/[^\d.]/g, '')));
    assert.ok(first <= second, `less time is ahead: ${times}`);
    // Never broken inside ("· 43.6" on one line, "s" on the next, as a crowded TV row once had).
    const lines = await standings.locator('.tiebreak').evaluateAll((els) => els.map((el) => el.getClientRects().length));
    assert.deepEqual(lines, [1, 1], 'each time on one line');
  }
  // The second's phone: the winner's is under confetti.
  await ada.evaluate(() => window.scrollTo(0, 0));
  await shoot(ada, 'phone-everyone-tiebreak');
  for (const p of [ada, bob]) assert.deepEqual(p.problems, []);
});
