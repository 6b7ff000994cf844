// The one state object of the page, and the only code that changes it from
// what the server says. Screens read it; player actions go through main.js,
// which sends requests and makes the few local changes (the formula being
// built, notices). Deadlines are on this page's clock (clock.js).

import { deadlineIn } from './clock.js';
import { loadDraft } from './store.js';
import { LEAVE_REASONS, listOf } from './words.js';
import { champions } from './ratings.js';

const FEED_LINES = 80;

/** A fresh state for the page at `route`. */
export function createState(route) {
  return {
    route,
    conn: 'connecting',
    me: null,
    needName: false,
    nameError: null,
    joinUrls: [],
    rooms: null,
    // The cursor of the next page of public rooms (`rooms.next`), and the id
    // of the request for it while one is on its way.
    roomsNext: null,
    roomsMoreId: null,
    lobbyError: null,
    // The room this page was in when the server said it had lost it.
    lostRoom: null,
    joining: null,
    redirect: null,
    notice: null,
    toast: null,
    room: null,
    feedKey: 0,
    // A link that would sign this browser in as someone else, waiting for
    // the person's yes: {ticket, name, current, device}.
    consent: null,
    // The code of a scanned device link (`/link#CODE`), to sign in with.
    linkCode: null,
    // The code this device shows for another: {code, deadline, qr} (qr a
    // blob: URL), or {asking: true}.
    device: null,
    // The player's devices as last listed: {list: [{id, label, created,
    // lastUsed, mine}] or null while asked}; null when the list is closed.
    devices: null,
    // The label of a device that just signed in as this player, to ask
    // "not you?" about; null when none.
    deviceAdded: null,
    // The identities this browser had before ([{name, token}]), to go back to.
    previous: [],
  };
}

/**
 * The name of player `id` in the room, or of one who left it (a win can be
 * announced just after its winner closed the tab), or a stand-in.
 */
export function nameOf(room, id) {
  return room?.players.find((p) => p.id === id)?.name ?? room?.departed?.get(id) ?? 'Someone';
}

/** Most devices a list shows (the server keeps ten by default; a hostile one cannot grow it). */
const MAX_DEVICES = 64;

/** Most names of departed players a room keeps (a hostile server cannot grow it). */
const MAX_DEPARTED = 1024;

export const isHost = (state) => state.room && state.me && state.room.host === state.me.id;

/** The seated (non-spectator) players, best score first, then seating order. */
export function scoreboard(room) {
  return room.players
    .map((p, i) => ({ ...p, seat: i }))
    .filter((p) => !p.spectator)
    .sort((a, b) => b.score - a.score || a.seat - b.seat);
}

/** Whether this page's player plays (rather than watches or waits) this round. */
export function canPlay(state) {
  // Taken over by another tab or device: this page's hand is stale, and nothing it sends would arrive.
  if (state.conn === 'replaced') return false;
  const me = state.room?.players.find((p) => p.id === state.me?.id);
  return Boolean(me && !me.spectator && !me.waiting);
}

function feedLine(state, room, m) {
  switch (m.type) {
    case 'chat':
      return { kind: 'chat', name: m.name, text: m.text };
    case 'player_joined':
      return { kind: 'event', text: `${m.name}${m.bot ? ' (bot)' : ''} ${m.spectator ? 'is watching' : 'joined'}` };
    case 'player_left':
      return { kind: 'event', text: `${m.name} ${LEAVE_REASONS[m.reason] ?? 'left'}` };
    case 'match_started':
      return { kind: 'event', text: `Match started: ${m.rounds_total} round${m.rounds_total === 1 ? '' : 's'}` };
    case 'round_won':
      return m.no_solution
        ? { kind: 'win', text: `${nameOf(room, m.winner)} won round ${m.round}: no solution, rightly claimed` }
        : { kind: 'win', text: `${nameOf(room, m.winner)} won round ${m.round}: ${m.formula}` };
    case 'round_timed_out':
      return { kind: 'event', text: `Round ${m.round}: time ran out${m.solution ? ` (one solution: ${m.solution})` : ', and there was no solution'}` };
    case 'attempt_failed':
      return { kind: 'miss', text: `${nameOf(room, m.player)} tried and missed` };
    case 'solved':
      return { kind: 'win', text: `${nameOf(room, m.player)} solved it (+${m.points})` };
    case 'match_over': {
      const first = champions(m.standings).map((s) => s.name);
      return first.length ? { kind: 'win', text: `Match over: ${listOf(first)} won` } : { kind: 'event', text: 'Match over: nobody scored' };
    }
    default:
      return null;
  }
}

