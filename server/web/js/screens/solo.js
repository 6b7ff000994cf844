// The daily, a challenge and a solo run: a start button (the clock starts
// when the hand shows), then the hand with the room's formula builder and
// preview, the clock, the verdicts; after solving, the result (the daily's
// solutions with the player's own marked and its share line with a Copy
// button; a challenge's two results side by side; a run's score) and a
// "Challenge a friend" link. Practice adds a choice of difficulty, Hint
// (the next step of a solution) and "Show a solution", and lists the last
// hand's solutions under the next one. Every text from the server is set
// as text.

import {
  h, fill, setText, keyedFill,
} from '../dom.js';
import { at } from '../address.js';
import { usedCards, handProblem } from '../formula.js';
import { verdictHeadline } from '../words.js';
import { LIMITS } from '../limits.js';
import { formulaBuilder, handCards, previewLine } from './round.js';
import {
  clockMs, stopwatch, missesText, canChallenge,
} from '../solo.js';

const TITLES = {
  daily: 'The daily Krypto', challenge: 'A challenge', run: 'Solo run', practice: 'Practice',
};

const INTROS = {
  daily: 'One hand a day, the same for everyone. The clock starts when the hand shows and goes on if you leave; a wrong answer adds 10 s.',
  challenge: 'A friend solved this hand: beat their time. The clock starts when the hand shows; a wrong answer adds 10 s.',
  run: 'Three minutes: solve as many hands as you can. They get harder; a streak of right answers adds time, a wrong one takes 10 s and moves on.',
  practice: 'A hand at a time, alone and unrated: nothing is recorded and a wrong answer costs nothing. Stuck? Hint shows the next step of a solution.',
};

/** The bands a practice table deals from (the server's names, by number of distinct solutions). */
const BANDS = [
  ['any', 'Any hand'], ['easy', 'Easy (many solutions)'], ['medium', 'Medium'], ['hard', 'Hard (few solutions)'],
];

/** How many of a hand's solutions are listed before "and N more". */
const LISTED = 6;

const START_LABELS = {
  daily: 'Show today’s hand', challenge: 'Take the challenge', run: 'Start the run', practice: 'Deal a hand',
};

/** Copies `text`, saying so on `button`. */
function copyInto(button, text) {
  const done = (ok) => {
    setText(button, ok ? 'Copied ✓' : 'Select and copy it');
    setTimeout(() => setText(button, 'Copy'), 2500);
  };
  if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).then(() => done(true), () => done(false));
  else done(false);
}

/** A line of text with a Copy button beside it. */
export function copyable(text, label) {
  const button = h('button', { type: 'button', class: 'secondary small copy', text: 'Copy', 'aria-label': label });
  button.addEventListener('click', () => copyInto(button, text));
  return h('div', { class: 'copyable' }, h('pre', { class: 'share', text }), button);
}

