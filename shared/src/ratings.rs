//! Ratings: who a match rates, and Weng-Lin (the model behind OpenSkill)
//! for free-for-all matches, through the `skillratings` crate.
//!
//! Who is rated, and who may be ranked by rating, is decided here and only
//! here ([`rated_entrants`], [`MIN_OPPONENTS`]); the database stores what
//! these functions decide.
//!
//! Each player is a one-player team ranked by the match's standings; equal
//! ranks are ties. Ratings order leaderboards but never decide a round or a
//! match. What players see is mu on the scale chess sites made familiar: a
//! new player is 1500 ± 500 (sigma on the same scale), a whole number
//! ([`Skill::shown`]). A rating is provisional ("1500?") until the player is
//! ranked (`leaderboard::Ranking`): a lucky first match cannot top the board
//! because nobody is on it before a few rated matches against different
//! people.

use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;

/// Fewest players a match must rate: a match against nobody rates nothing.
pub const MIN_RATED_PLAYERS: usize = 2;

/// Fewest different opponents, met in rated matches, a player needs to be
/// on the rating board (the default of `--min-rated-opponents`). A farmer
/// feeding on a few puppets of their own stays off it.
pub const MIN_OPPONENTS: u32 = 3;

/// A player's part in a finished match, as the rating rule sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entrant {
    /// They made at least one real attempt at the hand in the match (a
    /// whole formula over its cards, or a right claim:
    /// `crate::room::counts_as_attempt`).
    pub attempted: bool,
    /// A program that said `bot` in its hello.
    pub bot: bool,
}

/// Who a finished match rates, as indices into `entrants`: the people (not
/// bots) who made at least one attempt, and only when there are at least
/// [`MIN_RATED_PLAYERS`] of them; otherwise nobody (the match is unrated).
///
/// A seat-warmer who never answers cannot be beaten for rating: a puppet
/// account that idles through a match lifts no one.
pub fn rated_entrants(entrants: &[Entrant]) -> Vec<usize> {
    let rated: Vec<usize> = entrants
        .iter()
        .enumerate()
        .filter(|(_, e)| e.attempted && !e.bot)
        .map(|(i, _)| i)
        .collect();
    if rated.len() < MIN_RATED_PLAYERS {
        return Vec::new();
    }
    rated
}

/// A player's rating as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Skill {
    /// Estimated skill.
    pub mu: f64,
    /// Uncertainty about `mu`.
    pub sigma: f64,
}

impl Default for Skill {
    /// A new player's rating: mu 25, sigma 25/3 (shown as 1500 ± 500).
    fn default() -> Self {
        let r = WengLinRating::new();
        Skill {
            mu: r.rating,
            sigma: r.uncertainty,
        }
    }
}

/// A new player's rating as shown.
pub const SHOWN_START: f64 = 1500.0;

/// Shown points per unit of mu: a new player's sigma (25/3) is ±500, as a
/// new player's deviation on lichess.
pub const SHOWN_PER_MU: f64 = 60.0;

impl Skill {
    /// The rating as players see it, a whole number: 1500 for a new player,
    /// [`SHOWN_PER_MU`] points per unit of mu above or below the start. It
    /// is what is stored and ranked, so equal numbers are ties.
    pub fn shown(&self) -> f64 {
        (SHOWN_START + SHOWN_PER_MU * (self.mu - Skill::default().mu)).round()
    }

    /// The uncertainty on the same scale (the "± 500"), a whole number.
    pub fn shown_deviation(&self) -> f64 {
        (SHOWN_PER_MU * self.sigma).round()
    }
}

/// The new skills after a free-for-all match: `players` holds each player's
/// skill before the match and their 1-based rank (ties share a rank). The
/// result is in the same order. Fewer than two players: unchanged.
pub fn free_for_all(players: &[(Skill, u32)]) -> Vec<Skill> {
    if players.len() < 2 {
        return players.iter().map(|(s, _)| *s).collect();
    }
    let teams: Vec<[WengLinRating; 1]> = players
        .iter()
        .map(|(s, _)| {
            [WengLinRating {
                rating: s.mu,
                uncertainty: s.sigma,
            }]
        })
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(players)
        .map(|(team, (_, rank))| {
            (
                team.as_slice(),
                MultiTeamOutcome::new(usize::try_from(*rank).unwrap_or(usize::MAX)),
            )
        })
        .collect();
    let out = weng_lin_multi_team(&input, &WengLinConfig::new());
    out.iter()
        .zip(players)
        .map(|(team, (before, _))| match team.first() {
            Some(r) if r.rating.is_finite() && r.uncertainty.is_finite() => Skill {
                mu: r.rating,
                sigma: r.uncertainty,
            },
            _ => *before,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winner_rises_loser_falls_ties_move_together() {
        let new = Skill::default();
        assert_eq!((new.shown(), new.shown_deviation()), (1500.0, 500.0));
        let after = free_for_all(&[(new, 1), (new, 2), (new, 3)]);
        assert!(after[0].mu > after[1].mu && after[1].mu > after[2].mu);
        assert!(after.iter().all(|s| s.sigma < new.sigma));
        let tied = free_for_all(&[(new, 1), (new, 1)]);
        assert!((tied[0].mu - tied[1].mu).abs() < 1e-9);
        assert_eq!(free_for_all(&[(new, 1)]), vec![new]);
    }

    #[test]
    fn shown_ratings_are_whole_numbers_near_1500_that_never_go_negative() {
        let mut ann = Skill::default();
        let mut ben = Skill::default();
        // Ben loses fifty matches in a row.
        for _ in 0..50 {
            let after = free_for_all(&[(ann, 1), (ben, 2)]);
            (ann, ben) = (after[0], after[1]);
        }
        for s in [ann, ben] {
            assert_eq!(s.shown().fract(), 0.0);
            assert!(s.shown() > 0.0, "{s:?}");
            assert!(s.shown_deviation() < 500.0);
        }
        assert!(ann.shown() > 1500.0 && ben.shown() < 1500.0);
        // One first win moves a new player by a chess-like step.
        let first = free_for_all(&[(Skill::default(), 1), (Skill::default(), 2)]);
        let step = first[0].shown() - 1500.0;
        assert!((150.0..=170.0).contains(&step), "{step}");
        assert_eq!(first[1].shown() - 1500.0, -step);
    }

    #[test]
    fn only_people_who_tried_are_rated_and_only_two_or_more() {
        let person = Entrant {
            attempted: true,
            bot: false,
        };
        let idle = Entrant {
            attempted: false,
            bot: false,
        };
        let bot = Entrant {
            attempted: true,
            bot: true,
        };
        assert_eq!(rated_entrants(&[person, person, idle]), vec![0, 1]);
        assert_eq!(rated_entrants(&[idle, person, bot, person]), vec![1, 3]);
        // A farmer and a puppet that never answers: nobody is rated.
        assert!(rated_entrants(&[person, idle]).is_empty());
        assert!(rated_entrants(&[person, bot, bot]).is_empty());
        assert!(rated_entrants(&[person]).is_empty());
        assert!(rated_entrants(&[]).is_empty());
    }
}