/** A `match_over`'s match id, when it is one (a UUID), else null. */
function matchIdOf(m) {
  return typeof m.match === 'string' && /^[0-9a-f-]{36}$/i.test(m.match) ? m.match.toLowerCase() : null;
}

function pushFeed(state, line) {
  if (!line || !state.room) return;
  state.room.feed.push({ ...line, key: state.feedKey++ });
  if (state.room.feed.length > FEED_LINES) state.room.feed.splice(0, state.room.feed.length - FEED_LINES);
}

function resultFrom(room, m) {
  if (m.type === 'round_won') {
    return {
      kind: 'won', round: m.round, winner: m.winner, name: nameOf(room, m.winner),
      formula: m.formula, noSolution: m.no_solution, elapsed: m.elapsed_ms,
    };
  }
  return { kind: 'timeout', round: m.round, solution: m.solution, solutions: m.solutions };
}

function roundFrom(r) {
  return {
    number: r.number, objective: r.objective, cards: r.cards,
    duration: r.duration_ms, deadline: deadlineIn(r.remaining_ms), over: r.remaining_ms === 0,
  };
}

/** Who has missed in a snapshot's live round: {player: {count, lockedUntil}}. */
function triesFrom(round) {
  const tries = {};
  for (const m of Array.isArray(round.misses) ? round.misses : []) {
    tries[m.player] = { count: Number(m.count) || 1, lockedUntil: deadlineIn(Number(m.locked_out_ms) || 0) };
  }
  return tries;
}

function applySnapshot(state, s) {
  const same = state.room?.code === s.code;
  const old = state.room;
  const room = {
    code: s.code,
    host: s.host,
    settings: s.settings,
    phase: s.state,
    locked: s.locked,
    players: s.players.map((p) => ({ ...p, bot: Boolean(p.bot) })),
    roundsTotal: s.rounds_total,
    round: s.round ? roundFrom(s.round) : null,
    next: s.next_ms != null ? deadlineIn(s.next_ms) : null,
    lockout: s.round?.locked_out_ms ? deadlineIn(s.round.locked_out_ms) : (same ? old.lockout : null),
    verdict: same ? old.verdict : null,
    result: same ? old.result : null,
    standings: same ? old.standings : null,
    // The id of the match just over (`match_over`'s `match`), for its recap.
    matchId: same ? old.matchId : null,
    feed: same ? old.feed : [],
    departed: same && old.departed ? old.departed : new Map(),
    formula: same && old.round?.number === s.round?.number ? old.formula : (s.round ? loadDraft(s.code, s.round) : ''),
    // Who missed in this round, {player: {count, lockedUntil}}: the TV
    // shows who has tried and who is locked out. A live round's snapshot
    // says (a TV opened mid-round); a finished one's keeps what was seen.
    tries: s.round?.remaining_ms > 0 ? triesFrom(s.round) : (same && old.round?.number === s.round?.number ? old.tries : {}),
    pending: same ? old.pending : false,
    // An answer tapped while disconnected, sent once the room is back (main.js).
    unsent: same && old.round?.number === s.round?.number && s.state === 'playing' ? old.unsent : null,
    // A sent answer whose verdict was lost with the connection.
    dropped: same && old.round?.number === s.round?.number ? old.dropped : false,
    // The rematch's ready check while one is open: {deadline, ready: [ids]}.
    readyCheck: s.ready_check ? { deadline: deadlineIn(s.ready_check.ms), ready: [...s.ready_check.ready] } : null,
  };
  state.room = room;
  const recent = s.recent ?? [];
  if (!same) {
    for (const m of recent) pushFeed(state, feedLine(state, room, m));
  }
  // A resumed page learns the last result and the standings from `recent`.
  if (room.phase === 'finished' && !room.standings) {
    const over = [...recent].reverse().find((m) => m.type === 'match_over');
    if (over) {
      room.standings = over.standings;
      room.matchId = matchIdOf(over);
    }
  }
  if (room.phase === 'between_rounds' && room.round && !room.result) {
    const last = [...recent].reverse().find((m) => (m.type === 'round_won' || m.type === 'round_timed_out') && m.round === room.round.number);
    if (last) room.result = resultFrom(room, last);
  }
  if (room.phase === 'lobby') {
    room.round = null;
    room.result = null;
    room.standings = null;
  }
}

const JOIN_ERRORS = new Set(['room_not_found', 'room_unreachable', 'room_full', 'room_locked', 'already_in_room', 'too_many_rooms', 'server_full']);
const NAME_ERRORS = new Set(['invalid_name', 'name_taken', 'unsupported_protocol']);

