// The page's entry: reads the address, owns the state and the connection,
// turns player actions into requests, and redraws the current screen after
// every change. Screens (one module each) only read the state and call the
// actions they are given.

import { Connection } from './net.js';
import {
  basePath, routePath, redirectPage, handover, linkCode, shown,
} from './address.js';
import { LIMITS } from './limits.js';
import { createState, applyServer, canPlay } from './state.js';
import {
  loadIdentity, saveIdentity, forgetIdentity, setAside, loadPrevious, forgetPrevious, saveDraft,
} from './store.js';
import { joinBase } from './screens/invite.js';
import { appendPiece, removeLast, wantsOperand, MAX_LEN } from './formula.js';
import { deadlineIn, leftUntil, now } from './clock.js';
import { createSound } from './sound.js';
import { celebrate } from './celebrate.js';
import { floatReaction } from './screens/reactions.js';
import { listOf } from './words.js';
import { champions } from './ratings.js';
import { h, fill } from './dom.js';
import * as nameScreen from './screens/name.js';
import * as consentScreen from './screens/consent.js';
import * as lobbyScreen from './screens/lobby.js';
import * as roomScreen from './screens/room.js';
import * as tvScreen from './screens/tv.js';
import * as leaderboardScreen from './screens/leaderboard.js';
import * as profileScreen from './screens/profile.js';

/** What the address asks for. */
function parseRoute(path) {
  let m = path.match(/^\/r\/([^/]+)\/?$/);
  if (m) return { kind: 'room', code: decodeURIComponent(m[1]).toUpperCase() };
  m = path.match(/^\/tv\/([^/]+)\/?$/);
  if (m) return { kind: 'tv', code: decodeURIComponent(m[1]).toUpperCase() };
  if (/^\/leaderboard\/?$/.test(path)) return { kind: 'leaderboard' };
  if (/^\/link\/?$/.test(path)) return { kind: 'link' };
  m = path.match(/^\/p\/([^/]+)\/?$/);
  if (m) return { kind: 'profile', name: decodeURIComponent(m[1]) };
  return { kind: 'lobby' };
}

const app = document.getElementById('app');
/** The path prefix the server is reached under (`` at the root). */
const BASE = basePath(location.pathname);
const route = parseRoute(routePath(location.pathname));

// A redirect from another node handed over a single-use ticket (and how
// many redirects led here) in the fragment, or a scanned device link its
// code: read them, and take them out of the address at once (history,
// bookmarks, a shared screen). Neither replaces the identity this browser
// keeps without the person's yes (startGame).
const MAX_HOPS = LIMITS.redirects_in_a_row;
const handed = handover(location.hash, MAX_HOPS, LIMITS.name_chars);
const scanned = route.kind === 'link' ? linkCode(location.hash) : null;
if (location.hash) history.replaceState(null, '', location.pathname + location.search);

if (route.kind === 'leaderboard') {
  leaderboardScreen.show(app);
} else if (route.kind === 'profile') {
  profileScreen.show(app, route.name);
} else {
  startGame(route);
}

