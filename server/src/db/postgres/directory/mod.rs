//! The cluster's directory in PostgreSQL (migration `0003_nodes.sql`): the
//! nodes and their heartbeats, which node holds each room, where each
//! player is seated, and the sequence that orders sessions across nodes.
//! One method per query; the tasks that call them are in the cluster section (`server/src/cluster/`).

use std::time::Duration;

use sqlx::PgPool;
use uuid::Uuid;

use crate::db::{within, DbError};

mod handover;

pub(crate) use handover::{Target, HANDOVER_CHANNEL};

/// The channel on which nodes announce new sessions (`LISTEN`/`NOTIFY`).
pub(crate) const SESSIONS_CHANNEL: &str = "krypto_sessions";

/// Whether the `seats` row in scope holds its player in a room, as the
/// single-node rule counts one (seated, or dropped with the seat held):
/// written by another node ($3 is this one), not orphaned, and its room
/// still in the directory — so on a node not declared dead yet. A node
/// whose heartbeat is late (suspected: cut off from the database, or
/// killed) keeps its players' seats until a live node deletes its row:
/// it may be playing on, and a seat taken here meanwhile would put one
/// player in two rooms on two nodes.
const SEAT_HOLDS: &str = "seats.node_id <> $3 AND seats.orphaned_at IS NULL
     AND EXISTS (SELECT 1 FROM rooms r
                 WHERE r.code = seats.code AND r.node_id = seats.node_id)";

/// What reserving a code for a new room came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reserved {
    /// The code and the host's seat are this node's.
    Done,
    /// Another room has the code: draw another.
    CodeTaken,
    /// The host holds a seat in this room on another node.
    HostSeated(String),
    /// The host's address holds its share of the rooms of every node.
    AddressFull,
}

/// What declaring nodes dead came to.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Reaped {
    /// The nodes declared dead.
    pub(crate) nodes: Vec<Uuid>,
    /// The matches still `playing` in their rooms.
    pub(crate) matches: Vec<Uuid>,
}

/// Who opens a room, for the cap on the rooms one address holds across
/// the nodes.
#[derive(Debug, Clone)]
pub(crate) struct Holding {
    /// The address (IPv6: network) as budgets key it, written out.
    pub(crate) holder: String,
    /// Most rooms it may hold.
    pub(crate) share: i64,
}

/// Where a room lives.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub(crate) struct RoomLocation {
    /// The node holding it.
    pub(crate) node: Uuid,
    /// That node's public URL.
    pub(crate) url: String,
    /// Whether that node's heartbeat is recent (not late enough for the
    /// node to be suspected: [`Directory::suspect_secs`]).
    pub(crate) live: bool,
}

/// Where the directory says a player is seated.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub(crate) struct SeatLocation {
    /// The room's code.
    pub(crate) code: String,
    /// The node that wrote the seat.
    pub(crate) node: Uuid,
    /// That node's public URL, while its row exists (until a live node
    /// declares it dead).
    pub(crate) url: Option<String>,
    /// Whether that node's heartbeat is recent (not late enough for the
    /// node to be suspected: [`Directory::suspect_secs`]).
    pub(crate) live: bool,
    /// Whether the room is still in the directory.
    pub(crate) room_open: bool,
}

/// Seat and room changes of one node, applied in one transaction.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Players now seated in a room: (player, code).
    pub(crate) seat: Vec<(i64, String)>,
    /// Seats to clear if they still name that room: (player, code).
    pub(crate) unseat: Vec<(i64, String)>,
    /// Rooms locked (true) or unlocked since the last batch.
    pub(crate) locked: Vec<(String, bool)>,
    /// Rooms that closed (their seats go too).
    pub(crate) closed: Vec<String>,
}

impl Changes {
    /// Nothing to write.
    pub(crate) fn is_empty(&self) -> bool {
        self.seat.is_empty()
            && self.unseat.is_empty()
            && self.locked.is_empty()
            && self.closed.is_empty()
    }
}

