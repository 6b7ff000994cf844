// Bots from the browser's waiting room: the host adds a medium bot (a skill
// and a button), everyone's roster shows it (🤖), a one-round match is
// played with it seated and it is in the standings, and the host removes it
// from its row once the match is over. The host answers long before a
// medium bot has thought, so no test waits on a bot's clock.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shoot } from './harness.js';
import { answerRight, gameNight, hosting, joining, settings } from './kit.js';

const night = gameNight();

test('the host adds a medium bot, plays a round with it, and removes it', async () => {
  const { page: ada, code } = await hosting(night, 'Ada');
  const bob = await joining(night, 'Bob', code);
  await settings(ada, [['Rounds', 1]]);

  // Only the host is offered bots.
  assert.equal(await bob.getByRole('button', { name: '🤖 Add a bot' }).count(), 0);
  await ada.getByLabel('Bot skill').selectOption('medium');
  await ada.getByRole('button', { name: '🤖 Add a bot' }).click();
  for (const p of [ada, bob]) {
    const row = p.locator('.roster .player-row', { hasText: '(medium bot)' });
    await row.waitFor();
    await row.locator('.tag.bot', { hasText: '🤖 bot' }).waitFor();
    await p.getByRole('heading', { name: 'Players (3/8)' }).waitFor();
  }
  // A bot is removed, never kicked nor made host.
  const botRow = ada.locator('.roster .player-row', { hasText: '(medium bot)' });
  assert.equal(await botRow.getByRole('button', { name: /^Kick|^Make host/ }).count(), 0);
  const botName = (await botRow.locator('.player-name').textContent()).trim();
  // The roster and the host's "Add a bot" row in view.
  await ada.evaluate(() => document.querySelector('.add-bot').scrollIntoView({ block: 'end' }));
  await shoot(ada, 'phone-waiting-room-bot');

  await ada.getByRole('button', { name: 'Start the match' }).click();
  await ada.locator('.objective-number').waitFor();
  await answerRight(ada);
  for (const p of [ada, bob]) {
    const standings = p.getByRole('list', { name: 'Final standings' });
    await standings.waitFor();
    await standings.getByText(botName).waitFor();
  }

  // Back in the waiting room, the host takes the bot out: gone for everyone.
  await ada.getByRole('button', { name: 'Change settings' }).click();
  await ada.getByRole('button', { name: `Remove bot ${botName}` }).click();
  for (const p of [ada, bob]) {
    await p.getByRole('heading', { name: 'Players (2/8)' }).waitFor();
    assert.equal(await p.locator('.roster .player-row', { hasText: botName }).count(), 0);
  }
  for (const p of [ada, bob]) assert.deepEqual(p.problems, []);
});
