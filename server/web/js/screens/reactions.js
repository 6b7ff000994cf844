// Reactions: a tap on one of the room's few emoji (never free text) floats
// it, with the name of who sent it, over every screen in the room — the
// phones and the TV. The server limits how often one member may react.

import { h } from '../dom.js';
import { LIMITS } from '../limits.js';

/** How long a reaction floats before it is removed. */
const FLOAT_MS = 2600;

/** The row of reaction buttons for a phone. */
export function reactionBar(act) {
  return h('div', { class: 'reactions', role: 'group', 'aria-label': 'Reactions' },
    LIMITS.reactions.map((emoji) => h('button', {
      type: 'button', class: 'reaction-button', on: { click: () => act.react(emoji) }, text: emoji,
    })));
}

/** Floats `emoji` from `name` up the screen (in place, with reduced motion). */
export function floatReaction(emoji, name) {
  let layer = document.querySelector('.floating');
  if (!layer) {
    layer = h('div', { class: 'floating', 'aria-hidden': 'true' });
    document.body.append(layer);
  }
  const bubble = h('div', { class: 'float' }, h('span', { class: 'float-emoji', text: emoji }), h('span', { class: 'float-name', text: name }));
  bubble.style.left = `${8 + Math.random() * 78}%`;
  layer.append(bubble);
  setTimeout(() => bubble.remove(), FLOAT_MS);
}
