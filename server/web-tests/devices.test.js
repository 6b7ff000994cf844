// One name on several phones, and links that cannot take a phone over: the
// real server and real pages. "Use my name on another device" shows a code
// and its QR; another phone types it (or opens the scanned link) and plays
// as the same player with a token of its own. A link never replaces the
// identity a phone keeps without the person's yes, and "Change player"
// works on the spot and never loses the old name for good.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { phone, shoot } from './harness.js';
import { gameNight, inLobby } from './kit.js';

const night = gameNight();

const token = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('krypto.identity') ?? 'null')?.token ?? null);

const player = (name) => inLobby(night, name);

/** The code `page` shows for another device. */
async function deviceCode(page) {
  await page.getByRole('button', { name: 'Use my name on another device' }).click();
  const code = page.getByLabel('Device code');
  await code.filter({ hasText: /^[A-Z0-9]{4}-[A-Z0-9]{4}$/ }).waitFor();
  return code.textContent();
}

test('a code shown on one phone signs another in as the same player, once', async () => {
  const ann = await player('Ann');
  const code = await deviceCode(ann);
  const qr = ann.getByRole('img', { name: /QR code that opens this server/ });
  await qr.waitFor();
  assert.ok(await qr.evaluate((img) => img.complete && img.naturalWidth > 0), 'the QR code is drawn');
  await ann.getByRole('timer').filter({ hasText: /Works once, for [45]:\d\d more/ }).waitFor();
  await shoot(ann, 'phone-device-code');

  const laptop = await phone(night.browser);
  await laptop.goto(`${night.server.base}/`);
  await laptop.getByText('I already play on another device').click();
  await laptop.getByLabel('Code from your other device').fill(code.toLowerCase().replace('-', ' '));
  await laptop.getByRole('button', { name: 'Use my name here' }).click();
  await laptop.getByText('Hi Ann!').waitFor();
  const annToken = await token(ann);
  const laptopToken = await token(laptop);
  assert.ok(laptopToken && laptopToken !== annToken, 'the new device has a token of its own');
  // The first phone was taken over by the laptop: the spent code is gone
  // from it, not counting down.
  await ann.getByText(/^Ann plays in another tab or on another device now/).waitFor();
  await ann.getByLabel('Device code').waitFor({ state: 'hidden' });
  assert.equal(await ann.getByRole('timer').filter({ hasText: /Works once/ }).count(), 0);

  // The code is used up: a third phone is told so, and can still choose a name.
  const third = await phone(night.browser);
  await third.goto(`${night.server.base}/`);
  await third.getByText('I already play on another device').click();
  await third.getByLabel('Code from your other device').fill(code);
  await third.getByRole('button', { name: 'Use my name here' }).click();
  await third.getByText(/That code was used already or has expired/).waitFor();
  assert.equal(await token(third), null);
  for (const p of [ann, laptop, third]) assert.deepEqual(p.problems, []);
});

test('a scanned link asks before a phone that plays as someone switches, and the old name stays one tap away', async () => {
  const ann = await player('Ann2');
  const cat = await player('Cat');
  const catToken = await token(cat);

  // "No": nothing changes, and the code is not spent.
  const first = await deviceCode(ann);
  await cat.goto(`${night.server.base}/link#${first}`);
  assert.equal(new URL(cat.url()).hash, '', 'the code leaves the address at once');
  await cat.getByRole('heading', { name: 'Switch player on this browser?' }).waitFor();
  await cat.getByRole('button', { name: 'Keep playing as Cat' }).click();
  await cat.getByText('Hi Cat!').waitFor();
  assert.equal(await token(cat), catToken);

  // "Yes": Cat's phone plays as Ann2; Cat is one tap away.
  await cat.goto(`${night.server.base}/link#${first}`);
  await cat.getByRole('button', { name: 'Use that player' }).click();
  await cat.getByText('Hi Ann2!').waitFor();
  await cat.getByRole('button', { name: 'Not you? Change player' }).click();
  await cat.getByRole('button', { name: 'Play as Cat again' }).click();
  await cat.getByText('Hi Cat!').waitFor();
  assert.equal(await token(cat), catToken);

  // A freshly opened phone with no player of its own signs in after one tap
  // (Ann2's first phone takes the seat back from Cat's first).
  await ann.reload();
  await ann.getByText('Hi Ann2!').waitFor();
  const fresh = await phone(night.browser);
  await fresh.goto(`${night.server.base}/link#${await deviceCode(ann)}`);
  await fresh.getByRole('button', { name: 'Use my name here' }).click();
  await fresh.getByText('Hi Ann2!').waitFor();
  assert.equal(new URL(fresh.url()).pathname, '/');
  for (const p of [ann, cat, fresh]) assert.deepEqual(p.problems, []);
});

