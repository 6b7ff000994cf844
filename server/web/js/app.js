// The page's state and what changes it: the one state object (state.js
// applies the server's messages to it), the answers the page gives to those
// messages (say hello, join the room in the address, follow a redirect),
// and the player's actions. No socket, no DOM, no timer here: main.js wires
// the connection, the address bar, the screens and the clocks to it through
// `io`, as the terminal client's `play/app.rs` is wired by `play/mod.rs`.

import { redirectPage, shown } from './address.js';
import { LIMITS } from './limits.js';
import { createState, applyServer, canPlay } from './state.js';
import {
  loadIdentity, saveIdentity, forgetIdentity, setAside, loadPrevious, forgetPrevious, saveDraft,
} from './store.js';
import { joinBase } from './screens/invite.js';
import {
  appendPiece, removeLast, wantsOperand, handProblem, MAX_LEN,
} from './formula.js';
import { deadlineIn } from './clock.js';
import { SETTING_LABELS } from './words.js';
import {
  createSolo, startMessage, takesMessage, applySolo,
} from './solo.js';

const MAX_HOPS = LIMITS.redirects_in_a_row;
/** How long a TV waits before asking again for a room that is not open yet (code guesses are limited). */
const TV_RETRY_MS = 15_000;

/**
 * The app for a page of `kind` (`player` or `tv`) at `route`; `handed` is
 * what a redirect handed over in the fragment, `scanned` a scanned device
 * code. `io` is the world outside: `send(message)` (an id, or false while
 * disconnected), `restart()`, `ensure()`, `connect()` (the connection),
 * `go(path, replace)` (the address bar; returns the route it now shows),
 * `assign(url)` (leave for another page), `href()` (this page's address),
 * `confirm(question)`, `later(fn, ms)` / `cancelLater()` (the TV's retry),
 * `sound` (the sound player) and `render()`.
 *
 * Returns `{state, act, onOpen, onMessage, onStatus, wanted, onRoute}`.
 */
