//! The rooms a stopping server saved: each room task hands in its state
//! between two commands; the server puts them away once every room has
//! stopped (see `crate::restart`).

use std::sync::Mutex;

use krypto_core::protocol::PlayerId;

use crate::db::saved::StoredRoom;

/// A room saved while stopping, with who was in it.
#[derive(Debug)]
pub(crate) struct Saved {
    /// The room's state, as stored.
    pub(crate) room: StoredRoom,
    /// Its members, to send to its new node.
    pub(crate) members: Vec<PlayerId>,
}

/// The rooms saved while stopping, collected for one write.
#[derive(Debug, Default)]
pub(crate) struct SavedRooms(Mutex<Vec<Saved>>);

impl SavedRooms {
    /// Adds a room's saved state.
    pub(crate) fn push(&self, room: StoredRoom, members: Vec<PlayerId>) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Saved { room, members });
    }

    /// Everything saved so far.
    pub(crate) fn take(&self) -> Vec<Saved> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}
