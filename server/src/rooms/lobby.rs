//! The lobby: which rooms exist, who is seated where, and which connection
//! speaks for each player.
//!
//! A plain mutex around three maps, held for a few map operations and never
//! across an `.await`; the rooms' own state lives in their tasks. On a node
//! of a cluster, every seat, unseat and closed room is also queued for the
//! shared directory ([`crate::rooms::directory_queue::DirectoryQueue`]), which a task
//! writes in batches: the lobby never waits on the database.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use krypto_core::protocol::{ClientMessage, ErrorCode, PlayerId, RoomSettings, RoomSummary};
use tokio::sync::{mpsc, oneshot, watch};

use crate::rooms::directory_queue::DirectoryQueue;
use crate::rooms::outbox::{ConnId, Outbox};
use crate::rooms::room_codes;

/// What a connection asks of a room task.
#[derive(Debug)]
pub(crate) enum RoomCommand {
    /// Take a seat (or a spectator's place); the reply says whether it worked.
    Join {
        /// Who.
        player: PlayerId,
        /// Their name.
        name: String,
        /// Watch only.
        spectator: bool,
        /// The client said it is a bot.
        bot: bool,
        /// Where to send them the room's messages.
        client: Outbox,
        /// The request id of the `join_room`, for the first `room_state`.
        id: Option<String>,
        /// `Ok` once seated, or the error code and sentence.
        reply: oneshot::Sender<Result<(), (ErrorCode, String)>>,
    },
    /// A player who holds a seat came back on a new connection.
    Resume {
        /// Who.
        player: PlayerId,
        /// Their new connection.
        client: Outbox,
    },
    /// A room message from a member.
    Request {
        /// When the connection read it (for the verdict latency).
        received: tokio::time::Instant,
        /// Who sent it.
        player: PlayerId,
        /// From which connection (a replaced one is ignored).
        conn: ConnId,
        /// The request id to echo.
        id: Option<String>,
        /// The message.
        message: ClientMessage,
    },
    /// A member's connection ended.
    Disconnected {
        /// Who.
        player: PlayerId,
        /// Which connection ended.
        conn: ConnId,
    },
}

/// How connections reach a room.
#[derive(Debug, Clone)]
pub(crate) struct RoomHandle {
    /// The room's code.
    pub(crate) code: String,
    /// The room task's inbox.
    pub(crate) tx: mpsc::Sender<RoomCommand>,
    /// What the lobby listing shows; published by the room task so listing
    /// rooms never waits on a busy room.
    pub(crate) summary: watch::Receiver<RoomSummary>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Open rooms by code.
    rooms: HashMap<String, RoomHandle>,
    /// The room code each member (player or spectator) belongs to.
    seats: HashMap<PlayerId, String>,
    /// The connection currently speaking for each welcomed player.
    sessions: HashMap<PlayerId, Outbox>,
    /// Each room's spectators (joined, or about to be), so a room takes at
    /// most its share of watchers.
    spectators: HashMap<String, HashSet<PlayerId>>,
    /// The address (IPv6: network) whose connection opened each room here.
    holders: HashMap<String, IpAddr>,
    /// How many open rooms each address holds.
    held: HashMap<IpAddr, usize>,
}

/// Why a room could not be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RegisterError {
    /// The server has as many rooms as it allows.
    #[error("the server has no room for more rooms")]
    Full,
    /// The address already holds its share of the rooms.
    #[error("your address already holds as many open rooms as one address may: close one first")]
    AddressFull,
    /// The code reserved for the room is already open here (cannot happen
    /// while the directory keeps codes unique; refused rather than trusted).
    #[error("that room code is already taken")]
    Taken,
}

/// The registry of rooms, seats and sessions.
#[derive(Debug)]
pub(crate) struct Lobby {
    inner: Mutex<Inner>,
    /// Most rooms open at once.
    max_rooms: usize,
    /// Most rooms one address may hold ([`room_share`]).
    share: usize,
    /// On a node of a cluster: where seats and closed rooms are queued
    /// for the shared directory.
    directory: Option<DirectoryQueue>,
}

impl Lobby {
    /// An empty lobby allowing `max_rooms` rooms, telling `directory` (on
    /// a node of a cluster) about seats and closed rooms.
    pub(crate) fn new(
        max_rooms: usize,
        max_per_address: usize,
        directory: Option<DirectoryQueue>,
    ) -> Arc<Lobby> {
        Arc::new(Lobby {
            inner: Mutex::new(Inner::default()),
            max_rooms,
            share: room_share(max_rooms, max_per_address),
            directory,
        })
    }

