// The big screen (`/tv/CODE`): a spectator seat showing the room to the
// whole living room — the hand huge, the timer, the scores, the feed, how to
// join, the podium — and following match after match with no touch. During
// a round it shows who is still thinking, who missed and who is locked out
// (players.js), counts the last five seconds down huge, and reveals the
// winning formula piece by piece.

import { h, fill, setText } from '../dom.js';
import { leftUntil, clockText, seconds, now } from '../clock.js';
import { invite, linkPieces } from './invite.js';
import { scores, lockedKey } from './players.js';
import { feedList } from './feed.js';
import { resultView } from './round.js';
import { standingsList, recapLink } from './podium.js';
import { soundToggle } from './room.js';
import { readyStage } from './ready.js';

/** Time between two pieces of the winning formula appearing. */
const REVEAL_STEP_MS = 180;

/** The last seconds of a round counted down huge. */
const FINAL_SECONDS = 5;

const reducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

/**
 * A join link that breaks only between its address and `/r/CODE`, never
 * inside the code.
 */
export function linkText(shown, cls) {
  return h('p', { class: cls }, linkPieces(shown));
}

/** The won round's result, its formula to be revealed piece by piece. */
function revealedResult(state) {
  const room = state.room;
  const res = room.result;
  const last = room.round && room.round.number >= room.roundsTotal;
  const pieces = res.formula.match(/\d+|[^\s\d]/g) ?? [res.formula];
  const steps = pieces.map((p) => h('span', { class: 'step', 'aria-hidden': 'true', text: p }));
  return {
    steps,
    el: h('div', { class: 'result' },
      h('p', { class: 'result-head', text: `🏆 ${res.name} won the round in ${seconds(res.elapsed)}` }),
      h('p', { class: 'result-formula reveal' }, h('span', { class: 'visually-hidden', text: res.formula }), steps),
      room.phase === 'between_rounds' && h('p', { class: 'next', text: last ? 'Final results coming…' : 'Next hand in a moment…' })),
  };
}

