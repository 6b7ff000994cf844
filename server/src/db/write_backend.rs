//! What a backend brings to the statements written once for both
//! ([`super::writes`]), and the row types those statements and the batch
//! ([`super::batch`]) share: both import from here, neither from the other.

use futures_util::future::BoxFuture;
use krypto_core::ratings::Skill;

use super::rows::Rows;
use super::scores::{int, RoundOutcome};
use super::summary::{RatingState, WonRound};
use super::{DbError, PlayerRow};

/// A player's bot flag and stored rating, as the batch needs them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PlayerState {
    /// Who.
    pub id: i64,
    /// Whether they are a bot.
    pub bot: bool,
    /// Their rating, if they were ever rated.
    pub rating: Option<RatingState>,
}

/// A player's row as both backends select it: id and bot flag, then the
/// columns of their ratings row, all `NULL` if they were never rated.
pub(crate) type PlayerStateRow = (
    i64,
    bool,
    Option<f64>,
    Option<f64>,
    Option<i64>,
    Option<i64>,
);

impl From<PlayerStateRow> for PlayerState {
    fn from((id, bot, mu, sigma, matches, opponents): PlayerStateRow) -> Self {
        PlayerState {
            id,
            bot,
            rating: match (mu, sigma) {
                (Some(mu), Some(sigma)) => Some(RatingState {
                    skill: Skill { mu, sigma },
                    matches: matches.unwrap_or(0),
                    opponents: opponents.unwrap_or(0),
                }),
                _ => None,
            },
        }
    }
}

/// A round's outcome as the columns of its row, `outcome` to `solutions`;
/// each backend only packs them in its own way.
pub(crate) struct OutcomeColumns {
    pub outcome: &'static str,
    pub winner_id: Option<i64>,
    pub formula: Option<String>,
    /// A right "no solution" claim won the round.
    pub no_solution: bool,
    pub elapsed_ms: Option<i64>,
    pub points: Option<i64>,
    pub solution: Option<String>,
    pub solutions: Option<i64>,
}

impl OutcomeColumns {
    pub fn of(outcome: &RoundOutcome) -> Self {
        match outcome {
            RoundOutcome::Won {
                winner,
                formula,
                elapsed_ms,
                points,
            } => OutcomeColumns {
                outcome: "won",
                winner_id: Some(winner.0),
                formula: formula.clone(),
                no_solution: formula.is_none(),
                elapsed_ms: Some(int(*elapsed_ms)),
                points: Some(*points),
                solution: None,
                solutions: None,
            },
            RoundOutcome::TimedOut {
                solution,
                solutions,
            } => OutcomeColumns {
                outcome: "timed_out",
                winner_id: None,
                formula: None,
                no_solution: false,
                elapsed_ms: None,
                points: None,
                solution: solution.clone(),
                solutions: Some(int(*solutions)),
            },
        }
    }
}

/// A hand's cards as they are stored: a JSON array in a text column.
pub(crate) fn cards_json(cards: &[i64]) -> String {
    serde_json::Value::from(cards.to_vec()).to_string()
}

/// A round number read back from the database.
pub(crate) fn round_number(n: i64) -> Result<u32, DbError> {
    u32::try_from(n).map_err(|_| DbError::Invariant("a round number out of range"))
}

/// A future borrowing the connection and the rows for `'c`.
pub(crate) type Step<'c, T> = BoxFuture<'c, Result<T, DbError>>;

/// What a backend brings to the shared statements ([`super::writes`]): how
/// a write transaction begins, its row source, and running a statement
/// over rows. The statements themselves are the same text on both.
pub(crate) trait WriteBackend:
    sqlx::Database
    + Decodes<PlayerRow>
    + Decodes<PlayerStateRow>
    + Decodes<(String,)>
    + Decodes<(i64,)>
    + Decodes<(String, i64)>
    + Decodes<WonRound>
{
    /// How a write transaction begins.
    const BEGIN_WRITE: &'static str;

    /// The row source for `rows`: a table `t` with one column per column
    /// of `rows`, by name, for a `FROM`, reading the parameters from `$1`.
    fn source(rows: &Rows) -> String;

    /// The parameters of a statement over `rows` (as [`Self::source`]
    /// reads them).
    type Params<'q>: sqlx::IntoArguments<'q, Self> + Send;

    /// `rows` bound as [`Self::Params`].
    fn params<'q>(rows: Rows) -> Result<Self::Params<'q>, DbError>;

    /// `conn` as what a statement runs on.
    fn executor<'c>(conn: &'c mut Self::Connection) -> impl sqlx::Executor<'c, Database = Self>;

    /// Runs `sql` over `rows`, its `{rows}` replaced by [`Self::source`].
    fn execute<'c>(conn: &'c mut Self::Connection, sql: &'c str, rows: Rows) -> Step<'c, ()> {
        Box::pin(async move {
            let sql = statement::<Self>(sql, &rows);
            sqlx::query_with(&sql, Self::params(rows)?)
                .execute(Self::executor(conn))
                .await?;
            Ok(())
        })
    }

    /// Runs `sql` over `rows` like [`Self::execute`]; the rows it returns.
    fn fetch<'c, T>(conn: &'c mut Self::Connection, sql: &'c str, rows: Rows) -> Step<'c, Vec<T>>
    where
        Self: Decodes<T>,
        T: Send + 'c,
    {
        Box::pin(async move {
            let sql = statement::<Self>(sql, &rows);
            let found = sqlx::query_with(&sql, Self::params(rows)?)
                .fetch_all(Self::executor(conn))
                .await?;
            decode_all::<Self, T>(&found)
        })
    }
}

/// `sql` with its `{rows}` replaced by `B`'s row source for `rows`.
pub(crate) fn statement<B: WriteBackend>(sql: &str, rows: &Rows) -> String {
    sql.replace("{rows}", &B::source(rows))
}

/// Every row of `found` as a `T`.
pub(crate) fn decode_all<B: Decodes<T>, T>(found: &[B::Row]) -> Result<Vec<T>, DbError> {
    Ok(found.iter().map(B::decode).collect::<Result<_, _>>()?)
}

/// A backend whose rows decode into `T` (for the statements' generic code,
/// which cannot name each backend's decoding bounds).
pub(crate) trait Decodes<T>: sqlx::Database {
    /// `row` as a `T`.
    fn decode(row: &Self::Row) -> Result<T, sqlx::Error>;
}

impl<DB: sqlx::Database, T> Decodes<T> for DB
where
    T: for<'r> sqlx::FromRow<'r, DB::Row>,
{
    fn decode(row: &DB::Row) -> Result<T, sqlx::Error> {
        T::from_row(row)
    }
}
