// What the browser tests of one game night share, on top of harness.js: a
// real server and a browser for the file's tests, and phones that have
// chosen a name (and opened or joined a room).

import { before, after } from 'node:test';
import { startServer, launch, phone, readHand, solve } from './harness.js';

/**
 * Starts a server and a browser before the file's tests and stops them
 * after; their handles are `.server` and `.browser` of the object returned.
 */
export function gameNight() {
  const night = { server: null, browser: null };
  before(async () => {
    night.server = await startServer();
    night.browser = await launch();
  });
  after(async () => {
    await night.browser?.close();
    await night.server?.stop();
  });
  return night;
}

/** A phone at `path` that chose `name` (on the name screen it was shown). */
export async function named(night, name, path = '/') {
  const page = await phone(night.browser);
  await page.goto(`${night.server.base}${path}`);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Let’s play' }).click();
  return page;
}

/** A phone named `name` in the lobby. */
export async function inLobby(night, name) {
  const page = await named(night, name);
  await page.getByText(`Hi ${name}!`).waitFor();
  return page;
}

/** A phone named `name` that created a room: `{page, code}`. */
export async function hosting(night, name) {
  const page = await inLobby(night, name);
  await page.getByRole('button', { name: 'Create a room' }).click();
  const code = (await page.locator('.room-code').filter({ hasText: /^[A-Z2-9]{5}$/ }).textContent()).trim();
  return { page, code };
}

/** A phone named `name` that joined room `code` by its link. */
export async function joining(night, name, code) {
  const page = await named(night, name, `/r/${code}`);
  await page.locator('.room-code', { hasText: code }).waitFor();
  return page;
}

/**
 * A one-round room hosted by `host`, `seconds` s a round, with `deal` if given, which `guest`
 * joined; `before(code)` runs before the host starts it: `{ada, bob, code}`.
 */
export async function playing(night, host, guest, { seconds = 300, deal = null, before = async () => {} } = {}) {
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

/** Sets numeric settings on the host's page: `[[label, value], …]`. */
export async function settings(host, values) {
  for (const [label, value] of values) {
    const field = host.getByLabel(label, { exact: true });
    await field.fill(String(value));
    await field.press('Tab');
  }
}

/** The solver's formula for `hand`, as a keyboard types it. */
export const typed = (formula) => formula.replaceAll('×', '*').replaceAll('÷', '/');

/** Types `formula` into `page`'s answer field and sends it. */
export async function send(page, formula) {
  const field = page.getByRole('textbox', { name: 'Formula' });
  await field.fill(typed(formula));
  await field.press('Enter');
}

/** `page` answers the hand on its screen right (the solver's formula); the hand. */
export async function answerRight(page) {
  const hand = await readHand(page);
  await send(page, solve(hand.cards, hand.target));
  return hand;
}
