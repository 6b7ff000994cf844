// Rows of people in a room: who they are and their marks, always in words
// or symbols with text (host, bot, away, watching, waiting), never colour
// alone.

import { h } from '../dom.js';
import { scoreboard, isHost } from '../state.js';
import { leftUntil } from '../clock.js';

function marks(state, p) {
  const room = state.room;
  return [
    p.id === room.host && h('span', { class: 'tag host', text: 'host' }),
    p.bot && h('span', { class: 'tag bot', title: 'a bot', text: '🤖 bot' }),
    p.id === state.me?.id && h('span', { class: 'tag you', text: 'you' }),
    !p.connected && h('span', { class: 'tag away', text: 'away' }),
    p.spectator && h('span', { class: 'tag watch', text: 'watching' }),
    p.waiting && h('span', { class: 'tag wait', text: 'plays next round' }),
  ];
}

/** The roster of the waiting room, with the host's controls. */
export function roster(state, act) {
  const room = state.room;
  const host = isHost(state);
  return h('ul', { class: 'roster' }, room.players.map((p) => h('li', { class: 'player-row' },
    h('span', { class: 'player-name', text: p.name }),
    h('span', { class: 'marks' }, marks(state, p)),
    // Each button's name adds the player for screen readers, after the
    // words everyone sees (which voice control users say).
    host && p.id !== state.me.id && h('span', { class: 'controls' },
      !p.spectator && h('button', {
        type: 'button', class: 'secondary small', 'aria-label': `Make host ${p.name}`,
        on: { click: () => act.makeHost(p.id) }, text: 'Make host',
      }),
      h('button', {
        type: 'button', class: 'danger small', 'aria-label': `Kick ${p.name}`,
        on: { click: () => act.kick(p.id, p.name) }, text: 'Kick',
      })))));
}

/** Players locked out after a miss right now: a key that changes when one is let go. */
export function lockedKey(room) {
  if (room?.phase !== 'playing') return '';
  return Object.entries(room.tries ?? {}).filter(([, t]) => leftUntil(t.lockedUntil) > 0).map(([id]) => id).join();
}

/** What a player did in the round being played: missed (how often), locked out. */
function tryMarks(room, p) {
  const t = room.phase === 'playing' || room.phase === 'between_rounds' ? room.tries?.[p.id] : null;
  if (!t) return [];
  return [
    h('span', { class: 'tag miss', text: t.count > 1 ? `✗ missed ×${t.count}` : '✗ missed' }),
    room.phase === 'playing' && leftUntil(t.lockedUntil) > 0 && h('span', { class: 'tag locked', text: '🔒 locked out' }),
  ];
}

/** The scores of the seated players, best first. */
export function scores(state, { big = false } = {}) {
  const room = state.room;
  const list = scoreboard(room);
  return h('ol', { class: big ? 'scores big' : 'scores', 'aria-label': 'Scores' }, list.map((p) => h('li', {
    class: p.id === state.me?.id ? 'score-row me' : 'score-row',
  },
  h('span', { class: 'player-name', text: p.name }),
  h('span', { class: 'marks' },
    p.bot && h('span', { class: 'tag bot', text: '🤖 bot' }),
    !p.connected && h('span', { class: 'tag away', text: 'away' }),
    tryMarks(room, p)),
  h('span', { class: 'score', text: String(p.score) }))));
}
