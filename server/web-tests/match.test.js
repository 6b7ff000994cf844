// A game night, end to end in a real browser against the real server: two
// phones and a bot play a whole match (by taps and by typing), a wrong
// formula shows its reason and the lockout, a reload mid-round resumes the
// seat, the TV follows every hand, the podium and the rematch, and the
// leaderboard and profile pages show the results.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startBots, solve, phone, tv, shoot, tapFormula, readHand, wrongFormula, noteShown, shown,
} from './harness.js';
import { gameNight } from './kit.js';

// The bots stop first (after hooks run in the order they are declared).
let stopBots = async () => {};
after(() => stopBots());
const night = gameNight();

/** Waits for the round numbered `n` to be dealt on a phone page. */
async function roundShown(page, n, total) {
  await page.getByText(`Round ${n} of ${total}`).waitFor();
  await page.locator('.objective-number').waitFor();
}

test('a game night: two phones, a bot and the TV play a match and a rematch', async (t) => {
  const ada = await phone(night.browser);
  const bob = await phone(night.browser);
  const screen = await tv(night.browser);
  // A round's result shows for the 4 s pause before the next deal: the pages note it as it shows.
  for (const page of [ada, bob, screen]) {
    await noteShown(page, '.result-head');
    await noteShown(page, '.result-formula');
  }
  /** Waits until `page` has shown that `who` won the round. */
  const wonBy = (page, who) => shown(page, '.result-head', new RegExp(`^🏆 ${who} won the round in `));
  let code;

  await t.test('Ada names herself and creates a room', async () => {
    await ada.goto(`${night.server.base}/`);
    await shoot(ada, 'phone-name');
    await ada.getByRole('textbox', { name: 'Name' }).fill('Ada');
    await ada.getByRole('button', { name: 'Let’s play' }).click();
    await ada.getByText('Hi Ada!').waitFor();
    await shoot(ada, 'phone-lobby');
    await ada.getByRole('button', { name: 'Create a room' }).click();
    code = (await ada.locator('.room-code').textContent()).trim();
    assert.match(code, /^[A-Z2-9]{5}$/);
    assert.equal(new URL(ada.url()).pathname, `/r/${code}`);
  });

  await t.test('the host sets a short match', async () => {
    const set = async (label, value) => {
      const field = ada.getByLabel(label, { exact: true });
      await field.fill(String(value));
      await field.press('Tab');
    };
    await set('Rounds', 3);
    // Long enough for Firefox's key-by-key typing on a loaded machine; no
    // round waits for its clock (the people win all three).
    await set('Seconds per round', 80);
    // Long enough to see Bob's lockout and his Submit disabled on a loaded machine.
    await set('Lockout after a miss (s)', 10);
    await ada.getByLabel('Hands', { exact: true }).selectOption('easy');
    await ada.getByLabel('Hands', { exact: true }).locator('option:checked', { hasText: 'Easy' }).waitFor({ state: 'attached' });
  });

  await t.test('Bob joins by the room link and sees the settings', async () => {
    await bob.goto(`${night.server.base}/r/${code}`);
    await bob.getByRole('textbox', { name: 'Name' }).fill('Bob');
    await bob.getByRole('textbox', { name: 'Name' }).press('Enter');
    await bob.locator('.room-code', { hasText: code }).waitFor();
    await bob.getByText('3 rounds of 80 s').waitFor();
    await bob.getByText('10 s lockout after a wrong answer').waitFor();
    await bob.getByText('hands: Easy').waitFor();
    await bob.getByText('Waiting for Ada to start').waitFor();
    await ada.locator('.roster').getByText('Bob').waitFor();
  });

  await t.test('the TV joins as a spectator and shows the code and a QR code', async () => {
    await screen.goto(`${night.server.base}/tv/${code}`);
    await screen.locator('.tv-big-code', { hasText: code }).waitFor();
    const qr = screen.getByRole('img', { name: `QR code of the link to room ${code}` });
    await qr.waitFor();
    await screen.waitForFunction(() => document.querySelector('.tv-qr img')?.naturalWidth > 0);
    await screen.locator('.tv-names').getByText('Bob').waitFor();
  });

  await t.test('a bot joins', async () => {
    // A bot slower than the round (an easy hand: 28–52 s at pace 100, 84 s or more at 300): it
    // holds a seat and is on the podium, but never beats a person here.
    stopBots = startBots(night.server, code, { skill: 'easy', pace: 300 });
    await ada.locator('.roster li', { hasText: '-bot' }).waitFor();
    await screen.locator('.tv-names', { hasText: '-bot' }).waitFor();
    await ada.evaluate(() => window.scrollTo(0, 0));
    await shoot(ada, 'phone-waiting-room');
    await shoot(screen, 'tv-lobby');
  });

  let hand;
  await t.test('round 1: a wrong formula shows its reason and the lockout; Ada wins by tapping', async () => {
    await ada.getByRole('button', { name: 'Start the match' }).click();
    await roundShown(ada, 1, 3);
    await roundShown(bob, 1, 3);
    hand = await readHand(ada);
    const wrong = wrongFormula(hand.cards, hand.target);
    const field = bob.getByRole('textbox', { name: 'Formula' });
    await field.fill(wrong);
    await field.press('Enter');
    await bob.getByText('✗ Not the target').waitFor();
    await bob.getByText(/comes to .+, not /).waitFor();
    await bob.getByText(/Locked out for \d+ s/).waitFor();
    assert.equal(await bob.getByRole('button', { name: 'Submit' }).isDisabled(), true);
    await shoot(bob, 'phone-wrong-answer');

    const solution = solve(hand.cards, hand.target);
    await tapFormula(ada, solution);
    await ada.getByText('every card used').waitFor();
    for (const used of await ada.getByRole('group', { name: 'Your hand' }).getByRole('button').all()) {
      assert.equal(await used.isDisabled(), true, 'every tapped card is used up');
    }
    await shoot(ada, 'phone-building-formula');
    await screen.locator('.tv-objective-number', { hasText: String(hand.target) }).waitFor();
    await shoot(screen, 'tv-round');
    await ada.getByRole('button', { name: 'Submit' }).tap();
    await wonBy(ada, 'You');
    await wonBy(bob, 'Ada');
    await wonBy(screen, 'Ada');
    await shown(bob, '.result-formula', solution);
    await shoot(bob, 'phone-round-result');
    await shoot(screen, 'tv-round-result');
  });

  await t.test('round 2: the TV shows the new hand; a reload resumes Ada’s seat; Bob wins by typing', async () => {
    await roundShown(bob, 2, 3);
    await screen.getByText('Round 2 of 3').waitFor();
    const next = await readHand(bob);
    await screen.locator('.tv-hand').getByText(String(next.cards[0]), { exact: true }).first().waitFor();

    await ada.reload();
    await ada.locator('.room-code', { hasText: code }).waitFor();
    await roundShown(ada, 2, 3);
    await ada.getByText('You: 1').waitFor();
    assert.deepEqual(await readHand(ada), next);

    const field = bob.getByRole('textbox', { name: 'Formula' });
    await field.fill(solve(next.cards, next.target).replaceAll('×', '*').replaceAll('÷', '/'));
    await bob.getByRole('button', { name: 'Submit' }).click();
    await wonBy(bob, 'You');
    await wonBy(ada, 'Bob');
  });

  await t.test('round 3: Ada wins by typing and everyone sees the podium', async () => {
    await screen.getByText('Round 3 of 3').waitFor();
    await roundShown(ada, 3, 3);
    const last = await readHand(ada);
    const field = ada.getByRole('textbox', { name: 'Formula' });
    await field.fill(solve(last.cards, last.target));
    await ada.getByRole('button', { name: 'Submit' }).click();
    await wonBy(ada, 'You');
    await screen.getByText('🏁 Match over').waitFor();
    for (const page of [ada, bob]) {
      const standings = page.getByRole('list', { name: 'Final standings' });
      await standings.waitFor();
      await standings.getByText('Ada', { exact: true }).waitFor();
      await standings.getByText('Bob', { exact: true }).waitFor();
      await standings.getByText(/-bot/).waitFor();
    }
    const tvStandings = screen.getByRole('list', { name: 'Final standings' });
    await tvStandings.getByText('Ada', { exact: true }).waitFor();
    await shoot(ada, 'phone-podium');
    await shoot(screen, 'tv-podium');
    await bob.getByText('Waiting for Ada to start a rematch').waitFor();
  });

  await t.test('the host starts a rematch, everyone says ready, and the TV follows it', async () => {
    await ada.getByRole('button', { name: 'Rematch' }).click();
    await bob.getByRole('button', { name: '✋ Ready!' }).click();
    await screen.getByText('Round 1 of 3').waitFor();
    await screen.locator('.tv-objective-number').waitFor();
    await roundShown(bob, 1, 3);
  });

  await t.test('no page logged an error or a Content-Security-Policy violation', () => {
    for (const page of [ada, bob, screen]) assert.deepEqual(page.problems, []);
  });
});

test('the leaderboard and a profile show the match', async () => {
  const page = await phone(night.browser);
  await page.goto(`${night.server.base}/leaderboard?metric=rounds`);
  const table = page.getByRole('table');
  await table.getByRole('link', { name: 'Ada', exact: true }).waitFor();
  await table.getByRole('link', { name: 'Bob', exact: true }).waitFor();
  await shoot(page, 'phone-leaderboard');
  await table.getByRole('link', { name: 'Ada', exact: true }).click();
  await page.getByRole('heading', { name: 'Ada', exact: true }).waitFor();
  await page.getByText('Rounds won').waitFor();
  await page.getByRole('heading', { name: 'Recent matches' }).waitFor();
  await shoot(page, 'phone-profile', { fullPage: true });
  assert.deepEqual(page.problems, []);
});
