//! PostgreSQL through sqlx: migrations in `migrations/postgres/`, batch
//! writes as one array per column unpacked with `UNNEST`.
//!
//! Several servers may share one PostgreSQL database: match ids are UUIDs
//! minted by the rooms, player ids come from an identity column, and every
//! batch touches the leaderboard rows in key order, so two recorders
//! cannot deadlock on them.

pub(crate) mod budgets;
pub(crate) mod directory;
mod scores;

use std::str::FromStr;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, PgConnection, PgPool, Postgres};

use super::batch;
use super::scores::{Applied, Write};
use super::{DbError, POOL_WAIT};

/// A PostgreSQL database: a pool for reads and the options to open the
/// recorder's own connection.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) pool: PgPool,
    options: PgConnectOptions,
}

impl Store {
    /// Connects to the database at `url` (which must exist) and applies the
    /// migrations.
    pub(crate) async fn open(url: &str) -> Result<Store, DbError> {
        let options = PgConnectOptions::from_str(url)?;
        let pool = PgPoolOptions::new()
            .max_connections(8)
            // A query waits this long for a connection while the database
            // is away, then fails (and its caller says so) instead of
            // hanging for the default 30 s.
            .acquire_timeout(POOL_WAIT)
            .connect_with(options.clone())
            .await?;
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