test('a link with someone else’s ticket or token cannot take a phone over', async () => {
  const mallory = await player('Mallory');
  const code = await deviceCode(mallory);
  const victim = await player('Vic');
  const vicToken = await token(victim);
  // The long-lived token in a link is not honoured at all.
  await victim.goto(`${night.server.base}/r/ABCDE#token=${await token(mallory)}`);
  await victim.getByText('Hi Vic!').waitFor();
  assert.equal(await token(victim), vicToken);
  // A ticket in a link is asked about, and "keep" keeps.
  await victim.goto(`${night.server.base}/r/ABCDE#ticket=${code}&name=Mallory&hops=1`);
  await victim.getByRole('button', { name: 'Keep playing as Vic' }).click();
  await victim.getByText('Hi Vic!').waitFor();
  assert.equal(await token(victim), vicToken);
  assert.deepEqual(victim.problems, []);
});

test('"Change player" gives a working new player at once, and a reload keeps both', async () => {
  const page = await player('Dan');
  await page.getByRole('button', { name: 'Not you? Change player' }).click();
  await page.getByLabel('Name').fill('Eve');
  await page.getByRole('button', { name: 'Let’s play' }).click();
  await page.getByText('Hi Eve!').waitFor();
  await page.getByRole('button', { name: 'Create a room' }).click();
  await page.getByRole('button', { name: 'Start the match' }).waitFor();
  await page.getByRole('listitem').filter({ hasText: 'Eve' }).filter({ hasText: 'host' }).waitFor();

  await page.reload();
  await page.getByRole('button', { name: 'Start the match' }).waitFor();
  await page.getByRole('button', { name: 'Leave' }).click();
  await page.getByRole('button', { name: 'Not you? Change player' }).click();
  await page.getByRole('button', { name: 'Play as Dan again' }).click();
  await page.getByText('Hi Dan!').waitFor();
  assert.deepEqual(page.problems, []);
});

test('a new device is announced on the one it took over, which lists it and revokes it for good', async () => {
  const fay = await player('Fay');
  const code = await deviceCode(fay);
  const laptop = await phone(night.browser);
  await laptop.goto(`${night.server.base}/`);
  await laptop.getByText('I already play on another device').click();
  await laptop.getByLabel('Code from your other device').fill(code);
  await laptop.getByRole('button', { name: 'Use my name here' }).click();
  await laptop.getByText('Hi Fay!').waitFor();

  // The phone the laptop took over is told who signed in, and takes its name back to revoke it.
  await fay.getByText(/^A new device signed in as you: \w+ on \w+\. Not you\?/).waitFor();
  await fay.getByRole('button', { name: 'Revoke it' }).click();
  const list = fay.getByRole('list', { name: 'Your devices' });
  await list.getByText('this device', { exact: true }).waitFor();
  assert.equal(await list.getByRole('listitem').count(), 2);
  await shoot(fay, 'phone-devices');
  await list.getByRole('button', { name: /^Revoke / }).click();
  await list.getByRole('button', { name: /^Revoke / }).waitFor({ state: 'detached' });
  assert.equal(await list.getByRole('listitem').count(), 1);

  // The revoked laptop cannot take the name back.
  await laptop.getByRole('button', { name: 'Play here instead' }).click();
  await laptop.getByText(/does not know this browser’s player any more/).waitFor();
  for (const p of [fay, laptop]) assert.deepEqual(p.problems, []);
});
