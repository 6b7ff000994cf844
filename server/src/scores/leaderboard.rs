//! Leaderboards and profiles, shared by the WebSocket `leaderboard` message
//! and the HTTP API.
//!
//! - Metrics: `rating` (the shown rating, 1500 for a new player, players with at
//!   least [`Ranking::min_matches`] rated matches against at least
//!   [`Ranking::min_opponents`] different opponents), `wins`
//!   (rated matches won), `rounds` (rounds won), `fastest` (best winning
//!   time with a formula, in ms, lowest first).
//! - Periods: `all`, and the current UTC calendar `month`, ISO `week`
//!   (from Monday 00:00 UTC) and `day`. On a period's rating board are the
//!   players who finished a rated match in it, with their rating after
//!   their last one.
//! - Ranks: standard competition ranking ("1, 2, 2, 4"); equal values share
//!   a rank and are listed by player id.
//! - `around`: a window of `limit` rows with the named player in the
//!   middle (or as near as the ends of the board allow).

use krypto_core::protocol::{LeaderboardRow, Metric, Period, PlayerId};
use serde::Serialize;

use crate::db::boards::{BoardEntry, BoardKey, MatchLine, RecentMatch};
use crate::db::{Db, DbError, PlayerRow};
use crate::scores::periods;
use crate::scores::ratings::Skill;

/// Rows when the request names no limit.
pub const DEFAULT_LIMIT: u32 = 10;
/// Most rows one request may ask for.
pub const MAX_LIMIT: u32 = 100;
/// Matches listed on a profile.
pub const RECENT_MATCHES: u32 = 10;

/// Who may be ranked on the rating board: a new player's rating is too
/// uncertain to rank, and a rating earned against a few puppets is not
/// earned at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranking {
    /// Fewest rated matches.
    pub min_matches: u32,
    /// Fewest different opponents met in them.
    pub min_opponents: u32,
}

impl Ranking {
    /// Whether a player with this record is ranked.
    pub fn admits(&self, rated_matches: i64, opponents: i64) -> bool {
        rated_matches >= i64::from(self.min_matches) && opponents >= i64::from(self.min_opponents)
    }
}

/// What a client asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardQuery {
    /// Which metric.
    pub metric: Metric,
    /// Which period.
    pub period: Period,
    /// How many rows, 1 to [`MAX_LIMIT`].
    pub limit: u32,
    /// Centre the rows on this player's name.
    pub around: Option<String>,
}

impl Default for BoardQuery {
    fn default() -> Self {
        BoardQuery {
            metric: Metric::Rating,
            period: Period::All,
            limit: DEFAULT_LIMIT,
            around: None,
        }
    }
}

/// A leaderboard page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    /// Which metric.
    pub metric: Metric,
    /// Which period.
    pub period: Period,
    /// When the period began (RFC 3339, UTC); absent for `all`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period_start: Option<String>,
    /// How many players are on the whole board.
    pub total: u64,
    /// The rows, best first. Empty with `around` a player who is not on
    /// this board.
    pub rows: Vec<LeaderboardRow>,
}

/// Why a leaderboard or profile could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    /// `around` or the profile named nobody known.
    #[error("no player is called {0:?}")]
    PlayerNotFound(String),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

impl BoardKey {
    /// The board `query` asks for as of `now_ms`, with `ranking`'s
    /// minimums for the rating board.
    pub fn of(query: &BoardQuery, ranking: Ranking, now_ms: i64) -> BoardKey {
        BoardKey {
            metric: query.metric,
            period: periods::name(query.period),
            start: periods::start(query.period, now_ms),
            min_rated: ranking.min_matches,
            min_opponents: ranking.min_opponents,
        }
    }
}

impl Board {
    /// An empty page of board `key`, as `query` asked for it.
    pub(crate) fn empty(query: &BoardQuery, key: BoardKey) -> Board {
        Board {
            metric: query.metric,
            period: query.period,
            period_start: (query.period != Period::All).then(|| periods::iso(key.start)),
            total: 0,
            rows: Vec::new(),
        }
    }
}

/// Standard competition ranks ("1, 2, 2, 4") of rows listed best first:
/// equal values share the rank of the first of them, the next value ranks
/// by its place. The rows are the board's from place `offset` (0-based);
/// the first has rank `first` (rows above it may share its value). The one
/// ranking of every board, whether a page is read from the database or cut
/// from a copy.
pub(crate) fn competition_ranks(
    values: impl IntoIterator<Item = f64>,
    offset: u64,
    first: u64,
) -> Vec<u32> {
    let clamp = |rank: u64| u32::try_from(rank).unwrap_or(u32::MAX);
    let mut ranks: Vec<u32> = Vec::new();
    let mut previous: Option<(f64, u32)> = None;
    for (i, value) in values.into_iter().enumerate() {
        let rank = match previous {
            Some((v, rank)) if v == value => rank,
            Some(_) => clamp(offset + i as u64 + 1),
            None => clamp(first),
        };
        previous = Some((value, rank));
        ranks.push(rank);
    }
    ranks
}

impl BoardEntry {
    /// The row as clients see it, at `rank`.
    pub(crate) fn ranked(&self, rank: u32) -> LeaderboardRow {
        LeaderboardRow {
            rank,
            player: PlayerId(self.player_id),
            name: self.name.clone(),
            value: self.value,
            matches: u32::try_from(self.matches).unwrap_or(0),
        }
    }
}

