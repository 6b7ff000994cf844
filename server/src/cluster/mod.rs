//! Many nodes on one PostgreSQL database (`--public-url`): each room lives
//! on one node, and the database says which (see `docs/scaling.md`).
//!
//! - this file: the [`Cluster`] handle the session asks — reserve a room
//!   code, find a room or a player's seat on another node, announce a new
//!   session — and [`Cluster::open`], which registers the node;
//! - [`heartbeat`]: the node's heartbeat, removing dead nodes, publishing
//!   public rooms and reading the other nodes' ones;
//! - [`takeover`]: `LISTEN` for sessions opened on other nodes, closing the
//!   older session here (one player, one session, cluster-wide);
//! - [`rules`]: the single-node rules made cluster-wide — a seat on another
//!   node keeps a player from renaming or joining, and the code-miss and
//!   new-account budgets are counted in the database.
//!
//! The SQL is in `db/postgres/directory/`. Without `--public-url` none of
//! this runs and the server is the single node it always was.

mod heartbeat;
mod rules;
mod takeover;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use krypto_core::protocol::{PlayerId, RoomSummary};
use sqlx::postgres::PgListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::config::server_url;
use crate::db::budgets::Budgets;
use crate::db::directory::{self, Directory, Holding, Reserved, Target};
use crate::db::{Db, DbError};
use crate::ops::metrics::{Metrics, Reconnect};
use crate::rooms::directory_queue::{self, DirectoryQueue};
use crate::rooms::lobby::Lobby;
use crate::rooms::outbox::{close, ConnId};
use crate::scores::recorder::Recorder;

/// How long a dead node's seats are remembered, so a player coming back
/// within the time a dropped seat is held anyway is told their room is
/// gone.
const SEAT_MEMORY: Duration = Duration::from_millis(krypto_core::room::SEAT_HOLD_MS);

/// Fresh codes tried before giving up (each collision is a chance of about
/// one in 28 million per open room).
const CODE_TRIES: usize = 16;

/// How long a session announced by another node is remembered, in case
/// the older session here is still saying hello.
const ANNOUNCEMENT_MEMORY: Duration = Duration::from_secs(60);

/// Why a node could not join the cluster.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// `--public-url` with a SQLite file: other nodes cannot reach it.
    #[error(
        "--public-url needs a PostgreSQL database (--database postgres://…) that every node \
         shares; a SQLite file belongs to one server"
    )]
    NeedsPostgres,
    /// The public URL is not one clients could be sent to.
    #[error("--public-url {url:?}: {reason}")]
    BadPublicUrl {
        /// What was given.
        url: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Registering the node failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The public URL as redirects will carry it: a `ws://` or `wss://` URL
/// with a host and nothing secret in it.
pub fn validate_public_url(text: &str) -> Result<String, ClusterError> {
    let bad = |reason| ClusterError::BadPublicUrl {
        url: text.to_owned(),
        reason,
    };
    let url = server_url(text, ["ws", "wss"], "use ws:// or wss://").map_err(bad)?;
    if url.fragment().is_some() {
        return Err(bad("it must not have a #fragment"));
    }
    Ok(url.to_string())
}

/// Where a room code leads, seen from this node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Located {
    /// Not in the directory (or on this node: the lobby knows best).
    Nowhere,
    /// On another live node.
    Elsewhere {
        /// That node's public URL.
        url: String,
    },
    /// On a node whose heartbeat is late but which no live node declared
    /// dead yet: cut off from the database (its rooms may be playing on)
    /// or killed. Nobody is sent there, and nothing of it is cleared.
    Unreachable,
}

/// What reserving a room code came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reservation {
    /// The code is the new room's.
    Code(String),
    /// This node has as many rooms as it allows.
    Full,
    /// The host holds a seat in this room on another node.
    HostSeated(String),
    /// The host's address holds its share of the rooms across the nodes.
    AddressFull,
}

/// What the directory says about a player not seated on this node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SeatElsewhere {
    /// Seated in room `code` on the live node at `url`.
    Redirect {
        /// That node's public URL.
        url: String,
        /// The room.
        code: String,
    },
    /// Seated in room `code` on a node that is only suspected (its
    /// heartbeat late, not declared dead): the seat stays theirs.
    Unreachable {
        /// The room.
        code: String,
    },
    /// Their room is gone (now cleared from the directory).
    Gone {
        /// The room.
        code: String,
        /// Because its node was declared dead (rather than the room
        /// closing).
        node_stopped: bool,
    },
}

/// A session of a player, as far as taking over is concerned.
#[derive(Debug, Clone, Copy)]
enum Session {
    /// Connected here, with its place in the cluster's order of sessions.
    Local(ConnId, i64),
    /// Most recently announced by another node.
    Remote(i64, Instant),
}

