// A round on a phone: the target, the hand as big cards, the formula built
// by tapping (or typed), its live value, the verdict, the lockout, the
// result, and the scores. Also the countdown before the first hand.

import { h, fill, setText } from '../dom.js';
import { canPlay } from '../state.js';
import { leftUntil, clockText, seconds } from '../clock.js';
import { preview, usedCards, handProblem } from '../formula.js';
import { OPERATORS, verdictHeadline, HEADLINE_SAYS_ALL } from '../words.js';
import { scores } from './players.js';
import { LIMITS } from '../limits.js';
import { at } from '../address.js';
import { copyable } from './solo.js';

/** The live value of the formula being built for `room.round` (also the solo pages'). */
export function previewLine(room) {
  const p = preview(room.formula);
  const cards = room.round.cards;
  const used = usedCards(room.formula, cards).filter(Boolean).length;
  const count = `${used} of ${cards.length} cards`;
  // A number the hand does not hold can never be right: said first, whatever the value.
  const problem = p.state !== 'empty' && handProblem(room.formula, cards);
  if (problem) return { text: `⚠ ${problem}`, kind: 'warn' };
  switch (p.state) {
    case 'empty':
      return { text: 'Tap cards and operators, or type a formula.', kind: 'hint' };
    case 'incomplete':
      return { text: `… keep going (${count})`, kind: 'hint' };
    case 'invalid':
      return { text: `⚠ ${p.message}`, kind: 'warn' };
    default: {
      const hits = p.value.n === BigInt(room.round.objective) && p.value.d === 1n;
      if (hits && used === cards.length) return { text: `= ${p.value} ✓ every card used: submit it!`, kind: 'good' };
      return { text: `= ${p.value} (${count})`, kind: hits ? 'near' : 'plain' };
    }
  }
}

/**
 * The formula builder of a round and of the solo pages: the field (typed),
 * its live value, the operators' pad and Submit, in one form. `acts`: the
 * page's `setFormula`, `tapPiece`, `undo`, `clear` and `submit`; `buttons`
 * go beside Submit, `after` below them.
 */
export function formulaBuilder(acts, buttons, after) {
  const input = h('input', {
    id: 'formula', type: 'text', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false',
    maxlength: LIMITS.formula_chars, enterkeyhint: 'send', class: 'formula-input',
    on: { input: (e) => acts.setFormula(e.target.value) },
  });
  const previewEl = h('p', { class: 'preview', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'primary huge submit', text: 'Submit' });
  const pad = h('div', { class: 'pad', role: 'group', 'aria-label': 'Operators' },
    OPERATORS.map((o) => h('button', {
      type: 'button', class: 'key', 'aria-label': o.name, on: { click: () => acts.tapPiece(o.piece) }, text: o.label,
    })),
    h('button', { type: 'button', class: 'key wide', on: { click: acts.undo }, text: '⌫ Undo' }),
    h('button', { type: 'button', class: 'key wide', on: { click: acts.clear }, text: 'Clear' }));
  const form = h('form', {
    class: 'builder',
    on: { submit: (e) => { e.preventDefault(); acts.submit(); } },
  },
  h('label', { for: 'formula', class: 'formula-label', text: 'Formula' }),
  input, previewEl, pad,
  h('div', { class: 'row' }, submit, ...buttons),
  ...after);
  return {
    input, previewEl, submit, pad, form,
  };
}

/**
 * The hand in `box` as big card buttons (a tap adds the card: `tap(i)`):
 * `show(key, cards)` rebuilds them only for a new hand (`key`) and returns
 * them.
 */
export function handCards(box, tap) {
  let shown = null;
  let buttons = [];
  return (key, cards) => {
    if (key !== shown) {
      shown = key;
      buttons = cards.map((c, i) => h('button', {
        type: 'button', class: 'card', on: { click: () => tap(i) },
      }, h('span', { class: 'card-number', text: String(c) }), h('span', { class: 'card-used', 'aria-hidden': 'true', text: 'used' })));
      fill(box, buttons);
    }
    return buttons;
  };
}

