// The first screen on a new phone: choose the name others will see.

import { h, fill } from '../dom.js';
import { LIMITS } from '../limits.js';

export function mount(root, { act }) {
  const input = h('input', {
    id: 'name', name: 'name', type: 'text', maxlength: LIMITS.name_chars, autocomplete: 'nickname',
    autocapitalize: 'words', spellcheck: 'false', required: true, enterkeyhint: 'go',
  });
  const error = h('p', { class: 'error', role: 'alert' });
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
  fill(root, h('header', { class: 'hero' },
    h('h1', { class: 'logo', text: 'Krypto' }),
    h('p', { class: 'tagline', text: 'Five cards, one target. Be the first to make it.' })), form);
  input.focus();
  return {
    update(state) {
      error.textContent = state.nameError ?? '';
      button.disabled = state.conn !== 'open' && state.conn !== 'connecting';
    },
  };
}
