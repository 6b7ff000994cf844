//! Rooms saved by a server stopping gracefully and taken back by the next
//! one to start (table `saved_rooms`). The state is JSON the room task
//! writes and reads; the database only keeps it in between.

use super::{on_store, Db, DbError};

/// One saved room.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredRoom {
    /// The room's code.
    pub code: String,
    /// Its state, as JSON.
    pub state: String,
    /// When it was saved, UTC milliseconds.
    pub saved_at: i64,
    /// The node (of a cluster) that should restore it; `None`: whichever
    /// server starts next.
    pub for_node: Option<String>,
}

/// Stores one saved room (`$1` code, `$2` state, `$3` saved at, `$4` for
/// which node), replacing an older row of that code.
const SAVE_ROOM: &str = "INSERT INTO saved_rooms (code, state, saved_at, for_node)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (code) DO UPDATE
     SET state = excluded.state, saved_at = excluded.saved_at, for_node = excluded.for_node";

/// Stores `rooms` in the transaction `tx`, each for `for_node` if given,
/// else for its own [`StoredRoom::for_node`].
pub(crate) async fn insert_rooms<DB>(
    tx: &mut sqlx::Transaction<'_, DB>,
    rooms: &[StoredRoom],
    for_node: Option<&str>,
) -> Result<(), DbError>
where
    DB: sqlx::Database,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: sqlx::IntoArguments<'q, DB>,
    for<'q> &'q str: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> Option<&'q str>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    for room in rooms {
        sqlx::query(SAVE_ROOM)
            .bind(room.code.as_str())
            .bind(room.state.as_str())
            .bind(room.saved_at)
            .bind(for_node.or(room.for_node.as_deref()))
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

impl Db {
    /// Stores `rooms` in one transaction (a room saved again replaces its
    /// older row).
    pub async fn save_rooms(&self, rooms: &[StoredRoom]) -> Result<(), DbError> {
        on_store!(self, s => {
            let mut tx = s.pool.begin().await?;
            insert_rooms(&mut tx, rooms, None).await?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// Removes and returns every saved room, oldest first: a starting
    /// server takes them all, so no room is restored twice.
    pub async fn take_saved_rooms(&self) -> Result<Vec<StoredRoom>, DbError> {
        const SQL: &str = "DELETE FROM saved_rooms RETURNING code, state, saved_at, for_node";
        let mut rooms: Vec<StoredRoom> =
            on_store!(self, s => sqlx::query_as(SQL).fetch_all(&s.pool).await?);
        rooms.sort_by(|a, b| (a.saved_at, &a.code).cmp(&(b.saved_at, &b.code)));
        Ok(rooms)
    }
}