function startGame(route) {
  const kind = route.kind === 'tv' ? 'tv' : 'player';
  const state = createState(route);
  let identity = loadIdentity(kind);
  let pendingName = null;
  // A ticket to sign in with (a redirect's, or a device code), once the
  // person agreed when this browser already had an identity.
  let pendingTicket = null;
  let welcomedHere = false;
  let tvRetry = null;
  state.previous = loadPrevious(kind);
  if (handed.ticket) {
    const same = identity && handed.name && identity.name.toLowerCase() === handed.name.toLowerCase();
    if (!identity) pendingTicket = handed.ticket;
    else if (!same) state.consent = { ticket: handed.ticket, name: handed.name, current: identity.name, device: false };
  } else if (route.kind === 'link') {
    state.linkCode = scanned;
    if (identity && scanned) state.consent = { ticket: scanned, name: null, current: identity.name, device: true };
  }
  // Redirects followed in a row without a seat (the loop guard), and
  // whether the page is already on its way to another node.
  let hops = handed.hops;
  let leaving = false;

  const banner = h('div', { class: 'banner', role: 'status', 'aria-live': 'polite' });
  const screenRoot = h('div', { class: 'screen' });
  fill(app, banner, screenRoot);
  let current = { module: null, view: null };

  const conn = new Connection({
    onOpen: () => {
      welcomedHere = false;
      forgetUnanswered();
      sayHello();
    },
    onMessage: (m) => {
      const word = applyServer(state, m);
      // A refused name is not said again on the next connection.
      if (state.needName) pendingName = null;
      react(word);
      cheer(m);
      render();
    },
    onStatus: (status) => {
      state.conn = status;
      // Taken over: by the device that used the code this page shows (the
      // usual case), or by another tab; either way the code is not this
      // page's to offer any more.
      if (status === 'replaced') forgetDeviceCode();
      render();
    },
    // Nothing to say (a name not chosen yet, a link's question not
    // answered): no socket, which the server would close for saying no
    // hello in time.
    wanted: () => !state.consent && Boolean(welcomedHere || identity || pendingTicket || pendingName || kind === 'tv'),
  });

  /** Stops showing the code for another device (and frees its QR image). */
  function forgetDeviceCode() {
    if (state.device?.qr) URL.revokeObjectURL(state.device.qr);
    state.device = null;
  }

  /** Says hello on the open connection, or opens one to say it on. */
  function speak() {
    if (state.conn === 'open') sayHello();
    else conn.ensure();
  }

  const sound = createSound();
  state.sound = { muted: sound.muted, waiting: sound.waiting };
  let lastTick = null;

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

  /** A tick each second of the last five of a round. */
  function tickSound() {
    const r = state.room;
    const left = r?.phase === 'playing' && r.round && !r.round.over ? leftUntil(r.round.deadline) : 0;
    const second = left > 0 && left <= 5000 ? Math.ceil(left / 1000) : null;
    if (second !== null && second !== lastTick) sound.play('tick');
    lastTick = second;
  }

  function tvName() {
    return `TV ${1000 + Math.floor(Math.random() * 9000)}`;
  }

  function sayHello() {
    if (state.consent || welcomedHere) return; // asked first; or already someone on this connection
    if (identity) conn.send({ type: 'hello', protocol: LIMITS.protocol, token: identity.token });
    else if (pendingTicket) conn.send({ type: 'hello', protocol: LIMITS.protocol, ticket: pendingTicket });
    else if (pendingName) conn.send({ type: 'hello', protocol: LIMITS.protocol, name: pendingName });
    else if (kind === 'tv') conn.send({ type: 'hello', protocol: LIMITS.protocol, name: (pendingName = tvName()) });
    else state.needName = true;
  }

  function go(path, replace = false) {
    const full = BASE + path;
    if (location.pathname === full) return;
    if (replace) history.replaceState(null, '', full);
    else history.pushState(null, '', full);
    state.route = parseRoute(path);
  }

  /**
   * Goes to the room's page on the node that holds it, with the redirect's
   * ticket when that page is on another origin (which does not share this
   * one's storage, so does not know the token).
   */
  function followRedirect() {
    const { url, code, ticket } = state.redirect;
    state.redirect = null;
    if (leaving) return; // a second answer from the node we are leaving
    hops += 1;
    let page = hops > MAX_HOPS ? null : redirectPage({ url, code, tv: kind === 'tv', hops });
    if (page && new URL(page).origin !== location.origin) {
      page = redirectPage({ url, code, tv: kind === 'tv', ticket, name: identity?.name, hops });
    }
    if (page && page.split('#')[0] === location.href.split('#')[0]) {
      // Sent to the node this page is on (only the fragment would change,
      // which loads nothing): ask again here.
      join(code, kind === 'tv');
      return;
    }
    if (page) {
      leaving = true;
      state.notice = `Room ${shown(code)} is on another server: moving there…`;
      location.assign(page);
      return;
    }
    state.joining = null;
    state.lobbyError = hops > MAX_HOPS
      ? `Room ${shown(code)} was sent from server to server ${MAX_HOPS} times without a seat: giving up`
      : `The server sent room ${shown(code)} to ${shown(url)}, which is not a ws:// or wss:// address: not following it`;
    hops = 0;
    if (kind === 'player') go('/', true);
  }

  function enterLobby() {
    if (kind === 'player') go('/');
    conn.send({ type: 'list_rooms' });
  }

  function react(word) {
    switch (word) {
      case 'welcomed':
        welcomedHere = true;
        identity = { name: state.me.name, token: state.me.token };
        saveIdentity(kind, identity);
        state.previous = loadPrevious(kind);
        pendingName = null;
        pendingTicket = null;
        state.linkCode = null;
        if (state.me.resumed) return; // room_state follows
        if (state.route.kind === 'link') go('/', true);
        if (state.route.kind === 'room') join(state.route.code, false);
        else if (kind === 'tv') join(route.code, true);
        else conn.send({ type: 'list_rooms' });
        return;
      case 'redirect':
        followRedirect();
        return;
      case 'in_room':
        hops = 0;
        clearTimeout(tvRetry);
        if (kind === 'player') go(`/r/${state.room.code}`, state.route.kind === 'room');
        sendUnsent();
        return;
      case 'left':
      case 'kicked':
        enterLobby();
        return;
      case 'join_failed':
        if (kind === 'tv') {
          // The room may not be open yet: look again, slowly (code guesses are limited).
          clearTimeout(tvRetry);
          tvRetry = setTimeout(() => join(route.code, true), 15_000);
        } else {
          go('/', true);
          conn.send({ type: 'list_rooms' });
        }
        return;
      case 'bad_token':
        if (pendingTicket) {
          // A used or expired ticket: this browser's own identity (if any)
          // was never replaced.
          pendingTicket = null;
          identity = loadIdentity(kind);
          if (identity || kind === 'tv') {
            sayHello();
          } else {
            state.needName = true;
            state.nameError = 'That code was used already or has expired: ask the other device for a new one, or choose a name.';
          }
          return;
        }
        forgetIdentity(kind);
        if (identity) forgetPrevious(kind, identity);
        identity = null;
        if (kind === 'tv') {
          sayHello();
        } else {
          state.needName = true;
          state.nameError = 'This server does not know this browser’s player any more. Choose a name to play.';
        }
        return;
      case 'name_taken':
        if (kind === 'tv') {
          pendingName = tvName();
          state.needName = false;
          sayHello();
        }
        return;
      default:
    }
  }

  /** Plays as `next` (or asks for a name) on a fresh connection. */
  function switchTo(next) {
    identity = next;
    pendingName = null;
    pendingTicket = null;
    state.me = null;
    state.room = null;
    state.rooms = null;
    state.needName = !next;
    state.nameError = null;
    state.previous = loadPrevious(kind);
    if (kind === 'player') go('/', true);
    conn.restart();
    render();
  }

  /**
   * Sends a submit or a claim for the live round, or keeps it (`unsent`)
   * while the connection is down: it goes once the room is back
   * (`sendUnsent`). A tap is never dropped without a word.
   */
  function sendAnswer(r, message) {
    r.dropped = false;
    r.verdict = null;
    if (conn.send(message)) {
      r.pending = true;
      r.unsent = null;
    } else {
      r.unsent = message;
    }
    render();
  }

  /** The answer kept while disconnected, now that the room's state is back. */
  function sendUnsent() {
    const r = room();
    const unsent = r?.unsent;
    if (!unsent) return;
    r.unsent = null;
    if (r.phase === 'playing' && r.round?.number === unsent.round && canPlay(state)) sendAnswer(r, unsent);
  }

  /**
   * A new connection: an answer sent on the old one whose verdict never
   * came may or may not have reached the server, so it is not sent again
   * (a second wrong one would cost another lockout); the player is told.
   */
  function forgetUnanswered() {
    const r = room();
    if (!r?.pending) return;
    r.pending = false;
    r.dropped = true;
  }

  function join(code, spectator) {
    state.joining = code;
    conn.send({ type: 'join_room', code, spectator });
  }

  function room() {
    return state.room;
  }

  function setFormula(text) {
    const r = room();
    if (!r) return;
    r.formula = text.slice(0, MAX_LEN);
    if (r.round) saveDraft(r.code, r.round, r.formula);
    render();
  }

  const act = {
    setName(name) {
      pendingName = name.trim();
      state.nameError = null;
      state.needName = false;
      speak();
      render();
    },
    /** "Not you? Change player": a fresh connection for the next name; this one is kept as the previous. */
    forgetMe() {
      setAside(kind);
      switchTo(null);
    },
    /** Back to an identity this browser had before. */
    usePrevious(name) {
      const previous = loadPrevious(kind).find((p) => p.name === name);
      if (!previous) return;
      setAside(kind);
      switchTo(previous);
    },
    /** Signs in with a code another device showed. */
    useCode(code) {
      const c = code.trim();
      if (!c) return;
      pendingTicket = c;
      state.nameError = null;
      state.needName = false;
      if (!welcomedHere) speak();
      render();
    },
    /** The person's answer to a link that would sign this browser in as someone (else). */
    answerConsent(yes) {
      const asked = state.consent;
      state.consent = null;
      if (!asked) return;
      if (yes) {
        setAside(kind);
        identity = null;
        pendingTicket = asked.ticket;
      }
      speak();
      render();
    },
    linkDevice() {
      state.device = { asking: true };
      if (!conn.send({ type: 'link_device', base: joinBase(state) })) state.device = null;
      render();
    },
    closeDevice() {
      forgetDeviceCode();
      render();
    },
    listRooms: () => conn.send({ type: 'list_rooms' }),
    /** The next page of public rooms, added under those shown. */
    moreRooms() {
      if (!state.roomsNext || state.roomsMoreId) return;
      const id = conn.send({ type: 'list_rooms', after: state.roomsNext });
      state.roomsMoreId = id || null;
      render();
    },
    createRoom(isPublic) {
      state.lobbyError = null;
      conn.send({ type: 'create_room', public: isPublic });
    },
    joinRoom(code, spectator = false) {
      state.lobbyError = null;
      state.notice = null;
      join(code.trim().toUpperCase(), spectator);
      render();
    },
    leaveRoom() {
      const r = room();
      const inMatch = r && ['countdown', 'playing', 'between_rounds'].includes(r.phase);
      // A stray tap must not throw away a seat in the middle of a match.
      if (inMatch && !window.confirm(`Leave room ${r.code}? You lose your seat in this match.`)) return;
      conn.send({ type: 'leave_room' });
    },
    updateSettings: (settings) => conn.send({ type: 'update_settings', settings }),
    start: () => conn.send({ type: 'start' }),
    kick(player, name) {
      // Beside "Make host": a slip of the thumb must not throw a friend out.
      if (!window.confirm(`Remove ${name} from room ${room()?.code ?? ''}? They can join again unless the room is locked.`)) return;
      conn.send({ type: 'kick', player });
    },
    makeHost: (player) => conn.send({ type: 'transfer_host', player }),
    lock: (locked) => conn.send({ type: 'lock', locked }),
    chat(text) {
      const t = text.trim();
      if (!t) return false;
      return Boolean(conn.send({ type: 'chat', text: t }));
    },
    setFormula,
    tapCard(i) {
      const r = room();
      if (!r?.round) return;
      if (!wantsOperand(r.formula)) {
        state.toast = { text: 'Pick an operator first: + − × ÷', until: deadlineIn(2500) };
        render();
        return;
      }
      setFormula(appendPiece(r.formula, String(r.round.cards[i])));
    },
    tapPiece(piece) {
      const r = room();
      if (r) setFormula(appendPiece(r.formula, piece));
    },
    undo() {
      const r = room();
      if (r) setFormula(removeLast(r.formula));
    },
    clear: () => setFormula(''),
    submit() {
      const r = room();
      if (!r?.round || r.phase !== 'playing' || !canPlay(state)) return;
      if (!r.formula.trim() || r.pending) return;
      sendAnswer(r, { type: 'submit', round: r.round.number, formula: r.formula });
    },
    claimNoSolution() {
      const r = room();
      if (!r?.round || r.phase !== 'playing' || !canPlay(state) || r.pending) return;
      sendAnswer(r, { type: 'claim_no_solution', round: r.round.number });
    },
    reconnect: () => conn.connect(),
    react: (emoji) => conn.send({ type: 'react', emoji }),
    ready: () => conn.send({ type: 'ready' }),
    toggleSound() {
      // The button said "Tap for sound": this tap (which woke the audio
      // already) means on, not off.
      sound.setMuted(state.sound.waiting && !sound.muted ? false : !sound.muted);
      state.sound = { muted: sound.muted, waiting: sound.waiting };
      render();
    },
  };

  function pickScreen() {
    if (state.consent) return consentScreen;
    if (kind === 'tv') return tvScreen;
    if (state.needName && !state.me) return nameScreen;
    if (state.needName) return nameScreen;
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
    if (state.toast && state.toast.until > now()) {
      parts.push(h('p', { class: 'banner-line', text: state.toast.text }));
    }
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
    if (state.sound.waiting !== sound.waiting) {
      state.sound = { muted: sound.muted, waiting: sound.waiting };
      render();
    }
  }, 200);

  addEventListener('popstate', () => {
    state.route = parseRoute(routePath(location.pathname));
    if (state.route.kind === 'lobby' && state.room) conn.send({ type: 'leave_room' });
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

  if (!identity && kind === 'player') state.needName = true;
  if (conn.wanted()) conn.connect();
  else state.conn = 'idle';
  render();
}
