//! What recorded rounds and matches add up to: the new ratings, who met
//! whom, and the per-period rows the leaderboards read (`player_stats`).
//!
//! Pure: no database. Each backend reads what these functions need, calls
//! them and writes what they return, in the same transaction as the rows
//! they summarise, so a board can never disagree with the recorded play
//! and the rules (periods, who is rated, bots) are written once.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use uuid::Uuid;

use super::scores::{MatchEnd, RatingChange};
use krypto_core::periods::{self, ALL_PERIODS};
use krypto_core::ratings::{self, Entrant, Skill};

/// A player's stored rating state; a player without one is new.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct RatingState {
    /// Their skill.
    pub skill: Skill,
    /// Rated matches played.
    pub matches: i64,
    /// Different opponents met in rated matches.
    pub opponents: i64,
}

/// A player's row in a finished match.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlaceRow {
    /// The match.
    pub match_id: Uuid,
    /// Who.
    pub player: i64,
    /// Final score.
    pub score: i64,
    /// Final rank.
    pub rank: u32,
    /// Rating before (as shown), if the match rated them.
    pub rating_before: Option<f64>,
    /// Rating after (as shown), if the match rated them.
    pub rating_after: Option<f64>,
    /// When the match finished (UTC ms).
    pub finished_at: i64,
    /// A bot: on no board.
    pub bot: bool,
}

/// What a batch of finished matches writes, decided before anything is
/// written.
#[derive(Debug, Default)]
pub(crate) struct FinishPlan {
    /// Whether each match (in order) was rated.
    pub rated: Vec<bool>,
    /// Each match's rating changes (in order; empty when unrated).
    pub changes: Vec<Vec<RatingChange>>,
    /// Every player's row in every match.
    pub places: Vec<PlaceRow>,
    /// The new rating state of everyone rated. `opponents` still counts
    /// only the pairs known before: see [`FinishPlan::count_new_opponents`].
    pub ratings: BTreeMap<i64, RatingState>,
    /// Who met whom in a rated match, both ways, each pair once.
    pub pairs: BTreeSet<(i64, i64)>,
}

impl FinishPlan {
    /// Adds the pairs the database had not seen before (one entry per new
    /// pair, naming its first player) to the players' opponent counts.
    pub fn count_new_opponents(&mut self, new_pairs_of: impl IntoIterator<Item = i64>) {
        for player in new_pairs_of {
            if let Some(state) = self.ratings.get_mut(&player) {
                state.opponents += 1;
            }
        }
        for change in self.changes.iter_mut().flatten() {
            if let Some(state) = self.ratings.get(&change.player.0) {
                change.opponents = state.opponents;
            }
        }
    }
}

/// Rates `ends` one after another (a player in two of them is rated on the
/// result of the first), from the stored states of their players (missing:
/// new players) and the set of bots among them.
pub(crate) fn plan_finish(
    ends: &[&MatchEnd],
    stored: &HashMap<i64, RatingState>,
    bots: &HashSet<i64>,
) -> FinishPlan {
    let mut plan = FinishPlan::default();
    for end in ends {
        let entrants: Vec<Entrant> = end
            .standings
            .iter()
            .map(|p| Entrant {
                attempted: p.attempted,
                bot: bots.contains(&p.player.0),
            })
            .collect();
        let rated = ratings::rated_entrants(&entrants);
        let state_of = |plan: &FinishPlan, id: i64| {
            plan.ratings
                .get(&id)
                .or_else(|| stored.get(&id))
                .copied()
                .unwrap_or_default()
        };
        let before: Vec<RatingState> = rated
            .iter()
            .map(|&i| state_of(&plan, end.standings[i].player.0))
            .collect();
        let input: Vec<(Skill, u32)> = rated
            .iter()
            .zip(&before)
            .map(|(&i, s)| (s.skill, end.standings[i].rank))
            .collect();
        let after = ratings::free_for_all(&input);
        let mut changes = Vec::with_capacity(rated.len());
        for ((&i, old), new) in rated.iter().zip(&before).zip(&after) {
            let player = end.standings[i].player;
            plan.ratings.insert(
                player.0,
                RatingState {
                    skill: *new,
                    matches: old.matches + 1,
                    opponents: old.opponents,
                },
            );
            changes.push(RatingChange {
                player,
                before: old.skill.shown(),
                after: new.shown(),
                matches: old.matches + 1,
                // Completed once the new pairs are known:
                // [`FinishPlan::count_new_opponents`].
                opponents: old.opponents,
            });
            for &j in &rated {
                if j != i {
                    plan.pairs.insert((player.0, end.standings[j].player.0));
                }
            }
        }
        for p in &end.standings {
            let change = changes.iter().find(|c| c.player == p.player);
            plan.places.push(PlaceRow {
                match_id: end.match_id,
                player: p.player.0,
                score: p.score,
                rank: p.rank,
                rating_before: change.map(|c| c.before),
                rating_after: change.map(|c| c.after),
                finished_at: end.at_ms,
                bot: bots.contains(&p.player.0),
            });
        }
        plan.rated.push(!rated.is_empty());
        plan.changes.push(changes);
    }
    plan
}