export function createApp({ kind, route, handed, scanned, io }) {
  const state = createState(route);
  // Who this page is and what it is waiting to say: the identity it signs
  // in with, a name chosen but not yet welcomed, a ticket to sign in with
  // (a redirect's, or a device code, once the person agreed when this
  // browser already had an identity), whether this connection was already
  // welcomed, redirects followed in a row without a seat (the loop guard),
  // and whether the page is already on its way to another node.
  const session = {
    identity: loadIdentity(kind),
    pendingName: null,
    pendingTicket: null,
    welcomedHere: false,
    hops: handed.hops,
    leaving: false,
    // A room to go to once the server has resumed this browser's seat (`linked`), or once
    // it has said the page left its room (`next`: {code, spectator}).
    linked: null,
    next: null,
    // The settings each `update_settings` still unanswered changes, by request id.
    settingsAsked: new Map(),
  };
  state.session = session;
  // The daily, a challenge or a run, on their own pages (solo.js).
  state.solo = createSolo(route);
  state.previous = loadPrevious(kind);
  if (handed.ticket) {
    const { identity } = session;
    const same = identity && handed.name && identity.name.toLowerCase() === handed.name.toLowerCase();
    if (!identity) session.pendingTicket = handed.ticket;
    else if (!same) state.consent = { ticket: handed.ticket, name: handed.name, current: identity.name, device: false };
  } else if (route.kind === 'link') {
    state.linkCode = scanned;
    if (session.identity && scanned) {
      state.consent = { ticket: scanned, name: null, current: session.identity.name, device: true };
    }
  }
  state.sound = { muted: io.sound.muted, waiting: io.sound.waiting };
  if (!session.identity && kind === 'player') state.needName = true;

  const room = () => state.room;

  function go(path, replace = false) {
    const next = io.go(path, replace);
    if (next) state.route = next;
  }

  /** Stops showing the code for another device (and frees its QR image). */
  function forgetDeviceCode() {
    if (state.device?.qr) URL.revokeObjectURL(state.device.qr);
    state.device = null;
  }

  function tvName() {
    return `TV ${1000 + Math.floor(Math.random() * 9000)}`;
  }

  function sayHello() {
    if (state.consent || session.welcomedHere) return; // asked first; or already someone on this connection
    const hello = { type: 'hello', protocol: LIMITS.protocol, device: deviceLabel() };
    if (session.identity) io.send({ ...hello, token: session.identity.token });
    else if (session.pendingTicket) io.send({ ...hello, ticket: session.pendingTicket });
    else if (session.pendingName) io.send({ ...hello, name: session.pendingName });
    else if (kind === 'tv') io.send({ ...hello, name: (session.pendingName = tvName()) });
    else state.needName = true;
  }

  /** Says hello on the open connection, or opens one to say it on. */
  function speak() {
    if (state.conn === 'open') sayHello();
    else io.ensure();
  }

  function join(code, spectator) {
    state.joining = code;
    io.send({ type: 'join_room', code, spectator });
  }

  /**
   * Goes to the room's page on the node that holds it, with the redirect's
   * ticket when that page is on another origin (which does not share this
   * one's storage, so does not know the token).
   */
  function followRedirect() {
    const { url, code, ticket } = state.redirect;
    state.redirect = null;
    if (session.leaving) return; // a second answer from the node we are leaving
    session.hops += 1;
    const { hops } = session;
    const tv = kind === 'tv';
    const here = io.href();
    let page = hops > MAX_HOPS ? null : redirectPage({ url, code, tv, hops });
    if (page && new URL(page).origin !== new URL(here).origin) {
      page = redirectPage({ url, code, tv, ticket, name: session.identity?.name, hops });
    }
    if (page && page.split('#')[0] === here.split('#')[0]) {
      // Sent to the node this page is on (only the fragment would change,
      // which loads nothing): ask again here.
      join(code, tv);
      return;
    }
    if (page) {
      session.leaving = true;
      state.notice = `Room ${shown(code)} is on another server: moving there…`;
      io.assign(page);
      return;
    }
    state.joining = null;
    state.lobbyError = hops > MAX_HOPS
      ? `Room ${shown(code)} was sent from server to server ${MAX_HOPS} times without a seat: giving up`
      : `The server sent room ${shown(code)} to ${shown(url)}, which is not a ws:// or wss:// address: not following it`;
    session.hops = 0;
    if (kind === 'player') go('/', true);
  }

  function enterLobby() {
    if (kind === 'player') go('/');
    io.send({ type: 'list_rooms' });
  }

  /**
   * Sends a submit or a claim for the live round, or keeps it (`unsent`)
   * while the connection is down: it goes once the room is back
   * (`sendUnsent`). A tap is never dropped without a word.
   */
  function sendAnswer(r, message) {
    r.dropped = false;
    r.verdict = null;
    if (io.send(message)) {
      r.pending = true;
      r.unsent = null;
    } else if (state.conn !== 'replaced') {
      r.unsent = message;
    }
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

  /** The room the page's address names (`/r/CODE`, `/tv/CODE`), or null. */
  function addressedRoom() {
    if (kind === 'tv') return route.code;
    return state.route.kind === 'room' ? state.route.code : null;
  }

  /**
   * The seat this browser resumed is in another room than the address
   * names (a friend's link opened on a seated phone; a TV pointed at
   * another room): leave it for the linked one, asking first where a seat
   * would be lost. Returns whether the page is on its way; when the person
   * says no, the address shows the room they stay in.
   */
  function moveTo(code) {
    const r = state.room;
    const me = r.players.find((p) => p.id === state.me?.id);
    const seated = kind === 'player' && me && !me.spectator;
    if (seated && !io.confirm(`Leave ${r.code}? You lose your seat there, to join ${code}.`)) return false;
    session.next = { code, spectator: kind === 'tv' };
    io.send({ type: 'leave_room' });
    return true;
  }

  /** The answer to a server message that needs one (the word state.js returned). */
  function react(word) {
    switch (word) {
      case 'welcomed':
        session.welcomedHere = true;
        session.identity = { name: state.me.name, token: state.me.token };
        saveIdentity(kind, session.identity);
        state.previous = loadPrevious(kind);
        session.pendingName = null;
        session.pendingTicket = null;
        state.linkCode = null;
        // "Not you? Revoke it" on a page that had been taken over: the list now.
        if (state.devices && !state.devices.list) io.send({ type: 'devices' });
        if (state.me.resumed) {
          // room_state follows, of the room the seat is in: the room the
          // address names, if another, is gone to once it is here.
          session.linked = addressedRoom();
          return;
        }
        if (state.route.kind === 'link') go('/', true);
        if (state.solo) {
          resumeSolo();
          return;
        }
        if (state.route.kind === 'room') join(state.route.code, false);
        else if (kind === 'tv') join(route.code, true);
        else io.send({ type: 'list_rooms' });
        return;
      case 'redirect':
        followRedirect();
        return;
      case 'in_room': {
        session.hops = 0;
        io.cancelLater();
        const { linked } = session;
        session.linked = null;
        if (linked && linked !== state.room.code && moveTo(linked)) return;
        // A seat resumed under a daily's or a run's page: the page stays.
        if (state.solo) return;
        if (kind === 'player') go(`/r/${state.room.code}`, state.route.kind === 'room');
        sendUnsent();
        return;
      }
      case 'left':
      case 'kicked':
        if (session.next) {
          const { code, spectator } = session.next;
          session.next = null;
          if (word === 'left') {
            join(code, spectator);
            return;
          }
        }
        enterLobby();
        return;
      case 'join_failed':
        if (kind === 'tv') {
          // The room may not be open yet: look again, slowly.
          io.cancelLater();
          io.later(() => join(route.code, true), TV_RETRY_MS);
        } else {
          go('/', true);
          io.send({ type: 'list_rooms' });
        }
        return;
      case 'bad_token':
        if (session.pendingTicket) {
          // A used or expired ticket: this browser's own identity (if any)
          // was never replaced.
          session.pendingTicket = null;
          session.identity = loadIdentity(kind);
          if (session.identity || kind === 'tv') {
            sayHello();
          } else {
            state.needName = true;
            state.nameError = 'That code was used already or has expired: ask the other device for a new one, or choose a name.';
          }
          return;
        }
        forgetIdentity(kind);
        if (session.identity) forgetPrevious(kind, session.identity);
        session.identity = null;
        if (kind === 'tv') {
          sayHello();
        } else {
          state.needName = true;
          state.nameError = 'This server does not know this browser’s player any more. Choose a name to play.';
        }
        return;
      case 'name_taken':
        if (kind === 'tv') {
          session.pendingName = tvName();
          state.needName = false;
          sayHello();
        }
        return;
      default:
    }
  }

  /** Plays as `next` (or asks for a name) on a fresh connection. */
  function switchTo(next) {
    session.identity = next;
    session.pendingName = null;
    session.pendingTicket = null;
    state.me = null;
    state.room = null;
    state.rooms = null;
    state.needName = !next;
    state.nameError = null;
    state.previous = loadPrevious(kind);
    if (kind === 'player') go('/', true);
    io.restart();
  }

  /**
   * The server refused a setting: the host's form goes back to the values in
   * force, and the toast names the setting as the form labels it.
   */
  function refuseSettings(m) {
    const keys = session.settingsAsked.get(m.id) ?? [];
    session.settingsAsked.delete(m.id);
    const r = state.room;
    r.settings = { ...r.settings };
    r.refusedSettings = keys;
    const message = typeof m.message === 'string' ? m.message : '';
    // The server's reason names the setting by its key: say it in the form's words.
    const named = keys.find((k) => message.includes(k));
    const reason = named ? message.slice(message.indexOf(named) + named.length).replace(/^[\s:]+/, '') : message;
    const label = named ? SETTING_LABELS[named] ?? named : null;
    state.toast = { text: label ? `${label}: ${reason}` : message, until: deadlineIn(6000) };
  }

  /**
   * A new connection under a solo page: the daily or challenge is asked
   * again (the server resumes its clock); a run is taken up again with
   * `run_resume` (asking `run_start` again would start another): the same
   * hand, the clock as it stands on the server. Practice sits down at a new
   * table (the old one ended with its connection).
   */
  function resumeSolo() {
    const solo = state.solo;
    if (!solo.started || solo.result) return;
    solo.pending = false;
    if (solo.kind === 'run') {
      solo.resuming = true;
      io.send({ type: 'run_resume' });
      return;
    }
    io.send(startMessage(solo));
  }

  function setSoloFormula(text) {
    if (state.solo) state.solo.formula = text.slice(0, MAX_LEN);
  }

  function setFormula(text) {
    const r = room();
    if (!r) return;
    r.formula = text.slice(0, MAX_LEN);
    if (r.round) saveDraft(r.code, r.round, r.formula);
  }

  /** The player's actions, as the screens call them; main.js redraws after each. */
  const act = {
    setName(name) {
      session.pendingName = name.trim();
      state.nameError = null;
      state.needName = false;
      speak();
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
      session.pendingTicket = c;
      state.nameError = null;
      state.needName = false;
      if (!session.welcomedHere) speak();
    },
    /** The person's answer to a link that would sign this browser in as someone (else). */
    answerConsent(yes) {
      const asked = state.consent;
      state.consent = null;
      if (!asked) return;
      if (yes) {
        setAside(kind);
        session.identity = null;
        session.pendingTicket = asked.ticket;
      }
      speak();
    },
    linkDevice() {
      state.device = { asking: true };
      if (!io.send({ type: 'link_device', base: joinBase(state) })) state.device = null;
    },
    closeDevice: forgetDeviceCode,
    /** Opens the list of the player's devices (taking this page back first when another took over). */
    listDevices() {
      state.deviceAdded = null;
      state.devices = { list: null };
      if (state.conn === 'replaced' || !io.send({ type: 'devices' })) io.connect();
    },
    revokeDevice: (id) => io.send({ type: 'revoke_device', device: id }),
    closeDevices() {
      state.devices = null;
    },
    listRooms: () => io.send({ type: 'list_rooms' }),
    /**
     * The first page of public rooms again, while the lobby shows it (seats
     * fill and matches start); not once "More rooms" has added a page, which
     * a refresh would take away. main.js calls it every ROOMS_REFRESH_MS.
     */
    refreshRooms() {
      if (kind !== 'player' || state.room || state.solo || state.route.kind !== 'lobby') return;
      if (state.conn !== 'open' || !state.me || state.roomsPaged || state.roomsMoreId) return;
      io.send({ type: 'list_rooms' });
    },
    /** The next page of public rooms, added under those shown. */
    moreRooms() {
      if (!state.roomsNext || state.roomsMoreId) return;
      const id = io.send({ type: 'list_rooms', after: state.roomsNext });
      state.roomsMoreId = id || null;
    },
    createRoom(isPublic) {
      state.lobbyError = null;
      io.send({ type: 'create_room', public: isPublic });
    },
    joinRoom(code, spectator = false) {
      state.notice = null;
      const c = code.trim().toUpperCase();
      if (!c) {
        state.lobbyError = `Type the room’s code first: the ${LIMITS.room_code_chars} letters and digits the host’s screen shows`;
        return;
      }
      state.lobbyError = null;
      join(c, spectator);
    },
    leaveRoom() {
      const r = room();
      const inMatch = r && ['countdown', 'playing', 'between_rounds'].includes(r.phase);
      // A stray tap must not throw away a seat in the middle of a match.
      if (inMatch && !io.confirm(`Leave room ${r.code}? You lose your seat in this match.`)) return;
      io.send({ type: 'leave_room' });
    },
    updateSettings(settings) {
      const id = io.send({ type: 'update_settings', settings });
      if (!id) return;
      session.settingsAsked.set(id, Object.keys(settings));
      // Accepted ones get no answer of their own (the room's echo has no id): keep the last few.
      if (session.settingsAsked.size > 20) session.settingsAsked.delete(session.settingsAsked.keys().next().value);
    },
    start: () => io.send({ type: 'start' }),
    kick(player, name) {
      // Beside "Make host": a slip of the thumb must not throw a friend out.
      if (!io.confirm(`Remove ${name} from room ${room()?.code ?? ''}? They can join again unless the room is locked.`)) return;
      io.send({ type: 'kick', player });
    },
    makeHost: (player) => io.send({ type: 'transfer_host', player }),
    addBot: (skill) => io.send({ type: 'add_bot', skill }),
    removeBot: (player) => io.send({ type: 'remove_bot', player }),
    lock: (locked) => io.send({ type: 'lock', locked }),
    chat(text) {
      const t = text.trim();
      if (!t) return false;
      return Boolean(io.send({ type: 'chat', text: t }));
    },
    setFormula,
    tapCard(i) {
      const r = room();
      if (!r?.round) return;
      if (!wantsOperand(r.formula)) {
        state.toast = { text: 'Pick an operator first: + − × ÷', until: deadlineIn(2500) };
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
      // Never sent: it could not be right, and a miss costs a lockout (the preview says why).
      if (handProblem(r.formula, r.round.cards)) return;
      sendAnswer(r, { type: 'submit', round: r.round.number, formula: r.formula });
    },
    claimNoSolution() {
      const r = room();
      if (!r?.round || r.phase !== 'playing' || !canPlay(state) || r.pending) return;
      // One tap beside Submit: a slip must not cost a lockout.
      if (!io.confirm('Claim that this hand has no solution? If it has one, that counts as a miss.')) return;
      sendAnswer(r, { type: 'claim_no_solution', round: r.round.number });
    },
    soloStart() {
      const solo = state.solo;
      if (!solo || !state.me) return;
      if (io.send(startMessage(solo))) {
        solo.started = true;
        solo.lost = false;
        solo.verdict = null;
      }
    },
    soloSetFormula: setSoloFormula,
    soloTapCard(i) {
      const hand = state.solo?.hand;
      if (!hand) return;
      if (!wantsOperand(state.solo.formula)) {
        state.toast = { text: 'Pick an operator first: + − × ÷', until: deadlineIn(2500) };
        return;
      }
      setSoloFormula(appendPiece(state.solo.formula, String(hand.cards[i])));
    },
    soloTapPiece(piece) {
      if (state.solo) setSoloFormula(appendPiece(state.solo.formula, piece));
    },
    soloUndo() {
      if (state.solo) setSoloFormula(removeLast(state.solo.formula));
    },
    soloClear: () => setSoloFormula(''),
    soloSubmit() {
      const solo = state.solo;
      if (!solo?.hand || solo.result || solo.pending || !solo.formula.trim()) return;
      // Never sent: it could not be right (the preview says why).
      if (handProblem(solo.formula, solo.hand.cards)) return;
      const formula = solo.formula;
      const message = solo.kind === 'daily' ? { type: 'daily_submit', formula }
        : solo.kind === 'challenge' ? { type: 'challenge_submit', formula }
          : { type: `${solo.kind === 'practice' ? 'practice' : 'run'}_submit`, hand: solo.hand.number, formula };
      solo.verdict = null;
      if (io.send(message)) solo.pending = true;
    },
    /** "Challenge a friend" after a round this player solved in the room. */
    roomChallenge() {
      const room = state.room;
      const round = room?.round?.number;
      if (!room || room.solvedRound !== round || room.challenge?.asked) return;
      if (io.send({ type: 'challenge_create', round })) room.challenge = { round, asked: true, code: null };
    },
    practiceDifficulty(difficulty) {
      if (state.solo?.kind === 'practice') state.solo.difficulty = difficulty;
    },
    practiceHint() {
      const solo = state.solo;
      if (solo?.kind === 'practice' && solo.hand && solo.hints.length < (solo.info?.steps ?? 0)) io.send({ type: 'practice_hint' });
    },
    practiceSkip() {
      const solo = state.solo;
      if (solo?.kind !== 'practice' || !solo.hand) return;
      solo.verdict = null;
      io.send({ type: 'practice_skip' });
    },
    soloChallenge() {
      const solo = state.solo;
      if (!solo?.result || solo.askedChallenge) return;
      if (io.send({ type: 'challenge_create' })) solo.askedChallenge = true;
    },
    reconnect: () => io.connect(),
    react: (emoji) => io.send({ type: 'react', emoji }),
    ready: () => io.send({ type: 'ready' }),
    toggleSound() {
      const { sound } = io;
      // The button said "Tap for sound": this tap (which woke the audio
      // already) means on, not off.
      sound.setMuted(state.sound.waiting && !sound.muted ? false : !sound.muted);
      state.sound = { muted: sound.muted, waiting: sound.waiting };
    },
  };

  return {
    state,
    act,
    /** A connection opened: say who we are. */
    onOpen() {
      session.welcomedHere = false;
      forgetUnanswered();
      sayHello();
    },
    /** A message from the server: apply it, then answer it where it needs an answer. */
    onMessage(m) {
      if (takesMessage(state.solo, m)) {
        applySolo(state.solo, m);
        return;
      }
      if (m.type === 'error' && m.code === 'invalid_settings' && state.room) {
        refuseSettings(m);
        return;
      }
      const word = applyServer(state, m);
      // A refused name is not said again on the next connection.
      if (state.needName) session.pendingName = null;
      react(word);
    },
    onStatus(status) {
      state.conn = status;
      // Taken over: by the device that used the code this page shows (the
      // usual case), or by another tab; either way the code is not this
      // page's to offer any more.
      if (status !== 'replaced') return;
      forgetDeviceCode();
      // "Revoke it" tapped between `device_added` and the close that follows
      // it: the list was asked on the connection now gone, so take it back.
      if (state.devices && !state.devices.list) io.connect();
      // Nor is an answer kept for a connection that is not coming back here.
      if (state.room) state.room.unsent = null;
    },
    /**
     * Whether the page has anything to say: not while a name is not chosen
     * yet or a link's question is not answered (the server closes a socket
     * that says no hello in time).
     */
    wanted: () => !state.consent && Boolean(session.welcomedHere || session.identity
      || session.pendingTicket || session.pendingName || kind === 'tv'),
    /** The person moved through the history (back, forward) to `next`. */
    onRoute(next) {
      state.route = next;
      if (next.kind === 'lobby' && state.room) io.send({ type: 'leave_room' });
    },
    /** The sound player changed on its own (the audio woke up). */
    syncSound() {
      const { sound } = io;
      if (state.sound.waiting === sound.waiting) return false;
      state.sound = { muted: sound.muted, waiting: sound.waiting };
      return true;
    },
  };
}

/** What this browser calls itself in the player's list of devices: "Firefox on Android". */
function deviceLabel() {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox'
    : /Chrome\/|Chromium\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'A browser';
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad|iPod/.test(ua) ? 'iOS'
    : /Windows/.test(ua) ? 'Windows' : /Mac OS X/.test(ua) ? 'macOS' : /Linux/.test(ua) ? 'Linux' : null;
  return os ? `${browser} on ${os}` : browser;
}
