// What guests met on the third game night played by hand: a friend's link
// opened on a phone seated in another room (and a TV pointed at another
// room), a formula with a number the hand does not hold, a tab taken over
// by another, a refused setting, Join with no code, the lobby's footer, the
// TV's last seconds, and "No solution!" on a 360 px phone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  tv, phone, readHand, tapFormula, wrongFormula, ENGINE,
} from './harness.js';
import {
  gameNight, hosting, inLobby, joining, settings,
} from './kit.js';

const night = gameNight();

/**
 * Why the engine cannot answer `window.confirm` (a reason for `skip`), or
 * false: WebKitGTK is driven through WebDriver classic, which dismisses
 * every prompt the page opens.
 */
const noDialogs = ENGINE === 'webkit' && 'webkit cannot answer a confirm (WebDriver classic dismisses prompts)';

/**
 * A one-round room hosted by `host`, `seconds` s a round, with `deal` if given, which `guest`
 * joined; `before(code)` runs before the host starts it: `{ada, bob, code}`.
 */
async function playing(host, guest, { seconds = 300, deal = null, before = async () => {} } = {}) {
  const { page: ada, code } = await hosting(night, host);
  await settings(ada, [['Rounds', 1], ['Seconds per round', seconds]]);
  if (deal) await ada.getByLabel('Deal', { exact: true }).selectOption(deal);
  const bob = await joining(night, guest, code);
  await bob.getByText(new RegExp(`^1 round of ${seconds} s`)).waitFor();
  if (deal === 'any') await bob.getByText(/you may claim/).waitFor();
  await before(code);
  await ada.getByRole('button', { name: 'Start the match' }).click();
  for (const p of [ada, bob]) await p.locator('.objective-number').waitFor();
  return { ada, bob, code };
}

test('a seated phone opening a link to another room asks to leave, then goes there; a TV shows the room in its address', async () => {
  const { page: ann, code: first } = await hosting(night, 'Ann');
  const { page: bea, code: second } = await hosting(night, 'Bea');

  if (!noDialogs) {
    // No: she stays, and the address says where she is.
    ann.once('dialog', (d) => { assert.match(d.message(), new RegExp(`^Leave ${first}\\?`)); d.dismiss(); });
    await ann.goto(`${night.server.base}/r/${second}`);
    await ann.waitForURL(`**/r/${first}`);
    await ann.locator('.room-code', { hasText: first }).waitFor();
    // Yes: she is in the linked room.
    ann.once('dialog', (d) => d.accept());
    await ann.goto(`${night.server.base}/r/${second}`);
    await ann.locator('.room-code', { hasText: second }).waitFor();
    assert.equal(new URL(ann.url()).pathname, `/r/${second}`);
    await bea.getByRole('heading', { name: 'Players (2/8)' }).waitFor();
  }

  // The big screen follows its address, after a reload too.
  const screen = await tv(night.browser);
  const showing = async (code, other) => {
    await screen.locator('.tv', { hasText: code }).waitFor();
    assert.equal(await screen.locator('.tv', { hasText: other }).count(), 0, `the TV at ${code} shows ${other}`);
  };
  await screen.goto(`${night.server.base}/tv/${first}`);
  await showing(first, second);
  await screen.goto(`${night.server.base}/tv/${second}`);
  await showing(second, first);
  await screen.reload();
  await showing(second, first);
  for (const p of [ann, bea, screen]) assert.deepEqual(p.problems, []);
});

test('a formula with a number not in the hand, or a card used too often, says why as it is typed and is never sent', async () => {
  const { ada, bob } = await playing('Cal', 'Dee');
  const { cards } = await readHand(ada);
  const stranger = Math.max(...cards) + 1;
  const formula = ada.getByLabel('Formula', { exact: true });
  const preview = ada.locator('.preview');
  const submit = ada.getByRole('button', { name: 'Submit' });

  await formula.fill(`${cards.slice(0, 4).join(' + ')} - ${stranger}`);
  await ada.getByText(`⚠ ${stranger} is not in your hand`).waitFor();
  assert.match(await preview.getAttribute('class'), /\bwarn\b/);
  assert.ok(await submit.isDisabled(), 'Submit is off for a number the hand lacks');
  await formula.press('Enter');

  // The first card once more than the hand holds it.
  const held = cards.filter((c) => c === cards[0]).length;
  await formula.fill(Array(held + 1).fill(cards[0]).join(' + '));
  await ada.getByText(held === 1
    ? `⚠ ${cards[0]} is used twice: the hand has it once`
    : `⚠ ${cards[0]} is used more than the ${held} times the hand has it`).waitFor();
  assert.ok(await submit.isDisabled(), 'Submit is off for a card used too often');
  await formula.press('Enter');

  // Nothing went: no verdict, no lockout, no miss for the others to see.
  assert.equal(await ada.locator('.verdict').textContent(), '');
  assert.equal(await ada.locator('.lockout').textContent(), '');
  assert.equal(await bob.getByRole('list', { name: 'Room feed' }).getByText('tried and missed').count(), 0);
  for (const p of [ada, bob]) assert.deepEqual(p.problems, []);
});