export function mount(root, { act, state }) {
  const title = h('h1', { class: 'solo-title' });
  const sub = h('p', { class: 'muted solo-sub' });
  const timer = h('span', { class: 'timer', role: 'timer', 'aria-label': 'Clock' });
  const status = h('span', { class: 'my-score' });
  const intro = h('section', { class: 'card-panel solo-intro' });
  const objective = h('div', { class: 'objective' });
  const cardsBox = h('div', { class: 'hand', role: 'group', 'aria-label': 'Your hand' });
  const verdict = h('div', { class: 'verdict', role: 'status', 'aria-live': 'assertive' });
  const error = h('p', { class: 'error', role: 'alert' });
  const result = h('section', { class: 'card-panel solo-result', role: 'status' });
  const builderActs = {
    setFormula: act.soloSetFormula,
    tapPiece: act.soloTapPiece,
    undo: act.soloUndo,
    clear: act.soloClear,
    submit: act.soloSubmit,
  };
  const {
    input, previewEl, submit, form,
  } = formulaBuilder(builderActs, [], [verdict]);
  const hintList = h('ol', { class: 'hints', 'aria-label': 'Hints', 'aria-live': 'polite' });
  const hintButton = h('button', { type: 'button', class: 'secondary big', on: { click: act.practiceHint }, text: 'Hint' });
  const practiceTools = h('div', { class: 'practice-tools' }, hintList, h('div', { class: 'row' },
    hintButton,
    h('button', { type: 'button', class: 'secondary big', on: { click: act.practiceSkip }, text: 'Show a solution' })));
  const endedBox = h('section', { class: 'card-panel practice-ended', role: 'status' });
  const play = h('div', { class: 'play' }, objective, cardsBox, form, practiceTools);

  fill(root,
    h('header', { class: 'solo-head' }, title, sub),
    h('div', { class: 'round-top' }, status, timer),
    error, intro, play, endedBox, result,
    h('nav', { class: 'footer-links' },
      h('a', { href: at('/'), text: 'Home' }), ' · ',
      h('a', { href: at('/daily'), text: 'Daily' }), ' · ',
      h('a', { href: at('/run'), text: 'Solo run' }), ' · ',
      h('a', { href: at('/practice'), text: 'Practice' }), ' · ',
      h('a', { href: at('/leaderboard'), text: 'Leaderboard' })));

  const introFill = keyedFill(intro);
  const showHand = handCards(cardsBox, act.soloTapCard);
  let shownResult = null;
  let shownChallenge = null;
  let shownEnded = null;
  let shownHints = null;

  function tick(s) {
    const solo = s.solo;
    const running = solo.clock && !solo.result && !solo.lost;
    setText(timer, solo.clock ? stopwatch(clockMs(solo)) : '');
    timer.classList.toggle('low', running && !solo.clock.up && clockMs(solo) < 10_000);
    submit.disabled = !running || solo.pending || !solo.formula.trim()
      || Boolean(solo.hand && handProblem(solo.formula, solo.hand.cards));
  }

  function update(s) {
    const solo = s.solo;
    const info = solo.info ?? {};
    setText(title, solo.kind === 'daily' && info.number ? `Krypto #${info.number}` : TITLES[solo.kind]);
    let subText = '';
    if (solo.kind === 'daily' && info.date) subText = info.rated ? `Today, ${info.date}` : `${info.date}, from the archive (unrated)`;
    const setter = info.by ? info : solo.preview;
    if (solo.kind === 'challenge' && setter) subText = `${setter.by} solved it in ${stopwatch(setter.toBeat.elapsed_ms)} · ${missesText(setter.toBeat.misses)}: beat that`;
    if (solo.kind === 'run') subText = 'Hands solved in three minutes';
    if (solo.kind === 'practice') subText = 'Unrated: nothing is recorded';
    setText(sub, subText);
    if (solo.kind === 'run' && solo.info) {
      const bonus = info.bonus ? ` · +${info.bonus / 1000} s!` : '';
      setText(status, `Score ${info.score} · combo ${info.combo}${bonus}`);
    } else if (solo.kind === 'practice' && solo.hand) {
      setText(status, `Hand ${solo.hand.number}`);
    } else setText(status, s.me ? s.me.name : '');
    setText(error, solo.error ?? (solo.lost ? 'The run could not be taken up again after the connection dropped. Start another one.' : ''));

    const ready = Boolean(s.me);
    intro.hidden = solo.started && !solo.lost;
    introFill(`${ready}`, () => [h('p', { text: INTROS[solo.kind] }), solo.kind === 'practice' && bandChoice(solo, act), h('button', {
      type: 'button', class: 'primary big', disabled: !ready, on: { click: act.soloStart },
      text: ready ? START_LABELS[solo.kind] : 'Connecting…',
    })]);

    const hand = solo.hand;
    play.hidden = !hand || Boolean(solo.result) || solo.lost;
    if (hand) {
      fill(objective, h('span', { class: 'objective-label', text: hand.number ? `Hand ${hand.number}: make` : 'Make' }),
        h('span', { class: 'objective-number', text: String(hand.objective) }));
      const cardButtons = showHand(`${hand.number}:${hand.cards.join(',')}`, hand.cards);
      const used = usedCards(solo.formula, hand.cards);
      cardButtons.forEach((b, i) => {
        b.disabled = used[i];
        b.classList.toggle('used', used[i]);
      });
      if (input.value !== solo.formula) input.value = solo.formula;
      const p = previewLine({ formula: solo.formula, round: hand });
      setText(previewEl, p.text);
      previewEl.className = `preview ${p.kind}`;
    }
    const v = solo.verdict;
    if (solo.pending) {
      verdict.className = 'verdict';
      fill(verdict, h('p', { class: 'verdict-head', text: 'Checking…' }));
    } else if (v && !v.accepted) {
      verdict.className = 'verdict bad';
      fill(verdict, h('p', { class: 'verdict-head', text: `✗ ${verdictHeadline(v.kind)}${v.miss ? ` (+${LIMITS.penalty_ms / 1000} s)` : ''}` }),
        h('p', { class: 'verdict-reason', text: v.message }));
    } else if (v && v.accepted && (solo.kind === 'run' || solo.kind === 'practice')) {
      verdict.className = 'verdict good';
      fill(verdict, h('p', { class: 'verdict-head', text: '✓ Right! Next hand' }));
    } else {
      verdict.className = 'verdict';
      fill(verdict);
    }

    if (solo.result !== shownResult || solo.challenge !== shownChallenge) {
      shownResult = solo.result;
      shownChallenge = solo.challenge;
      fill(result, solo.result && [resultView(solo), challengeView(solo, act)]);
    }
    result.hidden = !solo.result;
    practiceTools.hidden = solo.kind !== 'practice';
    if (solo.kind === 'practice') {
      if (solo.hints !== shownHints) {
        shownHints = solo.hints;
        fill(hintList, solo.hints.map((step) => h('li', { class: 'practice-hint', text: step })));
      }
      const steps = solo.info?.steps ?? 0;
      hintButton.disabled = !hand || solo.hints.length >= steps;
      setText(hintButton, solo.hints.length === 0 ? 'Hint' : `Hint (${solo.hints.length}/${steps})`);
      if (solo.ended !== shownEnded) {
        shownEnded = solo.ended;
        fill(endedBox, solo.ended && endedView(solo.ended));
      }
    }
    endedBox.hidden = !solo.ended;
    tick(s);
  }

  update(state);
  return { update, tick };
}

