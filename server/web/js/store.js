// What this browser keeps: the player's identity on this server (in
// localStorage, which is already per server: per origin), the ones it had
// before ("Change player" or a sign-in link never loses one for good), and the
// half-typed formula of the round in play (per tab, so a reload keeps it).
// The big screen keeps its own identity so a TV in one tab never takes over
// the seat of a player in another.

const KEY = { player: 'krypto.identity', tv: 'krypto.tv-identity' };
const PREVIOUS = { player: 'krypto.previous-identities', tv: 'krypto.previous-tv-identities' };

/** Identities set aside that are remembered, most recent first. */
const MAX_PREVIOUS = 5;
const DRAFT = 'krypto.draft';

function read(storage, key) {
  try {
    const raw = storage.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch {
    // Private mode or a damaged entry: start afresh.
    return null;
  }
}

function write(storage, key, value) {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify(value));
  } catch {
    // Without storage it lasts as long as the page; still playable.
  }
}

const identityOf = (v) => (typeof v?.name === 'string' && typeof v?.token === 'string'
  ? { name: v.name, token: v.token } : null);

/** `{name, token}` or null. */
export const loadIdentity = (kind) => identityOf(read(localStorage, KEY[kind]));

const sameName = (a, b) => a.name.toLowerCase() === b.name.toLowerCase();

/** The identities this browser had before the current one, most recent first. */
export function loadPrevious(kind) {
  const list = read(localStorage, PREVIOUS[kind]);
  return Array.isArray(list) ? list.map(identityOf).filter(Boolean) : [];
}

function remember(kind, identity) {
  const list = [identity, ...loadPrevious(kind).filter((p) => !sameName(p, identity))];
  write(localStorage, PREVIOUS[kind], list.slice(0, MAX_PREVIOUS));
}

/**
 * Keeps `identity` as this browser's. A different player's identity that
 * was kept before is remembered, so it can come back.
 */
export function saveIdentity(kind, identity) {
  const old = loadIdentity(kind);
  if (old && !sameName(old, identity)) remember(kind, old);
  write(localStorage, KEY[kind], { name: identity.name, token: identity.token });
  forgetPrevious(kind, identity);
}

/** Stops using the identity (remembered with the previous ones). */
export function setAside(kind) {
  const old = loadIdentity(kind);
  if (old) remember(kind, old);
  write(localStorage, KEY[kind], null);
}

/** The server no longer knows it: drop it for good. */
export function forgetIdentity(kind) {
  write(localStorage, KEY[kind], null);
}

/** Drops `identity` from the previous ones (it came back, or the server forgot it). */
export function forgetPrevious(kind, identity) {
  write(localStorage, PREVIOUS[kind], loadPrevious(kind).filter((p) => !sameName(p, identity)));
}

/**
 * Which round a draft belongs to: its number and its hand, since a
 * rematch's round 1 is another round than the last match's.
 */
const roundKey = (round) => `${round.number}:${round.objective}:${round.cards.join(' ')}`;

/** The formula half-typed in `round` (number, objective, cards) of room `code`, or ''. */
export function loadDraft(code, round) {
  const d = read(sessionStorage, DRAFT);
  return d && d.code === code && d.round === roundKey(round) && typeof d.formula === 'string' ? d.formula : '';
}

export function saveDraft(code, round, formula) {
  write(sessionStorage, DRAFT, formula ? { code, round: roundKey(round), formula } : null);
}
