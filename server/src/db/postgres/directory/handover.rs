//! Handing rooms between nodes: a stopping node saves its rooms for the
//! live node holding the fewest and tells it; a starting or told node
//! claims the saved rooms it may restore.

use uuid::Uuid;

use super::{upsert_seats, Directory};
use crate::db::saved::{self, StoredRoom};
use crate::db::{within, DbError};

/// The channel on which a stopping node tells another (its id is the
/// payload) that rooms were saved for it to restore.
pub(crate) const HANDOVER_CHANNEL: &str = "krypto_handover";

/// Saved rooms this node may restore: those saved for it, for whichever
/// server comes next, or for a node that is gone or stopping itself.
const CLAIMABLE: &str = "SELECT s.code, s.state, s.saved_at, s.for_node FROM saved_rooms s
     WHERE s.for_node IS NULL OR s.for_node = $1
        OR NOT EXISTS (SELECT 1 FROM nodes n
                       WHERE CAST(n.id AS TEXT) = s.for_node AND NOT n.draining)
     ORDER BY s.saved_at, s.code
     FOR UPDATE SKIP LOCKED";

/// Saved rooms taken by a node, held (locked) until it has restored them:
/// [`Claim::finish`] records where they now live and deletes them, in one
/// commit, so the node that saved them sees them gone only once they are
/// open here.
#[derive(Debug)]
pub(crate) struct Claim {
    tx: sqlx::PgTransaction<'static>,
    /// The rooms, oldest first.
    pub(crate) rooms: Vec<StoredRoom>,
}

/// A live node that can take rooms over (not draining).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub(crate) struct Target {
    /// Its id.
    pub(crate) node: Uuid,
    /// Its public URL.
    pub(crate) url: String,
    /// Rooms it holds now.
    pub(crate) rooms: i64,
}

impl Directory {
    /// The live (not suspected), not draining node other than this one
    /// holding the fewest rooms: where a draining node would hand its rooms.
    pub(crate) async fn pick_target(&self) -> Result<Option<Target>, DbError> {
        within(self.deadline, async {
            Ok(sqlx::query_as(
                "SELECT n.id AS node, n.public_url AS url, count(r.code) AS rooms
                 FROM nodes n LEFT JOIN rooms r ON r.node_id = n.id
                 WHERE n.id <> $1 AND NOT n.draining
                   AND n.heartbeat_at > now() - make_interval(secs => $2)
                 GROUP BY n.id, n.public_url ORDER BY rooms, n.started_at LIMIT 1",
            )
            .bind(self.node)
            .bind(self.suspect_secs())
            .fetch_optional(&self.pool)
            .await?)
        })
        .await
    }

    /// Takes the saved rooms this node may restore (see [`CLAIMABLE`]);
    /// others claiming at the same moment skip them.
    pub(crate) async fn claim(&self) -> Result<Claim, DbError> {
        within(self.deadline, async {
            let mut tx = self.pool.begin().await?;
            let rooms: Vec<StoredRoom> = sqlx::query_as(CLAIMABLE)
                .bind(self.node.to_string())
                .fetch_all(&mut *tx)
                .await?;
            Ok(Claim { tx, rooms })
        })
        .await
    }

    /// Saves a stopping node's rooms for node `target` and tells it.
    pub(crate) async fn hand_over(
        &self,
        rooms: &[StoredRoom],
        target: Uuid,
    ) -> Result<(), DbError> {
        within(self.deadline, async {
            let mut tx = self.pool.begin().await?;
            saved::insert_rooms(&mut tx, rooms, Some(&target.to_string())).await?;
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(HANDOVER_CHANNEL)
                .bind(target.to_string())
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
        .await
    }

    /// How many of `codes` are still saved, not yet restored anywhere.
    pub(crate) async fn still_saved(&self, codes: &[String]) -> Result<i64, DbError> {
        within(self.deadline, async {
            Ok(
                sqlx::query_scalar("SELECT count(*) FROM saved_rooms WHERE code = ANY($1)")
                    .bind(codes)
                    .fetch_one(&self.pool)
                    .await?,
            )
        })
        .await
    }

    /// Leaves `codes` (saved for a node that did not take them in time) to
    /// whichever node claims first.
    pub(crate) async fn release_saved(&self, codes: &[String]) -> Result<(), DbError> {
        within(self.deadline, async {
            sqlx::query("UPDATE saved_rooms SET for_node = NULL WHERE code = ANY($1)")
                .bind(codes)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
        .await
    }
}

impl Claim {
    /// Records that `opened` rooms (code, public, locked) live on `node` now, with
    /// their members' `seats` (player, code), and deletes every claimed
    /// room (those that could not be restored too: they are lost either
    /// way, and their matches were recorded as abandoned).
    pub(crate) async fn finish(
        mut self,
        node: Uuid,
        opened: &[(String, bool, bool)],
        seats: &[(i64, String)],
    ) -> Result<(), DbError> {
        let codes: Vec<String> = opened.iter().map(|o| o.0.clone()).collect();
        let public: Vec<bool> = opened.iter().map(|o| o.1).collect();
        let locked: Vec<bool> = opened.iter().map(|o| o.2).collect();
        sqlx::query(
            "INSERT INTO rooms (code, node_id, public, locked)
             SELECT code, $3, public, locked
             FROM UNNEST($1::text[], $2::bool[], $4::bool[]) AS u(code, public, locked)
             ON CONFLICT (code) DO UPDATE
             SET node_id = EXCLUDED.node_id, public = EXCLUDED.public, locked = EXCLUDED.locked",
        )
        .bind(&codes)
        .bind(&public)
        .bind(node)
        .bind(&locked)
        .execute(&mut *self.tx)
        .await?;
        upsert_seats(&mut self.tx, node, seats.iter()).await?;
        let claimed: Vec<&str> = self.rooms.iter().map(|r| r.code.as_str()).collect();
        sqlx::query("DELETE FROM saved_rooms WHERE code = ANY($1)")
            .bind(&claimed)
            .execute(&mut *self.tx)
            .await?;
        self.tx.commit().await?;
        Ok(())
    }
}
