//! Reading scores: leaderboards and profiles.
//!
//! A leaderboard is an index range over `player_stats` for one period:
//! every query below is answered from one of its partial indexes, so it
//! costs the same with a thousand recorded rounds or a million.
//!
//! A page is one query (its rows, the first row's rank and the board's
//! size); `around` adds one more (where the player stands).
//!
//! The SQL is the same for SQLite and PostgreSQL (`$N` parameters, which
//! sqlx binds by number on both). Parameters are numbered the same way in
//! every leaderboard query: `$1` period name, `$2` period start, `$3`
//! minimum rated matches and `$8` minimum different opponents (the rating
//! board only), `$4` limit, `$5` offset, `$6` a value (or a known total),
//! `$7` a player id. Unused ones are bound anyway and ignored.

use krypto_core::protocol::{Metric, PlayerId};

use super::{on_store, Db, DbError};

/// One leaderboard row, before ranks are assigned.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct BoardRow {
    /// Who.
    pub player_id: i64,
    /// Their name.
    pub name: String,
    /// The metric's value.
    pub value: f64,
    /// Rated matches in the period.
    pub matches: i64,
    /// How many players on the board have a better value than the page's
    /// first row (the same on every row of a page): its rank is one more.
    pub better_first: i64,
    /// Players on the whole board (the same on every row).
    pub total: i64,
}

/// One row of a whole leaderboard.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct BoardEntry {
    /// Who.
    pub player_id: i64,
    /// Their name.
    pub name: String,
    /// The metric's value.
    pub value: f64,
    /// Rated matches in the period.
    pub matches: i64,
}

/// Where a player stands on a leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, sqlx::FromRow)]
pub struct Standing {
    /// Their value.
    pub value: f64,
    /// Rows listed before theirs (better values, or equal values of lower
    /// player ids).
    pub before: i64,
    /// Players on the whole board.
    pub total: i64,
}

/// Which board: where its rows come from and how they are ordered. The
/// same key reads a page from the database and names a board's copy in
/// memory (`board_cache.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BoardKey {
    /// Which metric.
    pub metric: Metric,
    /// `player_stats.period`.
    pub period: &'static str,
    /// `player_stats.period_start`.
    pub start: i64,
    /// Fewest rated matches to appear on the rating board.
    pub min_rated: u32,
    /// Fewest different opponents to appear on the rating board.
    pub min_opponents: u32,
}

/// The SQL of one metric's queries.
struct BoardSql {
    /// `$4` rows from offset `$5`, each with the page's first rank and the
    /// board's size (counted unless `$6`, when not negative, is it): one
    /// round trip for a page.
    page: &'static str,
    /// Player `$7`'s value, position and the board's size, if on the board.
    locate: &'static str,
    /// How many players are on the board.
    total: &'static str,
    /// The whole board, best first.
    all: &'static str,
}

/// `s` (a `player_stats` row) is on the board: in period `$1` from `$2`,
/// and past the metric's filter (the partial index's condition).
macro_rules! on_board {
    ($filter:literal) => {
        concat!(
            "s.period = $1 AND s.period_start = $2 AND ",
            $filter,
            // Flagged (pending review) and banned players are on no board.
            " AND NOT EXISTS (SELECT 1 FROM fair_play_flags f
                 WHERE f.player_id = s.player_id AND f.status <> 'cleared')"
        )
    };
}

/// How many players are on the board.
macro_rules! count_on_board {
    ($filter:literal) => {
        concat!(
            "(SELECT count(*) FROM player_stats s WHERE ",
            on_board!($filter),
            ")"
        )
    };
}

/// The metric's column as `value`: a float, as every board shows it.
macro_rules! as_value {
    ($col:literal) => {
        concat!("CAST(s.", $col, " AS DOUBLE PRECISION) AS value")
    };
}

