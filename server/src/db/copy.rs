//! `krypto-server migrate-db`: copies every player, match, round, attempt
//! (and count of pruned ones), rating and leaderboard row from one database
//! to an empty PostgreSQL database, in one transaction (all or nothing),
//! keeping every id, so players' tokens, profiles and boards carry over
//! unchanged.
//!
//! Each table is one entry of [`TABLES`]: read with SQL both backends
//! understand (ids, JSON and times as text), written in chunks through the
//! recorder's row source (`UNNEST`, [`super::rows`]) and cast back to
//! PostgreSQL's types. A table is read whole before it is written: a
//! database of a million rounds needs a few hundred MB of memory for the
//! copy.

use sqlx::{Connection, PgConnection, Postgres, Row};

use super::rows::{Rows, Values};
use super::write_backend::WriteBackend;
use super::{on_store, Db, DbError};

/// Rows per `INSERT`.
const CHUNK: usize = 5_000;

/// Why a copy could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// Reading or writing failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The destination is not PostgreSQL.
    #[error("the destination must be a postgres:// database")]
    NotPostgres,
    /// The destination already has players: copying would mix two histories.
    #[error("the destination already has {0} players; copy into an empty database")]
    NotEmpty(i64),
}

/// How many rows of each table were copied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Copied {
    /// `(table, rows)` in the order copied.
    pub tables: Vec<(&'static str, usize)>,
}

/// Opens both databases (migrating them) and copies `from` into `to`.
pub async fn migrate(from: &str, to: &str) -> Result<Copied, CopyError> {
    let source = Db::open(from).await?;
    let dest = Db::open(to).await?;
    let copied = copy(&source, &dest).await;
    source.close().await;
    dest.close().await;
    copied
}

/// Copies everything from `from` into `to` (an empty PostgreSQL database,
/// migrated by opening it).
pub async fn copy(from: &Db, to: &Db) -> Result<Copied, CopyError> {
    let Db::Postgres(dest) = to else {
        return Err(CopyError::NotPostgres);
    };
    let mut conn = dest.pool.acquire().await.map_err(DbError::from)?;
    let mut tx = Connection::begin(&mut *conn).await.map_err(DbError::from)?;
    let (players,): (i64,) = sqlx::query_as("SELECT count(*) FROM players")
        .fetch_one(&mut *tx)
        .await
        .map_err(DbError::from)?;
    if players > 0 {
        return Err(CopyError::NotEmpty(players));
    }
    let mut copied = Copied::default();
    copy_tables(from, &mut tx, &mut copied).await?;
    // New players and attempts continue after the copied ids.
    for table in ["players", "attempts"] {
        sqlx::query(&format!(
            "SELECT setval(pg_get_serial_sequence('{table}', 'id'),
                           coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
        ))
        .execute(&mut *tx)
        .await
        .map_err(DbError::from)?;
    }
    tx.commit().await.map_err(DbError::from)?;
    Ok(copied)
}

/// How a column is read from the source and written to PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `BIGINT`, perhaps `NULL`.
    Int,
    /// `DOUBLE PRECISION`, perhaps `NULL`.
    Float,
    /// `TEXT`, perhaps `NULL`.
    Text,
    /// `BOOLEAN`, never `NULL`.
    Bool,
    /// Read as text, written as `UUID`.
    Uuid,
    /// Read as text, written as `JSONB`.
    Json,
    /// Read as text, written as `TIMESTAMPTZ`.
    Time,
}

/// A table to copy: its name and the columns copied.
struct Table {
    name: &'static str,
    columns: &'static [(&'static str, Kind)],
}

use Kind::{Bool, Float, Int, Json, Text, Time, Uuid};