function resultView(solo) {
  const r = solo.result;
  if (r.kind === 'daily_solved') {
    return [
      h('h2', { class: 'result-head', text: `✓ Solved in ${stopwatch(r.elapsed_ms)} · ${missesText(r.misses)}` }),
      h('p', { text: r.rank ? `🔥 Streak ${r.streak} · place ${r.rank} on today’s board` : 'From the archive: unrated, no streak, on no board.' }),
      h('h3', { text: `${r.solutions.length} distinct solution${r.solutions.length === 1 ? '' : 's'}` }),
      h('ol', { class: 'solutions' }, r.solutions.map((s) => h('li', { class: s.yours ? 'yours' : '' },
        h('span', { class: 'result-formula', text: s.formula }), s.yours && h('span', { class: 'tag', text: ' ← yours' })))),
      h('h3', { text: 'Share it (no spoilers)' }),
      copyable(r.share, 'Copy the share line'),
    ];
  }
  if (r.kind === 'challenge_result') {
    const words = { won: `You beat ${r.by}!`, lost: `${r.by} wins this one.`, tied: 'A tie, to the millisecond!' };
    return [
      h('h2', { class: 'result-head', text: words[r.outcome] ?? '' }),
      h('table', { class: 'side-by-side' },
        h('thead', {}, h('tr', {}, h('th', { text: '' }), h('th', { text: 'You' }), h('th', { text: r.by }))),
        h('tbody', {},
          h('tr', {}, h('th', { text: 'Time' }), h('td', { text: stopwatch(r.yours.elapsed_ms) }), h('td', { text: stopwatch(r.theirs.elapsed_ms) })),
          h('tr', {}, h('th', { text: 'Misses' }), h('td', { text: String(r.yours.misses) }), h('td', { text: String(r.theirs.misses) })))),
    ];
  }
  return [
    h('h2', { class: 'result-head', text: `⏰ Time! Score ${r.score}` }),
    h('p', { text: `${missesText(r.misses)} · best combo ${r.best_combo} · ${stopwatch(r.duration_ms)} played` }),
    h('button', { type: 'button', class: 'primary big', on: { click: () => window.location.reload() }, text: 'Another run' }),
  ];
}

/** The practice table's choice of band, kept in the page's state. */
function bandChoice(solo, act) {
  const select = h('select', { id: 'practice-band', on: { change: (e) => act.practiceDifficulty(e.target.value) } },
    BANDS.map(([value, label]) => h('option', { value, text: label, selected: value === solo.difficulty })));
  return h('p', { class: 'row' }, h('label', { for: 'practice-band', text: 'Hands: ' }), select);
}

/** The practice hand that just ended: how, and its solutions. */
function endedView(m) {
  const hints = m.hints === 0 ? 'no hint' : `${m.hints} hint${m.hints === 1 ? '' : 's'}`;
  const head = m.solved ? `✓ Hand ${m.hand} solved (${hints})` : `Hand ${m.hand} skipped: its solutions`;
  // The player's own first, then the shortest.
  const shown = [...m.solutions.filter((s) => s.yours), ...m.solutions.filter((s) => !s.yours)].slice(0, LISTED);
  const more = m.solutions.length - shown.length;
  return [
    h('h2', { class: 'result-head', text: head }),
    h('p', { class: 'muted', text: `Make ${m.objective} from ${m.cards.join(' ')}: ${m.solutions.length} distinct solution${m.solutions.length === 1 ? '' : 's'}` }),
    h('ol', { class: 'solutions' }, shown.map((s) => h('li', { class: s.yours ? 'yours' : '' },
      h('span', { class: 'result-formula', text: s.formula }), s.yours && h('span', { class: 'tag', text: ' ← yours' })))),
    more > 0 && h('p', { class: 'muted', text: `and ${more} more` }),
  ];
}

function challengeView(solo, act) {
  if (!canChallenge(solo)) return null;
  if (solo.challenge) {
    const link = `${window.location.origin}${at(`/c/${solo.challenge}`)}`;
    return h('div', { class: 'challenge-link' },
      h('h3', { text: 'Challenge a friend' }),
      h('p', { class: 'muted', text: solo.kind === 'run' ? 'The last hand you solved, timed for them.' : 'This hand, timed for them.' }),
      copyable(link, 'Copy the challenge link'));
  }
  return h('button', {
    type: 'button', class: 'secondary big', disabled: solo.askedChallenge, on: { click: act.soloChallenge }, text: 'Challenge a friend',
  });
}
