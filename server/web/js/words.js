// What the game's codes mean, in words a player reads at a glance.

export const VERDICT_HEADLINES = {
  syntax: 'That formula does not read right',
  too_long: 'That formula is too long',
  too_deep: 'Too many parentheses',
  unknown_card: 'A number that is not in your hand',
  card_reused: 'A card used twice',
  card_unused: 'Every card must be used',
  division_by_zero: 'Division by zero',
  rule_violation: 'Against this room’s rules',
  wrong_value: 'Not the target',
  overflow: 'Numbers too big to check',
  locked_out: 'Still locked out',
  round_over: 'Too late: the round is over',
  has_solution: 'Wrong claim: this hand has a solution',
};

/** Verdicts whose headline says all the server's reason would (shown once, not twice). */
export const HEADLINE_SAYS_ALL = new Set(['has_solution']);

export const verdictHeadline = (kind) => VERDICT_HEADLINES[kind] ?? 'Not accepted';

export const LEAVE_REASONS = { left: 'left', kicked: 'was removed by the host', timed_out: 'lost their seat (away too long)' };

export const PHASES = {
  lobby: 'Waiting room',
  countdown: 'Get ready',
  playing: 'Playing',
  between_rounds: 'Next hand coming',
  finished: 'Match over',
};

export const RULES = {
  free: 'Free: fractions OK',
  integer: 'Whole numbers',
  international: 'Whole, never negative',
};

export const VARIANTS = { krypto: 'Krypto (5 cards)', 24: '24 game (4 cards, make 24)' };

export const DIFFICULTIES = { any: 'Any', easy: 'Easy', medium: 'Medium', hard: 'Hard' };

export const BOT_SKILLS = { easy: 'Easy', medium: 'Medium', hard: 'Hard' };

export const DEALS = { solvable: 'Always solvable', any: 'Any (may have none)' };
export const SCORINGS = { first: 'First right answer wins', everyone: 'Everyone who solves scores (3, 2, 1…)' };

/** "1st", "2nd", "3rd", "4th"… */
export function ordinal(n) {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th');
  return `${n}${s}`;
}

/** "+2.1", "−0.4", "±0". */
export function signed(x) {
  const r = Math.round(x * 10) / 10;
  if (r > 0) return `+${r.toFixed(1)}`;
  if (r < 0) return `−${Math.abs(r).toFixed(1)}`;
  return '±0';
}

/** Operators as the pad shows and names them. */
export const OPERATORS = [
  { piece: '+', label: '+', name: 'plus' },
  { piece: '−', label: '−', name: 'minus' },
  { piece: '×', label: '×', name: 'times' },
  { piece: '÷', label: '÷', name: 'divided by' },
  { piece: '(', label: '(', name: 'open parenthesis' },
  { piece: ')', label: ')', name: 'close parenthesis' },
];

/** "Ada", "Ada and Bob", "Ada, Bob and Cy". */
export function listOf(names) {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** Each room setting's name as the host's form labels it (and a refusal names it). */
export const SETTING_LABELS = {
  variant: 'Game',
  rules: 'Rules',
  difficulty: 'Hands',
  rounds: 'Rounds',
  target_score: 'Target score (empty: none)',
  round_seconds: 'Seconds per round',
  lockout_seconds: 'Lockout after a miss (s)',
  wrong_penalty: 'Penalty per miss',
  deal: 'Deal',
  max_players: 'Seats',
  public: 'Listed in public rooms',
  scoring: 'Scoring',
};
