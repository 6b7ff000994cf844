// Reactions and the rematch's ready step, in real browsers against the real
// server: an emoji tapped on a phone floats, with the sender's name, on the
// other phones and the TV (during a round too); too many in a row are
// refused with a sentence; after a match the host's Rematch asks every
// phone "Ready?", the TV shows who is, and the match starts once all are.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  tv, shoot, solve, readHand, axeViolations, noteShown, shown,
} from './harness.js';
import { gameNight, hosting, joining, settings, typed } from './kit.js';

const night = gameNight();

/**
 * Waits until the reaction `emoji` from `name` has floated on `page`. A
 * reaction floats for 2.6 s: the pages note each one as it shows (see `noteShown`).
 */
const floated = (page, emoji, name) => shown(page, '.float', `${emoji}${name}`);

test('reactions float on every screen; a rematch waits for everyone to be ready', async (t) => {
  const screen = await tv(night.browser);
  let ada;
  let bob;
  let code;

  await t.test('a reaction in the waiting room floats on the other phone and the TV', async () => {
    ({ page: ada, code } = await hosting(night, 'Ada'));
    await settings(ada, [['Rounds', 1]]);
    bob = await joining(night, 'Bob', code);
    await bob.getByText(/^1 round of/).waitFor();
    await screen.goto(`${night.server.base}/tv/${code}`);
    await screen.locator('.tv-big-code', { hasText: code }).waitFor();
    for (const page of [ada, bob, screen]) await noteShown(page, '.float');

    await ada.getByRole('group', { name: 'Reactions' }).getByRole('button', { name: '🎉' }).click();
    await floated(bob, '🎉', 'Ada');
    await floated(screen, '🎉', 'Ada');
    await floated(ada, '🎉', 'Ada');
  });

  let hand;
  await t.test('during a round the TV shows everyone’s reactions', async () => {
    await ada.getByRole('button', { name: 'Start the match' }).click();
    await bob.locator('.objective-number').waitFor();
    await screen.locator('.tv-objective-number').waitFor();
    hand = await readHand(bob);
    await bob.getByRole('group', { name: 'Reactions' }).getByRole('button', { name: '😮' }).click();
    await ada.getByRole('group', { name: 'Reactions' }).getByRole('button', { name: '🔥' }).click();
    await floated(screen, '😮', 'Bob');
    await floated(screen, '🔥', 'Ada');
    // Shot while they rise across the screen.
    await screen.waitForFunction(() => [...document.querySelectorAll('.float')].every((f) => f.getBoundingClientRect().top < 700));
    await shoot(screen, 'tv-round-reactions');
  });

  await t.test('too many reactions in a row are refused with a sentence', async () => {
    const clap = bob.getByRole('group', { name: 'Reactions' }).getByRole('button', { name: '👏' });
    // Six taps in a burst, as a thumb does (one click each would take longer than the
    // limit's window on a loaded machine).
    await clap.click({ clickCount: 6 });
    await bob.locator('.banner-line').filter({ hasText: /./ }).waitFor();
  });

  await t.test('after the match, Rematch asks everyone "Ready?"; it starts once all are', async () => {
    await bob.getByRole('textbox', { name: 'Formula' }).fill(typed(solve(hand.cards, hand.target)));
    await bob.getByRole('button', { name: 'Submit' }).click();
    await ada.getByRole('list', { name: 'Final standings' }).waitFor();
    await ada.getByRole('button', { name: 'Rematch' }).click();
    // The host who asked is ready; Bob is asked.
    await bob.getByRole('button', { name: '✋ Ready!' }).waitFor();
    await bob.getByText('Waiting for you.').waitFor();
    await ada.getByText('✓ You are ready').waitFor();
    await ada.getByText('Waiting for Bob.').waitFor();
    await screen.getByText('🔁 Rematch! Ready on your phone?').waitFor();
    await screen.getByRole('list', { name: 'Ready for the rematch' }).getByText('✓ Ada').waitFor();
    await screen.getByRole('list', { name: 'Ready for the rematch' }).getByText('… Bob').waitFor();
    await screen.getByText(/1 of 2 ready, starts in \d+ s/).waitFor();
    assert.deepEqual(await axeViolations(bob), [], 'axe-core on the ready step');
    assert.deepEqual(await axeViolations(screen), [], 'axe-core on the TV’s ready step');
    await shoot(screen, 'tv-ready');
    // The last one ready: the match starts at once, not when the time runs out.
    await bob.getByRole('button', { name: '✋ Ready!' }).click();
    await screen.getByText('Round 1 of 1').waitFor();
    await bob.locator('.objective-number').waitFor();
  });

  await t.test('no page logged an error or a CSP violation', () => {
    for (const page of [ada, bob, screen]) assert.deepEqual(page.problems, []);
  });
});
