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

/** Most reactions floating at once; past it the oldest goes. */
const MAX_FLOATING = 12;
/** The same emoji again within this time adds to its bubble's count. */
const MERGE_MS = 700;
/** The latest bubble of each emoji: when it was drawn, its count. */
const latest = new Map();

/**
 * Floats `emoji` from `name` up the screen (in place, with reduced motion).
 * A crowd's reactions are coalesced, so a TV draws a few bubbles a second
 * however many arrive: the same emoji within MERGE_MS counts up on the
 * bubble already floating ("×3"), and at most MAX_FLOATING float at once.
 */
export function floatReaction(emoji, name) {
  let layer = document.querySelector('.floating');
  if (!layer) {
    layer = h('div', { class: 'floating', 'aria-hidden': 'true' });
    document.body.append(layer);
  }
  const now = performance.now();
  const last = latest.get(emoji);
  if (last && now - last.at < MERGE_MS && last.bubble.isConnected) {
    last.count += 1;
    last.counter.textContent = `×${last.count}`;
    return;
  }
  while (layer.childElementCount >= MAX_FLOATING) layer.firstElementChild.remove();
  const counter = h('span', { class: 'float-count' });
  const bubble = h('div', { class: 'float' },
    h('span', { class: 'float-emoji', text: emoji }), h('span', { class: 'float-name', text: name }), counter);
  bubble.style.left = `${8 + Math.random() * 78}%`;
  layer.append(bubble);
  latest.set(emoji, { bubble, counter, at: now, count: 1 });
  setTimeout(() => bubble.remove(), FLOAT_MS);
}
