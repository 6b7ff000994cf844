//! PostgreSQL through sqlx: migrations in `migrations/postgres/`, batch
//! writes as one array per column unpacked with `UNNEST`.
//!
//! Several servers may share one PostgreSQL database: match ids are UUIDs
//! minted by the rooms, player ids come from an identity column, and every
//! batch touches the leaderboard rows in key order, so two recorders
//! cannot deadlock on them.

pub(crate) mod budgets;
pub(crate) mod directory;

use std::str::FromStr;

use sqlx::postgres::{PgArguments, PgConnectOptions};
use sqlx::{Arguments, ConnectOptions, PgConnection, PgPool, Postgres};

use super::batch;
use super::rows::{Rows, Values};
use super::scores::{Applied, Write};
use super::write_backend::WriteBackend;
use super::{pool_options, DbError};

/// Server-side bounds set on every connection, so a statement or a
/// transaction left behind by a node cut off from the database does not
/// hold its locks for long (the client side has its own, shorter
/// deadlines: [`super::DEADLINE`]): a statement runs at most 60 s, a
/// transaction left idle is ended after 60 s, and the server drops a
/// connection whose sent data goes unacknowledged for 10 s
/// (`tcp_user_timeout`, PostgreSQL 12+ on Linux; ignored elsewhere).
const SESSION_BOUNDS: [(&str, &str); 3] = [
    ("statement_timeout", "60s"),
    ("idle_in_transaction_session_timeout", "60s"),
    ("tcp_user_timeout", "10000"),
];

/// A PostgreSQL database: a pool for reads and the options to open the
/// recorder's own connection.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) pool: PgPool,
    options: PgConnectOptions,
}

impl Store {
    /// No turn to take: PostgreSQL locks rows, not the database.
    pub(crate) async fn write_turn(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        None
    }

    /// Connects to the database at `url` (which must exist) and applies the
    /// migrations.
    pub(crate) async fn open(url: &str) -> Result<Store, DbError> {
        let options = PgConnectOptions::from_str(url)?.options(SESSION_BOUNDS);
        let pool = pool_options(8).connect_with(options.clone()).await?;
        sqlx::migrate!("../migrations/postgres").run(&pool).await?;
        Ok(Store { pool, options })
    }

    /// A connection of its own, for the recorder.
    pub(crate) async fn connect(&self) -> Result<PgConnection, DbError> {
        Ok(self.options.connect().await?)
    }

    /// Applies `writes` in a transaction of their own.
    pub(crate) async fn apply(&self, writes: &[&Write]) -> Result<Vec<Applied>, DbError> {
        let mut conn = self.pool.acquire().await?;
        batch::apply_once::<Postgres>(&mut conn, writes).await
    }

    /// PostgreSQL checks its own pages (and has no cheap whole-database
    /// check like SQLite's): "ok" once it answers a query over every table
    /// the server writes.
    pub(crate) async fn integrity_check(&self) -> Result<String, DbError> {
        sqlx::query(
            "SELECT (SELECT count(*) FROM players), (SELECT count(*) FROM matches),
                    (SELECT count(*) FROM rounds), (SELECT count(*) FROM attempts),
                    (SELECT count(*) FROM player_stats)",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok("ok".to_owned())
    }
}

/// The array type a column is bound as (`jsonb` goes as text, then cast).
fn array_type(values: &Values) -> &'static str {
    match values {
        Values::Text(_) => "text[]",
        Values::Int(_) => "int8[]",
        Values::Float(_) => "float8[]",
        Values::Bool(_) => "bool[]",
        Values::Uuid(_) => "uuid[]",
        Values::Json(_) => "text[]::jsonb[]",
    }
}

/// One array parameter per column of `rows`, in order.
fn arguments(rows: Rows) -> Result<PgArguments, sqlx::Error> {
    let mut args = PgArguments::default();
    for (_, values) in rows.into_columns() {
        match values {
            Values::Text(v) => args.add(v),
            Values::Int(v) => args.add(v),
            Values::Float(v) => args.add(v),
            Values::Bool(v) => args.add(v),
            Values::Uuid(v) => args.add(v),
            Values::Json(v) => args.add(v),
        }
        .map_err(sqlx::Error::Encode)?;
    }
    Ok(args)
}

impl WriteBackend for Postgres {
    const BEGIN_WRITE: &'static str = "BEGIN";

    /// `$1`, `$2`, … are the columns, one array each, unpacked side by side.
    fn source(rows: &Rows) -> String {
        let arrays: Vec<String> = (1..)
            .zip(rows.columns())
            .map(|(i, (_, values))| format!("${i}::{}", array_type(values)))
            .collect();
        let names: Vec<&str> = rows.columns().iter().map(|(name, _)| *name).collect();
        format!("UNNEST({}) AS t({})", arrays.join(", "), names.join(", "))
    }

    type Params<'q> = PgArguments;

    fn params<'q>(rows: Rows) -> Result<Self::Params<'q>, DbError> {
        Ok(arguments(rows)?)
    }

    fn executor<'c>(conn: &'c mut PgConnection) -> impl sqlx::Executor<'c, Database = Postgres> {
        conn
    }
}
