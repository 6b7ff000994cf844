// The leaderboards (`/leaderboard`), read from the HTTP API: those of
// rated matches (`/api/leaderboard`), the day's Krypto (`/api/daily/board`,
// today's only: it has no period) and solo runs (`/api/runs/board`).

import { h, fill } from '../dom.js';
import { at } from '../address.js';
import { seconds } from '../clock.js';
import { ratingText } from '../ratings.js';
import { stopwatch } from '../solo.js';

const METRICS = {
  rating: 'Rating', wins: 'Matches won', rounds: 'Rounds won', fastest: 'Fastest solve',
  daily: 'Today’s Krypto', runs: 'Best run',
};
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
    // The day's Krypto is one day's board: no period to choose.
    periodTabs.hidden = metric === 'daily';
    tabs(periodTabs, PERIODS, period, (k) => { period = k; load(); });
    history.replaceState(null, '', at(metric === 'daily' ? '/leaderboard?metric=daily' : `/leaderboard?metric=${metric}&period=${period}`));
    fill(table, h('p', { class: 'hint', text: 'Loading…' }));
    try {
      const path = {
        daily: '/api/daily/board?limit=50',
        runs: `/api/runs/board?period=${period}&limit=50`,
      }[metric] ?? `/api/leaderboard?metric=${metric}&period=${period}&limit=50`;
      const res = await fetch(at(path));
      const body = await res.json();
      if (!res.ok) throw new Error(body?.error?.message ?? `error ${res.status}`);
      if (metric === 'daily' || metric === 'runs') {
        fill(table, ...soloBoard(metric, body));
        return;
      }
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

/** The rows of the day's Krypto or of the runs, with where to play. */
function soloBoard(metric, body) {
  const daily = metric === 'daily';
  const play = daily
    ? h('p', { class: 'hint' }, h('a', { href: at('/daily'), text: 'Play today’s Krypto' }))
    : h('p', { class: 'hint' }, h('a', { href: at('/run'), text: 'Start a run' }));
  const title = daily && body.number ? h('p', { class: 'hint', text: `Krypto #${body.number}, ${body.date}` }) : null;
  if (body.rows.length === 0) {
    return [title, h('p', { class: 'hint', text: daily ? 'Nobody has solved it yet.' : 'No run finished yet.' }), play];
  }
  const head = daily
    ? [h('th', { scope: 'col', class: 'num', text: 'Time' }), h('th', { scope: 'col', class: 'num', text: 'Misses' })]
    : [h('th', { scope: 'col', class: 'num', text: 'Hands solved' })];
  const cells = (r) => (daily
    ? [h('td', { class: 'num', text: stopwatch(r.elapsed_ms) }), h('td', { class: 'num', text: String(r.misses) })]
    : [h('td', { class: 'num', text: String(r.score) })]);
  return [title,
    h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Rank' }), h('th', { scope: 'col', text: 'Player' }), ...head)),
      h('tbody', {}, body.rows.map((r) => h('tr', {},
        h('td', { text: String(r.rank) }),
        h('td', {}, h('a', { href: at(`/p/${encodeURIComponent(r.name)}`), text: r.name })),
        ...cells(r))))),
    play];
}
