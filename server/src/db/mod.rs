//! The database: one store with a SQLite and a PostgreSQL implementation,
//! chosen by the URL at start (`sqlite://…`, the default, or
//! `postgres://…`). Not `sqlx::Any`: each backend keeps its own types,
//! migrations and row source; the SQL is written once wherever the two run
//! the same text (every query here but the migrations and the cluster's
//! directory, which only PostgreSQL has).
//!
//! - this file: the [`Db`] handle every part of the server uses, players,
//!   and the recorder's [`Writer`];
//! - [`scores`]: the writes that record play (the same for both backends);
//! - [`summary`]: what those writes add up to — ratings, opponents, the
//!   leaderboards' period rows — decided once, without a database;
//! - [`batch`]: one transaction per batch, with a savepoint replay when a
//!   write fails, for either backend;
//! - `writes`: the statements of a batch, each writing many rows at once;
//! - `rows`: those rows as parameters, read back by each backend's row
//!   source (`json_each` in SQLite, `UNNEST` in PostgreSQL);
//! - [`boards`]: leaderboard and profile reads;
//! - [`copy`]: `migrate-db`, copying a database into PostgreSQL;
//! - [`fair_play`]: answers kept for the fair-play signals, flags,
//!   decisions, and a ban's recomputation of the ratings;
//! - [`saved`]: rooms a graceful stop saved for the next start;
//! - [`name_keys`]: stored name keys recomputed when krypto-core's key changes;
//! - [`modes`]: the daily's attempts, challenges and runs' bests (reads);
//! - `mode_writer`: their writes, in group commits by one task, whose
//!   statements are in `mode_statements`;
//! - [`recap`]: a match read back whole, for its recap;
//! - [`tickets`]: single-use tickets that sign another device in;
//! - [`devices`]: the tokens a player's devices hold: labels, last use,
//!   the cap, expiry and revoking;
//! - `sqlite/`: SQLite through sqlx, its row source, migrations in
//!   `migrations/sqlite/`;
//! - `postgres/`: PostgreSQL through sqlx, its row source, migrations in
//!   `migrations/postgres/`; `postgres/directory/`: the nodes, rooms and
//!   seats of a cluster of nodes sharing one database.
//!
//! Schema changes are numbered files under `migrations/<backend>/`, applied
//! at start and never edited once released.

pub(crate) mod backoff;
pub(crate) mod batch;
pub mod boards;
pub mod copy;
pub mod devices;
pub mod fair_play;
mod mode_statements;
pub(crate) mod mode_writer;
pub mod modes;
pub mod name_keys;
mod postgres;
pub mod recap;
pub mod retention;
mod rows;
pub mod saved;
pub mod scores;
mod sqlite;
pub(crate) mod summary;
pub mod tickets;
pub mod tokens;
mod write_backend;
mod writes;

use krypto_core::protocol::PlayerId;

use self::scores::{Applied, NewPlayer, Write};

pub(crate) use self::postgres::{budgets, directory};

/// Longest wait for a pooled connection: a read during an outage fails
/// after this.
const POOL_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How long the daily's writer waits for SQLite's write lock, as the
/// pool's connections do: the recorder holds it one group commit at a
/// time, and a batch that gave up sooner would fail every player in it.
pub(crate) const SQLITE_WRITE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The default deadline of one call to the database from a part of the
/// server that must not wait on it (`--database-deadline-ms`): the
/// recorder's connect and commit, the cluster's heartbeat and directory.
/// A link that silently drops packets never fails on its own (TCP gives up
/// after about 15 minutes); past this the call is taken for an outage, as
/// a refused connection is (see `docs/design.md`, "Deadlines on the
/// database").
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// `call`, failed with [`DbError::Timeout`] when it takes longer than
/// `limit`. What it was doing is dropped: a connection it held is not
/// used again (a statement cut off may still land; every write the server
/// repeats is idempotent).
pub(crate) async fn within<T>(
    limit: std::time::Duration,
    call: impl std::future::Future<Output = Result<T, DbError>>,
) -> Result<T, DbError> {
    tokio::time::timeout(limit, call)
        .await
        .unwrap_or(Err(DbError::Timeout(limit)))
}

/// A backend's pool of at most `max` connections. A query waits
/// [`POOL_WAIT`] for a connection while the database is away, then fails
/// (and its caller says so) instead of hanging for the default 30 s.
fn pool_options<DB: sqlx::Database>(max: u32) -> sqlx::pool::PoolOptions<DB> {
    sqlx::pool::PoolOptions::new()
        .max_connections(max)
        .acquire_timeout(POOL_WAIT)
}

