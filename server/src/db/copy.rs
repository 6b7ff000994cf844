//! `krypto-server migrate-db`: copies every player, match, round, attempt,
//! rating and leaderboard row from one database to an empty PostgreSQL
//! database, in one transaction (all or nothing), keeping every id, so
//! players' tokens, profiles and boards carry over unchanged.
//!
//! The source is read with SQL both backends understand (ids and times as
//! text); each table is written in chunks of arrays unpacked with `UNNEST`.
//! A table is read whole before it is written: a database of a million
//! rounds needs a few hundred MB of memory for the copy.

use sqlx::{Connection, PgConnection};

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

/// Every row of `sql` on `db`.
async fn read<T>(db: &Db, sql: &str) -> Result<Vec<T>, DbError>
where
    T: Send
        + Unpin
        + for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
        + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>,
{
    Ok(on_store!(db, s => sqlx::query_as(sql).fetch_all(&s.pool).await?))
}

/// Binds one array per listed tuple field of `chunk`.
macro_rules! bind_columns {
    ($query:expr, $chunk:expr, $($i:tt),+) => {
        $query $(.bind($chunk.iter().map(|r| r.$i.clone()).collect::<Vec<_>>()))+
    };
}

/// Copies a table: reads it from `$from` with `$select` into tuples of
/// `$ty`, and writes it to `$to` with `$insert` in chunks.
macro_rules! copy_table {
    ($from:expr, $to:expr, $copied:expr, $table:literal, $select:literal, $insert:literal,
     ($($ty:ty),+), $($i:tt),+) => {{
        let rows: Vec<($($ty,)+)> = read($from, $select).await?;
        for chunk in rows.chunks(CHUNK) {
            bind_columns!(sqlx::query($insert), chunk, $($i),+)
                .execute(&mut *$to)
                .await
                .map_err(DbError::from)?;
        }
        $copied.tables.push(($table, rows.len()));
    }};
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

async fn copy_tables(from: &Db, to: &mut PgConnection, copied: &mut Copied) -> Result<(), DbError> {
    copy_table!(
        from,
        to,
        copied,
        "players",
        "SELECT id, name, name_key, token_hash, CAST(created_at AS TEXT), bot FROM players",
        "INSERT INTO players (id, name, name_key, token_hash, created_at, bot)
         SELECT t.id, t.name, t.key, t.hash, t.created::timestamptz, t.bot
         FROM UNNEST($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[])
             AS t(id, name, key, hash, created, bot)",
        (i64, String, String, String, String, bool),
        0,
        1,
        2,
        3,
        4,
        5
    );
    // The tokens other devices got from device codes (tickets themselves
    // live minutes and are not copied).
    copy_table!(
        from,
        to,
        copied,
        "player_tokens",
        "SELECT token_hash, player_id, CAST(created_at AS TEXT) FROM player_tokens",
        "INSERT INTO player_tokens (token_hash, player_id, created_at)
         SELECT t.hash, t.player, t.created::timestamptz
         FROM UNNEST($1::text[], $2::int8[], $3::text[]) AS t(hash, player, created)",
        (String, i64, String),
        0,
        1,
        2
    );
    copy_table!(
        from,
        to,
        copied,
        "matches",
        "SELECT CAST(id AS TEXT), room_code, CAST(settings AS TEXT), started_at, finished_at,
                status, rounds_played, rated FROM matches",
        "INSERT INTO matches (id, room_code, settings, started_at, finished_at, status,
                              rounds_played, rated)
         SELECT t.id::uuid, t.code, t.settings::jsonb, t.started, t.finished, t.status,
                t.rounds, t.rated
         FROM UNNEST($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::text[],
                     $7::int8[], $8::bool[])
             AS t(id, code, settings, started, finished, status, rounds, rated)",
        (String, String, String, i64, Option<i64>, String, i64, bool),
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7
    );
    copy_table!(
        from,
        to,
        copied,
        "match_players",
        "SELECT CAST(match_id AS TEXT), player_id, seat, score, rank, rating_before,
                rating_after, finished_at FROM match_players",
        "INSERT INTO match_players (match_id, player_id, seat, score, rank, rating_before,
                                    rating_after, finished_at)
         SELECT t.m::uuid, t.p, t.seat, t.score, t.rank, t.rb, t.ra, t.fin
         FROM UNNEST($1::text[], $2::int8[], $3::int8[], $4::int8[], $5::int8[],
                     $6::float8[], $7::float8[], $8::int8[])
             AS t(m, p, seat, score, rank, rb, ra, fin)",
        (
            String,
            i64,
            i64,
            Option<i64>,
            Option<i64>,
            Option<f64>,
            Option<f64>,
            Option<i64>
        ),
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7
    );
    copy_table!(
        from,
        to,
        copied,
        "rounds",
        "SELECT CAST(match_id AS TEXT), number, objective, cards, started_at, ended_at, outcome,
                winner_id, formula, no_solution, elapsed_ms, points, solution, solutions
         FROM rounds",
        "INSERT INTO rounds (match_id, number, objective, cards, started_at, ended_at, outcome,
                             winner_id, formula, no_solution, elapsed_ms, points, solution,
                             solutions)
         SELECT t.m::uuid, t.n, t.o, t.c, t.s, t.e, t.outcome, t.w, t.f, t.ns, t.el, t.pts,
                t.sol, t.sols
         FROM UNNEST($1::text[], $2::int8[], $3::int8[], $4::text[], $5::int8[], $6::int8[],
                     $7::text[], $8::int8[], $9::text[], $10::bool[], $11::int8[], $12::int8[],
                     $13::text[], $14::int8[])
             AS t(m, n, o, c, s, e, outcome, w, f, ns, el, pts, sol, sols)",
        (
            String,
            i64,
            i64,
            String,
            i64,
            Option<i64>,
            String,
            Option<i64>,
            Option<String>,
            bool,
            Option<i64>,
            Option<i64>,
            Option<String>,
            Option<i64>
        ),
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        11,
        12,
        13
    );
    copy_table!(
        from,
        to,
        copied,
        "attempts",
        "SELECT id, CAST(match_id AS TEXT), round, player_id, formula, accepted, verdict,
                elapsed_ms, at FROM attempts",
        "INSERT INTO attempts (id, match_id, round, player_id, formula, accepted, verdict,
                               elapsed_ms, at)
         SELECT t.id, t.m::uuid, t.r, t.p, t.f, t.a, t.v, t.el, t.at
         FROM UNNEST($1::int8[], $2::text[], $3::int8[], $4::int8[], $5::text[], $6::bool[],
                     $7::text[], $8::int8[], $9::int8[])
             AS t(id, m, r, p, f, a, v, el, at)",
        (
            i64,
            String,
            i64,
            i64,
            Option<String>,
            bool,
            Option<String>,
            i64,
            i64
        ),
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8
    );
    copy_table!(
        from,
        to,
        copied,
        "ratings",
        "SELECT player_id, mu, sigma, matches, updated_at, opponents FROM ratings",
        "INSERT INTO ratings (player_id, mu, sigma, matches, updated_at, opponents)
         SELECT * FROM UNNEST($1::int8[], $2::float8[], $3::float8[], $4::int8[], $5::int8[],
                              $6::int8[])",
        (i64, f64, f64, i64, i64, i64),
        0,
        1,
        2,
        3,
        4,
        5
    );
    copy_table!(
        from,
        to,
        copied,
        "opponents",
        "SELECT player_id, opponent_id FROM opponents",
        "INSERT INTO opponents (player_id, opponent_id)
         SELECT * FROM UNNEST($1::int8[], $2::int8[])",
        (i64, i64),
        0,
        1
    );
    copy_table!(
        from,
        to,
        copied,
        "player_stats",
        "SELECT period, period_start, player_id, played, matches, wins, rounds_won, fastest_ms,
                rating, rated_total, opponents FROM player_stats",
        "INSERT INTO player_stats (period, period_start, player_id, played, matches, wins,
                                   rounds_won, fastest_ms, rating, rated_total, opponents)
         SELECT * FROM UNNEST($1::text[], $2::int8[], $3::int8[], $4::int8[], $5::int8[],
                              $6::int8[], $7::int8[], $8::int8[], $9::float8[], $10::int8[],
                              $11::int8[])",
        (
            String,
            i64,
            i64,
            i64,
            i64,
            i64,
            i64,
            Option<i64>,
            Option<f64>,
            i64,
            i64
        ),
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10
    );
    // Rooms a graceful stop saved: the PostgreSQL server restores them.
    copy_table!(
        from,
        to,
        copied,
        "saved_rooms",
        "SELECT code, state, saved_at FROM saved_rooms",
        "INSERT INTO saved_rooms (code, state, saved_at)
         SELECT * FROM UNNEST($1::text[], $2::text[], $3::int8[])",
        (String, String, i64),
        0,
        1,
        2
    );
    Ok(())
}
