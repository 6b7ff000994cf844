// What guests met on the third game night played by hand: a friend's link
// opened on a phone seated in another room (and a TV pointed at another
// room), a formula with a number the hand does not hold, a tab taken over
// by another, a refused setting, Join with no code, the lobby's footer, the
// TV's last seconds and a 360 px phone are in screens.test.js.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  tv, phone, readHand, ENGINE,
} from './harness.js';
import {
  gameNight, hosting, inLobby, playing, settings,
} from './kit.js';

const night = gameNight();

/**
 * Why the engine cannot answer `window.confirm` (a reason for `skip`), or
 * false: WebKitGTK is driven through WebDriver classic, which dismisses
 * every prompt the page opens.
 */
const noDialogs = ENGINE === 'webkit' && 'webkit cannot answer a confirm (WebDriver classic dismisses prompts)';

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
  const { ada, bob } = await playing(night, 'Cal', 'Dee');
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
  const { ada, bob, code } = await playing(night, 'Eve', 'Fay');
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