/// The player called `name` (ignoring case and extra spaces).
pub(crate) async fn player_named(db: &Db, name: &str) -> Result<PlayerRow, BoardError> {
    let not_found = || BoardError::PlayerNotFound(name.to_owned());
    let key = krypto_core::names::validate(name)
        .map_err(|_| not_found())?
        .key;
    db.player_by_name_key(&key).await?.ok_or_else(not_found)
}

/// One page of a leaderboard as of `now_ms`, read from the database every
/// time: the benchmark's and the tests' reference for what
/// [`super::board_cache::BoardCache::board`] serves from memory.
pub async fn read_board(
    db: &Db,
    query: &BoardQuery,
    ranking: Ranking,
    now_ms: i64,
) -> Result<Board, BoardError> {
    let key = BoardKey::of(query, ranking, now_ms);
    let limit = query.limit.clamp(1, MAX_LIMIT);
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    let mut page = Board::empty(query, key);
    let (offset, known_total) = match &query.around {
        None => (0, None),
        Some(name) => {
            let player = player_named(db, name).await?;
            let Some(standing) = db.board_locate(key, player.player_id()).await? else {
                page.total = db.board_total(key).await?;
                return Ok(page);
            };
            let above = u64::from((limit - 1) / 2);
            let total = count(standing.total);
            let offset = count(standing.before)
                .saturating_sub(above)
                .min(total.saturating_sub(u64::from(limit)));
            (offset, Some(total))
        }
    };
    let rows = db.board_page(key, limit, offset, known_total).await?;
    page.total = rows.first().map_or(0, |r| count(r.total));
    // The first row of a page that does not start at the top may share its
    // value with rows above it: the database counts the better ones.
    let first = rows.first().map_or(1, |r| count(r.better_first) + 1);
    let ranks = competition_ranks(rows.iter().map(|r| r.value), offset, first);
    page.rows = rows
        .into_iter()
        .zip(ranks)
        .map(|(row, rank)| LeaderboardRow {
            rank,
            player: PlayerId(row.player_id),
            name: row.name,
            value: row.value,
            matches: u32::try_from(row.matches).unwrap_or(0),
        })
        .collect();
    Ok(page)
}

/// A player's profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    /// The player's id.
    pub player: PlayerId,
    /// Their name.
    pub name: String,
    /// The rating as shown (1500 for a new player, a whole number); `null`
    /// before their first rated match.
    pub rating: Option<f64>,
    /// Its uncertainty on the same scale (the "± 500" of a new player).
    pub rating_deviation: Option<f64>,
    /// Estimated skill.
    pub mu: Option<f64>,
    /// Uncertainty.
    pub sigma: Option<f64>,
    /// Whether they have enough rated matches and opponents to be on the
    /// rating board; until then the rating is provisional (shown "1500?").
    pub ranked: bool,
    /// Rated matches needed to be ranked (with [`Profile::min_opponents`]).
    pub min_rated_matches: u32,
    /// Different opponents needed to be ranked.
    pub min_opponents: u32,
    /// Rated matches (two or more players) finished.
    pub rated_matches: i64,
    /// Finished matches, rated or not.
    pub matches: i64,
    /// Rated matches won.
    pub wins: i64,
    /// Rounds won.
    pub rounds_won: i64,
    /// Best winning time with a formula, ms.
    pub fastest_ms: Option<i64>,
    /// The last finished matches, newest first.
    pub recent_matches: Vec<ProfileMatch>,
}

/// A match on a profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileMatch {
    /// The match's id (a UUID).
    #[serde(rename = "match")]
    pub match_id: String,
    /// When it finished (RFC 3339, UTC).
    pub finished_at: String,
    /// How it went.
    #[serde(flatten)]
    pub line: MatchLine,
}

impl From<RecentMatch> for ProfileMatch {
    fn from(m: RecentMatch) -> Self {
        ProfileMatch {
            match_id: m.match_id,
            finished_at: periods::iso(m.finished_at),
            line: m.line,
        }
    }
}

/// The profile of the player called `name`.
pub async fn profile(db: &Db, name: &str, ranking: Ranking) -> Result<Profile, BoardError> {
    let player = player_named(db, name).await?;
    let id = player.player_id();
    let totals = db.player_totals(id).await?;
    let rating = db.rating(id).await?;
    let recent = db.recent_matches(id, RECENT_MATCHES).await?;
    let skill = rating.map(|r| Skill {
        mu: r.mu,
        sigma: r.sigma,
    });
    let rated_matches = rating.map_or(0, |r| r.matches);
    Ok(Profile {
        player: id,
        name: player.name,
        rating: skill.map(|s| s.shown()),
        rating_deviation: skill.map(|s| s.shown_deviation()),
        mu: skill.map(|s| s.mu),
        sigma: skill.map(|s| s.sigma),
        ranked: rating.is_some_and(|r| ranking.admits(r.matches, r.opponents)),
        min_rated_matches: ranking.min_matches,
        min_opponents: ranking.min_opponents,
        rated_matches,
        matches: totals.played,
        wins: totals.wins,
        rounds_won: totals.rounds_won,
        fastest_ms: totals.fastest_ms,
        recent_matches: recent.into_iter().map(ProfileMatch::from).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::competition_ranks;

    #[test]
    fn equal_values_share_the_rank_of_the_first_of_them() {
        assert_eq!(
            competition_ranks([9.0, 7.0, 7.0, 5.0], 0, 1),
            vec![1, 2, 2, 4]
        );
        // A page from place 10 whose first row ties with rows above it.
        assert_eq!(competition_ranks([7.0, 7.0, 6.0], 10, 9), vec![9, 9, 13]);
        assert!(competition_ranks([], 0, 1).is_empty());
    }
}
