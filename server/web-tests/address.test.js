// The browser client's addresses, as pure functions: the page's base under
// a path prefix, its own WebSocket, and where a `redirect` sends the page
// (the node's HTTP base, the room's page, a single-use ticket handed over
// in the fragment). No browser needed: `node --test`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  basePath, routePath, parseRoute, socketUrl, httpBaseOf, redirectPage, handover as readHandover, linkCode, shown,
} from '../web/js/address.js';

test('the base is what the page path holds before the route', () => {
  for (const [path, base, route] of [
    ['/', '', '/'],
    ['/r/KXR7P', '', '/r/KXR7P'],
    ['/tv/KXR7P', '', '/tv/KXR7P'],
    ['/leaderboard', '', '/leaderboard'],
    ['/p/Ada%20B', '', '/p/Ada%20B'],
    ['/node-b/', '/node-b', '/'],
    ['/node-b', '/node-b', '/'],
    ['/node-b/r/KXR7P', '/node-b', '/r/KXR7P'],
    ['/a/b/tv/KXR7P/', '/a/b', '/tv/KXR7P/'],
    ['/krypto/leaderboard', '/krypto', '/leaderboard'],
    ['/daily', '', '/daily'],
    ['/node-b/c/K7QXM2PD', '/node-b', '/c/K7QXM2PD'],
    ['/krypto/run', '/krypto', '/run'],
    ['/krypto/practice', '/krypto', '/practice'],
  ]) {
    assert.equal(basePath(path), base, path);
    assert.equal(routePath(path), route, path);
  }
});

test("the page's own WebSocket keeps the host, the scheme's security and the base", () => {
  assert.equal(socketUrl({ protocol: 'http:', host: 'h:7878', pathname: '/r/KXR7P' }), 'ws://h:7878/ws');
  assert.equal(socketUrl({ protocol: 'https:', host: 'proxy', pathname: '/node-b/r/KXR7P' }), 'wss://proxy/node-b/ws');
  assert.equal(socketUrl({ protocol: 'http:', host: 'proxy', pathname: '/node-b/' }), 'ws://proxy/node-b/ws');
});

test("a node's WebSocket URL becomes its HTTP base", () => {
  assert.equal(httpBaseOf('ws://host-b:7878/ws'), 'http://host-b:7878');
  assert.equal(httpBaseOf('wss://krypto.example/ws'), 'https://krypto.example');
  assert.equal(httpBaseOf('ws://proxy/node-b/ws'), 'http://proxy/node-b');

  assert.equal(httpBaseOf('ws://[::1]:9/ws'), 'http://[::1]:9');
  // Untrusted input: anything but ws:// and wss:// is refused.
  for (const bad of [
    'http://host-b/ws', 'https://evil.example/', 'javascript:alert(1)', 'file:///etc/passwd',
    'ws://user:pw@host-b/ws', 'not a url', '', 'data:text/html,<b>x</b>',
    // Only a krypto server's WebSocket: a path ending in /ws, no query or fragment (as the terminal).
    'ws://host-b:7878/', 'ws://host-b:7878', 'ws://host-b:7878/cgi-bin/x', 'ws://lan/cgi-bin/x?confirm=1',
    'ws://host-b:7878/ws?confirm=1', 'ws://host-b:7878/ws?', 'ws://host-b:7878/ws#top', 'ws://user@host-b/ws',
    'wss://proxy/node-b/ws/',
  ]) {
    assert.equal(httpBaseOf(bad), null, bad);
  }
});