/// Every table copied, parents before the rows that refer to them. The
/// tokens other devices got from device codes are copied (tickets
/// themselves live minutes and are not); rooms a graceful stop saved are,
/// so the PostgreSQL server restores them.
const TABLES: &[Table] = &[
    Table {
        name: "players",
        columns: &[
            ("id", Int),
            ("name", Text),
            ("name_key", Text),
            ("token_hash", Text),
            ("created_at", Time),
            ("bot", Bool),
        ],
    },
    Table {
        name: "player_tokens",
        columns: &[
            ("token_hash", Text),
            ("player_id", Int),
            ("created_at", Time),
            ("label", Text),
            ("created_ms", Int),
            ("last_used_ms", Int),
        ],
    },
    Table {
        name: "matches",
        columns: &[
            ("id", Uuid),
            ("room_code", Text),
            ("settings", Json),
            ("started_at", Int),
            ("finished_at", Int),
            ("status", Text),
            ("rounds_played", Int),
            ("rated", Bool),
        ],
    },
    Table {
        name: "match_players",
        columns: &[
            ("match_id", Uuid),
            ("player_id", Int),
            ("seat", Int),
            ("score", Int),
            ("rank", Int),
            ("rating_before", Float),
            ("rating_after", Float),
            ("finished_at", Int),
        ],
    },
    Table {
        name: "rounds",
        columns: &[
            ("match_id", Uuid),
            ("number", Int),
            ("objective", Int),
            ("cards", Text),
            ("started_at", Int),
            ("ended_at", Int),
            ("outcome", Text),
            ("winner_id", Int),
            ("formula", Text),
            ("no_solution", Bool),
            ("elapsed_ms", Int),
            ("points", Int),
            ("solution", Text),
            ("solutions", Int),
        ],
    },
    Table {
        name: "attempts",
        columns: &[
            ("id", Int),
            ("match_id", Uuid),
            ("round", Int),
            ("player_id", Int),
            ("formula", Text),
            ("accepted", Bool),
            ("verdict", Text),
            ("elapsed_ms", Int),
            ("at", Int),
        ],
    },
    Table {
        name: "attempt_summaries",
        columns: &[
            ("match_id", Text),
            ("round", Int),
            ("player_id", Int),
            ("wrong", Int),
        ],
    },
    Table {
        name: "ratings",
        columns: &[
            ("player_id", Int),
            ("mu", Float),
            ("sigma", Float),
            ("matches", Int),
            ("updated_at", Int),
            ("opponents", Int),
        ],
    },
    Table {
        name: "opponents",
        columns: &[("player_id", Int), ("opponent_id", Int)],
    },
    Table {
        name: "player_stats",
        columns: &[
            ("period", Text),
            ("period_start", Int),
            ("player_id", Int),
            ("played", Int),
            ("matches", Int),
            ("wins", Int),
            ("rounds_won", Int),
            ("fastest_ms", Int),
            ("rating", Float),
            ("rated_total", Int),
            ("opponents", Int),
        ],
    },
    Table {
        name: "saved_rooms",
        columns: &[("code", Text), ("state", Text), ("saved_at", Int)],
    },
];

impl Table {
    /// The `SELECT` reading it from either backend.
    fn select(&self) -> String {
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|&(name, kind)| match kind {
                Uuid | Json | Time => format!("CAST({name} AS TEXT)"),
                Int | Float | Text | Bool => name.to_owned(),
            })
            .collect();
        format!("SELECT {} FROM {}", columns.join(", "), self.name)
    }

    /// The `INSERT` writing it to PostgreSQL from its row source.
    fn insert(&self) -> String {
        let (names, values): (Vec<&str>, Vec<String>) = self
            .columns
            .iter()
            .map(|&(name, kind)| {
                let value = match kind {
                    Uuid => format!("CAST(t.{name} AS UUID)"),
                    Time => format!("CAST(t.{name} AS TIMESTAMPTZ)"),
                    Int | Float | Text | Bool | Json => format!("t.{name}"),
                };
                (name, value)
            })
            .unzip();
        format!(
            "INSERT INTO {} ({}) SELECT {} FROM {{rows}}",
            self.name,
            names.join(", "),
            values.join(", ")
        )
    }

    /// `rows` (read with [`Table::select`]) as the columns to bind.
    fn columns<R: Row>(&self, rows: &[R]) -> Result<Rows, sqlx::Error>
    where
        usize: sqlx::ColumnIndex<R>,
        for<'r> Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
        for<'r> Option<f64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
        for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
        for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
        for<'r> bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    {
        let mut columns = Rows::default();
        for (i, &(name, kind)) in self.columns.iter().enumerate() {
            let values = match kind {
                Int => Values::Int(column(rows, i)?),
                Float => Values::Float(column(rows, i)?),
                Bool => Values::Bool(column(rows, i)?),
                Text | Uuid | Time => Values::Text(column(rows, i)?),
                Json => Values::Json(column(rows, i)?),
            };
            columns = columns.with(name, values);
        }
        Ok(columns)
    }
}

/// Column `i` of every row.
fn column<R: Row, T>(rows: &[R], i: usize) -> Result<Vec<T>, sqlx::Error>
where
    usize: sqlx::ColumnIndex<R>,
    for<'r> T: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    rows.iter().map(|r| r.try_get(i)).collect()
}

/// Copies each of [`TABLES`] from `from` into `to`.
async fn copy_tables(from: &Db, to: &mut PgConnection, copied: &mut Copied) -> Result<(), DbError> {
    for table in TABLES {
        let insert = table.insert();
        let count = on_store!(from, s => {
            let rows = sqlx::query(&table.select()).fetch_all(&s.pool).await?;
            for chunk in rows.chunks(CHUNK) {
                Postgres::execute(&mut *to, &insert, table.columns(chunk)?).await?;
            }
            rows.len()
        });
        copied.tables.push((table.name, count));
    }
    Ok(())
}
