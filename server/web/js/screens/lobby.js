// The lobby: create a room, join one by its code, or pick a public one.

import { h, fill, setText } from '../dom.js';
import { at } from '../address.js';
import { VARIANTS } from '../words.js';
import { devicePanel } from './device.js';
import { LIMITS } from '../limits.js';

export function mount(root, { act }) {
  const code = h('input', {
    id: 'code', name: 'code', type: 'text', maxlength: LIMITS.room_code_chars, autocomplete: 'off', autocapitalize: 'characters',
    spellcheck: 'false', class: 'code-input', placeholder: 'ABCDE', enterkeyhint: 'go',
  });
  const error = h('p', { class: 'error', role: 'alert' });
  const notice = h('p', { class: 'notice', role: 'status' });
  const hello = h('p', { class: 'hello' });
  const publicBox = h('input', { type: 'checkbox', id: 'public' });
  const rooms = h('div', { class: 'rooms' });

  const joinForm = h('form', {
    class: 'card-panel',
    on: {
      submit: (e) => {
        e.preventDefault();
        act.joinRoom(code.value, e.submitter?.value === 'watch');
      },
    },
  },
  h('h2', { text: 'Join a room' }),
  h('label', { for: 'code', text: 'Room code' }),
  code,
  h('div', { class: 'row' },
    h('button', { type: 'submit', class: 'primary big', value: 'play', text: 'Join' }),
    h('button', { type: 'submit', class: 'secondary big', value: 'watch', text: 'Watch' })));

  const createPanel = h('section', { class: 'card-panel' },
    h('h2', { text: 'Host a game' }),
    h('button', { type: 'button', class: 'primary big', on: { click: () => act.createRoom(publicBox.checked) }, text: 'Create a room' }),
    h('div', { class: 'check' }, publicBox, h('label', { for: 'public', text: 'List it in public rooms' })));

  const publicPanel = h('section', { class: 'card-panel' },
    h('div', { class: 'row spread' },
      h('h2', { text: 'Public rooms' }),
      h('button', { type: 'button', class: 'secondary small', on: { click: act.listRooms }, text: 'Refresh' })),
    rooms);

  const soloPanel = h('section', { class: 'card-panel' },
    h('h2', { text: 'Play alone' }),
    h('div', { class: 'row' },
      h('a', { href: at('/daily'), class: 'button primary big', text: 'Today’s Krypto' }),
      h('a', { href: at('/run'), class: 'button secondary big', text: 'Solo run (3 min)' }),
      h('a', { href: at('/practice'), class: 'button secondary big', text: 'Practice' })));

  const device = devicePanel(act);
  fill(root,
    h('header', { class: 'hero' }, h('h1', { class: 'logo', text: 'Krypto' }), hello),
    device.box, device.list, notice, error, joinForm, createPanel, soloPanel, publicPanel,
    h('nav', { class: 'footer-links' },
      h('a', { href: at('/leaderboard'), text: 'Leaderboard' }),
      ' · ',
      h('a', { href: at('/conduct'), text: 'Fair play' }),
      device.footer,
      ' · ',
      h('button', { type: 'button', class: 'link', on: { click: act.forgetMe }, text: 'Not you? Change player' })));

  let shownRooms = null;
  let shownMore = null;
  return {
    update(state) {
      setText(hello, state.me ? `Hi ${state.me.name}!` : 'Connecting…');
      setText(error, state.lobbyError ?? '');
      setText(notice, state.notice ?? '');
      const shown = `${state.rooms?.length}:${state.roomsNext}:${Boolean(state.roomsMoreId)}`;
      if (state.rooms !== shownRooms || shown !== shownMore) {
        shownRooms = state.rooms;
        shownMore = shown;
        fill(rooms, roomList(state.rooms, act), state.rooms?.length > 0 && state.roomsNext && h('button', {
          type: 'button', class: 'secondary more-rooms', disabled: Boolean(state.roomsMoreId), on: { click: act.moreRooms },
          text: state.roomsMoreId ? 'Loading more rooms…' : 'More rooms',
        }));
      }
      device.update(state);
    },
    tick: device.tick,
  };
}

function roomList(list, act) {
  if (list === null) return h('p', { class: 'hint', text: 'Loading…' });
  if (list.length === 0) return h('p', { class: 'hint', text: 'No public rooms right now. Create one!' });
  return h('ul', { class: 'room-list' }, list.map((r) => h('li', { class: 'room-item' },
    h('div', {},
      h('span', { class: 'code-small', text: r.code }),
      h('span', { class: 'muted', text: ` ${VARIANTS[r.settings.variant] ?? r.settings.variant} · host ${r.host} · ${r.players}/${r.max_players} players · ${r.state === 'lobby' ? 'waiting' : 'playing'}` })),
    h('button', { type: 'button', class: 'primary', 'aria-label': `Join room ${r.code}`, on: { click: () => act.joinRoom(r.code) }, text: 'Join' }))));
}
