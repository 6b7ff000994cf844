// The player's identity on this server, kept in localStorage (which is
// already per server: per origin). The big screen keeps its own identity so
// a TV in one tab never takes over the seat of a player in another.

const KEY = { player: 'krypto.identity', tv: 'krypto.tv-identity' };

/** `{name, token}` or null. */
export function loadIdentity(kind) {
  try {
    const raw = localStorage.getItem(KEY[kind]);
    if (!raw) return null;
    const v = JSON.parse(raw);
    if (typeof v?.name === 'string' && typeof v?.token === 'string') return v;
  } catch {
    // Private mode or a damaged entry: start afresh.
  }
  return null;
}

export function saveIdentity(kind, identity) {
  try {
    localStorage.setItem(KEY[kind], JSON.stringify({ name: identity.name, token: identity.token }));
  } catch {
    // Without storage the seat lasts as long as the page; still playable.
  }
}

export function forgetIdentity(kind) {
  try {
    localStorage.removeItem(KEY[kind]);
  } catch {
    // Nothing to forget.
  }
}