export function mount(root, { act, state }) {
  const roundLabel = h('span', { class: 'round-label' });
  const timer = h('span', { class: 'timer', role: 'timer', 'aria-label': 'Time left' });
  const bar = h('div', { class: 'timebar-fill' });
  const myScore = h('span', { class: 'my-score' });
  const countdown = h('div', { class: 'countdown', role: 'status' });
  const objective = h('div', { class: 'objective' });
  const cardsBox = h('div', { class: 'hand', role: 'group', 'aria-label': 'Your hand' });
  const noSolution = h('button', { type: 'button', class: 'secondary', on: { click: act.claimNoSolution }, text: 'No solution!' });
  const verdict = h('div', { class: 'verdict', role: 'status', 'aria-live': 'assertive' });
  const lockout = h('p', { class: 'lockout', role: 'timer' });
  const result = h('div', { class: 'result', role: 'status' });
  const note = h('p', { class: 'note' });
  const board = h('section', { class: 'card-panel' });
  const elsewhere = h('p', { class: 'note elsewhere', text: 'This page stopped following the round: it goes on in the tab or on the device that took over.' });

  const {
    input, previewEl, submit, pad, form,
  } = formulaBuilder(act, [noSolution], [lockout, verdict]);

  const play = h('div', { class: 'play' }, objective, cardsBox, note, form, result);
  fill(root,
    h('div', { class: 'round-top' }, roundLabel, myScore, timer),
    h('div', { class: 'timebar', 'aria-hidden': 'true' }, bar),
    countdown, elsewhere, play, board);

  const showHand = handCards(cardsBox, act.tapCard);

  function tick(s) {
    const room = s.room;
    if (!room) return;
    if (room.phase === 'countdown') {
      setText(countdown, `Get ready… ${Math.ceil(leftUntil(room.next) / 1000) || ''}`);
    }
    const running = room.phase === 'playing' && room.round && !room.round.over;
    const left = running ? leftUntil(room.round.deadline) : 0;
    setText(timer, running ? clockText(left) : '');
    timer.classList.toggle('low', left > 0 && left < 10_000);
    bar.style.width = running && room.round.duration ? `${(100 * left) / room.round.duration}%` : '0%';
    const locked = leftUntil(room.lockout);
    setText(lockout, locked > 0 && room.phase === 'playing' ? `🔒 Locked out for ${Math.ceil(locked / 1000)} s` : '');
    submit.disabled = room.phase !== 'playing' || !canPlay(s) || room.pending || locked > 0 || !room.formula.trim()
      || Boolean(room.round && handProblem(room.formula, room.round.cards));
    noSolution.disabled = room.phase !== 'playing' || !canPlay(s) || room.pending || locked > 0;
  }

  function update(s) {
    const room = s.room;
    const r = room.round;
    const counting = room.phase === 'countdown';
    countdown.hidden = !counting;
    // Taken over: the hand shown would be an old one, so none is.
    const replaced = s.conn === 'replaced';
    play.hidden = counting || !r || replaced;
    elsewhere.hidden = !replaced;
    setText(roundLabel, r ? `Round ${r.number} of ${room.roundsTotal}` : `${room.roundsTotal} round${room.roundsTotal === 1 ? '' : 's'}`);
    const me = room.players.find((p) => p.id === s.me?.id);
    setText(myScore, me && !me.spectator ? `You: ${me.score}` : 'Watching');
    if (r) {
      fill(objective, h('span', { class: 'objective-label', text: 'Make' }), h('span', { class: 'objective-number', text: String(r.objective) }));
      const cardButtons = showHand(`${r.number}:${r.cards.join(',')}`, r.cards);
      const playing = room.phase === 'playing' && canPlay(s);
      // Between rounds the hand is shown whole again, for reading the result.
      const used = playing ? usedCards(room.formula, r.cards) : r.cards.map(() => false);
      cardButtons.forEach((b, i) => {
        b.disabled = used[i] || !playing;
        b.classList.toggle('used', used[i]);
      });
      if (input.value !== room.formula) input.value = room.formula;
      input.disabled = !playing;
      for (const b of pad.querySelectorAll('button')) b.disabled = !playing;
      const p = previewLine(room);
      setText(previewEl, p.text);
      previewEl.className = `preview ${p.kind}`;
      noSolution.hidden = room.settings.deal !== 'any';
      form.hidden = room.phase !== 'playing' || !canPlay(s);
      if (me?.spectator) setText(note, 'You are watching this match.');
      else if (me?.waiting) setText(note, 'You joined during this round: you play from the next one.');
      else setText(note, '');
    }
    const v = room.verdict;
    if (v && r && v.round === r.number) {
      verdict.className = v.accepted ? 'verdict good' : 'verdict bad';
      fill(verdict, v.accepted
        ? h('p', { class: 'verdict-head', text: `✓ Correct: ${v.value ?? ''}` })
        : [h('p', { class: 'verdict-head', text: `✗ ${verdictHeadline(v.kind)}` }),
          !HEADLINE_SAYS_ALL.has(v.kind)
            && h('p', { class: 'verdict-reason', text: v.column ? `${v.message} (at character ${v.column})` : v.message })]);
    } else if (room.unsent) {
      verdict.className = 'verdict';
      fill(verdict, h('p', { class: 'verdict-head', text: '⏳ Not sent yet: it goes as soon as the connection is back' }));
    } else if (room.pending) {
      verdict.className = 'verdict';
      fill(verdict, h('p', { class: 'verdict-head', text: 'Checking…' }));
    } else if (room.dropped) {
      verdict.className = 'verdict bad';
      fill(verdict, h('p', { class: 'verdict-head', text: 'The connection dropped before the verdict came: submit again' }));
    } else {
      verdict.className = 'verdict';
      fill(verdict);
    }
    fill(result, resultView(s), roomChallengeView(s, act));
    fill(board, h('h2', { text: 'Scores' }), scores(s));
    tick(s);
  }

  update(state);
  return { update, tick };
}