export function mount(root, { act }) {
  const mute = soundToggle(act);
  const status = h('p', { class: 'tv-status' });
  const joinText = h('div', { class: 'tv-join' });
  const qrBox = h('div', { class: 'tv-qr' });
  const inviteBox = h('section', { class: 'tv-panel tv-invite' }, qrBox, joinText);
  const stage = h('div', { class: 'tv-stage' });
  const board = h('section', { class: 'tv-panel' });
  const feed = feedList({ limit: 12, label: 'What happened' });
  const timer = h('span', { class: 'tv-timer', role: 'timer' });
  const bar = h('div', { class: 'timebar-fill' });
  const roundLabel = h('span', { class: 'tv-round' });
  const finalCount = h('div', { class: 'tv-final', 'aria-hidden': 'true' });
  fill(root, h('div', { class: 'tv' },
    h('header', { class: 'tv-header' }, h('h1', { class: 'logo tv-logo', text: 'Krypto' }), roundLabel, timer, mute.el),
    h('div', { class: 'timebar tv-bar', 'aria-hidden': 'true' }, bar),
    h('div', { class: 'tv-main' },
      h('div', { class: 'tv-left' }, status, stage, finalCount),
      h('aside', { class: 'tv-side' },
        inviteBox,
        board,
        h('section', { class: 'tv-panel tv-feed' }, h('h2', { text: 'Feed' }), feed.el)))));
  let shownInvite = null;
  let shownLocked = '';
  // The result on the stage: {key, el, steps, start}, kept across redraws
  // so its reveal runs on.
  let reveal = null;

  function tick(state) {
    const room = state.room;
    if (!room) return;
    const r = room.round;
    const left = r && !r.over && room.phase === 'playing' ? leftUntil(r.deadline) : 0;
    setText(timer, r && room.phase === 'playing' ? clockText(left) : '');
    timer.classList.toggle('low', left > 0 && left < 10_000);
    bar.style.width = r && room.phase === 'playing' ? `${(100 * left) / r.duration}%` : '0%';
    const count = stage.querySelector('.ready-count');
    if (count && room.readyCheck) fill(stage, readyStage(state));
    const cd = stage.querySelector('.tv-countdown-number');
    if (cd) setText(cd, String(Math.max(1, Math.ceil(leftUntil(room.next) / 1000))));
    const final = left > 0 && left <= FINAL_SECONDS * 1000;
    finalCount.hidden = !final;
    setText(finalCount, final ? String(Math.ceil(left / 1000)) : '');
    // A lockout ended: the scores say so.
    const locked = lockedKey(room);
    if (locked !== shownLocked) {
      shownLocked = locked;
      fill(board, h('h2', { text: 'Scores' }), scores(state, { big: true }));
    }
    if (reveal) {
      const shown = reducedMotion() ? reveal.steps.length : Math.floor((now() - reveal.start) / REVEAL_STEP_MS) + 1;
      reveal.steps.forEach((s, i) => s.classList.toggle('shown', i < shown));
    }
  }

  /** The stage's result: revealed piece by piece when a formula won. */
  function resultPart(state) {
    const res = state.room.result;
    if (!res || res.kind !== 'won' || res.noSolution || state.room.phase === 'playing') {
      reveal = null;
      return h('div', { class: 'tv-result' }, resultView(state));
    }
    const key = `${res.round}:${res.winner}:${state.room.phase}`;
    if (reveal?.key !== key) {
      const start = reveal?.key.startsWith(`${res.round}:${res.winner}:`) ? reveal.start : now();
      reveal = { key, start, ...revealedResult(state) };
    }
    return h('div', { class: 'tv-result' }, reveal.el);
  }

  return {
    update(state) {
      mute.update(state);
      const room = state.room;
      if (!room) {
        const code = state.route.code;
        setText(status, state.lobbyError
          ? `${state.lobbyError}. Looking again in a moment…`
          : `Connecting to room ${code}…`);
        // Nothing of a room that is gone stays up: no clock, scores or link.
        fill(stage);
        fill(board);
        board.hidden = true;
        finalCount.hidden = true;
        setText(roundLabel, '');
        setText(timer, '');
        bar.style.width = '0%';
        inviteBox.hidden = true;
        shownInvite = null;
        return;
      }
      setText(status, '');
      const key = room.code + state.joinUrls.join();
      if (key !== shownInvite) {
        shownInvite = key;
        const inv = invite(state, room.code);
        fill(qrBox, inv.qr);
        fill(joinText,
          h('p', { class: 'tv-join-line', text: 'Join on your phone:' }),
          linkText(inv.shown, 'tv-link'),
          h('p', { class: 'tv-join-line' }, 'code ', h('span', { class: 'tv-code', text: room.code })));
      }
      const r = room.round;
      setText(roundLabel, r && room.phase !== 'lobby' && room.phase !== 'finished'
        ? `Round ${r.number} of ${room.roundsTotal}` : '');
      // In the waiting room the invitation fills the stage instead.
      inviteBox.hidden = room.phase === 'lobby';
      board.hidden = false;
      fill(board, h('h2', { text: 'Scores' }), scores(state, { big: true }));
      shownLocked = lockedKey(room);
      feed.update(state);
      switch (room.phase) {
        case 'lobby': {
          const seated = room.players.filter((p) => !p.spectator);
          const inv = invite(state, room.code);
          fill(stage,
            h('p', { class: 'tv-headline', text: 'Join on your phone: scan, or open the link' }),
            h('div', { class: 'tv-lobby' }, inv.qr,
              h('div', {},
                linkText(inv.shown, 'tv-lobby-link'),
                h('p', { class: 'tv-join-line', text: 'or type the room code' }),
                h('p', { class: 'tv-big-code', text: room.code }))),
            h('ul', { class: 'tv-names' }, seated.map((p) => h('li', { text: p.bot ? `🤖 ${p.name}` : p.name }))),
            h('p', { class: 'tv-sub', text: seated.length ? 'Waiting for the host to start…' : 'Nobody here yet.' }));
          break;
        }
        case 'countdown':
          fill(stage, h('p', { class: 'tv-headline', text: 'Get ready!' }), h('p', { class: 'tv-countdown-number' }));
          break;
        case 'finished':
          if (room.readyCheck) {
            fill(stage, readyStage(state));
            break;
          }
          fill(stage, h('p', { class: 'tv-headline', text: '🏁 Match over' }), standingsList(state, { big: true }),
            recapLink(state, { big: true }),
            h('p', { class: 'tv-sub', text: 'A rematch starts here when the host says so.' }));
          break;
        default:
          fill(stage,
            r && h('div', { class: 'tv-objective' }, h('span', { class: 'objective-label', text: 'Make' }), h('span', { class: 'tv-objective-number', text: String(r.objective) })),
            r && h('ul', { class: 'tv-hand', 'aria-label': 'The hand' }, r.cards.map((c) => h('li', { class: 'card tv-card', text: String(c) }))),
            resultPart(state));
      }
      tick(state);
    },
    tick,
  };
}
