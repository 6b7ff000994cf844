// Deadlines on this page's own monotonic clock: the server sends durations
// (`*_ms`), never its wall clock, so clock skew cannot matter.

export const now = () => performance.now();

/** A deadline `ms` from now. */
export const deadlineIn = (ms) => now() + ms;

/** Milliseconds left until `deadline` (0 once passed, or with no deadline). */
export const leftUntil = (deadline) => (deadline ? Math.max(0, deadline - now()) : 0);

/** "1:05" or "0:09". */
export function clockText(ms) {
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * "2.4 s": to the nearest tenth, halves up, in whole numbers (as the terminal
 * rounds it, so 14,950 ms is "15.0 s" on every screen; a float's toFixed
 * would say 14.9).
 */
export function seconds(ms) {
  const tenths = Math.round(ms / 100);
  return `${Math.floor(tenths / 10)}.${tenths % 10} s`;
}
