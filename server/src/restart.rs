//! Rooms across a stop: a server stopping gracefully saves every room
//! (each room task hands in each room's state between two commands), and rooms
//! come back where a server starts.
//!
//! - A single server stores them in `saved_rooms`; the next start takes
//!   them all back.
//! - A node of a cluster hands them to a live node instead: it saves them
//!   for that node and tells it (`NOTIFY`); that node claims them, restores
//!   them and records in the directory that they live there now, in one
//!   commit; then the stopping node sends each member a `redirect` to the
//!   room's new node before closing, and they resume mid-round there. With
//!   no live node to take them (or none within [`HANDOVER_WAIT`]), they wait
//!   in `saved_rooms` for whichever node claims first: a starting one, or a
//!   live one at its next heartbeat.

use std::sync::Arc;
use std::time::Duration;

use crate::db::saved::StoredRoom;
use crate::db::tickets::TicketKind;
use crate::db::tokens;
use crate::ops::metrics::RedirectReason;
use crate::rooms::saving::Saved;
use crate::rooms::task::{self, Restored};
use crate::{ServerError, Shared};
use krypto_core::protocol::{ServerEnvelope, ServerMessage};

/// How long a stopping node waits for the node it handed its rooms to.
pub(crate) const HANDOVER_WAIT: Duration = Duration::from_secs(5);

impl Shared {
    /// At start: brings back the rooms the last graceful stop saved (on a
    /// node of a cluster, those it may claim).
    pub(crate) async fn restore_saved_rooms(self: &Arc<Self>) -> Result<(), ServerError> {
        if self.cluster.is_some() {
            self.claim_saved_rooms().await;
            return Ok(());
        }
        let saved = self.db.take_saved_rooms().await?;
        self.restore_all(saved).await;
        Ok(())
    }

    /// Restores each room; returns those that came back.
    async fn restore_all(self: &Arc<Self>, saved: Vec<StoredRoom>) -> Vec<Restored> {
        let total = saved.len();
        let mut restored = Vec::with_capacity(total);
        for room in saved {
            let code = room.code.clone();
            match task::restore(&self.rooms, room).await {
                Ok(room) => restored.push(room),
                Err(e) => tracing::warn!(room = %code, error = %e, "saved room not restored"),
            }
        }
        if total > 0 {
            tracing::info!(
                restored = restored.len(),
                of = total,
                "saved rooms restored"
            );
        }
        restored
    }

    /// A node of a cluster: claims the saved rooms it may restore, restores
    /// them and records that they live here now.
    pub(crate) async fn claim_saved_rooms(self: &Arc<Self>) {
        let Some(cluster) = &self.cluster else {
            return;
        };
        if cluster.is_draining() {
            return;
        }
        let claim = match cluster.directory().claim().await {
            Ok(claim) => claim,
            Err(e) => {
                tracing::warn!(error = %e, "claiming saved rooms failed");
                return;
            }
        };
        if claim.rooms.is_empty() {
            return;
        }
        let rooms = claim.rooms.clone();
        let restored = self.restore_all(rooms).await;
        let opened: Vec<(String, bool, bool)> = restored
            .iter()
            .map(|r| (r.code.clone(), r.public, r.locked))
            .collect();
        let seats: Vec<(i64, String)> = restored
            .iter()
            .flat_map(|r| r.seats.iter().map(|p| (p.0, r.code.clone())))
            .collect();
        if let Err(e) = claim.finish(cluster.node(), &opened, &seats).await {
            tracing::error!(error = %e, "recording the restored rooms in the directory failed");
        }
    }

    /// At a graceful stop, once every room task has saved its room: hands
    /// the rooms to a live node (and sends their members there), or stores
    /// them for the next start.
    pub(crate) async fn put_saved_rooms_away(&self) {
        let saved = self.rooms.saved_rooms.take();
        if saved.is_empty() {
            return;
        }
        if self.hand_over(&saved).await {
            return;
        }
        let rooms: Vec<StoredRoom> = saved.into_iter().map(|s| s.room).collect();
        match self.db.save_rooms(&rooms).await {
            Ok(()) => tracing::info!(rooms = rooms.len(), "rooms saved for the next start"),
            Err(e) => tracing::error!(error = %e, "rooms not saved: their matches are lost"),
        }
    }

    /// A node of a cluster: saves `saved` for a live node and waits until
    /// it has opened them, then tells their members where to go. False
    /// when there is no cluster or no live node to take them, or saving
    /// failed (then the caller saves them for anyone).
    async fn hand_over(&self, saved: &[Saved]) -> bool {
        let Some(cluster) = &self.cluster else {
            return false;
        };
        let target = match cluster.pick_target().await {
            Ok(Some(target)) => target,
            Ok(None) => {
                tracing::info!("no live node to take the rooms: saving them for the next start");
                return false;
            }
            Err(e) => {
                tracing::warn!(error = %e, "finding a node to take the rooms failed");
                return false;
            }
        };
        let directory = cluster.directory();
        let rooms: Vec<StoredRoom> = saved.iter().map(|s| s.room.clone()).collect();
        if let Err(e) = directory.hand_over(&rooms, target.node).await {
            tracing::warn!(error = %e, "handing the rooms over failed");
            return false;
        }
        let codes: Vec<String> = rooms.iter().map(|r| r.code.clone()).collect();
        let deadline = tokio::time::Instant::now() + HANDOVER_WAIT;
        loop {
            match directory.still_saved(&codes).await {
                Ok(0) => break,
                Ok(_) if tokio::time::Instant::now() < deadline => {}
                result => {
                    // Too slow, or unreadable: any node may claim them now,
                    // and the players come back through their home address.
                    tracing::warn!(node = %target.node, ?result, "rooms not taken in time");
                    if let Err(e) = directory.release_saved(&codes).await {
                        tracing::warn!(error = %e, "releasing the saved rooms failed");
                    }
                    return true;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tracing::info!(rooms = codes.len(), node = %target.node, url = %target.url, "rooms handed over");
        for room in saved {
            for &member in &room.members {
                let Some(client) = self.lobby.session_of(member) else {
                    continue;
                };
                // Each member's own ticket: a page on another origin signs in
                // there with it, the token staying where it is.
                let ticket = tokens::issue_ticket(
                    &self.db,
                    member,
                    TicketKind::Handover,
                    std::time::SystemTime::now(),
                    tokens::HANDOVER_TICKET_TTL,
                    self.config.database_deadline,
                )
                .await
                .map_err(|e| tracing::warn!(error = %e, "no handover ticket for a redirect"))
                .ok();
                self.metrics.redirected(RedirectReason::Handover);
                client.send(&ServerEnvelope::new(ServerMessage::Redirect {
                    url: target.url.clone(),
                    code: room.room.code.clone(),
                    ticket,
                }));
            }
        }
        true
    }
}