    /// Most rooms one address may hold.
    pub(crate) fn share(&self) -> usize {
        self.share
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding this lock cannot leave the maps half-updated
        // in a way worse than losing the panicking operation, so carry on.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers the room that `make` builds under `reserved` (a code the
    /// cluster's directory reserved) or, on a single node, a fresh code
    /// drawn here; `make` runs under the lobby's lock, so it must not block.
    /// The room is held by `holder` (the address, as budgets key it, of
    /// the connection opening it): an address over its share is told so
    /// before the server is ever called full.
    pub(crate) fn register<T, E>(
        &self,
        reserved: Option<String>,
        holder: IpAddr,
        make: impl FnOnce(String) -> Result<(RoomHandle, T), E>,
    ) -> Result<Result<T, E>, RegisterError> {
        let mut inner = self.lock();
        if inner.held.get(&holder).copied().unwrap_or(0) >= self.share {
            return Err(RegisterError::AddressFull);
        }
        if inner.rooms.len() >= self.max_rooms {
            return Err(RegisterError::Full);
        }
        let code = match reserved {
            Some(code) if inner.rooms.contains_key(&code) => return Err(RegisterError::Taken),
            Some(code) => code,
            None => fresh_code(&inner),
        };
        Ok(make(code.clone()).map(|(handle, value)| {
            inner.rooms.insert(code.clone(), handle);
            inner.holders.insert(code, holder);
            *inner.held.entry(holder).or_default() += 1;
            value
        }))
    }

    /// Whether `holder` may open another room here.
    pub(crate) fn may_hold(&self, holder: IpAddr) -> bool {
        self.lock().held.get(&holder).copied().unwrap_or(0) < self.share
    }

    /// Registers a room under the code it already has (a room restored at
    /// start); false if that code is taken, or the server is full.
    pub(crate) fn register_code(&self, handle: RoomHandle) -> bool {
        let mut inner = self.lock();
        if inner.rooms.len() >= self.max_rooms || inner.rooms.contains_key(&handle.code) {
            return false;
        }
        inner.rooms.insert(handle.code.clone(), handle);
        true
    }

    /// A code no room here has, for the directory to reserve; `None` when
    /// the server has as many rooms as it allows.
    pub(crate) fn candidate_code(&self) -> Option<String> {
        let inner = self.lock();
        (inner.rooms.len() < self.max_rooms).then(|| fresh_code(&inner))
    }

    /// Removes a closed room and frees its members' seats.
    pub(crate) fn unregister(&self, code: &str) {
        let mut inner = self.lock();
        inner.rooms.remove(code);
        if let Some(holder) = inner.holders.remove(code) {
            if let Some(n) = inner.held.get_mut(&holder) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    inner.held.remove(&holder);
                }
            }
        }
        inner.seats.retain(|_, c| c != code);
        inner.spectators.remove(code);
        if let Some(directory) = &self.directory {
            directory.closed(code);
        }
    }

    /// Holds a spectator's place in room `code` for `player` while they
    /// join; false when the room already has `max` spectators.
    pub(crate) fn reserve_spectator(&self, code: &str, player: PlayerId, max: usize) -> bool {
        let mut inner = self.lock();
        let watchers = inner.spectators.entry(code.to_owned()).or_default();
        if watchers.len() >= max && !watchers.contains(&player) {
            return false;
        }
        watchers.insert(player);
        true
    }

    /// Gives back a place [`Lobby::reserve_spectator`] held (the join failed).
    pub(crate) fn release_spectator(&self, code: &str, player: PlayerId) {
        let mut inner = self.lock();
        if let Some(watchers) = inner.spectators.get_mut(code) {
            watchers.remove(&player);
        }
    }

    /// The room with this (normalized) code.
    pub(crate) fn room(&self, code: &str) -> Option<RoomHandle> {
        self.lock().rooms.get(code).cloned()
    }

    /// Rooms open and players with a session here, for `/metrics`.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let inner = self.lock();
        (inner.rooms.len(), inner.sessions.len())
    }

    /// The public rooms, for `list_rooms`.
    pub(crate) fn public_rooms(&self) -> Vec<RoomSummary> {
        let handles: Vec<RoomHandle> = self.lock().rooms.values().cloned().collect();
        let mut rooms: Vec<RoomSummary> = handles
            .iter()
            .map(|h| h.summary.borrow().clone())
            .filter(|s| s.settings.public)
            .collect();
        rooms.sort_by(|a, b| a.code.cmp(&b.code));
        rooms
    }

    /// Every room's code and listing entry (public or not), for the
    /// cluster's directory.
    pub(crate) fn listing(&self) -> Vec<RoomSummary> {
        let handles: Vec<RoomHandle> = self.lock().rooms.values().cloned().collect();
        handles.iter().map(|h| h.summary.borrow().clone()).collect()
    }

    /// Every open room's code and every seat, for re-publishing them all.
    pub(crate) fn snapshot(&self) -> (Vec<String>, Vec<(PlayerId, String)>) {
        let inner = self.lock();
        let rooms = inner.rooms.keys().cloned().collect();
        let seats = inner.seats.iter().map(|(p, c)| (*p, c.clone())).collect();
        (rooms, seats)
    }

    /// Records that `player` is a member of room `code`.
    pub(crate) fn seat(&self, player: PlayerId, code: &str) {
        self.lock().seats.insert(player, code.to_owned());
        if let Some(directory) = &self.directory {
            directory.seat(player, code);
        }
    }

    /// Records that room `code` was locked or unlocked (the directory of a
    /// cluster hides a locked room from strangers on other nodes).
    pub(crate) fn locked(&self, code: &str, locked: bool) {
        if let Some(directory) = &self.directory {
            directory.locked(code, locked);
        }
    }

    /// Records that `player` left room `code` (if they were still in it).
    pub(crate) fn unseat(&self, player: PlayerId, code: &str) {
        let mut inner = self.lock();
        if inner.seats.get(&player).is_some_and(|c| c == code) {
            inner.seats.remove(&player);
            if let Some(directory) = &self.directory {
                directory.unseat(player, code);
            }
        }
        if let Some(watchers) = inner.spectators.get_mut(code) {
            watchers.remove(&player);
        }
    }

    /// The room `player` is a member of.
    pub(crate) fn seat_of(&self, player: PlayerId) -> Option<RoomHandle> {
        let inner = self.lock();
        let code = inner.seats.get(&player)?;
        inner.rooms.get(code).cloned()
    }

    /// Makes `client` the connection speaking for `player`; returns the one
    /// it replaces.
    pub(crate) fn attach(&self, player: PlayerId, client: Outbox) -> Option<Outbox> {
        self.lock().sessions.insert(player, client)
    }

    /// The connection speaking for `player`, if any.
    pub(crate) fn session_of(&self, player: PlayerId) -> Option<Outbox> {
        self.lock().sessions.get(&player).cloned()
    }

    /// The connection speaking for `player`, if it is still `conn`.
    pub(crate) fn session(&self, player: PlayerId, conn: ConnId) -> Option<Outbox> {
        let inner = self.lock();
        inner
            .sessions
            .get(&player)
            .filter(|c| c.conn == conn)
            .cloned()
    }

    /// Forgets `player`'s connection if it is still `conn`.
    pub(crate) fn detach(&self, player: PlayerId, conn: ConnId) {
        let mut inner = self.lock();
        if inner.sessions.get(&player).is_some_and(|c| c.conn == conn) {
            inner.sessions.remove(&player);
        }
    }
}

/// Most rooms one address may hold: `max_per_address` (0: no cap), and
/// never more than a tenth of the server's rooms, so it takes at least ten
/// addresses (IPv6: networks) to fill a server.
pub(crate) fn room_share(max_rooms: usize, max_per_address: usize) -> usize {
    if max_per_address == 0 {
        return usize::MAX;
    }
    max_per_address.min(max_rooms / 10).max(1)
}

/// A random code no open room here has.
fn fresh_code(inner: &Inner) -> String {
    let mut rng = rand::rng();
    loop {
        let code = room_codes::generate(&mut rng);
        if !inner.rooms.contains_key(&code) {
            return code;
        }
    }
}

/// Settings a new room starts with (the rule is krypto-core's
/// [`RoomSettings::for_new_room`]).
pub(crate) fn initial_settings(
    patch: Option<&krypto_core::protocol::SettingsPatch>,
    public: Option<bool>,
) -> Result<RoomSettings, krypto_core::protocol::SettingsError> {
    RoomSettings::for_new_room(patch, public)
}
