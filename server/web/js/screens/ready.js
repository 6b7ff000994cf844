// The rematch's ready step: after the host asks for a rematch, every seated
// player confirms "Ready"; the match starts when all who are here are ready,
// or when the time runs out (the server decides). Phones show the button and
// who is still to confirm; the TV shows the same for the room.

import { h, fill, setText } from '../dom.js';
import { isHost } from '../state.js';
import { leftUntil } from '../clock.js';
import { listOf } from '../words.js';

/** The seated players and whether each is ready. */
function seats(room) {
  const ready = new Set(room.readyCheck?.ready ?? []);
  return room.players.filter((p) => !p.spectator).map((p) => ({ ...p, ready: ready.has(p.id) }));
}

function startsIn(room) {
  const s = Math.ceil(leftUntil(room.readyCheck?.deadline) / 1000);
  return s > 0 ? `starts in ${s} s` : 'starting…';
}

/** The ready step on a phone: `{el, update(state), tick(state)}`. */
export function readyPanel(act) {
  const head = h('p', { class: 'ready-head' });
  const line = h('p', { class: 'ready-line', role: 'status' });
  const actions = h('div', { class: 'host-controls' });
  const el = h('section', { class: 'card-panel ready', 'aria-labelledby': 'ready-head' }, h('h2', { id: 'ready-head', text: 'Rematch' }), head, actions, line);
  let shown = null;

  function tick(state) {
    const room = state.room;
    if (!room?.readyCheck) return;
    const all = seats(room);
    const count = all.filter((p) => p.ready).length;
    setText(line, `${count} of ${all.length} ready, ${startsIn(room)}`);
  }

  return {
    el,
    update(state) {
      const room = state.room;
      el.hidden = !room.readyCheck;
      if (!room.readyCheck) return;
      const all = seats(room);
      const me = all.find((p) => p.id === state.me?.id);
      const mine = (p) => p.id === state.me?.id;
      const waitingFor = all.filter((p) => !p.ready && p.connected)
        .sort((a, b) => Number(mine(b)) - Number(mine(a)))
        .map((p) => (mine(p) ? 'you' : p.name));
      setText(head, waitingFor.length ? `Waiting for ${listOf(waitingFor)}.` : 'Everyone is ready!');
      const key = `${Boolean(me)}:${me?.ready}:${isHost(state)}`;
      if (key !== shown) {
        shown = key;
        fill(actions,
          me && !me.ready && h('button', { type: 'button', class: 'primary huge', on: { click: act.ready }, text: '✋ Ready!' }),
          me?.ready && h('p', { class: 'ready-done', text: '✓ You are ready' }),
          isHost(state) && h('button', { type: 'button', class: 'secondary', on: { click: act.start }, text: 'Start now' }));
      }
      tick(state);
    },
    tick,
  };
}

/** The ready step on the TV: who is ready, and when it starts. */
export function readyStage(state) {
  const room = state.room;
  const all = seats(room);
  return [
    h('p', { class: 'tv-headline', text: '🔁 Rematch! Ready on your phone?' }),
    h('ul', { class: 'tv-names ready-names', 'aria-label': 'Ready for the rematch' }, all.map((p) => h('li', {
      class: p.ready ? 'is-ready' : '',
      text: `${p.ready ? '✓' : '…'} ${p.name}`,
    }))),
    h('p', { class: 'tv-sub ready-count', text: `${all.filter((p) => p.ready).length} of ${all.length} ready, ${startsIn(room)}` }),
  ];
}
