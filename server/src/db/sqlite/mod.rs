//! SQLite through sqlx: one file in WAL mode, migrations in
//! `migrations/sqlite/`, batch writes as one JSON array of rows per
//! statement read with `json_each`.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteArguments, SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{Arguments, ConnectOptions, Sqlite, SqliteConnection, SqlitePool};

use super::batch;
use super::rows::Rows;
use super::scores::{Applied, Write};
use super::write_backend::WriteBackend;
use super::{pool_options, DbError};

/// A SQLite database: a pool for reads (and the few direct writes) and the
/// options to open the recorder's own connection.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) pool: SqlitePool,
    options: SqliteConnectOptions,
    /// Turns at SQLite's one write lock for this process's writers (the
    /// recorder, the daily's writer, the fair-play signals), taken in the
    /// order asked. SQLite's own wait for a locked file is a poll with
    /// growing sleeps, not a queue: two writers committing back to back
    /// starved each other for seconds in a rush (docs/design.md, "Turns at
    /// SQLite's write lock").
    write_turn: Arc<tokio::sync::Mutex<()>>,
}

impl Store {
    /// Opens (creating if missing) the database at `url` in WAL mode and
    /// applies the migrations.
    ///
    /// `synchronous = FULL`: a commit returns only once the WAL is on disk,
    /// so a result the server announced after its commit survives a power
    /// cut as well as a kill -9. (`NORMAL` would survive kill -9 too — the
    /// WAL is in the operating system's cache — but not a power cut.) The
    /// recorder's group commit pays one fsync per batch, not per result.
    pub(crate) async fn open(url: &str) -> Result<Store, DbError> {
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
        let pool = pool_options(4).connect_with(options.clone()).await?;
        sqlx::migrate!("../migrations/sqlite").run(&pool).await?;
        Ok(Store {
            pool,
            options,
            write_turn: Arc::default(),
        })
    }

    /// This process's turn at the write lock, held until dropped: taken
    /// before a write transaction begins, so the wait is in order.
    pub(crate) async fn write_turn(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        Some(self.write_turn.lock().await)
    }

    /// The recorder's writer: its own connection, and turns at the lock.
    pub(crate) async fn writer(&self) -> Result<super::Writer, DbError> {
        Ok(super::Writer::Sqlite(
            self.connect().await?,
            self.write_turn.clone(),
        ))
    }

    /// A connection of its own, for the recorder. It waits for another
    /// writer's lock for 1 s, not 5: a lock held longer (a backup tool, a
    /// shell with an open transaction) sends the recorder's writes to its
    /// journal instead of stalling every room behind it.
    pub(crate) async fn connect(&self) -> Result<SqliteConnection, DbError> {
        Ok(self
            .options
            .clone()
            .busy_timeout(Duration::from_secs(1))
            .connect()
            .await?)
    }

    /// A connection of its own that waits up to `busy` for another
    /// writer's lock (the daily's writer: `db::mode_writer`).
    pub(crate) async fn connect_waiting(
        &self,
        busy: Duration,
    ) -> Result<SqliteConnection, DbError> {
        Ok(self.options.clone().busy_timeout(busy).connect().await?)
    }

    /// Applies `writes` in a transaction of their own.
    pub(crate) async fn apply(&self, writes: &[&Write]) -> Result<Vec<Applied>, DbError> {
        let mut conn = self.pool.acquire().await?;
        batch::apply_once::<Sqlite>(&mut conn, writes).await
    }

    /// `PRAGMA integrity_check`'s answer.
    pub(crate) async fn integrity_check(&self) -> Result<String, DbError> {
        let (answer,): (String,) = sqlx::query_as("PRAGMA integrity_check")
            .fetch_one(&self.pool)
            .await?;
        Ok(answer)
    }
}

impl WriteBackend for Sqlite {
    /// A plain (deferred) `BEGIN` starts as a reader; if another connection
    /// commits before the first write, SQLite refuses the upgrade with
    /// `SQLITE_BUSY` straight away, without waiting out `busy_timeout`. The
    /// read pool and the recorder write through different connections, so
    /// every write transaction is `IMMEDIATE`: it then waits its turn.
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";

    /// `$1` is the rows as one JSON array of row arrays; each column is read
    /// from its place in a row.
    fn source(rows: &Rows) -> String {
        let columns: Vec<String> = rows
            .columns()
            .iter()
            .enumerate()
            .map(|(i, (name, _))| format!("value ->> {i} AS {name}"))
            .collect();
        format!("(SELECT {} FROM json_each($1)) AS t", columns.join(", "))
    }

    type Params<'q> = SqliteArguments<'q>;

    fn params<'q>(rows: Rows) -> Result<Self::Params<'q>, DbError> {
        let mut args = SqliteArguments::default();
        args.add(rows.json()).map_err(sqlx::Error::Encode)?;
        Ok(args)
    }

    fn executor<'c>(conn: &'c mut SqliteConnection) -> impl sqlx::Executor<'c, Database = Sqlite> {
        conn
    }
}