test('a tab taken over by another stops showing its hand and cannot submit; its banner stays off the header', async () => {
  const { ada, bob, code } = await playing('Eve', 'Fay');
  // Another device with Eve's sign-in (a tab of the same browser shares it; WebKitGTK's
  // MiniBrowser has no second tab of one profile, so the sign-in is copied over).
  const signIn = await ada.evaluate(() => JSON.stringify(Object.entries(localStorage)));
  const second = await phone(night.browser);
  await second.goto(`${night.server.base}/leaderboard`);
  await second.evaluate((entries) => { for (const [k, v] of JSON.parse(entries)) localStorage.setItem(k, v); }, signIn);
  await second.goto(`${night.server.base}/r/${code}`);
  await second.locator('.objective-number').waitFor();

  await ada.getByText(/took over from this one/).waitFor();
  await ada.locator('.objective-number').waitFor({ state: 'hidden' });
  assert.equal(await ada.getByRole('button', { name: 'Submit' }).count(), 0, 'Submit is there to tap');
  assert.equal(await ada.getByText(/Not sent yet/).count(), 0);
  const banner = await ada.locator('.banner').boundingBox();
  const header = await ada.locator('.room-header').boundingBox();
  assert.ok(banner.y + banner.height <= header.y, `the banner (${banner.y}…${banner.y + banner.height}) covers the header at ${header.y}`);
  for (const p of [ada, bob]) assert.deepEqual(p.problems, []);
});

test('a refused setting goes back to the value in force, and the toast names it as the form does', async () => {
  const { page: host } = await hosting(night, 'Gus');
  const rounds = host.getByLabel('Rounds', { exact: true });
  await settings(host, [['Rounds', 103]]);
  await host.locator('.banner').getByText(/^Rounds: 103 is not between 1 and 50/).waitFor();
  assert.equal(await host.locator('.banner').getByText(/\brounds\b/).count(), 0);
  await host.waitForFunction(() => document.getElementById('set-rounds')?.value === '10');
  assert.equal(await rounds.inputValue(), '10');
  assert.deepEqual(host.problems, []);
});

test('Join with no code says why; the lobby footer has no empty separators', async () => {
  const page = await inLobby(night, 'Hal');
  await page.getByRole('button', { name: 'Join', exact: true }).click();
  await page.locator('.error', { hasText: 'Type the room’s code first' }).waitFor();

  const footer = page.locator('.footer-links');
  const footerText = () => footer.evaluate((e) => e.innerText);
  assert.doesNotMatch(await footerText(), /·\s*·/);
  await page.getByRole('button', { name: 'Use my name on another device' }).click();
  await page.locator('.device-code').filter({ hasText: /[A-Z0-9]{4}/ }).waitFor();
  assert.doesNotMatch(await footerText(), /·\s*·/);
  assert.deepEqual(page.problems, []);
});

test('the TV draws the last seconds’ digit in front of the cards', async () => {
  // The TV is up before the match starts: a slow load would miss a 10 s round's last seconds.
  const screen = await tv(night.browser);
  await playing('Ian', 'Joy', {
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
  const { ada, bob } = await playing('Kay', 'Lee', { deal: 'any' });
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
    // A wrong claim (the usual hand has a solution), or a rightly claimed round.
    await ada.locator('.verdict.bad .verdict-head, .result-head').first().waitFor();
    const text = await ada.locator('.verdict').evaluate((e) => e.innerText);
    assert.ok((text.match(/has a solution/gi) ?? []).length <= 1, `said twice: ${text}`);
    assert.doesNotMatch(text, /There is a solution[\s\S]*has a solution/);
  }
  for (const p of [ada, bob]) assert.deepEqual(p.problems, []);
});
