// The waiting room before a match: how to join, who is here, the settings
// (the host changes them), and the host's start, lock, kick, hand-over and
// bots (added with a skill, removed from their row).

import { h, fill, keyedFill } from '../dom.js';
import { isHost } from '../state.js';
import { invite, linkPieces } from './invite.js';
import { roster } from './players.js';
import {
  VARIANTS, RULES, DIFFICULTIES, DEALS, SCORINGS, SETTING_LABELS, BOT_SKILLS,
} from '../words.js';
import { LIMITS } from '../limits.js';

/**
 * Each setting: its label, and its choices (the server's, with our words
 * for them) or its numeric range (the server's, from LIMITS).
 */
const FIELDS = [
  { key: 'variant', words: VARIANTS },
  { key: 'rules', words: RULES },
  { key: 'difficulty', words: DIFFICULTIES },
  { key: 'rounds' },
  { key: 'target_score' },
  { key: 'round_seconds' },
  { key: 'lockout_seconds' },
  { key: 'wrong_penalty' },
  { key: 'deal', words: DEALS },
  { key: 'scoring', words: SCORINGS },
  { key: 'max_players' },
].map((field) => {
  const f = { ...field, label: SETTING_LABELS[field.key] };
  const allowed = LIMITS.settings[f.key];
  if (allowed.kind !== 'choice') return { ...f, ...allowed };
  return { ...f, choices: Object.fromEntries(allowed.choices.map((c) => [c, f.words[c] ?? c])) };
});

/** The text a setting's control shows for `value`. */
const shownValue = (value) => (value === null || value === undefined ? '' : String(value));

/**
 * A setting's field: `{el, control}`. Built once; `control.value` is then
 * set from each echo of the settings, except while the host is editing it.
 */
function settingControl(field, settings, act) {
  const id = `set-${field.key}`;
  const value = settings[field.key];
  let control;
  if (field.choices) {
    control = h('select', { id, on: { change: (e) => act.updateSettings({ [field.key]: e.target.value }) } },
      Object.entries(field.choices).map(([v, label]) => h('option', { value: v, selected: shownValue(value) === v, text: label })));
  } else {
    control = h('input', {
      id, type: 'number', inputmode: 'numeric', min: field.min, max: field.max, value: shownValue(value),
      on: {
        change: (e) => {
          const raw = e.target.value.trim();
          if (raw === '' && field.nullable) act.updateSettings({ [field.key]: null });
          else if (/^\d+$/.test(raw)) act.updateSettings({ [field.key]: Number(raw) });
        },
      },
    });
  }
  const el = h('div', { class: field.choices ? 'field wide' : 'field' }, h('label', { for: id, text: field.label }), control);
  return { el, control };
}

function summary(settings) {
  const lines = [
    VARIANTS[settings.variant] ?? settings.variant,
    RULES[settings.rules] ?? settings.rules,
    `${settings.rounds} round${settings.rounds === 1 ? '' : 's'} of ${settings.round_seconds} s`,
    settings.target_score ? `first to ${settings.target_score} points wins` : null,
    `${settings.lockout_seconds} s lockout after a wrong answer`,
    settings.wrong_penalty ? `−${settings.wrong_penalty} per wrong answer` : null,
    `hands: ${DIFFICULTIES[settings.difficulty] ?? settings.difficulty}`,
    settings.deal === 'any' ? 'any hand: you may claim “no solution”' : null,
    settings.scoring === 'everyone' ? 'everyone who solves scores: 3, 2, 1, then 1 each' : null,
  ];
  return h('ul', { class: 'settings-summary' }, lines.filter(Boolean).map((l) => h('li', { text: l })));
}

/**
 * The host's "Add a bot" row: a skill and a button, or why not (the room
 * has its bots, or every seat is taken). `skill` keeps the choice across
 * rebuilds.
 */
function addBotRow(room, act, skill) {
  const seated = room.players.filter((p) => !p.spectator).length;
  const bots = room.players.filter((p) => p.bot).length;
  if (bots >= LIMITS.max_bots) return h('p', { class: 'hint', text: `A room has at most ${LIMITS.max_bots} bots.` });
  if (seated >= room.settings.max_players) return h('p', { class: 'hint', text: 'Every seat is taken: no room for a bot.' });
  const select = h('select', {
    id: 'bot-skill', on: { change: (e) => { skill.value = e.target.value; } },
  }, LIMITS.bot_skills.map((s) => h('option', { value: s, selected: s === skill.value, text: BOT_SKILLS[s] ?? s })));
  return h('form', { class: 'add-bot', on: { submit: (e) => { e.preventDefault(); act.addBot(select.value); } } },
    h('label', { for: 'bot-skill', text: 'Bot skill' }), select,
    h('button', { type: 'submit', class: 'secondary', text: '🤖 Add a bot' }));
}

