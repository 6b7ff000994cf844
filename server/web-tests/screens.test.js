// What guests met on the third game night on the screens themselves: the
// TV's last seconds drawn in front of the cards, and a 360 px phone, where a
// five-card formula must fit its field and "No solution!" asks first and
// says its verdict once. (The rest of that night is in guests.test.js.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  tv, readHand, tapFormula, wrongFormula, ENGINE,
} from './harness.js';
import { gameNight, playing } from './kit.js';

const night = gameNight();

/**
 * Why the engine cannot answer `window.confirm` (a reason for `skip`), or
 * false: WebKitGTK is driven through WebDriver classic, which dismisses
 * every prompt the page opens.
 */
const noDialogs = ENGINE === 'webkit' && 'webkit cannot answer a confirm (WebDriver classic dismisses prompts)';

test('the TV draws the last seconds’ digit in front of the cards', async () => {
  // The TV is up before the match starts: a slow load would miss a 10 s round's last seconds.
  const screen = await tv(night.browser);
  await playing(night, 'Ian', 'Joy', {
    seconds: 10,
    before: async (code) => {
      await screen.goto(`${night.server.base}/tv/${code}`);
      await screen.locator('.tv', { hasText: code }).waitFor();
    },
  });
  const digit = screen.locator('.tv-final');
  await digit.filter({ hasText: /^[1-5]$/ }).waitFor();
  // What is drawn on top at a card's centre, the digit taking hits for the look.
  const onTop = await screen.evaluate(() => {
    document.querySelector('.tv-final').style.pointerEvents = 'auto';
    const card = document.querySelector('.tv-card').getBoundingClientRect();
    const el = document.elementFromPoint(card.x + card.width / 2, card.y + card.height / 2);
    return el?.closest('.tv-final') ? 'digit' : el?.className;
  });
  assert.equal(onTop, 'digit');
  assert.deepEqual(screen.problems, []);
});

test('a 360 px phone: a five-card formula fits its field, "No solution!" asks first and says its verdict once', async () => {
  const { ada, bob } = await playing(night, 'Kay', 'Lee', { deal: 'any' });
  await ada.setViewportSize({ width: 360, height: 640 });
  const { cards } = await readHand(ada);
  await tapFormula(ada, `( ${cards[0]} + ${cards[1]} ) * ( ${cards[2]} - ${cards[3]} ) / ${cards[4]}`);
  const fits = await ada.getByLabel('Formula', { exact: true }).evaluate((e) => e.scrollWidth <= e.clientWidth);
  assert.ok(fits, 'the formula is wider than its field');

  // A wrong answer submitted: the target stays in sight for the next try.
  await ada.getByRole('button', { name: 'Clear' }).click();
  await tapFormula(ada, wrongFormula(cards, (await readHand(ada)).target));
  // Tapped where it is, the page at its top: the driver's own click in Firefox centres the
  // button on the screen first (the page then shows what the driver scrolled to).
  await ada.evaluate(() => window.scrollTo(0, 0));
  await ada.getByRole('button', { name: 'Submit' }).evaluate((e) => e.click());
  await ada.locator('.verdict.bad').waitFor();
  const target = await ada.locator('.objective-number').evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: innerHeight };
  });
  assert.ok(target.top >= 0 && target.bottom <= target.height, `the target is out of sight: ${JSON.stringify(target)}`);

  if (!noDialogs) {
    const before = await ada.locator('.verdict').textContent();
    ada.once('dialog', (d) => { assert.match(d.message(), /no solution/); d.dismiss(); });
    await ada.getByRole('button', { name: 'No solution!' }).click();
    // Nothing went: no "Checking…", the last verdict as it was.
    assert.equal(await ada.locator('.verdict').textContent(), before);
    ada.once('dialog', (d) => d.accept());
    await ada.getByRole('button', { name: 'No solution!' }).click();
    // A wrong claim (the usual hand has a solution), or a rightly claimed hand, which ends this
    // one-round match: the podium then, the round's own result hidden under it.
    const wrong = ada.locator('.verdict.bad .verdict-head:visible');
    await wrong.or(ada.locator('.podium-head')).first().waitFor();
    if (await wrong.count()) {
      const text = await ada.locator('.verdict').evaluate((e) => e.innerText);
      assert.ok((text.match(/has a solution/gi) ?? []).length <= 1, `said twice: ${text}`);
      assert.doesNotMatch(text, /There is a solution[\s\S]*has a solution/);
    }
  }
  for (const p of [ada, bob]) assert.deepEqual(p.problems, []);
});
