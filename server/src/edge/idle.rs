//! Connection permits nobody can hoard. A signed-in WebSocket that is in
//! no room (not seated, not watching, no solo run in play) holds a permit
//! for nothing: it is closed after `--idle-lobby-secs` without a message
//! (close 4000, "idle in the lobby"). And a few permits are kept back
//! from WebSockets (`--reserved-connections`): a WebSocket beyond the rest
//! first closes the longest-idle lobby socket, or is refused with 503
//! `server_full` when there is none, so `/healthz`, `/readyz` and the pages
//! are still answered while the server is full, and a new player gets in
//! at the expense of whoever idles longest.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::time::Instant;

use crate::rooms::outbox::{ConnId, Outbox};

/// The close code and reason of a socket closed for idling in the lobby.
pub(crate) const IDLE_CLOSE: (u16, &str) = (
    krypto_core::protocol::close::IDLE,
    "idle in the lobby: reconnect when you want to play",
);

/// What one welcomed socket's transport tells the registry.
#[derive(Debug)]
pub(crate) struct Activity {
    /// Milliseconds since the registry's start at the last message.
    last_ms: AtomicU64,
    /// In no room and no run (as of the last check).
    in_lobby: AtomicBool,
}

impl Activity {
    /// The client sent a message now.
    pub(crate) fn touched(&self, sockets: &LobbySockets) {
        self.last_ms.store(sockets.now_ms(), Ordering::Relaxed);
    }

    /// Whether the socket is in the lobby (checked on each ping).
    pub(crate) fn set_in_lobby(&self, in_lobby: bool) {
        self.in_lobby.store(in_lobby, Ordering::Relaxed);
    }
}

/// Every welcomed socket and how idle it is, and the WebSockets open.
#[derive(Debug)]
pub(crate) struct LobbySockets {
    /// Where `last_ms` counts from.
    start: Instant,
    sockets: Mutex<HashMap<ConnId, (Outbox, Arc<Activity>)>>,
    /// WebSockets open now.
    open: AtomicUsize,
    /// Most WebSockets: the connection permits less the reserve.
    max_open: usize,
}

/// A WebSocket's place among [`LobbySockets::admit`]'s, given back on drop.
#[derive(Debug)]
pub(crate) struct WebSocketPlace(Arc<LobbySockets>);

impl Drop for WebSocketPlace {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

impl LobbySockets {
    /// A registry for a server of `max` connection permits, `reserve` of
    /// them kept back from WebSockets (never more than a tenth of them).
    pub(crate) fn new(max: usize, reserve: usize) -> Self {
        let max = max.max(1);
        LobbySockets {
            start: Instant::now(),
            sockets: Mutex::new(HashMap::new()),
            open: AtomicUsize::new(0),
            max_open: max - reserve.min(max / 10),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<ConnId, (Outbox, Arc<Activity>)>> {
        self.sockets.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Registers a welcomed socket, active now (and in the lobby).
    pub(crate) fn welcomed(&self, outbox: &Outbox) -> Arc<Activity> {
        let activity = Arc::new(Activity {
            last_ms: AtomicU64::new(self.now_ms()),
            in_lobby: AtomicBool::new(true),
        });
        self.lock()
            .insert(outbox.conn, (outbox.clone(), activity.clone()));
        activity
    }

    /// Forgets a socket that ended.
    pub(crate) fn ended(&self, conn: ConnId) {
        self.lock().remove(&conn);
    }

    /// When `activity`'s socket will have been silent for `idle`.
    pub(crate) fn idle_at(&self, activity: &Activity, idle: Duration) -> Instant {
        self.start + Duration::from_millis(activity.last_ms.load(Ordering::Relaxed)) + idle
    }

    /// A place for a WebSocket about to open. Beyond the permits less the
    /// reserve, the longest-idle lobby socket is closed to make room; with
    /// none to close, `None`.
    pub(crate) fn admit(self: &Arc<Self>) -> Option<WebSocketPlace> {
        if self.open.fetch_add(1, Ordering::Relaxed) < self.max_open {
            return Some(WebSocketPlace(self.clone()));
        }
        let place = WebSocketPlace(self.clone());
        let mut sockets = self.lock();
        let longest_idle = sockets
            .iter()
            .filter(|(_, (_, a))| a.in_lobby.load(Ordering::Relaxed))
            .min_by_key(|(conn, (_, a))| (a.last_ms.load(Ordering::Relaxed), conn.0))
            .map(|(conn, _)| *conn);
        let (outbox, _) = sockets.remove(&longest_idle?)?;
        tracing::info!(
            conn = outbox.conn.0,
            "server full: closing the longest-idle lobby socket"
        );
        outbox.kill(IDLE_CLOSE.0, IDLE_CLOSE.1);
        Some(place)
    }
}