/// Why the database failed.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A query or the connection failed.
    #[error("database: {0}")]
    Sqlx(#[from] sqlx::Error),
    /// Applying the migrations failed.
    #[error("database migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The URL names no database this server speaks.
    #[error("unsupported database URL {0:?}: use sqlite://… or postgres://…")]
    UnsupportedUrl(String),
    /// The database did not answer in time.
    #[error("database: no answer within {0:?}")]
    Timeout(std::time::Duration),
    /// The database answered something the code rules out (a bug, not bad
    /// input): the write is refused rather than recorded wrong.
    #[error("database invariant broken: {0}")]
    Invariant(&'static str),
    /// A group commit failed: every write in it is answered with the same
    /// failure.
    #[error(transparent)]
    Shared(std::sync::Arc<DbError>),
    /// The task owning a kind of writes is gone (the server is stopping).
    #[error("database: the writer has stopped")]
    WriterStopped,
}

impl DbError {
    /// Whether the database could not be reached or could not take the
    /// write *now* — a lost connection, a restarting or read-only server,
    /// a lock held by another process, a full disk — rather than refusing
    /// the write itself: the same write may succeed later, so it is kept
    /// and retried, never dropped.
    pub fn is_unavailable(&self) -> bool {
        match self {
            DbError::Sqlx(e) => sqlx_unavailable(e),
            DbError::Timeout(_) | DbError::WriterStopped => true,
            DbError::Shared(e) => e.is_unavailable(),
            DbError::Migrate(sqlx::migrate::MigrateError::Execute(e)) => sqlx_unavailable(e),
            DbError::Migrate(_) | DbError::UnsupportedUrl(_) | DbError::Invariant(_) => false,
        }
    }
}

impl DbError {
    /// Whether SQLite found the file locked by another connection
    /// (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    pub fn is_locked(&self) -> bool {
        match self {
            DbError::Sqlx(sqlx::Error::Database(db))
            | DbError::Migrate(sqlx::migrate::MigrateError::Execute(sqlx::Error::Database(db))) => {
                db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some()
                    && db
                        .code()
                        .and_then(|code| code.parse::<i32>().ok())
                        .is_some_and(|code| matches!(code & 0xff, 5 | 6))
            }
            DbError::Shared(e) => e.is_locked(),
            _ => false,
        }
    }

    /// Whether the connection itself broke (the socket closed, the server
    /// shut it down): a connection kept while the database restarted fails
    /// like this on its next use, and a new one may simply work.
    pub fn is_connection_lost(&self) -> bool {
        match self {
            DbError::Sqlx(
                sqlx::Error::Io(_)
                | sqlx::Error::Protocol(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::WorkerCrashed,
            ) => true,
            DbError::Sqlx(sqlx::Error::Database(db)) => db
                .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
                .is_some_and(|e| e.code().starts_with("08") || e.code().starts_with("57P0")),
            DbError::Shared(e) => e.is_connection_lost(),
            _ => false,
        }
    }
}

/// See [`DbError::is_unavailable`].
fn sqlx_unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => {
            if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                db.code().is_some_and(|code| sqlite_unavailable(&code))
            } else if let Some(e) = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
                postgres_unavailable(e.code())
            } else {
                false
            }
        }
        _ => false,
    }
}

/// SQLite's primary result codes that mean "not now": BUSY (5), LOCKED
/// (6), READONLY (8), IOERR (10), FULL (13), CANTOPEN (14), PROTOCOL (15).
/// sqlx reports the extended code, whose low byte is the primary one.
fn sqlite_unavailable(code: &str) -> bool {
    code.parse::<i32>()
        .is_ok_and(|code| matches!(code & 0xff, 5 | 6 | 8 | 10 | 13 | 14 | 15))
}

/// PostgreSQL's SQLSTATEs that mean "not now": classes 08 (connection), 53
/// (insufficient resources: disk full, out of memory, too many
/// connections) and 57P (shutting down, not yet accepting), a
/// serialization failure or deadlock (40001, 40P01: retried by design) and
/// a read-only server (25006: a standby during a failover).
fn postgres_unavailable(code: &str) -> bool {
    code.starts_with("08")
        || code.starts_with("53")
        || code.starts_with("57P")
        || matches!(code, "40001" | "40P01" | "25006")
}

/// `url` without its password, for the log.
fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            // Only URLs that cannot have a password refuse one.
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

/// A stored player.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct PlayerRow {
    /// Primary key, the player's id on the wire.
    pub id: i64,
    /// Display name.
    pub name: String,
    /// The name's key, unique.
    pub name_key: String,
    /// Created by a program that said `bot`: never rated, on no board.
    pub bot: bool,
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

/// Which database a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `sqlite://path` (or `sqlite::memory:`).
    Sqlite,
    /// `postgres://…` or `postgresql://…`.
    Postgres,
}