/// Comparisons are made on the column itself (`raw`), never on its value
/// cast to a float: PostgreSQL cannot range-scan an index on `wins` for
/// `wins::float8 > $x`, and filtered 5,000 rows one by one instead.
///
/// Builds a metric's queries from its column, the filter that puts a row on
/// the board (the partial index's condition), the sort direction, the
/// comparison meaning "better" and the aggregate picking the best value.
macro_rules! board_sql {
    ($col:literal, $filter:literal, $dir:literal, $better:literal, $best:literal) => {
        BoardSql {
            page: concat!(
                // The offset is walked on the index alone; names are joined
                // for the page's rows only.
                "WITH page AS MATERIALIZED (SELECT s.player_id, ",
                as_value!($col),
                ", s.",
                $col,
                " AS raw, s.matches FROM player_stats s WHERE ",
                on_board!($filter),
                " ORDER BY s.",
                $col,
                " ",
                $dir,
                ", s.player_id LIMIT $4 OFFSET $5)
                 SELECT page.player_id, p.name, page.value, page.matches,
                     (SELECT count(*) FROM player_stats s WHERE ",
                on_board!($filter),
                " AND s.",
                $col,
                " ",
                $better,
                " (SELECT ",
                $best,
                "(raw) FROM page)) AS better_first,
                     CASE WHEN $6 >= 0 THEN $6 ELSE ",
                count_on_board!($filter),
                " END AS total
                 FROM page JOIN players p ON p.id = page.player_id
                 ORDER BY page.value ",
                $dir,
                ", page.player_id"
            ),
            locate: concat!(
                "SELECT me.value, (SELECT count(*) FROM player_stats s WHERE ",
                on_board!($filter),
                // A range on the index (better or equal), then the ties.
                " AND s.",
                $col,
                " ",
                $better,
                "= me.raw AND (s.",
                $col,
                " ",
                $better,
                " me.raw OR s.player_id < $7)) AS before, ",
                count_on_board!($filter),
                " AS total FROM (SELECT ",
                as_value!($col),
                ", s.",
                $col,
                " AS raw FROM player_stats s WHERE ",
                on_board!($filter),
                " AND s.player_id = $7) AS me"
            ),
            total: concat!(
                "SELECT count(*) FROM player_stats s WHERE ",
                on_board!($filter)
            ),
            all: concat!(
                "SELECT s.player_id, p.name, ",
                as_value!($col),
                ", s.matches
                 FROM player_stats s JOIN players p ON p.id = s.player_id
                 WHERE ",
                on_board!($filter),
                " ORDER BY s.",
                $col,
                " ",
                $dir,
                ", s.player_id"
            ),
        }
    };
}

const RATING: BoardSql = board_sql!(
    "rating",
    "s.rating IS NOT NULL AND s.rated_total >= $3 AND s.opponents >= $8",
    "DESC",
    ">",
    "max"
);
const WINS: BoardSql = board_sql!("wins", "s.wins > 0", "DESC", ">", "max");
const ROUNDS: BoardSql = board_sql!("rounds_won", "s.rounds_won > 0", "DESC", ">", "max");
const FASTEST: BoardSql = board_sql!("fastest_ms", "s.fastest_ms IS NOT NULL", "ASC", "<", "min");

fn sql(metric: Metric) -> &'static BoardSql {
    match metric {
        Metric::Rating => &RATING,
        Metric::Wins => &WINS,
        Metric::Rounds => &ROUNDS,
        Metric::Fastest => &FASTEST,
    }
}

/// Binds the eight leaderboard parameters in order.
macro_rules! bind_board {
    ($q:expr, $key:expr, $limit:expr, $offset:expr, $value:expr, $player:expr) => {
        $q.bind($key.period)
            .bind($key.start)
            .bind(i64::from($key.min_rated))
            .bind(i64::from($limit))
            .bind($offset)
            .bind($value)
            .bind($player)
            .bind(i64::from($key.min_opponents))
    };
}

/// A player's totals (all time) and rating, for the profile.
#[derive(Debug, Clone, PartialEq, Default, sqlx::FromRow)]
pub struct PlayerTotals {
    /// Finished matches played.
    pub played: i64,
    /// Rated matches played.
    pub matches: i64,
    /// Rated matches won.
    pub wins: i64,
    /// Rounds won.
    pub rounds_won: i64,
    /// Best solve time, ms.
    pub fastest_ms: Option<i64>,
}

/// A player's stored rating.
#[derive(Debug, Clone, Copy, PartialEq, sqlx::FromRow)]
pub struct RatingRow {
    /// Estimated skill.
    pub mu: f64,
    /// Uncertainty.
    pub sigma: f64,
    /// Rated matches played.
    pub matches: i64,
    /// Different opponents met in rated matches.
    pub opponents: i64,
}

/// One of a player's recent matches.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct RecentMatch {
    /// The match (its UUID as text).
    pub match_id: String,
    /// When it finished (UTC ms).
    pub finished_at: i64,
    /// How it went, as a profile shows it.
    #[sqlx(flatten)]
    pub line: MatchLine,
}

