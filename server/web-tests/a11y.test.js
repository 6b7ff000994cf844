// Every page and state of a game night checked by axe-core (WCAG 2.1 A and
// AA, and axe's best practices) with zero violations, plus what the waiting
// room must get right for a host and a guest: an edit typed while the echo
// of another arrives is kept, a room link says which room it joins, the
// selects show their whole choice at 320 px, and the boards lead back to
// the game.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  phone, tv, solve, readHand, wrongFormula, axeViolations,
} from './harness.js';
import { gameNight, settings, typed } from './kit.js';

const night = gameNight();

/** Asserts axe-core finds nothing on `page` in the state it is in. */
async function clean(page, state) {
  assert.deepEqual(await axeViolations(page), [], `axe-core on ${state}`);
}

test('every page and state passes axe-core; the waiting room keeps edits and says where you are', async (t) => {
  const ada = await phone(night.browser);
  const bob = await phone(night.browser);
  const screen = await tv(night.browser);
  let code;

  await t.test('name screen, lobby, device code', async () => {
    await ada.goto(`${night.server.base}/`);
    await ada.getByLabel('Name').waitFor();
    await clean(ada, 'the name screen');
    await ada.getByLabel('Name').fill('Ada');
    await ada.getByRole('button', { name: 'Let’s play' }).click();
    await ada.getByText('Hi Ada!').waitFor();
    await clean(ada, 'the lobby');
    await ada.getByRole('button', { name: 'Use my name on another device' }).click();
    await ada.getByLabel('Device code').filter({ hasText: /-/ }).waitFor();
    await clean(ada, 'the device code');
    await ada.getByRole('button', { name: 'Done' }).click();
    await ada.getByRole('button', { name: 'Create a room' }).click();
    code = (await ada.locator('.room-code').textContent()).trim();
    await ada.getByRole('button', { name: 'Start the match' }).waitFor();
    await clean(ada, 'the host’s waiting room');
  });

  await t.test('a room link names the room before asking for a name', async () => {
    await bob.goto(`${night.server.base}/r/${code}`);
    await bob.getByText(`Joining room ${code}: choose your name first.`).waitFor();
    await clean(bob, 'the name screen of a room link');
    await bob.getByLabel('Name').fill('Bob');
    await bob.getByRole('button', { name: 'Let’s play' }).click();
    await bob.getByText('Waiting for Ada to start').waitFor();
    await clean(bob, 'a guest’s waiting room');
  });

  await t.test('an edit typed while the echo of another arrives is kept', async () => {
    const rounds = ada.getByLabel('Rounds', { exact: true });
    const perRound = ada.getByLabel('Seconds per round', { exact: true });
    await rounds.fill('1');
    // Moving on sends "Rounds"; "Seconds" is being typed when its echo comes.
    await perRound.fill('45');
    await bob.getByText('1 round of 90 s').waitFor();
    assert.equal(await perRound.inputValue(), '45');
    assert.ok(await perRound.evaluate((el) => el === document.activeElement), 'the field keeps focus');
    await perRound.press('Tab');
    await bob.getByText('1 round of 45 s').waitFor();
    await settings(ada, [['Lockout after a miss (s)', 1]]);
    await bob.getByText('1 s lockout after a wrong answer').waitFor();
    assert.equal(await rounds.inputValue(), '1');
  });

  await t.test('the selects show their whole choice on a 320 px phone', async () => {
    await ada.setViewportSize({ width: 320, height: 568 });
    for (const label of ['Game', 'Rules', 'Hands', 'Deal']) {
      const select = ada.getByLabel(label, { exact: true });
      const fits = await select.evaluate((el) => {
        const probe = document.createElement('span');
        probe.style.font = getComputedStyle(el).font;
        probe.style.whiteSpace = 'pre';
        probe.textContent = el.selectedOptions[0].textContent;
        document.body.append(probe);
        const text = probe.getBoundingClientRect().width;
        probe.remove();
        const style = getComputedStyle(el);
        return text <= el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      });
      assert.ok(fits, `${label} is clipped`);
    }
    await ada.setViewportSize({ width: 390, height: 844 });
  });

  await t.test('the TV, a round, a wrong answer, the podium', async () => {
    await screen.goto(`${night.server.base}/tv/${code}`);
    await screen.locator('.tv-big-code', { hasText: code }).waitFor();
    await clean(screen, 'the TV before the match');
    await ada.getByRole('button', { name: 'Start the match' }).click();
    await ada.locator('.objective-number').waitFor();
    await bob.locator('.objective-number').waitFor();
    await screen.locator('.tv-objective-number').waitFor();
    await clean(ada, 'a round on a phone');
    await clean(screen, 'a round on the TV');
    const hand = await readHand(ada);
    const field = ada.getByRole('textbox', { name: 'Formula' });
    await field.fill(wrongFormula(hand.cards, hand.target));
    await field.press('Enter');
    await ada.getByText('✗ Not the target').waitFor();
    await clean(ada, 'a wrong answer');
    await bob.getByRole('textbox', { name: 'Formula' }).fill(typed(solve(hand.cards, hand.target)));
    await bob.getByRole('button', { name: 'Submit' }).click();
    for (const page of [ada, bob, screen]) await page.getByRole('list', { name: 'Final standings' }).waitFor();
    await clean(ada, 'the podium of the host');
    await clean(bob, 'the podium of the winner');
    await clean(screen, 'the podium on the TV');
  });

  await t.test('the boards, with a way back to the game', async () => {
    await bob.goto(`${night.server.base}/leaderboard`);
    await bob.getByRole('heading', { name: 'Leaderboard' }).waitFor();
    await clean(bob, 'the leaderboard');
    await bob.goto(`${night.server.base}/p/Bob`);
    await bob.getByRole('heading', { name: 'Bob' }).waitFor();
    await clean(bob, 'a profile');
    await bob.getByRole('link', { name: '← Back to the game' }).click();
    // Bob is still seated: the game page takes him back to his room.
    await bob.locator('.room-code', { hasText: code }).waitFor();
  });

  await t.test('no page logged an error or a CSP violation', () => {
    for (const page of [ada, bob, screen]) assert.deepEqual(page.problems, []);
  });
});