/// This node's membership of the cluster.
#[derive(Debug)]
pub(crate) struct Cluster {
    /// This node's id (new at every start).
    node: Uuid,
    /// Where clients reach this node.
    public_url: String,
    /// The queries.
    directory: Directory,
    /// The budgets every node shares.
    budgets: Budgets,
    /// Seats and closed rooms on their way to the directory.
    queue: DirectoryQueue,
    /// Between heartbeats.
    heartbeat_every: Duration,
    /// A node whose heartbeat is older is dead.
    node_timeout: Duration,
    /// The public rooms of the other live nodes, as of the last heartbeat.
    remote_rooms: Mutex<Arc<Vec<RemoteRoom>>>,
    /// Counts the `LISTEN` connection opened again.
    listen_reconnects: metrics::Counter,
    /// Counts this node registering again after being taken for dead.
    rejoins: metrics::Counter,
    /// Each player's latest session known here.
    sessions: Mutex<HashMap<PlayerId, Session>>,
    /// Set when this node starts to stop.
    draining: AtomicBool,
    /// Whether this node has been in touch with the database for a whole
    /// node timeout (see `heartbeat`): until then an old heartbeat of
    /// another node proves nothing (the database may just be back).
    judging: AtomicBool,
    /// Cancelled once the node has left: the tasks end.
    stopped: CancellationToken,
    /// Held by a heartbeat while it writes, so leaving cannot interleave
    /// with a heartbeat that would register the node again.
    beat: tokio::sync::Mutex<()>,
    /// Woken when saved rooms may be waiting for this node (a stopping
    /// node handed some over, or a heartbeat passed).
    claims: tokio::sync::Notify,
}

/// A public room of another node, listed until its node's last heartbeat
/// is a node timeout old (so a node killed between two of our heartbeats
/// leaves the listing on time).
#[derive(Debug, Clone)]
struct RemoteRoom {
    summary: RoomSummary,
    /// When its node's last heartbeat seen turns a node timeout old.
    until: Instant,
}

/// What [`Cluster::open`] hands over to [`Cluster::spawn`].
#[derive(Debug)]
pub(crate) struct Pending {
    queue: mpsc::UnboundedReceiver<directory_queue::Change>,
    listener: PgListener,
}

impl Cluster {
    /// Joins the cluster when `public_url` is set: validates it, registers
    /// this node and starts listening for sessions; `None` for a single
    /// node.
    pub(crate) async fn open(
        db: &Db,
        public_url: Option<&str>,
        node_timeout: Duration,
        limit_window: Duration,
        deadline: Duration,
        metrics: &Metrics,
    ) -> Result<Option<(Arc<Cluster>, Pending)>, ClusterError> {
        let Some(public_url) = public_url else {
            return Ok(None);
        };
        let public_url = validate_public_url(public_url)?;
        let pool = db.postgres_pool().ok_or(ClusterError::NeedsPostgres)?;
        let node = Uuid::now_v7();
        let directory = Directory::new(pool.clone(), node, node_timeout, deadline);
        let budgets = Budgets::new(pool.clone(), limit_window, deadline);
        let listener = takeover::listen(&directory).await?;
        directory.register(&public_url).await?;
        let (queue, rx) = DirectoryQueue::new();
        tracing::info!(%node, url = %public_url, "node joined the cluster");
        let cluster = Cluster {
            node,
            public_url,
            directory,
            budgets,
            queue,
            heartbeat_every: (node_timeout / 5).max(Duration::from_millis(100)),
            node_timeout,
            remote_rooms: Mutex::default(),
            listen_reconnects: metrics.reconnects(Reconnect::Listen),
            rejoins: metrics.node_rejoins.clone(),
            sessions: Mutex::default(),
            draining: AtomicBool::new(false),
            judging: AtomicBool::new(false),
            stopped: CancellationToken::new(),
            beat: tokio::sync::Mutex::new(()),
            claims: tokio::sync::Notify::new(),
        };
        Ok(Some((
            Arc::new(cluster),
            Pending {
                queue: rx,
                listener,
            },
        )))
    }

    /// This node's id.
    pub(crate) fn node(&self) -> Uuid {
        self.node
    }

    /// The directory's queries.
    pub(crate) fn directory(&self) -> &Directory {
        &self.directory
    }

    /// Whether this node is stopping.
    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Asks for a look at the saved rooms this node may claim.
    pub(crate) fn want_claims(&self) {
        self.claims.notify_one();
    }

    /// Waits until saved rooms may be waiting for this node; false once
    /// the node has left.
    pub(crate) async fn claims_wanted(&self) -> bool {
        tokio::select! {
            () = self.stopped.cancelled() => false,
            () = self.claims.notified() => true,
        }
    }

