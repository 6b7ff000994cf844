// The page's entry, and the wiring only: reads the address, then connects
// the app (app.js: the state and every change to it) to the world — the
// WebSocket, the address bar, the screens (one module each, reading the
// state and calling the actions they are given), the sounds and the clocks —
// and redraws the current screen after every change.

import { Connection } from './net.js';
import {
  basePath, routePath, parseRoute, handover, linkCode,
} from './address.js';
import { LIMITS } from './limits.js';
import { createApp } from './app.js';
import { leftUntil, now } from './clock.js';
import { createSound } from './sound.js';
import { celebrate } from './celebrate.js';
import { floatReaction } from './screens/reactions.js';
import { listOf } from './words.js';
import { champions } from './ratings.js';

/** How often the lobby asks for the public rooms again. */
const ROOMS_REFRESH_MS = 5000;
import { h, fill } from './dom.js';
import * as nameScreen from './screens/name.js';
import * as consentScreen from './screens/consent.js';
import * as lobbyScreen from './screens/lobby.js';
import * as roomScreen from './screens/room.js';
import * as tvScreen from './screens/tv.js';
import * as leaderboardScreen from './screens/leaderboard.js';
import * as conductScreen from './screens/conduct.js';
import * as profileScreen from './screens/profile.js';
import * as recapScreen from './screens/recap.js';
import * as soloScreen from './screens/solo.js';

const root = document.getElementById('app');
/** The path prefix the server is reached under (`` at the root). */
const BASE = basePath(location.pathname);
const route = parseRoute(routePath(location.pathname));

// A redirect from another node handed over a single-use ticket (and how
// many redirects led here) in the fragment, or a scanned device link its
// code: read them, and take them out of the address at once (history,
// bookmarks, a shared screen). Neither replaces the identity this browser
// keeps without the person's yes (app.js).
const handed = handover(location.hash, LIMITS.redirects_in_a_row, LIMITS.name_chars);
const scanned = route.kind === 'link' ? linkCode(location.hash) : null;
if (location.hash) history.replaceState(null, '', location.pathname + location.search);

if (route.kind === 'leaderboard') {
  leaderboardScreen.show(root);
} else if (route.kind === 'conduct') {
  conductScreen.show(root);
} else if (route.kind === 'profile') {
  profileScreen.show(root, route.name);
} else if (route.kind === 'recap') {
  recapScreen.show(root, route.id);
} else {
  startGame();
}

