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
      // A bot never starts a match: the server refuses to make it host.
      !p.spectator && !p.bot && h('button', {
        type: 'button', class: 'secondary small', 'aria-label': `Make host ${p.name}`,
        on: { click: () => act.makeHost(p.id) }, text: 'Make host',
      }),
      // A bot is taken out (it may be added again); a person is kicked.
      p.bot ? h('button', {
        type: 'button', class: 'danger small', 'aria-label': `Remove bot ${p.name}`,
        on: { click: () => act.removeBot(p.id) }, text: 'Remove',
      }) : h('button', {
        type: 'button', class: 'danger small', 'aria-label': `Kick ${p.name}`,
        on: { click: () => act.kick(p.id, p.name) }, text: 'Kick',
      })))));
}

/** Seconds of lockout left, rounded up (0 when not locked out). */
const lockedSeconds = (room, id) => (room.phase === 'playing' ? Math.ceil(leftUntil(room.tries?.[id]?.lockedUntil) / 1000) : 0);

/** Players locked out after a miss right now and their seconds left: a key that changes each second. */
export function lockedKey(room) {
  if (room?.phase !== 'playing') return '';
  return Object.keys(room.tries ?? {}).map((id) => `${id}:${lockedSeconds(room, id)}`).join();
}

/**
 * What a player did in the round: missed (how often), locked out, won it;
 * on the big screen also who has not answered yet ("thinking"), so the
 * room sees who has tried. Never a formula.
 */
function tryMarks(room, p, big) {
  if (p.waiting || !(room.phase === 'playing' || room.phase === 'between_rounds')) return [];
  const t = room.tries?.[p.id];
  const locked = lockedSeconds(room, p.id);
  const won = room.phase === 'between_rounds' && room.result?.kind === 'won' && room.result.winner === p.id;
  return [
    won && h('span', { class: 'tag won', text: '🏆 got it' }),
    t && h('span', { class: 'tag miss', text: t.count > 1 ? `✗ missed ×${t.count}` : '✗ missed' }),
    locked > 0 && h('span', { class: 'tag locked', text: big ? `🔒 locked out ${locked} s` : '🔒 locked out' }),
    big && !t && room.phase === 'playing' && h('span', { class: 'tag thinking', text: '💭 thinking' }),
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
    tryMarks(room, p, big)),
  h('span', { class: 'score', text: String(p.score) }))));
}
