// A phone's visit to a room link (`/r/CODE`) under Chromium DevTools'
// "Slow 3G" throttling: bytes on the wire (headers and bodies, as Chromium
// counts them) for a first visit (empty cache) and a returning one (the
// same browser profile, every asset revalidated), and the time from the
// navigation to a usable page: the name field takes typing and the page's
// WebSocket is open, so "Let's play" works. Prints a Markdown table of the
// medians of `runs` runs. Run by bench/page-load.
//
//   node page-load.mjs [runs]

import WebSocket from 'ws';
import { startServer, launch } from './harness.js';

const runs = Number(process.argv[2] ?? 5);

// DevTools' "Slow 3G" preset (Chromium's front_end/core/sdk/NetworkManager.ts):
// 500 kbit/s each way at 80 %, and 400 ms of latency times 5.
const SLOW_3G = {
  offline: false,
  latency: 400 * 5,
  downloadThroughput: ((500 * 1000) / 8) * 0.8,
  uploadThroughput: ((500 * 1000) / 8) * 0.8,
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** A room opened by a host on its own socket; resolves with its code. */
function openRoom(server) {
  const ws = new WebSocket(server.ws);
  return new Promise((ok, fail) => {
    ws.on('error', fail);
    ws.on('open', () => ws.send(JSON.stringify({ id: '1', type: 'hello', protocol: 1, name: 'Host' })));
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (m.type === 'welcome') ws.send(JSON.stringify({ id: '2', type: 'create_room', public: false }));
      else if (m.type === 'room_state') ok({ code: m.code, close: () => ws.close() });
      else if (m.type === 'error') fail(new Error(m.message));
    });
  });
}

/** One visit of `page` to `url`: {bytes, requests (to the network, not the cache), usableMs}. */
async function visit(page, cdp, url) {
  let bytes = 0;
  let requests = 0;
  const cached = new Set();
  const fromCache = (e) => { cached.add(e.requestId); };
  const finished = (e) => {
    bytes += e.encodedDataLength;
    if (!cached.has(e.requestId)) requests += 1;
  };
  cdp.on('Network.requestServedFromCache', fromCache);
  const frame = (e) => { bytes += e.response.payloadData.length; };
  let socketOpen = null;
  const handshake = () => { socketOpen ??= performance.now(); };
  cdp.on('Network.loadingFinished', finished);
  cdp.on('Network.webSocketFrameReceived', frame);
  cdp.on('Network.webSocketHandshakeResponseReceived', handshake);
  const start = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.getByLabel('Name').waitFor();
  const field = performance.now();
  // The socket's first answer (the room's name screen needs none): wait
  // for the handshake, then for the network to be quiet.
  while (socketOpen === null) await new Promise((ok) => { setTimeout(ok, 20); });
  await page.waitForLoadState('load');
  cdp.off('Network.loadingFinished', finished);
  cdp.off('Network.requestServedFromCache', fromCache);
  cdp.off('Network.webSocketFrameReceived', frame);
  cdp.off('Network.webSocketHandshakeResponseReceived', handshake);
  return { bytes, requests, fieldMs: field - start, usableMs: Math.max(field, socketOpen) - start };
}

const server = await startServer();
const browser = await launch();
const room = await openRoom(server);
const url = `${server.base}/r/${room.code}`;
const results = { first: [], returning: [] };
try {
  for (let i = 0; i < runs; i += 1) {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true,
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', SLOW_3G);
    results.first.push(await visit(page, cdp, url));
    // A returning phone: the same profile, a new page load.
    await page.goto('about:blank');
    results.returning.push(await visit(page, cdp, url));
    await context.close();
  }
} finally {
  room.close();
  await browser.close();
  await server.stop();
}

const row = (name, list) => `| ${name} | ${median(list.map((r) => r.requests))} | ${(median(list.map((r) => r.bytes)) / 1024).toFixed(1)} KiB | ${(median(list.map((r) => r.fieldMs)) / 1000).toFixed(2)} s | ${(median(list.map((r) => r.usableMs)) / 1000).toFixed(2)} s |`;
console.log(`Slow 3G (${SLOW_3G.latency} ms, ${SLOW_3G.downloadThroughput * 8 / 1000} kbit/s), median of ${runs} runs\n`);
console.log('| visit to /r/CODE | requests to the network | bytes on the wire | name field shown | usable (field + socket open) |');
console.log('|---|---|---|---|---|');
console.log(row('first (empty cache)', results.first));
console.log(row('returning (cache, revalidated)', results.returning));