/// A round won, as the boards count it: read back when its match ends,
/// and counted only if the match was rated (a race of two or more people).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub(crate) struct WonRound {
    /// Who won it.
    pub winner: i64,
    /// With a formula (a right "no solution" claim has no solve time).
    pub with_formula: bool,
    /// Time from the deal to the answer.
    pub elapsed_ms: i64,
    /// When it was won (UTC ms): the periods it counts in.
    pub at_ms: i64,
}

/// What one result adds to a player's row for one period.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct StatsDelta {
    /// Finished matches.
    pub played: i64,
    /// Rated matches.
    pub matches: i64,
    /// Rated matches won.
    pub wins: i64,
    /// Rounds won.
    pub rounds_won: i64,
    /// A winning time with a formula (the row keeps the best).
    pub fastest_ms: Option<i64>,
    /// The rating after the last rated match (the row keeps the latest).
    pub rating: Option<f64>,
    /// Rated matches in total at that time (the row keeps the largest).
    pub rated_total: i64,
    /// Different opponents in total at that time (the row keeps the largest).
    pub opponents: i64,
}

impl StatsDelta {
    fn merge(&mut self, later: &StatsDelta) {
        self.played += later.played;
        self.matches += later.matches;
        self.wins += later.wins;
        self.rounds_won += later.rounds_won;
        self.fastest_ms = match (self.fastest_ms, later.fastest_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.rating = later.rating.or(self.rating);
        self.rated_total = self.rated_total.max(later.rated_total);
        self.opponents = self.opponents.max(later.opponents);
    }
}

/// One `player_stats` row to add to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StatsRow {
    /// `all`, `month`, `week` or `day`.
    pub period: &'static str,
    /// When the period began (UTC ms; 0 for `all`).
    pub start: i64,
    /// Whose row.
    pub player: i64,
    /// What to add.
    pub delta: StatsDelta,
}

/// The additions to `player_stats` of a batch, one per player and period
/// (a statement may touch a row only once), merged in the order the
/// results happened.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    rows: BTreeMap<(&'static str, i64, i64), StatsDelta>,
}

impl Stats {
    fn add(&mut self, player: i64, at_ms: i64, delta: StatsDelta) {
        for period in ALL_PERIODS {
            let key = (periods::name(period), periods::start(period, at_ms), player);
            self.rows.entry(key).or_default().merge(&delta);
        }
    }

    /// A round won by a person in a rated match: one more round won and,
    /// with a formula, a solve time. (A right "no solution" claim is not a
    /// solve time.) It counts in the periods of when it was won.
    pub fn add_round(&mut self, round: &WonRound, bots: &HashSet<i64>) {
        if bots.contains(&round.winner) {
            return;
        }
        let delta = StatsDelta {
            rounds_won: 1,
            fastest_ms: round.with_formula.then_some(round.elapsed_ms),
            ..StatsDelta::default()
        };
        self.add(round.winner, round.at_ms, delta);
    }

    /// A match finished: one more played and, if it rated them, one more
    /// rated match, a win for rank 1 and their rating now, with their totals
    /// after the batch (`state`). A bot's profile counts the match too; it
    /// is never rated, so no board lists it.
    pub fn add_place(&mut self, place: &PlaceRow, state: Option<&RatingState>) {
        if place.bot {
            let played = StatsDelta {
                played: 1,
                ..StatsDelta::default()
            };
            self.add(place.player, place.finished_at, played);
            return;
        }
        let rated = place.rating_after.is_some();
        let delta = StatsDelta {
            played: 1,
            matches: i64::from(rated),
            wins: i64::from(rated && place.rank == 1),
            rating: place.rating_after,
            rated_total: state.map_or(0, |s| s.matches),
            opponents: state.map_or(0, |s| s.opponents),
            ..StatsDelta::default()
        };
        self.add(place.player, place.finished_at, delta);
    }

    /// Nothing to write.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows to add to.
    pub fn rows(&self) -> impl Iterator<Item = StatsRow> + '_ {
        self.rows
            .iter()
            .map(|(&(period, start, player), &delta)| StatsRow {
                period,
                start,
                player,
                delta,
            })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use krypto_core::protocol::PlayerId;

    use super::*;
    use crate::db::scores::FinalPlace;

    fn place(player: i64, rank: u32, attempted: bool) -> FinalPlace {
        FinalPlace {
            player: PlayerId(player),
            score: 5 - i64::from(rank),
            rank,
            attempted,
        }
    }

    fn end(standings: Vec<FinalPlace>, at_ms: i64) -> MatchEnd {
        MatchEnd {
            match_id: Uuid::now_v7(),
            rounds_played: 1,
            standings,
            at_ms,
        }
    }

