// A match's recap (`/m/ID`), read from `GET /api/matches/ID`: round by
// round the hand, who won in how long, who missed, and the hand's distinct
// solutions with the winner's, the shortest and one nobody found marked;
// the whole recap as CSV or JSON for a teacher. Laid out in one column for
// phones; a TV gets bigger type from the same page (app.css).

import { h, fill } from '../dom.js';
import { at } from '../address.js';
import { seconds } from '../clock.js';
import { ordinal, listOf } from '../words.js';
import { backToGame } from './leaderboard.js';

/** A match id as the server mints them (a UUID); anything else is never sent. */
export const MATCH_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One CSV cell: quoted, and never read by a spreadsheet as a formula. */
function cell(value) {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replaceAll('"', '""')}"`;
}

/** The recap as CSV: one line per judged answer (a round nobody answered: one line). */
export function recapCsv(recap) {
  const head = ['round', 'objective', 'cards', 'winner', 'winner_seconds', 'who', 'seconds', 'right', 'formula', 'solutions'];
  const lines = [head.join(',')];
  for (const r of recap.rounds) {
    const base = [r.number, r.objective, r.cards.join(' '), r.winner ?? '', r.elapsed_ms === null ? '' : (r.elapsed_ms / 1000).toFixed(1)];
    const rows = r.attempts.length ? r.attempts : [null];
    for (const a of rows) {
      lines.push([...base,
        a ? a.who : '', a ? (a.elapsed_ms / 1000).toFixed(1) : '', a ? (a.right ? 'yes' : 'no') : '',
        a?.formula ?? '', r.solutions_total].map(cell).join(','));
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * A download link for `href` as a file called `name`. The CSV is a data:
 * address (the page's CSP lets it fetch nothing but its own server, and a
 * recap's CSV is bounded: at most 200 answers a round), the JSON the API's.
 */
function download(label, name, href) {
  return h('a', { class: 'button secondary', href, download: name, text: label });
}

function roundView(r) {
  // Wrong answers past the server's retention come as counts per player (`pruned`).
  const pruned = Array.isArray(r.pruned) ? r.pruned : [];
  const missed = [...new Set([...r.attempts.filter((a) => !a.right).map((a) => a.who), ...pruned.map((p) => p.who)])];
  const rights = r.attempts.filter((a) => a.right);
  const outcome = r.winner === null ? 'Nobody solved it in time.'
    : r.no_solution ? `${r.winner} saw there was no solution, in ${seconds(r.elapsed_ms)}.`
      : `${r.winner} won in ${seconds(r.elapsed_ms)}.`;
  const marks = r.marks ?? {};
  // A space before each tag: a line may break there on a narrow phone.
  const tags = (i) => [
    i === marks.winner && [' ', h('span', { class: 'tag mark-winner', text: '★ winner’s' })],
    i === marks.shortest && [' ', h('span', { class: 'tag mark-shortest', text: 'shortest' })],
    i === marks.unfound && [' ', h('span', { class: 'tag mark-unfound', text: 'nobody found' })],
  ];
  const marked = [marks.winner, marks.shortest, marks.unfound].filter((i) => typeof i === 'number');
  const picked = [...new Set(marked)].sort((a, b) => a - b);
  const solution = (i) => h('li', { class: 'recap-solution' }, h('code', { class: 'formula-text', text: r.solutions[i] }), tags(i));
  const more = r.solutions_total > r.solutions.length ? ` (the first ${r.solutions.length} of ${r.solutions_total})` : '';
  return h('section', { class: 'card-panel recap-round', 'data-round': String(r.number) },
    h('h2', {}, `Round ${r.number}: make `, h('strong', { class: 'recap-objective', text: String(r.objective) })),
    h('ul', { class: 'hand recap-hand', 'aria-label': 'The hand' }, r.cards.map((c) => h('li', { class: 'card', text: String(c) }))),
    h('p', { class: 'recap-outcome', text: outcome }),
    rights.length > 1 && h('p', { class: 'recap-rights', text: `Solved: ${rights.map((a) => `${a.who} (${seconds(a.elapsed_ms)})`).join(', ')}` }),
    h('p', { class: 'recap-missed', text: missed.length ? `Missed: ${listOf(missed)}` : 'Nobody missed.' }),
    pruned.length > 0 && h('p', { class: 'hint recap-pruned',
      text: `Old wrong answers, counted: ${pruned.map((p) => `${p.who} ${p.wrong}`).join(', ')}` }),
    r.solutions_total === 0 ? h('p', { class: 'hint', text: 'This hand has no solution.' })
      : [
        h('h3', { text: `${r.solutions_total} distinct solution${r.solutions_total === 1 ? '' : 's'}` }),
        h('ul', { class: 'recap-marked' }, picked.map(solution)),
        r.solutions.length > picked.length && h('details', { class: 'recap-all' },
          h('summary', { text: `All solutions${more}` }),
          h('ol', {}, r.solutions.map((_, i) => solution(i)))),
      ]);
}

export async function show(root, id) {
  document.title = 'Match recap · Krypto';
  const body = h('div', { 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Loading…' }));
  fill(root,
    backToGame(),
    h('header', { class: 'page-header' }, h('a', { href: at('/'), class: 'logo small-logo', text: 'Krypto' }), h('h1', { text: 'Match recap' })),
    body,
    h('nav', { class: 'footer-links' }, h('a', { href: at('/leaderboard'), text: 'Leaderboard' })));
  if (!MATCH_ID.test(id)) {
    fill(body, h('p', { class: 'error', role: 'alert', text: 'This is not a match’s address: a recap’s link ends in the match’s id.' }));
    return;
  }
  try {
    const res = await fetch(at(`/api/matches/${id}`));
    const recap = await res.json();
    if (!res.ok) throw new Error(recap?.error?.message ?? `error ${res.status}`);
    const when = recap.finished_at_ms ?? recap.started_at_ms;
    const short = id.slice(0, 8);
    fill(body,
      h('section', { class: 'card-panel recap-summary' },
        h('p', { class: 'hint', text: `Room ${recap.room} · ${new Date(when).toLocaleString()} · ${recap.rounds.length} round${recap.rounds.length === 1 ? '' : 's'}${recap.status === 'finished' ? '' : ` · ${recap.status}`}` }),
        h('ol', { class: 'standings', 'aria-label': 'Final standings' }, recap.standings.map((s) => h('li', { class: 'standing' },
          h('span', { class: 'medal', text: s.rank ? ordinal(s.rank) : '' }),
          h('span', { class: 'player-name', text: s.name }),
          h('span', { class: 'score', text: s.score === null ? '' : `${s.score} pt${s.score === 1 ? '' : 's'}` })))),
        h('p', { class: 'recap-downloads' },
          download('Download CSV', `krypto-match-${short}.csv`, `data:text/csv;charset=utf-8,${encodeURIComponent(recapCsv(recap))}`),
          ' ',
          download('Download JSON', `krypto-match-${short}.json`, at(`/api/matches/${id}`)))),
      recap.rounds.map(roundView));
  } catch (e) {
    fill(body, h('p', { class: 'error', role: 'alert', text: `Could not load this match: ${e.message}` }));
  }
}
