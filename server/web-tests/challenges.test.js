// A challenge from a room's round: the winner of a one-round match gets
// "Challenge a friend" on the podium, the server makes it from its own
// record of the round, and the friend who opens the link gets the same hand
// with the winner's time to beat; the winner's profile then lists the
// challenge with the friend's answer.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerRight, gameNight, hosting, joining, named, settings } from './kit.js';

const night = gameNight();

test('the winner of a round challenges a friend with its hand, and sees the answer on their profile', async () => {
  const { page: ada, code } = await hosting(night, 'Ada');
  const bob = await joining(night, 'Bob', code);
  await settings(ada, [['Rounds', 1]]);
  await bob.getByText(/^1 round /).waitFor();
  await ada.getByRole('button', { name: 'Start the match' }).click();
  await ada.locator('.objective-number').waitFor();
  const hand = await answerRight(ada);

  // Only the one who solved it is offered the challenge.
  await ada.getByRole('button', { name: 'Challenge a friend' }).click();
  const link = (await ada.locator('.challenge-link .share').textContent()).trim();
  assert.match(link, /\/c\/[A-Z2-9]{8}$/);
  await bob.locator('.podium-head').waitFor();
  assert.equal(await bob.getByRole('button', { name: 'Challenge a friend' }).count(), 0);

  const cy = await named(night, 'Cy', new URL(link).pathname);
  await cy.getByText(/Ada solved it in \d+:\d\d · no misses: beat that/).waitFor();
  await cy.getByRole('button', { name: 'Take the challenge' }).click();
  assert.deepEqual(await answerRight(cy), hand);
  await cy.locator('.side-by-side').waitFor();

  await ada.goto(`${night.server.base}/p/Ada`);
  const entry = ada.locator('.profile-challenges .challenge-entry');
  await entry.getByRole('link', { name: new URL(link).pathname }).waitFor();
  await entry.locator('tbody tr', { hasText: 'Cy' }).waitFor();
  await ada.locator('.profile-runs', { hasText: 'No runs yet.' }).waitFor();
  for (const p of [ada, bob, cy]) assert.deepEqual(p.problems, []);
});
