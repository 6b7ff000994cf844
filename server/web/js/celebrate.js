// Confetti over the screen for a won round or match: plain elements that
// fall by CSS animation and are removed after. With reduced motion asked
// for, a still banner instead.

import { h } from './dom.js';

const COLOURS = ['#ffd166', '#4ade80', '#7cc7ff', '#ff7a85', '#c4a7ff', '#fdfcf7'];
const PIECES = 60;
const LASTS_MS = 3200;

const reducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

/** Celebrates with `text` (read out, and shown still when motion is reduced). */
export function celebrate(text) {
  document.querySelector('.celebration')?.remove();
  const still = reducedMotion();
  const layer = h('div', { class: still ? 'celebration still' : 'celebration', role: 'status' },
    h('p', { class: 'celebration-text', text }));
  if (!still) {
    for (let i = 0; i < PIECES; i += 1) {
      const piece = h('span', { class: 'confetti', 'aria-hidden': 'true' });
      piece.style.left = `${Math.random() * 100}%`;
      piece.style.background = COLOURS[i % COLOURS.length];
      piece.style.animationDelay = `${Math.random() * 0.6}s`;
      piece.style.animationDuration = `${1.8 + Math.random() * 1.2}s`;
      piece.style.transform = `rotate(${Math.random() * 360}deg)`;
      layer.append(piece);
    }
  }
  document.body.append(layer);
  setTimeout(() => layer.remove(), LASTS_MS);
}
