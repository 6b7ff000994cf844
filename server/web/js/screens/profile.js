// A player's profile (`/p/NAME`), read from the HTTP API.

import { h, fill } from '../dom.js';
import { at } from '../address.js';
import { seconds } from '../clock.js';
import { ordinal } from '../words.js';
import { ratingChange, ratingText, UNRATED_WHY } from '../ratings.js';
import { backToGame } from './leaderboard.js';
import { MATCH_ID } from './recap.js';

export async function show(root, name) {
  document.title = `${name} · Krypto`;
  const body = h('div', { 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Loading…' }));
  const title = h('h1', { text: name });
  fill(root,
    backToGame(),
    h('header', { class: 'page-header' }, h('a', { href: at('/'), class: 'logo small-logo', text: 'Krypto' }), title),
    body,
    h('nav', { class: 'footer-links' }, h('a', { href: at('/leaderboard'), text: 'Leaderboard' })));
  try {
    const res = await fetch(at(`/api/players/${encodeURIComponent(name)}`));
    const p = await res.json();
    if (!res.ok) throw new Error(p?.error?.message ?? `error ${res.status}`);
    title.textContent = p.name;
    const stat = (label, value, note) => h('div', { class: 'stat' }, h('dt', { text: label }), h('dd', { text: value }),
      note && h('dd', { class: 'hint', text: note }));
    const provisional = p.rating !== null && !p.ranked;
    const ratingNote = p.rating === null ? `Unrated: ${UNRATED_WHY.toLowerCase()}`
      : provisional ? `Provisional (?) until ${p.min_rated_matches ?? 'a few'} rated matches against ${p.min_opponents ?? 'a few'} different people.`
        : null;
    const deviation = typeof p.rating_deviation === 'number' ? `± ${Math.round(p.rating_deviation)}` : null;
    const unratedRows = p.recent_matches.some((m) => m.rating_after === null);
    fill(body,
      h('section', { class: 'card-panel' },
        h('dl', { class: 'stats' },
          stat('Rating', p.rating === null ? 'unrated' : ratingText(p.rating, provisional),
            [p.rating === null ? null : deviation, ratingNote].filter(Boolean).join(' · ')),
          stat('Matches', String(p.matches)),
          stat('Rated matches', String(p.rated_matches)),
          stat('Matches won', String(p.wins)),
          stat('Rounds won', String(p.rounds_won)),
          stat('Fastest solve', p.fastest_ms === null ? '—' : seconds(p.fastest_ms)))),
      h('section', { class: 'card-panel' },
        h('h2', { text: 'Recent matches' }),
        p.recent_matches.length === 0 ? h('p', { class: 'hint', text: 'No finished matches yet.' })
          : h('table', {},
            h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'When' }), h('th', { scope: 'col', text: 'Place' }),
              h('th', { scope: 'col', class: 'num', text: 'Score' }), h('th', { scope: 'col', class: 'num', text: 'Rating' }),
              h('th', { scope: 'col', text: 'Recap' }))),
            h('tbody', {}, p.recent_matches.map((m) => h('tr', {},
              h('td', { text: new Date(m.finished_at).toLocaleString() }),
              h('td', { text: `${ordinal(m.rank)} of ${m.players}` }),
              h('td', { class: 'num', text: String(m.score) }),
              h('td', { class: 'num', text: m.rating_after === null ? 'unrated' : ratingChange(m.rating_before, m.rating_after) }),
              h('td', {}, MATCH_ID.test(m.match) && h('a', { href: at(`/m/${m.match}`), class: 'recap-row-link', text: 'Recap' })))))),
        unratedRows && p.rating !== null && h('p', { class: 'hint', text: `Unrated: ${UNRATED_WHY.toLowerCase()}` })));
  } catch (e) {
    fill(body, h('p', { class: 'error', role: 'alert', text: `Could not load ${name}: ${e.message}` }));
  }
}