/**
 * Applies one server message. Returns a word for main.js when the message
 * needs an answer it alone can give (`welcomed`, `join_failed`, `bad_token`,
 * `name_taken`, `kicked`).
 */
export function applyServer(state, m) {
  const room = state.room;
  switch (m.type) {
    case 'welcome':
      state.me = { id: m.player_id, name: m.name, token: m.token, resumed: m.resumed };
      state.needName = false;
      state.nameError = null;
      state.joinUrls = Array.isArray(m.join_urls) ? m.join_urls.filter((u) => typeof u === 'string') : [];
      // Not resumed: the server lost the room this page was in (a crash),
      // if there was one; joining it again says so (see `error`).
      if (!m.resumed) {
        state.lostRoom = state.room?.code ?? null;
        state.room = null;
      }
      return 'welcomed';
    case 'rooms': {
      const page = Array.isArray(m.rooms) ? m.rooms : [];
      const more = state.roomsMoreId !== null && m.id === state.roomsMoreId;
      if (more && state.rooms) {
        const known = new Set(state.rooms.map((r) => r.code));
        state.rooms = [...state.rooms, ...page.filter((r) => !known.has(r.code))];
      } else {
        state.rooms = page;
      }
      if (more) state.roomsMoreId = null;
      // A list of more than the first page is not refreshed by itself.
      state.roomsPaged = more;
      state.roomsNext = typeof m.next === 'string' ? m.next : null;
      return null;
    }
    case 'redirect':
      // The room lives on another node: main.js goes to its page there.
      if (typeof m.url !== 'string' || typeof m.code !== 'string') return null;
      state.redirect = { url: m.url, code: m.code, ticket: typeof m.ticket === 'string' ? m.ticket : null };
      return 'redirect';
    case 'device_code': {
      if (typeof m.code !== 'string') return null;
      if (state.device?.qr) URL.revokeObjectURL(state.device.qr);
      const qr = typeof m.qr_svg === 'string'
        ? URL.createObjectURL(new Blob([m.qr_svg], { type: 'image/svg+xml' })) : null;
      state.device = { code: m.code, deadline: deadlineIn(Number(m.expires_ms) || 0), qr };
      return null;
    }
    case 'devices': {
      const list = Array.isArray(m.devices) ? m.devices.slice(0, MAX_DEVICES) : [];
      state.devices = {
        list: list.filter((d) => typeof d?.id === 'string' && typeof d.label === 'string').map((d) => ({
          id: d.id, label: d.label, created: Number(d.created_ms) || 0, lastUsed: Number(d.last_used_ms) || 0, mine: d.this_device === true,
        })),
      };
      return null;
    }
    case 'device_added':
      if (typeof m.device?.label === 'string') state.deviceAdded = m.device.label;
      return null;
    case 'room_state':
      applySnapshot(state, m);
      state.lobbyError = null;
      state.joining = null;
      return 'in_room';
    case 'match_started':
      if (!room) return null;
      room.phase = 'countdown';
      room.settings = m.settings;
      room.roundsTotal = m.rounds_total;
      room.next = deadlineIn(m.countdown_ms);
      room.standings = null;
      room.result = null;
      room.round = null;
      room.verdict = null;
      room.readyCheck = null;
      for (const p of room.players) p.score = 0;
      pushFeed(state, feedLine(state, room, m));
      return null;
    case 'round_started':
      if (!room) return null;
      room.phase = 'playing';
      room.round = { number: m.round, objective: m.objective, cards: m.cards, duration: m.duration_ms, deadline: deadlineIn(m.duration_ms), over: false };
      room.next = null;
      room.lockout = null;
      room.verdict = null;
      room.result = null;
      room.formula = loadDraft(room.code, room.round);
      room.tries = {};
      // The round this player answered right, and its challenge: {round, asked, code}.
      room.solvedRound = null;
      room.challenge = null;
      room.pending = false;
      room.unsent = null;
      room.dropped = false;
      for (const p of room.players) p.waiting = false;
      return 'round';
    case 'verdict':
      if (!room) return null;
      room.pending = false;
      room.dropped = false;
      room.verdict = {
        round: m.round, accepted: m.accepted, value: m.value ?? null,
        kind: m.error?.kind ?? null, message: m.error?.message ?? '', column: m.error?.column ?? null,
      };
      if (m.locked_out_ms) room.lockout = deadlineIn(m.locked_out_ms);
      if (m.accepted && Number.isInteger(m.round)) room.solvedRound = m.round;
      return null;
    case 'challenge':
      // The challenge of a round this player solved (`challenge_create` with its round).
      if (room?.challenge && !room.challenge.code) room.challenge.code = m.code;
      return null;
    case 'solved': {
      // `everyone` scoring: a right answer scored; the round goes on.
      if (!room) return null;
      const p = room.players.find((x) => x.id === m.player);
      if (p && Number.isInteger(m.score)) p.score = m.score;
      pushFeed(state, feedLine(state, room, m));
      return null;
    }
    case 'attempt_failed': {
      if (!room) return null;
      const p = room.players.find((x) => x.id === m.player);
      if (p) p.score = m.score;
      const tries = room.tries[m.player]?.count ?? 0;
      room.tries[m.player] = { count: tries + 1, lockedUntil: deadlineIn((room.settings.lockout_seconds ?? 0) * 1000) };
      if (m.player !== state.me?.id) pushFeed(state, feedLine(state, room, m));
      return null;
    }
    case 'round_won':
    case 'round_timed_out':
      if (!room) return null;
      room.phase = 'between_rounds';
      if (room.round) { room.round.over = true; room.round.deadline = null; }
      room.result = resultFrom(room, m);
      room.pending = false;
      room.unsent = null;
      room.dropped = false;
      if (m.scores) {
        for (const s of m.scores) {
          const p = room.players.find((x) => x.id === s.player);
          if (p) p.score = s.score;
        }
      }
      pushFeed(state, feedLine(state, room, m));
      return null;
    case 'match_over':
      if (!room) return null;
      room.phase = 'finished';
      room.standings = m.standings;
      room.matchId = matchIdOf(m);
      room.next = null;
      pushFeed(state, feedLine(state, room, m));
      return 'match_over';
    case 'chat':
      pushFeed(state, feedLine(state, room, m));
      return null;
    case 'reaction':
      // Floated by main.js; nothing is kept.
      return room && typeof m.emoji === 'string' && typeof m.name === 'string' ? 'reaction' : null;
    case 'ready_check':
      if (!room) return null;
      room.readyCheck = { deadline: deadlineIn(Number(m.ms) || 0), ready: Array.isArray(m.ready) ? [...m.ready] : [] };
      return null;
    case 'player_ready':
      if (room?.readyCheck && !room.readyCheck.ready.includes(m.player)) room.readyCheck.ready.push(m.player);
      return null;
    case 'player_joined': {
      if (!room) return null;
      const existing = room.players.find((p) => p.id === m.player);
      if (existing) {
        existing.connected = true;
      } else {
        const inRound = room.phase === 'playing' || room.phase === 'between_rounds';
        room.players.push({
          id: m.player, name: m.name, score: 0, connected: true,
          spectator: Boolean(m.spectator), waiting: inRound && !m.spectator, bot: Boolean(m.bot),
        });
      }
      pushFeed(state, feedLine(state, room, m));
      return null;
    }
    case 'player_left':
      if (!room) return null;
      if (m.player === state.me?.id) {
        state.room = null;
        if (m.reason === 'kicked') {
          state.notice = `The host removed you from room ${room.code}.`;
          return 'kicked';
        }
        return 'left';
      }
      if (room.departed.size >= MAX_DEPARTED) room.departed.clear();
      room.departed.set(m.player, room.players.find((p) => p.id === m.player)?.name ?? m.name);
      room.players = room.players.filter((p) => p.id !== m.player);
      pushFeed(state, feedLine(state, room, m));
      return null;
    case 'error':
      if (m.code === 'bad_token') return 'bad_token';
      // The server ending a socket that had not said hello yet (a question
      // left unanswered): the page opens another when it has something to say.
      if (m.code === 'not_welcomed' && !state.me) return null;
      if (NAME_ERRORS.has(m.code)) {
        state.needName = true;
        state.nameError = m.message;
        return m.code === 'name_taken' ? 'name_taken' : null;
      }
      if (JOIN_ERRORS.has(m.code) && !state.room) {
        const lost = m.code === 'room_not_found' && state.joining && state.joining === state.lostRoom;
        if (lost) state.lobbyError = `Room ${state.joining} is gone: the server restarted and its match was lost. Create a room or join another`;
        else state.lobbyError = state.joining ? `Could not join ${state.joining}: ${m.message}` : m.message;
        return 'join_failed';
      }
      if (room) room.pending = false;
      if (room?.challenge && !room.challenge.code) room.challenge.asked = false;
      state.toast = { text: m.message, until: deadlineIn(6000) };
      return null;
    default:
      return null;
  }
}