impl Backend {
    /// The backend of `url`, by its scheme.
    pub fn of_url(url: &str) -> Result<Backend, DbError> {
        if url.starts_with("sqlite:") {
            Ok(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Backend::Postgres)
        } else {
            Err(DbError::UnsupportedUrl(url.to_owned()))
        }
    }
}

/// A handle on the database; cheap to clone.
#[derive(Debug, Clone)]
pub enum Db {
    /// A SQLite file.
    Sqlite(sqlite::Store),
    /// A PostgreSQL database.
    Postgres(postgres::Store),
}

/// Runs the same expression on whichever store `$db` is.
macro_rules! on_store {
    ($db:expr, $store:ident => $body:expr) => {
        match $db {
            Db::Sqlite($store) => $body,
            Db::Postgres($store) => $body,
        }
    };
}
pub(crate) use on_store;

impl Db {
    /// Opens the database at `url` (creating a SQLite file if missing) and
    /// applies its backend's migrations.
    pub async fn open(url: &str) -> Result<Db, DbError> {
        let db = match Backend::of_url(url)? {
            Backend::Sqlite => Db::Sqlite(sqlite::Store::open(url).await?),
            Backend::Postgres => Db::Postgres(postgres::Store::open(url).await?),
        };
        let done = name_keys::recompute(&db).await?;
        if done.changed > 0 {
            tracing::info!(
                changed = done.changed,
                collisions = done.collisions,
                "name keys recomputed"
            );
        }
        Ok(db)
    }

