//! The database: SQLite through sqlx, one method per query.
//!
//! Schema changes are numbered files in the top-level `migrations/` folder,
//! applied at start and never edited once released.
//!
//! - this file: opening the database, and players;
//! - [`scores`]: the writes that record matches, rounds, attempts, ratings
//!   and the leaderboards' period summaries;
//! - [`boards`]: leaderboard and profile reads.

pub mod boards;
pub mod scores;

use std::str::FromStr;
use std::time::Duration;

use krypto_core::protocol::PlayerId;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, Connection, SqliteConnection, SqlitePool};

use self::scores::{Applied, Write};

/// Why the database failed.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A query or the connection failed.
    #[error("database: {0}")]
    Sqlx(#[from] sqlx::Error),
    /// Applying the migrations failed.
    #[error("database migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// A stored player.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PlayerRow {
    /// Primary key, the player's id on the wire.
    pub id: i64,
    /// Display name.
    pub name: String,
    /// Lowercased name, unique.
    pub name_key: String,
}

impl PlayerRow {
    /// The player's id as the protocol types carry it.
    pub fn player_id(&self) -> PlayerId {
        PlayerId(self.id)
    }
}

/// The result of trying to insert a player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Created {
    /// The new row.
    Player(PlayerRow),
    /// Someone took the name first (a race between two `hello`s).
    NameTaken,
}

/// Starts a write transaction that takes SQLite's write lock at once.
///
/// A plain (deferred) `BEGIN` starts as a reader; if another connection
/// commits before the first write, SQLite refuses the upgrade with
/// `SQLITE_BUSY` straight away, without waiting out `busy_timeout`. The
/// identity pool and the recorder write through different connections, so
/// every write transaction must be `IMMEDIATE`: it then waits its turn.
pub async fn begin_write(
    conn: &mut SqliteConnection,
) -> Result<sqlx::Transaction<'_, sqlx::Sqlite>, sqlx::Error> {
    conn.begin_with("BEGIN IMMEDIATE").await
}

/// A handle on the database pool; cheap to clone.
#[derive(Debug, Clone)]
pub struct Db {
    pool: SqlitePool,
    /// How connections are opened, for the recorder's own connection.
    options: SqliteConnectOptions,
}

impl Db {
    /// Opens (creating if missing) the database at `url` in WAL mode and
    /// applies the migrations.
    ///
    /// `synchronous = FULL`: a commit returns only once the WAL is on disk,
    /// so a result the server announced after its commit survives a power
    /// cut as well as a kill -9. (`NORMAL` would survive kill -9 too — the
    /// WAL is in the operating system's cache — but not a power cut.) The
    /// recorder's group commit pays one fsync per batch, not per result.
    pub async fn open(url: &str) -> Result<Db, DbError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5))
            // Checkpoint the WAL every 16k pages (64 MiB at 4 KiB a page)
            // instead of every 1k: a page rewritten by many commits is
            // copied to the database file once, with one fsync per
            // checkpoint instead of one per large commit.
            .pragma("wal_autocheckpoint", "16384");
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options.clone())
            .await?;
        sqlx::migrate!("../migrations").run(&pool).await?;
        Ok(Db { pool, options })
    }

    /// A connection of its own, for the recorder (the one writer of scores).
    pub async fn connect(&self) -> Result<SqliteConnection, DbError> {
        Ok(self.options.connect().await?)
    }

    /// Applies `writes` in one transaction, in order: for tools and tests
    /// that seed scores with chosen timestamps. The server records through
    /// [`crate::recorder::Recorder`] instead.
    pub async fn apply(&self, writes: &[Write]) -> Result<Vec<Applied>, DbError> {
        let mut conn = self.pool.acquire().await?;
        let mut tx = begin_write(&mut conn).await?;
        let mut applied = Vec::with_capacity(writes.len());
        for write in writes {
            applied.push(scores::apply(&mut tx, write).await?);
        }
        tx.commit().await?;
        Ok(applied)
    }

    /// `PRAGMA integrity_check`'s answer ("ok" when the file is sound).
    pub async fn integrity_check(&self) -> Result<String, DbError> {
        let (answer,): (String,) = sqlx::query_as("PRAGMA integrity_check")
            .fetch_one(&self.pool)
            .await?;
        Ok(answer)
    }

    /// Waits for running queries and closes every connection.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// The player with this lowercased name.
    pub async fn player_by_name_key(&self, name_key: &str) -> Result<Option<PlayerRow>, DbError> {
        let row = sqlx::query_as::<_, PlayerRow>(
            "SELECT id, name, name_key FROM players WHERE name_key = ?",
        )
        .bind(name_key)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row)
    }

    /// The player whose token hashes to `token_hash`.
    pub async fn player_by_token_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<PlayerRow>, DbError> {
        let row = sqlx::query_as::<_, PlayerRow>(
            "SELECT id, name, name_key FROM players WHERE token_hash = ?",
        )
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row)
    }

    /// Inserts a player, or reports that the name was taken meanwhile.
    pub async fn create_player(
        &self,
        name: &str,
        name_key: &str,
        token_hash: &str,
    ) -> Result<Created, DbError> {
        let result = sqlx::query_as::<_, PlayerRow>(
            "INSERT INTO players (name, name_key, token_hash) VALUES (?, ?, ?)
             RETURNING id, name, name_key",
        )
        .bind(name)
        .bind(name_key)
        .bind(token_hash)
        .fetch_one(&self.pool)
        .await;
        match result {
            Ok(row) => Ok(Created::Player(row)),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(Created::NameTaken),
            Err(e) => Err(e.into()),
        }
    }

    /// Changes a player's name, or reports that the new name is taken.
    pub async fn rename_player(
        &self,
        id: PlayerId,
        name: &str,
        name_key: &str,
    ) -> Result<Created, DbError> {
        let result = sqlx::query_as::<_, PlayerRow>(
            "UPDATE players SET name = ?, name_key = ? WHERE id = ?
             RETURNING id, name, name_key",
        )
        .bind(name)
        .bind(name_key)
        .bind(id.0)
        .fetch_one(&self.pool)
        .await;
        match result {
            Ok(row) => Ok(Created::Player(row)),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(Created::NameTaken),
            Err(e) => Err(e.into()),
        }
    }
}
