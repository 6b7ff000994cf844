// The big screen (`/tv/CODE`): a spectator seat showing the room to the
// whole living room — the hand huge, the timer, the scores, the feed, how to
// join, the podium — and following match after match with no touch.

import { h, fill, setText } from '../dom.js';
import { leftUntil, clockText } from '../clock.js';
import { invite } from './invite.js';
import { scores } from './players.js';
import { feedList } from './feed.js';
import { resultView } from './round.js';
import { standingsList } from './podium.js';

export function mount(root) {
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
  fill(root, h('div', { class: 'tv' },
    h('header', { class: 'tv-header' }, h('h1', { class: 'logo tv-logo', text: 'Krypto' }), roundLabel, timer),
    h('div', { class: 'timebar tv-bar', 'aria-hidden': 'true' }, bar),
    h('div', { class: 'tv-main' },
      h('div', { class: 'tv-left' }, status, stage),
      h('aside', { class: 'tv-side' },
        inviteBox,
        board,
        h('section', { class: 'tv-panel tv-feed' }, h('h2', { text: 'Feed' }), feed.el)))));
  let shownInvite = null;

  function tick(state) {
    const room = state.room;
    if (!room) return;
    const r = room.round;
    const left = r && !r.over && room.phase === 'playing' ? leftUntil(r.deadline) : 0;
    setText(timer, r && room.phase === 'playing' ? clockText(left) : '');
    timer.classList.toggle('low', left > 0 && left < 10_000);
    bar.style.width = r && room.phase === 'playing' ? `${(100 * left) / r.duration}%` : '0%';
    const cd = stage.querySelector('.tv-countdown-number');
    if (cd) setText(cd, String(Math.max(1, Math.ceil(leftUntil(room.next) / 1000))));
  }

  return {
    update(state) {
      const room = state.room;
      if (!room) {
        const code = state.route.code;
        setText(status, state.lobbyError
          ? `${state.lobbyError}. Looking again in a moment…`
          : `Connecting to room ${code}…`);
        fill(stage);
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
          h('p', { class: 'tv-link', text: inv.shown }),
          h('p', { class: 'tv-join-line' }, 'code ', h('span', { class: 'tv-code', text: room.code })));
      }
      const r = room.round;
      setText(roundLabel, r && room.phase !== 'lobby' && room.phase !== 'finished'
        ? `Round ${r.number} of ${room.roundsTotal}` : '');
      // In the waiting room the invitation fills the stage instead.
      inviteBox.hidden = room.phase === 'lobby';
      fill(board, h('h2', { text: 'Scores' }), scores(state, { big: true }));
      feed.update(state);
      switch (room.phase) {
        case 'lobby': {
          const seated = room.players.filter((p) => !p.spectator);
          const inv = invite(state, room.code);
          fill(stage,
            h('p', { class: 'tv-headline', text: 'Join on your phone: scan, or open the link' }),
            h('div', { class: 'tv-lobby' }, inv.qr,
              h('div', {},
                h('p', { class: 'tv-lobby-link', text: inv.shown }),
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
          fill(stage, h('p', { class: 'tv-headline', text: '🏁 Match over' }), standingsList(state, { big: true }),
            h('p', { class: 'tv-sub', text: 'A rematch starts here when the host says so.' }));
          break;
        default:
          fill(stage,
            r && h('div', { class: 'tv-objective' }, h('span', { class: 'objective-label', text: 'Make' }), h('span', { class: 'tv-objective-number', text: String(r.objective) })),
            r && h('ul', { class: 'tv-hand', 'aria-label': 'The hand' }, r.cards.map((c) => h('li', { class: 'card tv-card', text: String(c) }))),
            h('div', { class: 'tv-result' }, resultView(state)));
      }
      tick(state);
    },
    tick,
  };
}
