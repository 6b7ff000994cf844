//! `list_rooms`: the public rooms, on this node and (in a cluster) the
//! others.

use krypto_core::protocol::ServerMessage;

use super::Session;

impl Session {
    /// Answers `list_rooms`.
    pub(super) fn list_rooms(&self, id: Option<String>) {
        let mut rooms = self.shared.lobby.public_rooms();
        if let Some(cluster) = &self.shared.cluster {
            rooms.extend(cluster.remote_public_rooms());
            rooms.sort_by(|a, b| a.code.cmp(&b.code));
        }
        self.reply(id, ServerMessage::Rooms { rooms })
    }
}