    /// Opens the database at `url` like [`Db::open`], waiting for it while
    /// it is unreachable (a database container still starting, a server
    /// restarting, a SQLite file locked by another process): retried with
    /// backoff for up to `wait`, logging each time. Any other failure, or
    /// the last one, is returned — a SQLite file that cannot be opened or
    /// written (a wrong path, a full disk) at once: waiting would not help.
    pub async fn open_waiting(url: &str, wait: std::time::Duration) -> Result<Db, DbError> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut backoff = crate::db::backoff::Backoff::default();
        let sqlite = Backend::of_url(url)? == Backend::Sqlite;
        loop {
            match Db::open(url).await {
                Ok(db) => return Ok(db),
                Err(e) if e.is_unavailable() && (!sqlite || e.is_locked()) => {
                    let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                    if left.is_zero() {
                        return Err(e);
                    }
                    tracing::warn!(error = %e, "waiting for the database at {}", redacted(url));
                    tokio::time::sleep(backoff.next_wait().min(left)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Whether the database answers a trivial query now.
    pub async fn ping(&self) -> Result<(), DbError> {
        on_store!(self, s => sqlx::query("SELECT 1").execute(&s.pool).await.map(|_| ())?);
        Ok(())
    }

    /// The PostgreSQL pool, for the cluster's directory; `None` on SQLite
    /// (a cluster of nodes needs a database they all reach).
    pub(crate) fn postgres_pool(&self) -> Option<&sqlx::PgPool> {
        match self {
            Db::Sqlite(_) => None,
            Db::Postgres(s) => Some(&s.pool),
        }
    }

    /// Which backend this is.
    pub fn backend(&self) -> Backend {
        match self {
            Db::Sqlite(_) => Backend::Sqlite,
            Db::Postgres(_) => Backend::Postgres,
        }
    }

    /// A connection of its own, for the recorder (the one writer of scores
    /// and new players).
    pub async fn writer(&self) -> Result<Writer, DbError> {
        Ok(match self {
            Db::Sqlite(s) => s.writer().await?,
            Db::Postgres(s) => Writer::Postgres(s.connect().await?),
        })
    }

    /// Applies `writes` in one transaction, in order: for tools and tests
    /// that seed scores with chosen timestamps. The server records through
    /// the recorder (`scores::recorder`, above) instead.
    pub async fn apply(&self, writes: &[Write]) -> Result<Vec<Applied>, DbError> {
        let writes: Vec<&Write> = writes.iter().collect();
        on_store!(self, s => s.apply(&writes).await)
    }

    /// Inserts a player in a transaction of its own (tools and tests; the
    /// server creates players through the recorder's group commit).
    pub async fn create_player(&self, player: NewPlayer) -> Result<Created, DbError> {
        match self.apply(&[Write::CreatePlayer(player)]).await?.pop() {
            Some(Applied::Player(created)) => Ok(created),
            _ => Err(DbError::Invariant("a created player without an answer")),
        }
    }

    /// Whether the stored data is sound: SQLite's `PRAGMA integrity_check`
    /// answer ("ok" when the file is sound); PostgreSQL checks its own
    /// pages, and answers "ok" once every table can be read.
    pub async fn integrity_check(&self) -> Result<String, DbError> {
        on_store!(self, s => s.integrity_check().await)
    }

    /// Waits for running queries and closes every connection.
    pub async fn close(&self) {
        on_store!(self, s => s.pool.close().await)
    }

    /// The player with this name key.
    pub async fn player_by_name_key(&self, name_key: &str) -> Result<Option<PlayerRow>, DbError> {
        const SQL: &str = "SELECT id, name, name_key, bot FROM players WHERE name_key = $1";
        Ok(on_store!(self, s => sqlx::query_as(SQL).bind(name_key).fetch_optional(&s.pool).await?))
    }

    /// The player whose token hashes to `token_hash`: their first token, or
    /// one a device got from a ticket ([`tickets`]).
    pub async fn player_by_token_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<PlayerRow>, DbError> {
        const SQL: &str = "SELECT id, name, name_key, bot FROM players WHERE token_hash = $1
                           UNION ALL
                           SELECT p.id, p.name, p.name_key, p.bot
                           FROM player_tokens t JOIN players p ON p.id = t.player_id
                           WHERE t.token_hash = $2";
        Ok(on_store!(self, s => sqlx::query_as(SQL)
            .bind(token_hash)
            .bind(token_hash)
            .fetch_optional(&s.pool)
            .await?))
    }

    /// Changes a player's name, or reports that the new name is taken.
    pub async fn rename_player(
        &self,
        id: PlayerId,
        name: &str,
        name_key: &str,
    ) -> Result<Created, DbError> {
        const SQL: &str = "UPDATE players SET name = $1, name_key = $2 WHERE id = $3
                           RETURNING id, name, name_key, bot";
        let result = on_store!(self, s => sqlx::query_as(SQL)
            .bind(name)
            .bind(name_key)
            .bind(id.0)
            .fetch_one(&s.pool)
            .await);
        match result {
            Ok(row) => Ok(Created::Player(row)),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(Created::NameTaken),
            Err(e) => Err(e.into()),
        }
    }
}

/// The recorder's own connection.
#[derive(Debug)]
pub enum Writer {
    /// To a SQLite file, with the process's turns at its write lock.
    Sqlite(
        sqlx::SqliteConnection,
        std::sync::Arc<tokio::sync::Mutex<()>>,
    ),
    /// To a PostgreSQL database.
    Postgres(sqlx::PgConnection),
}

impl Writer {
    /// Applies the requests of `batch` in one transaction (see
    /// [`batch::apply_batch`]): what each produced, or why it failed.
    pub async fn apply_batch(&mut self, batch: &[&[Write]]) -> Result<batch::Results, DbError> {
        match self {
            Writer::Sqlite(c, turn) => {
                let _turn = turn.lock().await;
                batch::apply_batch::<sqlx::Sqlite>(c, batch).await
            }
            Writer::Postgres(c) => batch::apply_batch::<sqlx::Postgres>(c, batch).await,
        }
    }

    /// Closes the connection.
    pub async fn close(self) -> Result<(), DbError> {
        use sqlx::Connection;
        match self {
            Writer::Sqlite(c, _) => c.close().await?,
            Writer::Postgres(c) => c.close().await?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outages_are_told_from_refused_writes_by_their_codes() {
        // SQLite, extended codes: BUSY_SNAPSHOT, LOCKED, READONLY_DBMOVED,
        // IOERR_WRITE, FULL, CANTOPEN — and a UNIQUE constraint, a CHECK.
        for code in ["517", "6", "1032", "778", "13", "14"] {
            assert!(sqlite_unavailable(code), "{code}");
        }
        for code in ["2067", "275", "1", "19"] {
            assert!(!sqlite_unavailable(code), "{code}");
        }
        // PostgreSQL: connection failure, admin shutdown, starting up, disk
        // full, read-only standby, serialization — and a unique violation,
        // a foreign key, a syntax error.
        for code in ["08006", "57P01", "57P03", "53100", "25006", "40001"] {
            assert!(postgres_unavailable(code), "{code}");
        }
        for code in ["23505", "23503", "42601"] {
            assert!(!postgres_unavailable(code), "{code}");
        }
        assert!(DbError::Timeout(std::time::Duration::from_secs(3)).is_unavailable());
        assert!(!DbError::Invariant("x").is_unavailable());
        assert!(DbError::Sqlx(sqlx::Error::PoolTimedOut).is_unavailable());
        assert!(!DbError::Sqlx(sqlx::Error::RowNotFound).is_unavailable());
    }

    #[test]
    fn passwords_stay_out_of_the_log() {
        assert_eq!(
            redacted("postgres://krypto:s3cret@db:5432/krypto"),
            "postgres://krypto:***@db:5432/krypto"
        );
        assert_eq!(redacted("sqlite://data/k.db"), "sqlite://data/k.db");
    }
}
