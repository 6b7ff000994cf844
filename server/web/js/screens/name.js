// The first screen on a new phone: choose the name others will see, come
// back as the player this browser had before, or sign in with the code
// another device of yours shows (the same name on this device too).

import { h, fill, setText } from '../dom.js';
import { LIMITS } from '../limits.js';

export function mount(root, { act }) {
  const input = h('input', {
    id: 'name', name: 'name', type: 'text', maxlength: LIMITS.name_chars, autocomplete: 'nickname',
    autocapitalize: 'words', spellcheck: 'false', required: true, enterkeyhint: 'go',
  });
  const error = h('p', { class: 'error', role: 'alert' });
  const joining = h('p', { class: 'joining' });
  const button = h('button', { type: 'submit', class: 'primary big', text: 'Let’s play' });
  const form = h('form', {
    class: 'card-panel name-form',
    on: {
      submit: (e) => {
        e.preventDefault();
        if (input.value.trim()) act.setName(input.value);
      },
    },
  },
  h('label', { for: 'name', text: 'Name' }),
  input,
  h('p', { class: 'hint', text: `Up to ${LIMITS.name_chars} letters, digits, spaces, - or _. Others see it on the scoreboard.` }),
  error,
  button);

  const previous = h('section', { class: 'card-panel previous', 'aria-label': 'Players on this browser' });
  let shownPrevious = null;

  const code = h('input', {
    id: 'device-code', name: 'device-code', type: 'text', autocomplete: 'one-time-code',
    autocapitalize: 'characters', spellcheck: 'false', class: 'code-input', placeholder: 'K7QX-M2PD', enterkeyhint: 'go',
  });
  const codeForm = h('form', {
    class: 'code-form',
    on: {
      submit: (e) => {
        e.preventDefault();
        act.useCode(code.value);
      },
    },
  },
  h('label', { for: 'device-code', text: 'Code from your other device' }),
  code,
  h('p', { class: 'hint', text: 'On the device where you play already: “Use my name on another device”. The code works once, for a few minutes.' }),
  h('button', { type: 'submit', class: 'primary', text: 'Use my name here' }));
  const other = h('details', { class: 'card-panel other-device' },
    h('summary', { text: 'I already play on another device' }), codeForm);

  fill(root, h('header', { class: 'hero' },
    h('h1', { class: 'logo', text: 'Krypto' }),
    h('p', { class: 'tagline', text: 'Five cards, one target. Be the first to make it.' })),
  joining, form, previous, other);
  let prefilled = null;
  input.focus();
  return {
    update(state) {
      setText(error, state.nameError ?? '');
      button.disabled = !['open', 'connecting', 'idle'].includes(state.conn);
      const r = state.route;
      setText(joining, r.kind === 'room' ? `Joining room ${r.code}: choose your name first.` : '');
      joining.hidden = r.kind !== 'room';
      const names = state.previous.map((p) => p.name);
      previous.hidden = names.length === 0;
      if (names.join('\n') !== shownPrevious) {
        shownPrevious = names.join('\n');
        fill(previous, names.map((n) => h('button', {
          type: 'button', class: 'secondary big', on: { click: () => act.usePrevious(n) }, text: `Play as ${n} again`,
        })));
      }
      if (state.linkCode && state.linkCode !== prefilled) {
        prefilled = state.linkCode;
        code.value = state.linkCode;
        other.open = true;
        code.focus();
      }
    },
  };
}