    /// The queue the lobby tells about seats and closed rooms.
    pub(crate) fn queue(&self) -> DirectoryQueue {
        self.queue.clone()
    }

    /// Starts the directory writer, the heartbeat (which records through
    /// `recorder` the matches of dead nodes as abandoned) and the session
    /// listener.
    pub(crate) fn spawn(self: &Arc<Self>, lobby: Arc<Lobby>, recorder: Recorder, pending: Pending) {
        tokio::spawn(directory_queue::write(
            self.directory.clone(),
            pending.queue,
        ));
        tokio::spawn(heartbeat::run(self.clone(), lobby.clone(), recorder));
        tokio::spawn(takeover::run(self.clone(), lobby, pending.listener));
    }

    fn sessions(&self) -> MutexGuard<'_, HashMap<PlayerId, Session>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reserves a code no room on any node has, for a room about to open
    /// here hosted by `host`, with the host's seat in it: one open room
    /// per host across the cluster, as on a single node.
    pub(crate) async fn reserve_code(
        &self,
        lobby: &Lobby,
        public: bool,
        host: PlayerId,
        holder: std::net::IpAddr,
    ) -> Result<Reservation, DbError> {
        let share = i64::try_from(lobby.share()).unwrap_or(i64::MAX);
        for _ in 0..CODE_TRIES {
            let Some(code) = lobby.candidate_code() else {
                return Ok(Reservation::Full);
            };
            let holding = Holding {
                holder: holder.to_string(),
                share,
            };
            match self
                .directory
                .reserve(&code, public, host.0, &holding)
                .await?
            {
                Reserved::Done => return Ok(Reservation::Code(code)),
                Reserved::HostSeated(held) => return Ok(Reservation::HostSeated(held)),
                Reserved::AddressFull => return Ok(Reservation::AddressFull),
                Reserved::CodeTaken => {
                    tracing::debug!(%code, "room code taken on another node; drawing again");
                }
            }
        }
        Err(DbError::Invariant("no free room code after many tries"))
    }

    /// Gives back a reserved code whose room did not open.
    pub(crate) fn release_code(&self, code: &str) {
        self.queue.closed(code);
    }

    /// Whether another node's old heartbeat may be taken to mean it is
    /// dead (its row, while it exists, still counts as live otherwise).
    fn judging(&self) -> bool {
        self.judging.load(Ordering::Relaxed)
    }

    /// Where room `code` (not open here) lives. While this node may not
    /// judge heartbeats (just back from an outage) every node in the
    /// directory counts as live.
    pub(crate) async fn locate(&self, code: &str, player: PlayerId) -> Located {
        match self.directory.locate(code, player.0).await {
            Ok(Some(at)) if at.node == self.node => Located::Nowhere,
            Ok(Some(at)) if at.live || !self.judging() => Located::Elsewhere { url: at.url },
            Ok(Some(_)) => Located::Unreachable,
            Ok(None) => Located::Nowhere,
            Err(e) => {
                tracing::warn!(error = %e, "room directory unreadable");
                Located::Nowhere
            }
        }
    }

    /// Where `player` (not seated here) is seated on another node; a seat
    /// whose room is gone is cleared — never one on a node only suspected
    /// (its heartbeat late): that node may be cut off from the database
    /// and playing on, and comes back to the seat.
    pub(crate) async fn seat_elsewhere(&self, player: PlayerId) -> Option<SeatElsewhere> {
        let seat = match self.directory.seat_of(player.0).await {
            Ok(seat) => seat?,
            Err(e) => {
                tracing::warn!(error = %e, "seat directory unreadable");
                return None;
            }
        };
        if seat.node == self.node {
            // The lobby here knows better (the directory lags a little).
            return None;
        }
        // The node's row exists until a live node declares it dead.
        let declared_dead = seat.url.is_none();
        let live = seat.live || (!declared_dead && !self.judging());
        match (&seat.url, seat.room_open) {
            (Some(url), true) if live => {
                return Some(SeatElsewhere::Redirect {
                    url: url.clone(),
                    code: seat.code,
                })
            }
            (Some(_), true) => return Some(SeatElsewhere::Unreachable { code: seat.code }),
            _ => {}
        }
        if let Err(e) = self.directory.clear_seat(player.0, &seat.code).await {
            tracing::warn!(error = %e, "stale seat not cleared");
        }
        Some(SeatElsewhere::Gone {
            code: seat.code,
            node_stopped: declared_dead,
        })
    }

