// Inside a room: the header with the code, then the screen for what the
// room is doing (waiting, playing, podium), then the feed and chat.

import { h, fill, setText } from '../dom.js';
import { PHASES } from '../words.js';
import * as waiting from './waiting.js';
import * as round from './round.js';
import * as podium from './podium.js';
import { chatPanel } from './feed.js';
import { reactionBar } from './reactions.js';

/** One tap to mute (or unmute) the game's sounds on this browser. */
export function soundToggle(act) {
  const icon = h('span', {});
  const words = h('span', { class: 'sound-words' });
  const el = h('button', { type: 'button', class: 'secondary small sound-toggle', on: { click: act.toggleSound } }, icon, words);
  return {
    el,
    update(state) {
      const muted = state.sound?.muted;
      // Browsers play nothing before the first tap on the page.
      const [i, w] = muted ? ['🔇', ' Sound off'] : (state.sound?.waiting ? ['🔈', ' Tap for sound'] : ['🔊', ' Sound on']);
      setText(icon, i);
      setText(words, w);
      el.setAttribute('aria-pressed', String(!muted));
    },
  };
}

/** What the room is showing: the waiting room, a hand (by its number) or the podium. */
function stageOf(room) {
  if (room.phase === 'lobby' || room.phase === 'finished') return room.phase;
  return `round ${room.round?.number ?? 0}`;
}

function partFor(phase) {
  if (phase === 'lobby') return waiting;
  if (phase === 'finished') return podium;
  return round;
}

export function mount(root, ctx) {
  const { act } = ctx;
  const code = h('span', { class: 'room-code' });
  const phase = h('span', { class: 'phase' });
  const body = h('div', { class: 'room-body' });
  const chat = chatPanel(act);
  const mute = soundToggle(act);
  fill(root,
    h('header', { class: 'room-header' },
      h('h1', { class: 'room-id' }, h('span', { class: 'muted small', text: 'Room ' }), code),
      phase,
      mute.el,
      h('button', { type: 'button', class: 'secondary small', on: { click: act.leaveRoom }, text: 'Leave' })),
    body, reactionBar(act), chat.el);
  let part = { module: null, view: null };
  let shownStage = null;
  return {
    update(state) {
      const room = state.room;
      // A new hand or the podium starts at the top of the page: a phone
      // scrolled down to the reactions or the feed would miss the target.
      const stage = stageOf(room);
      if (shownStage !== null && stage !== shownStage) window.scrollTo(0, 0);
      shownStage = stage;
      setText(code, room.code);
      setText(phase, PHASES[room.phase] ?? room.phase);
      const module = partFor(room.phase);
      if (module !== part.module) {
        body.replaceChildren();
        part = { module, view: module.mount(body, ctx) };
      }
      part.view.update(state);
      chat.update(state);
      mute.update(state);
    },
    tick(state) {
      if (state.room) part.view?.tick?.(state);
    },
  };
}
