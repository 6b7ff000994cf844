import { test } from 'node:test';
import { startServer, launch, phone, shoot } from './harness.js';
test('dbg', async () => {
  const server = await startServer(); const browser = await launch();
  const ada = await phone(browser);
  await ada.goto(`${server.base}/`);
  await ada.getByRole('textbox', { name: 'Name' }).fill('Ada');
  await ada.getByRole('button', { name: 'Let’s play' }).click();
  await ada.getByText('Hi Ada!').waitFor();
  await ada.getByRole('button', { name: 'Create a room' }).click();
  const code = (await ada.locator('.room-code').textContent()).trim();
  for (const [label, value] of [['Rounds', 3], ['Seconds per round', 20], ['Lockout after a miss (s)', 3]]) {
    const field = ada.getByLabel(label, { exact: true });
    await field.fill(String(value));
    await field.press('Tab');
  }
  const bob = await phone(browser);
  await bob.goto(`${server.base}/r/${code}`);
  await bob.getByRole('textbox', { name: 'Name' }).fill('Bob');
  await bob.getByRole('textbox', { name: 'Name' }).press('Enter');
  await bob.locator('.room-code', { hasText: code }).waitFor();
  await new Promise(r => setTimeout(r, 1500));
  console.log('summary', await bob.locator('.settings-summary').textContent());
  console.log('ada', await ada.getByLabel('Rounds', { exact: true }).inputValue(), await ada.getByLabel('Seconds per round', { exact: true }).inputValue());
  await browser.close(); await server.stop();
});
