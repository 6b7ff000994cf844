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
        unratedRows && p.rating !== null && h('p', { class: 'hint', text: `Unrated: ${UNRATED_WHY.toLowerCase()}` })),
      challengesPanel(p.challenges ?? []),
      runsPanel(p.runs ?? []));
  } catch (e) {
    fill(body, h('p', { class: 'error', role: 'alert', text: `Could not load ${name}: ${e.message}` }));
  }
}

/** A time and its misses, as the daily and challenges show them. */
function timed(t) {
  return t.misses ? `${seconds(t.elapsed_ms)} · ${t.misses} miss${t.misses === 1 ? '' : 'es'}` : seconds(t.elapsed_ms);
}

/** The player's newest challenges, each with the answers that came in. */
function challengesPanel(challenges) {
  return h('section', { class: 'card-panel profile-challenges' },
    h('h2', { text: 'Challenges' }),
    challenges.length === 0 ? h('p', { class: 'hint', text: 'No challenges sent yet.' })
      : h('ul', { class: 'challenge-list' }, challenges.map((c) => h('li', { class: 'challenge-entry' },
        h('p', {},
          h('a', { href: at(`/c/${c.code}`), text: `/c/${c.code}` }),
          h('span', { class: 'hint', text: ` · ${c.date} · to beat ${timed(c.to_beat)}` })),
        c.answers.length === 0 ? h('p', { class: 'hint', text: 'No answers yet.' })
          : h('table', {},
            h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Name' }), h('th', { scope: 'col', class: 'num', text: 'Time' }),
              h('th', { scope: 'col', class: 'num', text: 'Misses' }))),
            h('tbody', {}, c.answers.map((a) => h('tr', { class: a.elapsed_ms < c.to_beat.elapsed_ms ? 'beat' : '' },
              h('td', { text: a.name }),
              h('td', { class: 'num', text: seconds(a.elapsed_ms) }),
              h('td', { class: 'num', text: String(a.misses) }))))),
        c.answers_total > c.answers.length && h('p', { class: 'hint', text: `${c.answers_total} answers in all` })))));
}

/** The best run of each recent day. */
function runsPanel(runs) {
  return h('section', { class: 'card-panel profile-runs' },
    h('h2', { text: 'Solo runs: best of each day' }),
    runs.length === 0 ? h('p', { class: 'hint', text: 'No runs yet.' })
      : h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Day' }), h('th', { scope: 'col', class: 'num', text: 'Solved' }),
          h('th', { scope: 'col', class: 'num', text: 'Misses' }), h('th', { scope: 'col', class: 'num', text: 'Best combo' }),
          h('th', { scope: 'col', class: 'num', text: 'Runs' }))),
        h('tbody', {}, runs.map((r) => h('tr', {},
          h('td', { text: r.date }),
          h('td', { class: 'num', text: String(r.score) }),
          h('td', { class: 'num', text: String(r.misses) }),
          h('td', { class: 'num', text: String(r.best_combo) }),
          h('td', { class: 'num', text: String(r.runs) }))))));
}