export function mount(root, { act }) {
  const inviteBox = h('section', { class: 'card-panel invite' });
  const playerList = h('div');
  const botRow = h('div');
  const fillBotRow = keyedFill(botRow);
  const botSkill = { value: 'medium' };
  const players = h('section', { class: 'card-panel' }, playerList, botRow);
  const settings = h('section', { class: 'card-panel' });
  const controls = h('div', { class: 'host-controls' });
  const fillControls = keyedFill(controls);
  fill(root, controls, inviteBox, players, settings);
  let shownCode = null;
  let shownSettings = null;
  let shownHost = null;
  // The host's settings controls: [{key, control}].
  const fieldControls = [];
  return {
    update(state) {
      const room = state.room;
      const host = isHost(state);
      if (shownCode !== room.code + state.joinUrls.join()) {
        shownCode = room.code + state.joinUrls.join();
        const inv = invite(state, room.code);
        fill(inviteBox,
          h('h2', { text: 'Invite friends' }),
          h('p', {}, 'Open ', h('a', { href: inv.link, class: 'link-text' }, linkPieces(inv.shown, '')), ' or scan:'),
          inv.qr,
          h('p', { class: 'hint', text: 'Or open this server’s address and type the room code.' }));
      }
      fill(playerList, h('h2', { text: `Players (${room.players.filter((p) => !p.spectator).length}/${room.settings.max_players})` }), roster(state, act));
      // Rebuilt only when what it offers changes, so a choice being made survives the room's updates.
      const botKey = host ? `${room.players.filter((p) => p.bot).length}:${room.players.filter((p) => !p.spectator).length}:${room.settings.max_players}` : '';
      fillBotRow(botKey, () => (host ? addBotRow(room, act, botSkill) : []));
      // The host's form is built once; each echo of the settings only sets
      // the values of the fields the host is not editing, so an edit typed
      // while the echo of another arrives is never thrown away.
      if (shownHost !== host) {
        shownHost = host;
        shownSettings = null;
        fieldControls.length = 0;
        if (host) {
          const fields = FIELDS.map((f) => ({ key: f.key, ...settingControl(f, room.settings, act) }));
          fieldControls.push(...fields.map(({ key, control }) => ({ key, control })));
          const isPublic = h('input', { type: 'checkbox', id: 'set-public', checked: room.settings.public, on: { change: (e) => act.updateSettings({ public: e.target.checked }) } });
          fieldControls.push({ key: 'public', control: isPublic });
          fill(settings, h('h2', { text: 'Settings' }),
            h('form', { class: 'settings-form', on: { submit: (e) => e.preventDefault() } },
              fields.map((f) => f.el),
              h('div', { class: 'check' }, isPublic, h('label', { for: 'set-public', text: SETTING_LABELS.public }))));
        }
      }
      if (shownSettings !== room.settings) {
        shownSettings = room.settings;
        if (host) {
          // A refused setting goes back to the value in force even in the field being edited.
          const refused = room.refusedSettings ?? [];
          for (const { key, control } of fieldControls) {
            if (control === document.activeElement && !refused.includes(key)) continue;
            if (control.type === 'checkbox') control.checked = Boolean(room.settings[key]);
            else if (control.value !== shownValue(room.settings[key])) control.value = shownValue(room.settings[key]);
          }
        } else {
          fill(settings, h('h2', { text: 'Settings' }), summary(room.settings));
        }
      }
      if (host) {
        fillControls(`host:${room.locked}`, () => [
          h('button', { type: 'button', class: 'primary huge', on: { click: act.start }, text: 'Start the match' }),
          h('button', {
            type: 'button', class: 'secondary', 'aria-pressed': String(room.locked),
            on: { click: () => act.lock(!room.locked) }, text: room.locked ? '🔒 Room locked: unlock' : '🔓 Room open: lock it',
          })]);
      } else {
        const hostName = room.players.find((p) => p.id === room.host)?.name ?? 'the host';
        fillControls(`waiting:${hostName}:${room.locked}`,
          () => h('p', { class: 'waiting-note' }, `Waiting for ${hostName} to start…`, room.locked ? ' (room locked)' : ''));
      }
    },
  };
}
