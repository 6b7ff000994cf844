// How ratings and places read on the podium, the leaderboard and profiles:
// one wording everywhere, as the terminal client has it.

/** A rating as shown ("1562"), with "?" while it is provisional. */
export function ratingText(rating, provisional = false) {
  return `${Math.round(rating)}${provisional ? '?' : ''}`;
}

/** A change: "1500 → 1562 (+62)", with a real minus sign when it fell. */
export function ratingChange(before, after, provisional = false) {
  const d = Math.round(after) - Math.round(before);
  const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
  return `${Math.round(before)} → ${ratingText(after, provisional)} (${sign}${Math.abs(d)})`;
}

/** Why a provisional rating ("1933?") moved so far, wherever one shows. */
export const PROVISIONAL_WHY = 'A rating marked ? is provisional: it starts uncertain, so its first rated matches move it in big steps; it settles as it is ranked.';

/** What "unrated" means, wherever it shows. */
export const UNRATED_WHY = 'A match rates the people (not bots) who answered, when two or more did.';

/** Whether a standing earns a medal: the first three ranks, with a point. Ties share the place. */
export const onPodium = (s) => s.rank <= 3 && s.score > 0;

/** Who won the match: first place with a point (a match nobody scored in has no champion). */
export const champions = (standings) => standings.filter((s) => s.rank === 1 && onPodium(s));
