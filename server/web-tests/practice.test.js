// A practice table from the home page, against the real server: a hand at
// a time with the elapsed time showing, a hint that is one exact step over
// the hand's cards (and nothing of the solution before it is asked for), a
// wrong answer that costs nothing, a right answer listing the hand's
// solutions under the next hand, and "Show a solution".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  solve, shoot, readHand, wrongFormula,
} from './harness.js';
import { gameNight, inLobby, typed } from './kit.js';

const night = gameNight();

/** Types `formula` in the formula field and submits it. */
async function answer(page, formula) {
  await page.locator('#formula').fill(formula);
  await page.getByRole('button', { name: 'Submit' }).click();
}

/** A number as a step writes it: `24`, `-2`, `7/2`. */
const NUMBER = String.raw`-?\d+(?:/\d+)?`;
const STEP = new RegExp(`^(${NUMBER}) [+\\-×÷] (${NUMBER}) = ${NUMBER}$`);

test('practice from the home page: a hint, a free miss, a right answer, the next hand, a skip', async () => {
  const ada = await inLobby(night, 'Ada');
  await ada.getByRole('link', { name: 'Practice' }).click();
  await ada.getByText('Unrated: nothing is recorded', { exact: true }).waitFor();
  await ada.getByLabel('Hands:').selectOption('easy');
  await ada.getByRole('button', { name: 'Deal a hand' }).click();
  await ada.getByText('Hand 1: make').waitFor();
  const { target, cards } = await readHand(ada);
  assert.match(await ada.getByRole('timer', { name: 'Clock' }).textContent(), /^0:\d\d$/);
  assert.equal(await ada.locator('.practice-hint').count(), 0, 'no step before it is asked for');

  await ada.getByRole('button', { name: 'Hint' }).click();
  const step = (await ada.locator('.practice-hint').first().textContent()).trim();
  const [, left, right] = step.match(STEP) ?? assert.fail(`a step reads "a op b = c": ${step}`);
  // The first step combines two of the hand's cards.
  const rest = [...cards];
  for (const operand of [left, right]) {
    const at = rest.indexOf(Number(operand));
    assert.ok(at >= 0, `${step}: ${operand} is a card of ${cards}`);
    rest.splice(at, 1);
  }
  await ada.getByRole('button', { name: 'Hint (1/4)' }).waitFor();

  await answer(ada, typed(wrongFormula(cards, target)));
  await ada.getByText('✗ Not the target').waitFor();
  assert.equal(await ada.getByText('(+10 s)').count(), 0, 'a miss costs nothing here');

  await answer(ada, typed(solve(cards, target)));
  await ada.getByText('✓ Hand 1 solved (1 hint)').waitFor();
  await ada.getByText('Hand 2: make').waitFor();
  assert.equal(await ada.locator('.practice-ended .solutions li.yours').count(), 1);
  assert.equal(await ada.locator('.practice-hint').count(), 0, 'a new hand, no step shown');
  await ada.getByRole('button', { name: 'Hint' }).click();
  await ada.locator('.practice-hint').first().waitFor();
  await shoot(ada, 'phone-practice', { fullPage: true });

  await ada.getByRole('button', { name: 'Show a solution' }).click();
  await ada.getByText('Hand 2 skipped: its solutions').waitFor();
  await ada.getByText('Hand 3: make').waitFor();
  assert.equal(await ada.locator('.practice-ended .solutions li.yours').count(), 0);
  assert.deepEqual(ada.problems, []);
});
