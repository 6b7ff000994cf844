// The leaderboards (`/leaderboard`), read from the HTTP API.

import { h, fill } from '../dom.js';
import { at } from '../address.js';
import { seconds } from '../clock.js';
import { ratingText } from '../ratings.js';

const METRICS = { rating: 'Rating', wins: 'Matches won', rounds: 'Rounds won', fastest: 'Fastest solve' };
const PERIODS = { all: 'All time', month: 'This month', week: 'This week', day: 'Today' };

function valueText(metric, value) {
  if (metric === 'fastest') return seconds(value);
  if (metric === 'rating') return ratingText(value);
  return String(Math.round(value));
}

/**
 * The way back to the game, above the page: the start page, where the
 * server gives the player their seat back if they hold one.
 */
export function backToGame() {
  return h('nav', { class: 'back-link', 'aria-label': 'Back' }, h('a', { href: at('/'), text: '← Back to the game' }));
}

export function show(root) {
  const params = new URLSearchParams(location.search);
  let metric = METRICS[params.get('metric')] ? params.get('metric') : 'rating';
  let period = PERIODS[params.get('period')] ? params.get('period') : 'all';
  const metricTabs = h('div', { class: 'tabs', role: 'group', 'aria-label': 'Board' });
  const periodTabs = h('div', { class: 'tabs', role: 'group', 'aria-label': 'Period' });
  const table = h('div', { class: 'board', 'aria-live': 'polite' });
  document.title = 'Leaderboard · Krypto';
  fill(root,
    backToGame(),
    h('header', { class: 'page-header' }, h('a', { href: at('/'), class: 'logo small-logo', text: 'Krypto' }), h('h1', { text: 'Leaderboard' })),
    h('section', { class: 'card-panel' }, metricTabs, periodTabs, table),
    h('nav', { class: 'footer-links' }, h('a', { href: at('/conduct'), text: 'Fair play: the rules' })));

  function tabs(el, choices, current, pick) {
    fill(el, Object.entries(choices).map(([k, label]) => h('button', {
      type: 'button', class: 'tab', 'aria-pressed': String(k === current), on: { click: () => pick(k) }, text: label,
    })));
  }

  async function load() {
    tabs(metricTabs, METRICS, metric, (k) => { metric = k; load(); });
    tabs(periodTabs, PERIODS, period, (k) => { period = k; load(); });
    history.replaceState(null, '', at(`/leaderboard?metric=${metric}&period=${period}`));
    fill(table, h('p', { class: 'hint', text: 'Loading…' }));
    try {
      const res = await fetch(at(`/api/leaderboard?metric=${metric}&period=${period}&limit=50`));
      const body = await res.json();
      if (!res.ok) throw new Error(body?.error?.message ?? `error ${res.status}`);
      if (body.rows.length === 0) {
        fill(table, h('p', { class: 'hint', text: metric === 'rating'
          ? 'Nobody is ranked yet: a rating is provisional until a few rated matches against different people.'
          : 'Nothing here yet: boards count rated matches, which need two or more people who answered (a match against bots only is not rated).' }));
        return;
      }
      fill(table, h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Rank' }), h('th', { scope: 'col', text: 'Player' }),
          h('th', { scope: 'col', class: 'num', text: METRICS[metric] }), h('th', { scope: 'col', class: 'num', text: 'Rated matches' }))),
        h('tbody', {}, body.rows.map((r) => h('tr', {},
          h('td', { text: String(r.rank) }),
          h('td', {}, h('a', { href: at(`/p/${encodeURIComponent(r.name)}`), text: r.name })),
          h('td', { class: 'num', text: valueText(metric, r.value) }),
          h('td', { class: 'num', text: String(r.matches) }))))),
      h('p', { class: 'hint', text: `${body.total} player${body.total === 1 ? '' : 's'} on this board.` }),
      metric === 'rating' && h('p', { class: 'hint', text: 'Players with a provisional rating (too few rated matches against different people) are not listed yet.' }));
    } catch (e) {
      fill(table, h('p', { class: 'error', role: 'alert', text: `Could not load the board: ${e.message}` }));
    }
  }
  load();
}
