//! The database: SQLite through sqlx, one method per query.
//!
//! Schema changes are numbered files in the top-level `migrations/` folder,
//! applied at start and never edited once released.

use std::str::FromStr;
use std::time::Duration;

use krypto_core::protocol::PlayerId;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::SqlitePool;

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

/// A handle on the database pool; cheap to clone.
#[derive(Debug, Clone)]
pub struct Db {
    pool: SqlitePool,
}

impl Db {
    /// Opens (creating if missing) the database at `url` in WAL mode and
    /// applies the migrations.
    ///
    /// WAL with `synchronous = NORMAL` keeps every committed transaction
    /// through a crash of the process (kill -9); only a power cut may lose
    /// the last ones.
    pub async fn open(url: &str) -> Result<Db, DbError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        sqlx::migrate!("../migrations").run(&pool).await?;
        Ok(Db { pool })
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