/** The outcome of the last round, shown between rounds. */
export function resultView(state) {
  const room = state.room;
  const res = room.result;
  if (!res || room.phase === 'playing') return null;
  const last = room.round && room.round.number >= room.roundsTotal;
  const next = room.phase === 'between_rounds'
    && h('p', { class: 'next', text: last ? 'Final results coming…' : 'Next hand in a moment…' });
  if (res.kind === 'won') {
    const you = res.winner === state.me?.id;
    const who = you ? 'You won the round' : `${res.name} won the round`;
    return [
      h('p', { class: 'result-head', text: `🏆 ${who} in ${seconds(res.elapsed)}` }),
      res.noSolution
        ? h('p', { class: 'result-formula', text: 'by rightly claiming there is no solution' })
        : h('p', { class: 'result-formula', text: res.formula }),
      next,
    ];
  }
  return [
    h('p', { class: 'result-head', text: '⏰ Time’s up: nobody found it' }),
    res.solution
      ? [h('p', { class: 'result-formula', text: res.solution }),
        h('p', { class: 'hint', text: `one of ${res.solutions} solution${res.solutions === 1 ? '' : 's'}` })]
      : h('p', { class: 'result-formula', text: 'This hand had no solution.' }),
    next,
  ];
}

/**
 * "Challenge a friend" between rounds, for a round this player solved: the
 * server makes the challenge from its own record of the round (hand, rules,
 * time), then the link shows with a Copy button.
 */
export function roomChallengeView(state, act) {
  const room = state.room;
  if (!room?.round || room.phase === 'playing' || room.solvedRound !== room.round.number) return null;
  if (room.result?.noSolution) return null;
  const made = room.challenge?.round === room.round.number ? room.challenge : null;
  if (made?.code) {
    const link = `${window.location.origin}${at(`/c/${made.code}`)}`;
    return h('div', { class: 'challenge-link' },
      h('p', { class: 'muted', text: `Round ${room.round.number}'s hand, with your time to beat:` }),
      copyable(link, 'Copy the challenge link'));
  }
  return h('button', {
    type: 'button', class: 'secondary', disabled: Boolean(made?.asked), on: { click: act.roomChallenge }, text: 'Challenge a friend',
  });
}