    /// Tells every node that `player` has a new session here; returns its
    /// place in the cluster's order of sessions (`None` if the database
    /// could not be reached: that session cannot replace others).
    pub(crate) async fn announce_session(&self, player: PlayerId) -> Option<i64> {
        match self.directory.announce_session(player.0).await {
            Ok(seq) => Some(seq),
            Err(e) => {
                tracing::warn!(error = %e, player = player.0, "session not announced");
                None
            }
        }
    }

    /// Records the session now speaking for `player` here; `false` when a
    /// newer one was already announced elsewhere (then this one must go).
    pub(crate) fn record_session(&self, player: PlayerId, conn: ConnId, seq: Option<i64>) -> bool {
        let seq = seq.unwrap_or(0);
        let mut sessions = self.sessions();
        if let Some(Session::Remote(newer, _)) = sessions.get(&player) {
            if *newer > seq {
                return false;
            }
        }
        sessions.insert(player, Session::Local(conn, seq));
        true
    }

    /// Forgets `player`'s session here if it is still `conn`.
    pub(crate) fn forget_session(&self, player: PlayerId, conn: ConnId) {
        let mut sessions = self.sessions();
        if matches!(sessions.get(&player), Some(Session::Local(c, _)) if *c == conn) {
            sessions.remove(&player);
        }
    }

    /// Another node announced a session: an older one here is closed.
    /// Hearing the same announcement twice changes nothing.
    fn taken_over(&self, lobby: &Lobby, announced: directory::Announcement) {
        if announced.node == self.node {
            return;
        }
        let player = PlayerId(announced.player);
        let replaced = {
            let mut sessions = self.sessions();
            match sessions.get(&player).copied() {
                Some(Session::Local(conn, seq)) if seq < announced.seq => Some(conn),
                Some(Session::Local(..)) => None,
                Some(Session::Remote(seq, _)) if seq >= announced.seq => None,
                _ => {
                    sessions.insert(player, Session::Remote(announced.seq, Instant::now()));
                    None
                }
            }
        };
        if let Some(conn) = replaced {
            self.sessions()
                .insert(player, Session::Remote(announced.seq, Instant::now()));
            if let Some(old) = lobby.session(player, conn) {
                tracing::info!(player = player.0, "session replaced by one on another node");
                old.kill(close::NORMAL, "replaced by a newer connection");
            }
        }
    }

    /// Forgets announcements old enough that no hello can still be racing
    /// them.
    fn prune_announcements(&self) {
        self.sessions().retain(|_, s| match s {
            Session::Local(..) => true,
            Session::Remote(_, at) => at.elapsed() < ANNOUNCEMENT_MEMORY,
        });
    }

    /// The public rooms of the other live nodes (a few seconds old at
    /// most), without those whose node's heartbeat is now too old.
    pub(crate) fn remote_public_rooms(&self) -> Vec<RoomSummary> {
        let rooms = self
            .remote_rooms
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let now = Instant::now();
        rooms
            .iter()
            .filter(|r| r.until > now)
            .map(|r| r.summary.clone())
            .collect()
    }

    /// Marks this node as draining (it is stopping: no rooms should be
    /// handed to it), at once rather than at the next heartbeat.
    pub(crate) async fn drain(&self) {
        self.draining.store(true, Ordering::Relaxed);
        let _beat = self.beat.lock().await;
        if let Err(e) = self.directory.heartbeat(true).await {
            tracing::warn!(error = %e, "could not mark the node draining");
        }
    }

    /// A live node that is not draining, holding the fewest rooms: where a
    /// stopping node's rooms can go.
    pub(crate) async fn pick_target(&self) -> Result<Option<Target>, DbError> {
        self.directory.pick_target().await
    }

    /// Leaves the cluster: writes what is queued, stops the heartbeat, and
    /// deletes this node's row and rooms (its seats stay, orphaned, so
    /// players coming back are told their room is gone).
    pub(crate) async fn stop(&self) {
        let _beat = self.beat.lock().await;
        self.stopped.cancel();
        self.queue.flush().await;
        match self.directory.leave().await {
            Ok(()) => tracing::info!(node = %self.node, "node left the cluster"),
            Err(e) => tracing::warn!(error = %e, "could not leave the cluster cleanly"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls_are_websocket_urls_with_a_host_and_no_secrets() {
        assert_eq!(
            validate_public_url("ws://host-b:7878/ws").unwrap(),
            "ws://host-b:7878/ws"
        );
        assert!(validate_public_url("wss://play.example/b/ws").is_ok());
        for bad in [
            "",
            "host-b:7878",
            "http://host-b/ws",
            "javascript:alert(1)",
            "ws://user:pw@host/ws",
            "ws://host/ws#x",
            "ws://",
        ] {
            assert!(validate_public_url(bad).is_err(), "{bad:?}");
        }
    }
}