test('a redirect goes to the room page on that node with its ticket, never the token, in the fragment', () => {
  const page = redirectPage({ url: 'ws://proxy/node-b/ws', code: 'KXR7P', tv: false, ticket: '9f2c01', name: 'Ada', hops: 1 });
  assert.equal(page, 'http://proxy/node-b/r/KXR7P#ticket=9f2c01&name=Ada&hops=1');
  const tv = redirectPage({ url: 'wss://b.example/ws', code: 'KXR7P', tv: true, ticket: 'ab', hops: 2 });
  assert.equal(tv, 'https://b.example/tv/KXR7P#ticket=ab&hops=2');
  // No ticket (the page's own origin keeps its identity): nothing but hops.
  assert.equal(redirectPage({ url: 'ws://b/ws', code: 'KXR7P', tv: false, name: 'Ada', hops: 1 }), 'http://b/r/KXR7P#hops=1');
  // A code cannot reach into the path or the fragment.
  const odd = redirectPage({ url: 'ws://b/ws', code: '../x#ticket=evil', tv: false, ticket: 't', hops: 1 });
  assert.equal(odd, 'http://b/r/..%2Fx%23ticket%3Devil#ticket=t&hops=1');
  assert.equal(redirectPage({ url: 'http://b/ws', code: 'KXR7P', tv: false, ticket: 't', hops: 1 }), null);
});

test('the page reads what a redirect handed over', () => {
  // The page passes the server's limits (LIMITS.redirects_in_a_row, LIMITS.name_chars).
  const MAX_HOPS = 5;
  const handover = (hash) => readHandover(hash, MAX_HOPS, 20);
  const page = redirectPage({ url: 'ws://b/ws', code: 'KXR7P', tv: false, ticket: '9f2c01', name: 'Ann Lee', hops: 3 });
  assert.deepEqual(handover(new URL(page).hash), { ticket: '9f2c01', name: 'Ann Lee', hops: 3 });
  assert.deepEqual(handover(''), { ticket: null, name: null, hops: 0 });
  assert.deepEqual(handover('#hops=-4&ticket='), { ticket: null, name: null, hops: 0 });
  // No spaces or control characters in a ticket or a name; hops are capped.
  assert.deepEqual(handover('#ticket=a%20b&hops=99'), { ticket: null, name: null, hops: MAX_HOPS + 1 });
  assert.deepEqual(handover('#ticket=ab&name=A%1Bb'), { ticket: 'ab', name: null, hops: 0 });
  assert.deepEqual(handover(`#ticket=ab&name=${'é'.repeat(20)}`), { ticket: 'ab', name: 'é'.repeat(20), hops: 0 });
  assert.deepEqual(handover(`#ticket=ab&name=${'é'.repeat(21)}`), { ticket: 'ab', name: null, hops: 0 });
  // The old hand-over of the token itself is not honoured.
  assert.deepEqual(handover('#token=9f2c01&hops=1'), { ticket: null, name: null, hops: 1 });
});

test('a scanned device link names its code', () => {
  assert.equal(linkCode('#K7QX-M2PD'), 'K7QX-M2PD');
  assert.equal(linkCode('#k7qxm2pd'), 'K7QXM2PD');
  assert.equal(linkCode('#token=abc'), null);
  assert.equal(linkCode(''), null);
  assert.equal(basePath('/node-b/link'), '/node-b');
  assert.equal(routePath('/node-b/link'), '/link');
});

test('what is shown of a redirect has no control characters', () => {
  assert.equal(shown('http://evil\u001b[2J\r\nSERVER: you won\u202e'), 'http://evil[2JSERVER: you won');
  assert.equal(shown('x'.repeat(100)).length, 81);
});

test('the daily, a challenge, a run and practice have pages of their own', () => {
  assert.deepEqual(parseRoute('/daily'), { kind: 'daily', date: null });
  assert.deepEqual(parseRoute('/c/k7qxm2pd'), { kind: 'challenge', code: 'K7QXM2PD' });
  assert.deepEqual(parseRoute('/run/'), { kind: 'run' });
  assert.deepEqual(parseRoute('/practice'), { kind: 'practice' });
  assert.deepEqual(parseRoute('/m/0193A1C4-7d2e-7b3a-9f1e-2c4d5e6f7a8b'), { kind: 'recap', id: '0193a1c4-7d2e-7b3a-9f1e-2c4d5e6f7a8b' });
  // A malformed escape is no crash: the recap page says the address is no match's.
  assert.deepEqual(parseRoute('/m/%E0%A4%A'), { kind: 'recap', id: '%e0%a4%a' });
});
