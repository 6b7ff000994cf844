// Small phones in a round: at 320×568 (iPhone SE 1st gen), 360×640 and
// 390×844 every card of the hand is on screen and Submit is above the fold
// without scrolling; a reload keeps the half-typed formula.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shoot } from './harness.js';
import { gameNight, hosting, joining, settings } from './kit.js';

const night = gameNight();

test('the hand and Submit fit small phones; a reload keeps the half-typed formula', async () => {
  const { page: ada, code } = await hosting(night, 'Ada');
  const bob = await joining(night, 'Bob', code);
  await settings(ada, [['Seconds per round', 300]]);
  await bob.getByText(/of 300 s/).waitFor();
  await ada.getByRole('button', { name: 'Start the match' }).click();
  await ada.locator('.objective-number').waitFor();

  for (const [width, height, shot] of [[320, 568, 'phone-320-round'], [360, 640, null], [390, 844, 'phone-390-round']]) {
    await ada.setViewportSize({ width, height });
    await ada.evaluate(() => window.scrollTo(0, 0));
    const cards = ada.getByRole('group', { name: 'Your hand' }).getByRole('button');
    for (const card of await cards.all()) {
      const box = await card.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= width, `${width}px: a card at ${box.x}…${box.x + box.width}`);
    }
    const submit = await ada.getByRole('button', { name: 'Submit' }).boundingBox();
    assert.ok(submit.y + submit.height <= height, `${width}×${height}: Submit ends at ${submit.y + submit.height}`);
    assert.ok(submit.x >= 0 && submit.x + submit.width <= width, `${width}px: Submit at ${submit.x}`);
    const scrollWidth = await ada.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= width, `${width}px: the page scrolls sideways (${scrollWidth})`);
    if (shot) {
      await ada.getByRole('group', { name: 'Your hand' }).getByRole('button').first().click();
      await ada.getByRole('group', { name: 'Operators' }).getByRole('button', { name: 'plus' }).click();
      await shoot(ada, shot);
      await ada.getByRole('button', { name: 'Clear' }).click();
    }
  }

  // Half a formula, then the phone reloads (or the browser drops the tab).
  const first = (await ada.getByRole('group', { name: 'Your hand' }).getByRole('button').first().textContent()).replace(/\D/g, '');
  await ada.getByRole('group', { name: 'Your hand' }).getByRole('button').first().click();
  await ada.getByRole('group', { name: 'Operators' }).getByRole('button', { name: 'times' }).click();
  const typed = await ada.getByLabel('Formula', { exact: true }).inputValue();
  assert.match(typed, new RegExp(`^${first}\\s*[*×]\\s*$`));
  await ada.reload();
  await ada.locator('.objective-number').waitFor();
  await ada.getByLabel('Formula', { exact: true }).waitFor();
  assert.equal(await ada.getByLabel('Formula', { exact: true }).inputValue(), typed);
  for (const p of [ada, bob]) assert.deepEqual(p.problems, []);
});