function startGame() {
  const kind = route.kind === 'tv' ? 'tv' : 'player';
  const sound = createSound();
  let retry = null;
  let conn = null;
  const io = {
    send: (message) => conn.send(message),
    restart: () => conn.restart(),
    ensure: () => conn.ensure(),
    connect: () => conn.connect(),
    /** Shows `path` in the address bar; the route it now shows, or null when it already did. */
    go(path, replace) {
      const full = BASE + path;
      if (location.pathname === full) return null;
      if (replace) history.replaceState(null, '', full);
      else history.pushState(null, '', full);
      return parseRoute(path);
    },
    assign: (url) => location.assign(url),
    href: () => location.href,
    confirm: (question) => window.confirm(question),
    later(fn, ms) {
      clearTimeout(retry);
      retry = setTimeout(() => { fn(); render(); }, ms);
    },
    cancelLater: () => clearTimeout(retry),
    sound,
    render: () => render(),
  };
  const game = createApp({ kind, route, handed, scanned, io });
  const { state } = game;
  // Every action redraws the page once it has changed the state.
  const act = Object.fromEntries(Object.entries(game.act).map(([name, fn]) => [name, (...args) => {
    const result = fn(...args);
    render();
    return result;
  }]));

  const banner = h('div', { class: 'banner', role: 'status', 'aria-live': 'polite' });
  const screenRoot = h('div', { class: 'screen' });
  fill(root, banner, screenRoot);
  let current = { module: null, view: null };

  conn = new Connection({
    onOpen: () => {
      game.onOpen();
      render();
    },
    onMessage: (m) => {
      game.onMessage(m);
      cheer(m);
      render();
    },
    onStatus: (status) => {
      game.onStatus(status);
      render();
    },
    wanted: game.wanted,
  });

  /** Sounds, vibration and confetti for what just happened. */
  function cheer(m) {
    const me = state.me?.id;
    const tv = kind === 'tv';
    switch (m.type) {
      case 'reaction':
        if (state.room && typeof m.emoji === 'string' && typeof m.name === 'string') floatReaction(m.emoji, m.name);
        break;
      case 'verdict':
        if (!m.accepted) sound.play('wrong', { vibrate: true });
        break;
      case 'round_won':
        if (m.winner === me) {
          sound.play('win', { vibrate: true });
          celebrate('🎉 You got it!');
        } else if (tv) {
          sound.play('win');
          celebrate(`🎉 Nice one, ${state.room?.result?.name ?? 'someone'}!`);
        }
        break;
      case 'match_over': {
        const firsts = champions(m.standings ?? []);
        const mine = firsts.some((s) => s.player === me);
        sound.play('podium', { vibrate: mine });
        if (mine) celebrate(firsts.length > 1 ? '🏆 Joint champions!' : '🏆 Champion!');
        else if (tv && firsts.length) {
          celebrate(`🏆 ${listOf(firsts.map((s) => s.name))}: champion${firsts.length > 1 ? 's' : ''}!`);
        }
        break;
      }
      default:
    }
  }

  let lastTick = null;
  /** A tick each second of the last five of a round. */
  function tickSound() {
    const r = state.room;
    const left = r?.phase === 'playing' && r.round && !r.round.over ? leftUntil(r.round.deadline) : 0;
    const second = left > 0 && left <= 5000 ? Math.ceil(left / 1000) : null;
    if (second !== null && second !== lastTick) sound.play('tick');
    lastTick = second;
  }

  function pickScreen() {
    if (state.consent) return consentScreen;
    if (kind === 'tv') return tvScreen;
    if (state.needName) return nameScreen;
    if (state.solo) return soloScreen;
    if (state.room) return roomScreen;
    return lobbyScreen;
  }

  function renderBanner() {
    const parts = [];
    if (state.conn === 'waiting' || (state.conn === 'connecting' && state.me)) {
      parts.push(h('p', { class: 'banner-line warn', text: 'Connection lost: reconnecting…' }));
    } else if (state.conn === 'replaced') {
      parts.push(h('p', { class: 'banner-line warn' },
        `${state.me ? `${state.me.name} plays` : 'You play'} in another tab or on another device now, which took over from this one. `,
        h('button', { type: 'button', class: 'link', on: { click: act.reconnect }, text: 'Play here instead' })));
    }
    if (state.deviceAdded) {
      parts.push(h('p', { class: 'banner-line warn', role: 'alert' },
        `A new device signed in as you: ${state.deviceAdded}. Not you? `,
        h('button', { type: 'button', class: 'link', on: { click: act.listDevices }, text: 'Revoke it' })));
    }
    if (state.toast && state.toast.until > now()) {
      parts.push(h('p', { class: 'banner-line', text: state.toast.text }));
    }
    // Taken over is no passing moment: its banner stands in the page, above the header, not over it.
    banner.classList.toggle('in-flow', state.conn === 'replaced' || Boolean(state.deviceAdded));
    fill(banner, parts);
  }

  function render() {
    renderBanner();
    const module = pickScreen();
    if (module !== current.module) {
      screenRoot.replaceChildren();
      current = { module, view: module.mount(screenRoot, { act, state }) };
    }
    current.view.update(state);
  }

  // Timers and lockouts count down without a message from the server.
  setInterval(() => {
    if (state.toast && state.toast.until <= now()) {
      state.toast = null;
      renderBanner();
    }
    current.view?.tick?.(state);
    tickSound();
    if (game.syncSound()) render();
  }, 200);

  addEventListener('popstate', () => {
    game.onRoute(parseRoute(routePath(location.pathname)));
    render();
  });

  // A phone that slept or changed networks: try at once instead of waiting
  // out the back-off.
  const wake = () => {
    if (state.conn === 'waiting') conn.connect();
  };
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') wake();
  });
  addEventListener('online', wake);

  // The lobby's public rooms stay current while the page is looked at.
  setInterval(() => {
    // Not through `act`: nothing changes until the answer comes (and redraws).
    if (document.visibilityState === 'visible') game.act.refreshRooms();
  }, ROOMS_REFRESH_MS);

  if (state.solo?.kind === 'challenge') peekChallenge(state.solo);

  if (conn.wanted()) conn.connect();
  else state.conn = 'idle';
  render();

  /**
   * Who set the challenge and the time to beat, before the clock starts
   * (`GET /api/challenges/CODE` never gives the hand); an unknown code says
   * so at once.
   */
  function peekChallenge(solo) {
    fetch(`${BASE}/api/challenges/${encodeURIComponent(solo.code)}`)
      .then((r) => r.json().then((body) => ({ ok: r.ok, body })))
      .then(({ ok, body }) => {
        if (ok && typeof body.by === 'string' && body.to_beat) solo.preview = { by: body.by, toBeat: body.to_beat };
        else if (!ok && typeof body.error?.message === 'string') solo.error = body.error.message;
        render();
      })
      .catch(() => {});
  }
}
