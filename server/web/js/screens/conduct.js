// The written rules of fair play (`/conduct`): static text, no server state.

import { h, fill } from '../dom.js';
import { at } from '../address.js';
import { backToGame } from './leaderboard.js';

export function show(root) {
  document.title = 'Fair play · Krypto';
  const p = (text) => h('p', { text });
  fill(root,
    backToGame(),
    h('header', { class: 'page-header' }, h('a', { href: at('/'), class: 'logo small-logo', text: 'Krypto' }), h('h1', { text: 'Fair play' })),
    h('section', { class: 'card-panel' },
      p('krypto ships a solver (`krypto solve`). It is welcome offline, in private rooms where everyone at the table agrees, and against bots.'),
      p('It is not welcome in rated play, the daily, challenges or solo runs: those boards are for what people find.'),
      p('A program that plays must say `bot` in its hello (as `krypto bots` does). A bot is never rated and never on a board.'),
      p('The server watches for answers faster than a person can read a hand and type them, for timing too even to be a person\'s, and for the hardest hands solved fast too often. A player it flags leaves the public boards at once, pending a person\'s review, and keeps playing; nothing about it shows on their profile. A reviewer clears them (back on the boards) or bans them (off the boards for good, never rated, and every rating they took given back to their opponents).')),
    h('nav', { class: 'footer-links' }, h('a', { href: at('/leaderboard'), text: 'Leaderboard' })));
}
