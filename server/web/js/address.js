// Where this app lives, and where a `redirect` sends it. Pure functions of
// the addresses they are given (so `node --test` checks them), used by
// main.js with the page's own location.
//
// The server may be reached under a path prefix (a reverse proxy serving
// node B at `http://proxy/node-b/`), so every address the page makes is
// built from the base its own address shows, never from `/`.

/** What the address (after its base) asks for: `{kind, code?, name?}`. */
export function parseRoute(path) {
  let m = path.match(/^\/r\/([^/]+)\/?$/);
  if (m) return { kind: 'room', code: decodeURIComponent(m[1]).toUpperCase() };
  m = path.match(/^\/tv\/([^/]+)\/?$/);
  if (m) return { kind: 'tv', code: decodeURIComponent(m[1]).toUpperCase() };
  if (/^\/leaderboard\/?$/.test(path)) return { kind: 'leaderboard' };
  if (/^\/conduct\/?$/.test(path)) return { kind: 'conduct' };
  if (/^\/link\/?$/.test(path)) return { kind: 'link' };
  m = path.match(/^\/c\/([^/]+)\/?$/);
  if (m) return { kind: 'challenge', code: decodeURIComponent(m[1]).toUpperCase() };
  if (/^\/daily\/?$/.test(path)) return { kind: 'daily', date: dailyDate() };
  if (/^\/run\/?$/.test(path)) return { kind: 'run' };
  if (/^\/practice\/?$/.test(path)) return { kind: 'practice' };
  m = path.match(/^\/m\/([^/]+)\/?$/);
  if (m) return { kind: 'recap', id: m[1].toLowerCase() };
  m = path.match(/^\/p\/([^/]+)\/?$/);
  if (m) return { kind: 'profile', name: decodeURIComponent(m[1]) };
  return { kind: 'lobby' };
}

/** The routes of the app, after its base. */
const ROUTE_TAIL = /(\/(r|tv|p|c|m)\/[^/]+|\/leaderboard|\/link|\/daily|\/run|\/practice)?\/?$/;

/** A past day asked for in the address (`/daily?date=2026-11-20`), or null for today. */
function dailyDate() {
  const date = typeof location === 'undefined' ? null : new URLSearchParams(location.search).get('date');
  return date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null;
}

/**
 * The path prefix the app is served under, from the page's path:
 * `/node-b/r/KXR7P` → `/node-b`, `/r/KXR7P` and `/` → ``.
 */
export function basePath(pathname) {
  return pathname.replace(ROUTE_TAIL, '');
}

/** The page's path without the base: what the router reads. */
export function routePath(pathname) {
  const base = basePath(pathname);
  return pathname.slice(base.length) || '/';
}

/** This server's WebSocket: same host, same base, `/ws`. */
export function socketUrl(loc) {
  const scheme = loc.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${loc.host}${basePath(loc.pathname)}/ws`;
}

/**
 * The HTTP base of the node at WebSocket `url`, or null when it is not a
 * krypto server's WebSocket address (it came from the network): `ws://` or
 * `wss://` with a host, a path ending in `/ws`, and no query, fragment or
 * credentials — the terminal client's rule (client/src/redirect.rs), so a
 * hostile server cannot send a phone to a LAN device's `/cgi-bin/…?x=1`.
 * ws → http, wss → https, the `/ws` dropped, any path prefix kept:
 * `ws://proxy/node-b/ws` → `http://proxy/node-b`.
 */
export function httpBaseOf(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const scheme = { 'ws:': 'http:', 'wss:': 'https:' }[u.protocol];
  if (!scheme || !u.host || u.username || u.password) return null;
  if (/[?#]/.test(url) || !u.pathname.endsWith('/ws')) return null;
  return `${scheme}//${u.host}${u.pathname.slice(0, -'/ws'.length)}`;
}

/**
 * The page to go to for a `redirect`: that node's room page (`/r/CODE`, or
 * `/tv/CODE` for the big screen) with, in the fragment (never sent to a
 * server), the redirect's single-use `ticket` (the long-lived token never
 * travels in an address), the player's `name` (so a page there that already
 * knows this player need not ask) and the number of redirects followed so
 * far. Null when the URL is not a WebSocket's.
 */
export function redirectPage({ url, code, tv, ticket, name, hops }) {
  const base = httpBaseOf(url);
  if (base === null) return null;
  const fragment = new URLSearchParams();
  if (ticket) fragment.set('ticket', ticket);
  if (ticket && name) fragment.set('name', name);
  fragment.set('hops', String(hops));
  return `${base}/${tv ? 'tv' : 'r'}/${encodeURIComponent(code)}#${fragment}`;
}

/** A ticket as a server would give one: printable, no spaces, short. */
const TICKET = /^[\x21-\x7e]{1,64}$/;

/**
 * What a redirect handed over in the fragment: `{ticket, name, hops}`
 * (ticket and name null when absent or not what a server would give; hops
 * at most `maxHops + 1`, the server's redirects-in-a-row limit plus one;
 * the name at most `nameChars` long, the server's limit).
 */
export function handover(hash, maxHops, nameChars) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const ticket = params.get('ticket');
  const name = params.get('name');
  const hops = Number.parseInt(params.get('hops') ?? '', 10);
  const ok = ticket && TICKET.test(ticket);
  return {
    ticket: ok ? ticket : null,
    name: ok && name && [...name].length <= nameChars && !/[\p{Cc}\p{Cf}]/u.test(name) ? name : null,
    hops: Number.isInteger(hops) && hops > 0 ? Math.min(hops, maxHops + 1) : 0,
  };
}

/**
 * The device code in a `/link#K7QX-M2PD` address (scanned off another
 * device's QR code), or null.
 */
export function linkCode(hash) {
  const code = decodeURIComponent(hash.replace(/^#/, '')).trim().toUpperCase();
  return /^[A-Z0-9]{4}-?[A-Z0-9]{4}$/.test(code) ? code : null;
}

/** A redirect's URL, cut short and without control characters, to show. */
export function shown(text) {
  const clean = String(text).replace(/[\p{Cc}\p{Cf}]/gu, '');
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}

/** `path` (`/leaderboard`, `/api/…`) under this page's base. */
export function at(path) {
  return basePath(location.pathname) + path;
}