    /// Wednesday 2025-03-12 15:00 UTC.
    const WED: i64 = 1_741_791_600_000;

    #[test]
    fn a_match_rates_those_who_tried_and_pairs_them() {
        let m = end(
            vec![place(1, 1, true), place(2, 2, true), place(3, 3, false)],
            WED,
        );
        let plan = plan_finish(&[&m], &HashMap::new(), &HashSet::new());
        assert_eq!(plan.rated, vec![true]);
        let changed: Vec<i64> = plan.changes[0].iter().map(|c| c.player.0).collect();
        assert_eq!(changed, vec![1, 2]);
        assert!(plan.changes[0][0].after > plan.changes[0][1].after);
        assert_eq!(plan.pairs, BTreeSet::from([(1, 2), (2, 1)]));
        assert_eq!(plan.ratings[&1].matches, 1);
        let idle = plan.places.iter().find(|p| p.player == 3).unwrap();
        assert_eq!((idle.rating_before, idle.rating_after), (None, None));
    }

    /// What `stats` adds to `player`'s rows, one per period.
    fn deltas_of(stats: &Stats, player: i64) -> Vec<StatsDelta> {
        stats
            .rows()
            .filter(|r| r.player == player)
            .map(|r| r.delta)
            .collect()
    }

    #[test]
    fn a_farmer_and_an_idle_puppet_make_an_unrated_match() {
        let m = end(vec![place(1, 1, true), place(2, 2, false)], WED);
        let plan = plan_finish(&[&m], &HashMap::new(), &HashSet::new());
        assert_eq!(plan.rated, vec![false]);
        assert!(plan.changes[0].is_empty() && plan.pairs.is_empty());
        let mut stats = Stats::default();
        for p in &plan.places {
            stats.add_place(p, plan.ratings.get(&p.player));
        }
        // Played, but no rated match, no win, no rating.
        let farmer = deltas_of(&stats, 1);
        assert_eq!(farmer.len(), 4);
        assert!(farmer
            .iter()
            .all(|d| d.played == 1 && d.wins == 0 && d.rating.is_none()));
    }

    #[test]
    fn bots_are_never_rated_nor_on_a_board_but_their_matches_count() {
        let m = end(
            vec![place(1, 1, true), place(2, 2, true), place(3, 3, true)],
            WED,
        );
        let bots = HashSet::from([2]);
        let plan = plan_finish(&[&m], &HashMap::new(), &bots);
        assert_eq!(plan.pairs, BTreeSet::from([(1, 3), (3, 1)]));
        assert!(!plan.ratings.contains_key(&2));
        let mut stats = Stats::default();
        for p in &plan.places {
            stats.add_place(p, plan.ratings.get(&p.player));
        }
        let won = WonRound {
            winner: 2,
            with_formula: true,
            elapsed_ms: 5_000,
            at_ms: WED,
        };
        stats.add_round(&won, &bots);
        // The bot's rows say it played, and nothing a board ranks.
        let bot = deltas_of(&stats, 2);
        assert_eq!(bot.len(), 4);
        for d in bot {
            assert_eq!(
                d,
                StatsDelta {
                    played: 1,
                    ..StatsDelta::default()
                }
            );
        }
    }

    #[test]
    fn a_player_in_two_matches_of_a_batch_is_rated_on_the_first() {
        let first = end(vec![place(1, 1, true), place(2, 2, true)], WED);
        let second = end(vec![place(1, 1, true), place(3, 2, true)], WED + 1);
        let plan = plan_finish(&[&first, &second], &HashMap::new(), &HashSet::new());
        assert_eq!(plan.changes[1][0].before, plan.changes[0][0].after);
        assert_eq!(plan.ratings[&1].matches, 2);
        let mut plan = plan;
        plan.count_new_opponents([1, 1, 2, 3]);
        assert_eq!(plan.ratings[&1].opponents, 2);
    }

    #[test]
    fn stats_land_in_each_calendar_period_and_merge() {
        let mut stats = Stats::default();
        let win = |elapsed_ms, with_formula, at_ms| WonRound {
            winner: 7,
            with_formula,
            elapsed_ms,
            at_ms,
        };
        for round in [
            win(4_000, true, WED),
            win(3_000, false, WED + 1),
            win(5_000, true, WED + 2),
        ] {
            stats.add_round(&round, &HashSet::new());
        }
        let rows: Vec<StatsRow> = stats.rows().collect();
        assert_eq!(rows.len(), 4);
        let day = rows.iter().find(|r| r.period == "day").unwrap();
        assert_eq!(day.start, 1_741_737_600_000);
        // Three rounds; the claim is no solve time; the best time stays.
        assert_eq!(
            (day.delta.rounds_won, day.delta.fastest_ms),
            (3, Some(4_000))
        );
        let week = rows.iter().find(|r| r.period == "week").unwrap();
        assert_eq!(week.start, 1_741_564_800_000);
        assert_eq!(rows.iter().find(|r| r.period == "all").unwrap().start, 0);
    }
}