/// A public room's listing entry as JSON, or `None` for a private room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Published {
    /// The room's code.
    pub(crate) code: String,
    /// `RoomSummary` as JSON when public.
    pub(crate) summary: Option<String>,
}

/// The directory's queries.
#[derive(Debug, Clone)]
pub(crate) struct Directory {
    pool: PgPool,
    /// This node.
    node: Uuid,
    /// Older heartbeats than this are dead nodes.
    timeout: Duration,
    /// The longest any of its queries may take (`--database-deadline-ms`):
    /// past it the database is taken for unreachable, as when it refuses.
    deadline: Duration,
}

impl Directory {
    /// The directory as node `node` sees it.
    pub(crate) fn new(
        pool: PgPool,
        node: Uuid,
        timeout: Duration,
        deadline: Duration,
    ) -> Directory {
        Directory {
            pool,
            node,
            timeout,
            deadline,
        }
    }

    /// The pool, for the `LISTEN` connection.
    pub(crate) fn pool(&self) -> &PgPool {
        &self.pool
    }

    fn timeout_secs(&self) -> f64 {
        self.timeout.as_secs_f64()
    }

    /// How old a node's last heartbeat is when the node is suspected: half
    /// the node timeout (two and a half heartbeats missed). A suspected
    /// node's rooms and seats stay in the directory, but nobody is sent
    /// there; only past the whole timeout does a live node declare it dead
    /// (delete its row).
    pub(crate) fn suspect_secs(&self) -> f64 {
        self.timeout.as_secs_f64() / 2.0
    }

    /// Inserts this node's row (or refreshes it); returns the database's
    /// time of it, in seconds.
    pub(crate) async fn register(&self, public_url: &str) -> Result<f64, DbError> {
        within(self.deadline, async {
            Ok(sqlx::query_scalar(
                "INSERT INTO nodes (id, public_url) VALUES ($1, $2)
                 ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()
                 RETURNING CAST(extract(epoch FROM heartbeat_at) AS float8)",
            )
            .bind(self.node)
            .bind(public_url)
            .fetch_one(&self.pool)
            .await?)
        })
        .await
    }

    /// Refreshes this node's heartbeat; returns the database's time of it,
    /// in seconds, or `None` when its row is gone (other nodes took it for
    /// dead).
    pub(crate) async fn heartbeat(&self, draining: bool) -> Result<Option<f64>, DbError> {
        within(self.deadline, async {
            Ok(sqlx::query_scalar(
                "UPDATE nodes SET heartbeat_at = now(), draining = $2 WHERE id = $1
                 RETURNING CAST(extract(epoch FROM heartbeat_at) AS float8)",
            )
            .bind(self.node)
            .bind(draining)
            .fetch_optional(&self.pool)
            .await?)
        })
        .await
    }

