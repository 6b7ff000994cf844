// The end of a match: the podium with rating changes, and the rematch.

import { h, fill, keyedFill } from '../dom.js';
import { at } from '../address.js';
import { isHost } from '../state.js';
import { ordinal } from '../words.js';
import { seconds } from '../clock.js';
import { onPodium, champions, ratingChange, PROVISIONAL_WHY, UNRATED_WHY } from '../ratings.js';
import { resultView, roomChallengeView } from './round.js';
import { readyPanel } from './ready.js';

const MEDALS = { 1: '🥇', 2: '🥈', 3: '🥉' };

/** The standings as a list, best first, with medals and rating changes. */
export function standingsList(state, { big = false } = {}) {
  const standings = state.room.standings ?? [];
  return h('ol', { class: big ? 'standings big' : 'standings', 'aria-label': 'Final standings' },
    standings.map((s) => {
      const rated = typeof s.rating_before === 'number' && typeof s.rating_after === 'number';
      const bot = state.room.players?.find((p) => p.id === s.player)?.bot;
      // A winner's colours for real places only (not a 0-point tie for first).
      const place = onPodium(s) ? Math.min(s.rank, 4) : 4;
      return h('li', { class: `standing rank-${place}${s.player === state.me?.id ? ' me' : ''}` },
        // Medals for real places only: a 0-point player shares a rank, not a medal.
        h('span', { class: 'medal', text: `${onPodium(s) ? MEDALS[s.rank] : ''} ${ordinal(s.rank)}` }),
        h('span', { class: 'player-name', text: s.name }),
        bot && h('span', { class: 'tag bot', title: 'a bot', text: '🤖 bot' }),
        h('span', { class: 'score', text: `${s.score} pt${s.score === 1 ? '' : 's'}` }),
        tiebreak(standings, s) && h('span', {
          class: 'tiebreak', title: 'total time of right answers: on equal points, less is ahead', text: ` · ${tiebreak(standings, s)}`,
        }),
        rated ? h('span', {
          class: 'rating',
          title: 'rating before → after the match (change)',
          text: `rating ${ratingChange(s.rating_before, s.rating_after, s.rating_provisional)}`,
        }) : h('span', { class: 'rating muted', title: UNRATED_WHY, text: 'unrated' }));
    }));
}

/**
 * `s`'s total time of right answers as shown ("41.2 s"), or null: shown
 * under `everyone` scoring (the server sends it) where someone else has the
 * same points, since that time is what ranks them apart. Where another's
 * rounds to the same tenth, both show the milliseconds ("41.230 s"), so
 * two players ranked apart never show the same time.
 */
export function tiebreak(standings, s) {
  if (typeof s.solve_ms !== 'number') return null;
  const level = standings.filter((o) => o !== s && o.score === s.score);
  if (level.length === 0) return null;
  const clash = level.some((o) => typeof o.solve_ms === 'number' && seconds(o.solve_ms) === seconds(s.solve_ms));
  return clash ? `${Math.floor(s.solve_ms / 1000)}.${String(s.solve_ms % 1000).padStart(3, '0')} s` : seconds(s.solve_ms);
}

/** A link to the recap of the match just over, once the server named it. */
export function recapLink(state, { big = false } = {}) {
  const id = state.room.matchId;
  if (!id) return null;
  return h('p', { class: big ? 'recap-link tv-sub' : 'recap-link' },
    h('a', { href: at(`/m/${id}`), target: big ? null : '_blank', text: 'Recap: every round and its solutions →' }),
    big && h('span', { class: 'recap-address', text: ` ${location.origin}${at(`/m/${id}`)}` }));
}

/** Says what "unrated" and a provisional "?" mean under standings that show them. */
export function unratedNote(state) {
  const standings = state.room.standings ?? [];
  const unrated = standings.some((s) => typeof s.rating_after !== 'number');
  const provisional = standings.some((s) => typeof s.rating_after === 'number' && s.rating_provisional);
  return [
    unrated && h('p', { class: 'hint unrated-why', text: `Unrated: ${UNRATED_WHY.toLowerCase()}` }),
    provisional && h('p', { class: 'hint provisional-why', text: PROVISIONAL_WHY }),
  ].filter(Boolean);
}

export function mount(root, { act }) {
  const head = h('h2', { class: 'podium-head' });
  const list = h('div');
  const last = h('div', { class: 'last-round' });
  const controls = h('div', { class: 'host-controls' });
  const fillControls = keyedFill(controls);
  const ready = readyPanel(act);
  fill(root, ready.el, h('section', { class: 'card-panel podium' }, head, list), controls, last);
  return {
    tick: ready.tick,
    update(state) {
      ready.update(state);
      const standings = state.room.standings ?? [];
      const mine = standings.find((s) => s.player === state.me?.id);
      const firsts = champions(standings).length;
      if (!firsts) head.textContent = 'Match over: nobody scored';
      else if (mine && onPodium(mine) && mine.rank === 1) head.textContent = firsts > 1 ? '🎉 You share first place!' : '🎉 You won the match!';
      else if (mine) head.textContent = `Match over: you came ${ordinal(mine.rank)}`;
      else head.textContent = 'Match over';
      fill(list, standingsList(state), ...unratedNote(state), recapLink(state));
      // The last round ended the match; its result is still worth a look.
      fill(last, state.room.result && h('details', { class: 'card-panel' },
        h('summary', { text: `How round ${state.room.result.round} ended` }), resultView(state)),
        roomChallengeView(state, act));
      if (state.room.readyCheck) {
        fillControls('ready', () => null);
      } else if (isHost(state)) {
        fillControls('host', () => [
          h('button', { type: 'button', class: 'primary huge', on: { click: act.start }, text: 'Rematch' }),
          h('button', { type: 'button', class: 'secondary', on: { click: () => act.updateSettings({}) }, text: 'Change settings' })]);
      } else {
        const host = state.room.players.find((p) => p.id === state.room.host)?.name ?? 'the host';
        fillControls(`waiting:${host}`, () => h('p', { class: 'waiting-note', text: `Waiting for ${host} to start a rematch…` }));
      }
    },
  };
}
