// The room's feed (joins, tries, wins) and its chat. Player text goes in as
// text nodes only.

import { h, fill } from '../dom.js';
import { LIMITS } from '../limits.js';

/** A feed list; `update(state)` redraws it when new lines came. */
export function feedList({ limit = 40, label = 'Room feed' } = {}) {
  // Focusable: it scrolls, and keyboard users must be able to scroll it.
  const list = h('ol', { class: 'feed', 'aria-label': label, 'aria-live': 'polite', tabindex: 0 });
  let lastKey = null;
  return {
    el: list,
    update(state) {
      const lines = state.room?.feed ?? [];
      const key = lines.length ? lines[lines.length - 1].key : null;
      if (key === lastKey) return;
      lastKey = key;
      fill(list, lines.slice(-limit).map((l) => h('li', { class: `feed-line ${l.kind}` },
        l.kind === 'chat' ? [h('b', { text: `${l.name}: ` }), l.text] : l.text)));
      list.scrollTop = list.scrollHeight;
    },
  };
}

/** The feed with a chat box under it. */
export function chatPanel(act) {
  const feed = feedList();
  const input = h('input', {
    id: 'chat', type: 'text', maxlength: LIMITS.chat_chars, autocomplete: 'off', enterkeyhint: 'send',
    placeholder: 'Say something…',
  });
  const form = h('form', {
    class: 'chat-form',
    on: {
      submit: (e) => {
        e.preventDefault();
        if (act.chat(input.value)) input.value = '';
      },
    },
  },
  h('label', { for: 'chat', class: 'visually-hidden', text: 'Chat message' }),
  input,
  h('button', { type: 'submit', class: 'secondary', text: 'Send' }));
  return {
    el: h('section', { class: 'card-panel chat' }, h('h2', { text: 'Feed and chat' }), feed.el, form),
    update: feed.update,
  };
}