    /// Declares dead the nodes whose heartbeat is a node timeout old:
    /// deletes them (their rooms go by cascade) and marks their seats
    /// orphaned; forgets seats orphaned longer than `seat_hold`, and
    /// session notices older than `notice_hold`. Returns the dead nodes'
    /// ids and the matches still `playing` in their rooms, which can never
    /// finish there (read in the same statement as the delete, so only a
    /// node this call declared dead has its matches returned).
    pub(crate) async fn reap(
        &self,
        seat_hold: Duration,
        notice_hold: Duration,
    ) -> Result<Reaped, DbError> {
        within(self.deadline, async {
            let mut tx = self.pool.begin().await?;
            // The statement's snapshot still shows the rooms the delete
            // cascades to.
            let rows: Vec<(Uuid, Option<Uuid>)> = sqlx::query_as(
                "WITH dead AS (DELETE FROM nodes
                               WHERE heartbeat_at < now() - make_interval(secs => $1)
                               RETURNING id)
                 SELECT dead.id, m.id FROM dead
                 LEFT JOIN rooms r ON r.node_id = dead.id
                 LEFT JOIN matches m ON m.room_code = r.code AND m.status = 'playing'",
            )
            .bind(self.timeout_secs())
            .fetch_all(&mut *tx)
            .await?;
            let mut dead: Vec<Uuid> = rows.iter().map(|(node, _)| *node).collect();
            dead.sort_unstable();
            dead.dedup();
            let mut matches: Vec<Uuid> = rows.iter().filter_map(|(_, m)| *m).collect();
            matches.sort_unstable();
            matches.dedup();
            if !dead.is_empty() {
                sqlx::query(
                    "UPDATE seats SET orphaned_at = now()
                     WHERE node_id = ANY($1) AND orphaned_at IS NULL",
                )
                .bind(&dead)
                .execute(&mut *tx)
                .await?;
            }
            sqlx::query("DELETE FROM seats WHERE orphaned_at < now() - make_interval(secs => $1)")
                .bind(seat_hold.as_secs_f64())
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM session_notices WHERE at < now() - make_interval(secs => $1)")
                .bind(notice_hold.as_secs_f64())
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(Reaped {
                nodes: dead,
                matches,
            })
        })
        .await
    }

    /// This node stops: its row and rooms go, its seats are orphaned.
    pub(crate) async fn leave(&self) -> Result<(), DbError> {
        within(self.deadline, async {
            let mut tx = self.pool.begin().await?;
            sqlx::query("UPDATE seats SET orphaned_at = now() WHERE node_id = $1")
                .bind(self.node)
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM nodes WHERE id = $1")
                .bind(self.node)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
        .await
    }

    /// Claims `code` for a new room on this node hosted by `host`, and the
    /// host's seat in it, in one transaction: the host must not hold a seat
    /// in an open room on another node ([`SEAT_HOLDS`]). Two nodes
    /// reserving for the same host at once take turns on the host's seat
    /// row, so only one of them gets it.
    pub(crate) async fn reserve(
        &self,
        code: &str,
        public: bool,
        host: i64,
        holding: &Holding,
    ) -> Result<Reserved, DbError> {
        within(self.deadline, async {
            let mut tx = self.pool.begin().await?;
            // One node at a time counts an address's rooms and adds one, so two
            // nodes cannot both take its last place.
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext('krypto-room-holder:' || $1))")
                .bind(&holding.holder)
                .execute(&mut *tx)
                .await?;
            let held: i64 = sqlx::query_scalar("SELECT count(*) FROM rooms WHERE holder = $1")
                .bind(&holding.holder)
                .fetch_one(&mut *tx)
                .await?;
            if held >= holding.share {
                tx.rollback().await?;
                return Ok(Reserved::AddressFull);
            }
            let sql = format!(
                "INSERT INTO seats (player_id, code, node_id) VALUES ($1, $2, $3)
                 ON CONFLICT (player_id) DO UPDATE
                 SET code = EXCLUDED.code, node_id = EXCLUDED.node_id, orphaned_at = NULL
                 WHERE NOT ({SEAT_HOLDS})
                 RETURNING player_id"
            );
            let seated: Option<i64> = sqlx::query_scalar(&sql)
                .bind(host)
                .bind(code)
                .bind(self.node)
                .fetch_optional(&mut *tx)
                .await?;
            if seated.is_none() {
                let held: String =
                    sqlx::query_scalar("SELECT code FROM seats WHERE player_id = $1")
                        .bind(host)
                        .fetch_one(&mut *tx)
                        .await?;
                tx.rollback().await?;
                return Ok(Reserved::HostSeated(held));
            }
            let done = sqlx::query(
                "INSERT INTO rooms (code, node_id, public, holder) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (code) DO NOTHING",
            )
            .bind(code)
            .bind(self.node)
            .bind(public)
            .bind(&holding.holder)
            .execute(&mut *tx)
            .await?;
            if done.rows_affected() != 1 {
                tx.rollback().await?;
                return Ok(Reserved::CodeTaken);
            }
            tx.commit().await?;
            Ok(Reserved::Done)
        })
        .await
    }

    /// The room `player` holds a seat in on another node, if that seat
    /// keeps them from hosting, joining or renaming ([`SEAT_HOLDS`]).
    pub(crate) async fn held_seat(&self, player: i64) -> Result<Option<String>, DbError> {
        within(self.deadline, async {
            let sql = format!(
                "SELECT seats.code FROM seats
                 WHERE seats.player_id = $1 AND $2 = '' AND ({SEAT_HOLDS})"
            );
            Ok(sqlx::query_scalar(&sql)
                .bind(player)
                .bind("")
                .bind(self.node)
                .fetch_optional(&self.pool)
                .await?)
        })
        .await
    }

    /// Applies a batch of seat and room changes in one transaction.
    pub(crate) async fn apply(&self, changes: &Changes) -> Result<(), DbError> {
        within(self.deadline, async {
            let mut tx = self.pool.begin().await?;
            if !changes.closed.is_empty() {
                sqlx::query("DELETE FROM rooms WHERE code = ANY($1) AND node_id = $2")
                    .bind(&changes.closed)
                    .bind(self.node)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("DELETE FROM seats WHERE code = ANY($1) AND node_id = $2")
                    .bind(&changes.closed)
                    .bind(self.node)
                    .execute(&mut *tx)
                    .await?;
            }
            if !changes.unseat.is_empty() {
                let (players, codes): (Vec<i64>, Vec<String>) =
                    changes.unseat.iter().cloned().unzip();
                sqlx::query(
                    "DELETE FROM seats s USING UNNEST($1::bigint[], $2::text[]) AS u(player, code)
                     WHERE s.player_id = u.player AND s.code = u.code",
                )
                .bind(&players)
                .bind(&codes)
                .execute(&mut *tx)
                .await?;
            }
            if !changes.seat.is_empty() {
                self.upsert_seats(&mut tx, changes.seat.iter()).await?;
            }
            if !changes.locked.is_empty() {
                let (codes, locked): (Vec<String>, Vec<bool>) =
                    changes.locked.iter().cloned().unzip();
                sqlx::query(
                    "UPDATE rooms r SET locked = u.locked
                     FROM UNNEST($1::text[], $2::bool[]) AS u(code, locked)
                     WHERE r.code = u.code AND r.node_id = $3",
                )
                .bind(&codes)
                .bind(&locked)
                .bind(self.node)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(())
        })
        .await
    }

    /// Publishes again the rooms and seats of a node the others took for
    /// dead (its rows were deleted). A room whose code another node took
    /// meanwhile is not; nor is a seat of a player now seated on another
    /// node (a newer fact than this node's: the player moved on while this
    /// node was cut off) — this node's own seats, orphaned or not, and
    /// seats no row holds any more are written. Returns the rooms not
    /// published, and the seats (player, code) that were not.
    pub(crate) async fn republish(
        &self,
        rooms: &[String],
        seats: &[(i64, String)],
    ) -> Result<(Vec<String>, Vec<(i64, String)>), DbError> {
        within(self.deadline, async {
            let mut tx = self.pool.begin().await?;
            let kept: Vec<String> = sqlx::query_scalar(
                "INSERT INTO rooms (code, node_id) SELECT code, $2 FROM UNNEST($1::text[]) AS u(code)
                 ON CONFLICT (code) DO NOTHING RETURNING code",
            )
            .bind(rooms)
            .bind(self.node)
            .fetch_all(&mut *tx)
            .await?;
            let (players, codes): (Vec<i64>, Vec<String>) = seats
                .iter()
                .filter(|(_, code)| kept.contains(code))
                .cloned()
                .unzip();
            let written: Vec<i64> = sqlx::query_scalar(
                "INSERT INTO seats (player_id, code, node_id)
                 SELECT player, code, $3 FROM UNNEST($1::bigint[], $2::text[]) AS u(player, code)
                 ON CONFLICT (player_id) DO UPDATE
                 SET code = EXCLUDED.code, node_id = EXCLUDED.node_id, orphaned_at = NULL
                 WHERE seats.node_id = EXCLUDED.node_id
                 RETURNING player_id",
            )
            .bind(&players)
            .bind(&codes)
            .bind(self.node)
            .fetch_all(&mut *tx)
            .await?;
            tx.commit().await?;
            let lost = rooms.iter().filter(|c| !kept.contains(c)).cloned().collect();
            let moved = seats
                .iter()
                .filter(|(player, _)| !written.contains(player))
                .cloned()
                .collect();
            Ok((lost, moved))
        })
        .await
    }

    /// Writes `seats` (player, code) as this node's, replacing any older
    /// seat of those players.
    async fn upsert_seats<'a>(
        &self,
        tx: &mut sqlx::PgTransaction<'_>,
        seats: impl Iterator<Item = &'a (i64, String)>,
    ) -> Result<(), DbError> {
        upsert_seats(tx, self.node, seats).await
    }

    /// Publishes changed listing entries of this node's rooms.
    pub(crate) async fn publish(&self, entries: &[Published]) -> Result<(), DbError> {
        within(self.deadline, async {
            if entries.is_empty() {
                return Ok(());
            }
            let codes: Vec<&str> = entries.iter().map(|e| e.code.as_str()).collect();
            let publics: Vec<bool> = entries.iter().map(|e| e.summary.is_some()).collect();
            let summaries: Vec<Option<&str>> =
                entries.iter().map(|e| e.summary.as_deref()).collect();
            sqlx::query(
                "UPDATE rooms r SET public = u.public, summary = u.summary::jsonb
                 FROM UNNEST($2::text[], $3::bool[], $4::text[]) AS u(code, public, summary)
                 WHERE r.code = u.code AND r.node_id = $1",
            )
            .bind(self.node)
            .bind(&codes)
            .bind(&publics)
            .bind(&summaries)
            .execute(&self.pool)
            .await?;
            Ok(())
        })
        .await
    }

    /// The listing entries (JSON) of the public rooms of the other live
    /// nodes, each with the age of its node's last heartbeat in seconds.
    pub(crate) async fn remote_public_rooms(&self) -> Result<Vec<(String, f64)>, DbError> {
        within(self.deadline, async {
            Ok(sqlx::query_as(
                "SELECT r.summary::text, CAST(extract(epoch FROM now() - n.heartbeat_at) AS float8)
                 FROM rooms r JOIN nodes n ON n.id = r.node_id
                 WHERE r.public AND r.summary IS NOT NULL AND r.node_id <> $1
                   AND n.heartbeat_at > now() - make_interval(secs => $2)",
            )
            .bind(self.node)
            .bind(self.timeout_secs())
            .fetch_all(&self.pool)
            .await?)
        })
        .await
    }

    /// Where room `code` lives, if it is in the directory.
    pub(crate) async fn locate(
        &self,
        code: &str,
        player: i64,
    ) -> Result<Option<RoomLocation>, DbError> {
        within(self.deadline, async {
            // A locked room is shown only to those seated in it.
            Ok(sqlx::query_as(
                "SELECT r.node_id AS node, n.public_url AS url,
                        n.heartbeat_at > now() - make_interval(secs => $2) AS live
                 FROM rooms r JOIN nodes n ON n.id = r.node_id
                 WHERE r.code = $1
                   AND (NOT r.locked
                        OR EXISTS (SELECT 1 FROM seats s WHERE s.player_id = $3 AND s.code = r.code))",
            )
            .bind(code)
            .bind(self.suspect_secs())
            .bind(player)
            .fetch_optional(&self.pool)
            .await?)
        })
        .await
    }

    /// Where `player` is seated, if anywhere.
    pub(crate) async fn seat_of(&self, player: i64) -> Result<Option<SeatLocation>, DbError> {
        within(self.deadline, async {
            Ok(sqlx::query_as(
                "SELECT s.code, s.node_id AS node, n.public_url AS url,
                        COALESCE(n.heartbeat_at > now() - make_interval(secs => $2), false) AS live,
                        EXISTS (SELECT 1 FROM rooms r WHERE r.code = s.code AND r.node_id = s.node_id)
                            AS room_open
                 FROM seats s LEFT JOIN nodes n ON n.id = s.node_id WHERE s.player_id = $1",
            )
            .bind(player)
            .bind(self.suspect_secs())
            .fetch_optional(&self.pool)
            .await?)
        })
        .await
    }

    /// Clears `player`'s seat if it still names room `code`.
    pub(crate) async fn clear_seat(&self, player: i64, code: &str) -> Result<(), DbError> {
        within(self.deadline, async {
            sqlx::query("DELETE FROM seats WHERE player_id = $1 AND code = $2")
                .bind(player)
                .bind(code)
                .execute(&self.pool)
                .await?;
            Ok(())
        })
        .await
    }

    /// Announces a new session of `player` on this node to every node
    /// (and keeps the notice for those not listening just now); returns
    /// its place in the order of sessions.
    pub(crate) async fn announce_session(&self, player: i64) -> Result<i64, DbError> {
        within(self.deadline, async {
            Ok(sqlx::query_scalar(
                "WITH s AS (INSERT INTO session_notices (seq, player_id, node_id)
                            VALUES (nextval('session_seq'), $2, $3) RETURNING seq)
                 SELECT seq FROM s,
                     LATERAL pg_notify($1, concat_ws(' ', $2::bigint, seq, CAST($3 AS text)))",
            )
            .bind(SESSIONS_CHANNEL)
            .bind(player)
            .bind(self.node)
            .fetch_one(&self.pool)
            .await?)
        })
        .await
    }

    /// The session notices kept, after `seq`, oldest first: what a node
    /// whose `LISTEN` broke may have missed.
    pub(crate) async fn notices_after(&self, seq: i64) -> Result<Vec<Announcement>, DbError> {
        within(self.deadline, async {
            let rows: Vec<(i64, i64, Uuid)> = sqlx::query_as(
                "SELECT player_id, seq, node_id FROM session_notices WHERE seq > $1 ORDER BY seq",
            )
            .bind(seq)
            .fetch_all(&self.pool)
            .await?;
            Ok(rows
                .into_iter()
                .map(|(player, seq, node)| Announcement { player, seq, node })
                .collect())
        })
        .await
    }
}