/// How one of a player's matches went: a line of their profile (as the
/// database has it and as `/api/players/{name}` shows it).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow, serde::Serialize)]
pub struct MatchLine {
    /// How many players it had.
    pub players: i64,
    /// Rounds played.
    #[serde(rename = "rounds")]
    pub rounds_played: i64,
    /// The player's final score.
    pub score: Option<i64>,
    /// The player's rank.
    pub rank: Option<i64>,
    /// Their rating before, as shown (rated matches only).
    pub rating_before: Option<f64>,
    /// Their rating after, as shown.
    pub rating_after: Option<f64>,
}

impl Db {
    /// `limit` rows of a leaderboard from `offset`, best first (ties in
    /// player id order), each carrying the page's first rank and the
    /// board's size (`known_total` if given, else counted).
    pub async fn board_page(
        &self,
        key: BoardKey,
        limit: u32,
        offset: u64,
        known_total: Option<u64>,
    ) -> Result<Vec<BoardRow>, DbError> {
        let sql = sql(key.metric).page;
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let total = known_total.map_or(-1, |t| i64::try_from(t).unwrap_or(i64::MAX));
        Ok(
            on_store!(self, s => bind_board!(sqlx::query_as(sql), key, limit, offset, total, 0_i64)
            .fetch_all(&s.pool)
            .await?),
        )
    }

    /// Where `player` stands on a leaderboard, if they are on it.
    pub async fn board_locate(
        &self,
        key: BoardKey,
        player: PlayerId,
    ) -> Result<Option<Standing>, DbError> {
        let sql = sql(key.metric).locate;
        Ok(
            on_store!(self, s => bind_board!(sqlx::query_as(sql), key, 0_u32, 0_i64, 0.0_f64, player.0)
            .fetch_optional(&s.pool)
            .await?),
        )
    }

    /// How many players are on a leaderboard.
    pub async fn board_total(&self, key: BoardKey) -> Result<u64, DbError> {
        let sql = sql(key.metric).total;
        let (n,): (i64,) = on_store!(self, s => bind_board!(sqlx::query_as(sql), key, 0_u32, 0_i64, 0.0_f64, 0_i64)
            .fetch_one(&s.pool)
            .await?);
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// A whole leaderboard, best first (ties in player id order).
    pub async fn board_all(&self, key: BoardKey) -> Result<Vec<BoardEntry>, DbError> {
        let sql = sql(key.metric).all;
        Ok(
            on_store!(self, s => bind_board!(sqlx::query_as(sql), key, 0_u32, 0_i64, 0.0_f64, 0_i64)
            .fetch_all(&s.pool)
            .await?),
        )
    }

    /// A player's all-time totals (zeros if they never finished anything).
    pub async fn player_totals(&self, player: PlayerId) -> Result<PlayerTotals, DbError> {
        const SQL: &str = "SELECT played, matches, wins, rounds_won, fastest_ms FROM player_stats
                           WHERE period = 'all' AND period_start = 0 AND player_id = $1";
        let row: Option<PlayerTotals> = on_store!(self, s => sqlx::query_as(SQL)
            .bind(player.0)
            .fetch_optional(&s.pool)
            .await?);
        Ok(row.unwrap_or_default())
    }

    /// A player's rating, if they finished a rated match.
    pub async fn rating(&self, player: PlayerId) -> Result<Option<RatingRow>, DbError> {
        const SQL: &str = "SELECT mu, sigma, matches, opponents FROM ratings WHERE player_id = $1";
        Ok(on_store!(self, s => sqlx::query_as(SQL)
            .bind(player.0)
            .fetch_optional(&s.pool)
            .await?))
    }

    /// A player's last `limit` finished matches, newest first.
    pub async fn recent_matches(
        &self,
        player: PlayerId,
        limit: u32,
    ) -> Result<Vec<RecentMatch>, DbError> {
        const SQL: &str = "SELECT CAST(mp.match_id AS TEXT) AS match_id, mp.finished_at,
                (SELECT count(*) FROM match_players o WHERE o.match_id = mp.match_id) AS players,
                m.rounds_played, mp.score, mp.rank, mp.rating_before, mp.rating_after
            FROM match_players mp JOIN matches m ON m.id = mp.match_id
            WHERE mp.player_id = $1 AND mp.finished_at IS NOT NULL AND m.status = 'finished'
            ORDER BY mp.finished_at DESC, mp.match_id DESC
            LIMIT $2";
        Ok(on_store!(self, s => sqlx::query_as(SQL)
            .bind(player.0)
            .bind(i64::from(limit))
            .fetch_all(&s.pool)
            .await?))
    }
}