/// A session announcement as `NOTIFY` carries it: "player seq node".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Announcement {
    /// The player.
    pub(crate) player: i64,
    /// Its place in the order of sessions.
    pub(crate) seq: i64,
    /// The node it arrived on.
    pub(crate) node: Uuid,
}

impl Announcement {
    /// Reads a payload; `None` for anything else.
    pub(crate) fn parse(payload: &str) -> Option<Announcement> {
        let mut parts = payload.split(' ');
        let player = parts.next()?.parse().ok()?;
        let seq = parts.next()?.parse().ok()?;
        let node = parts.next()?.parse().ok()?;
        parts
            .next()
            .is_none()
            .then_some(Announcement { player, seq, node })
    }
}

/// Writes `seats` (player, code) as node `node`'s, replacing any older seat
/// of those players.
pub(super) async fn upsert_seats<'a>(
    tx: &mut sqlx::PgTransaction<'_>,
    node: Uuid,
    seats: impl Iterator<Item = &'a (i64, String)>,
) -> Result<(), DbError> {
    let (players, codes): (Vec<i64>, Vec<String>) = seats.cloned().unzip();
    sqlx::query(
        "INSERT INTO seats (player_id, code, node_id)
         SELECT player, code, $3 FROM UNNEST($1::bigint[], $2::text[]) AS u(player, code)
         ON CONFLICT (player_id) DO UPDATE
         SET code = EXCLUDED.code, node_id = EXCLUDED.node_id, orphaned_at = NULL",
    )
    .bind(&players)
    .bind(&codes)
    .bind(node)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn announcements_parse_only_their_own_shape() {
        let node = Uuid::now_v7();
        let ok = Announcement::parse(&format!("42 7 {node}"));
        assert_eq!(
            ok,
            Some(Announcement {
                player: 42,
                seq: 7,
                node
            })
        );
        for bad in ["", "42 7", "x 7 {node}", &format!("42 7 {node} extra")] {
            assert_eq!(Announcement::parse(bad), None, "{bad:?}");
        }
    }
}
