//! `list_rooms`: the public rooms, on this node and (in a cluster) the
//! others, a page at a time.

use krypto_core::protocol::{RoomSummary, ServerMessage, ROOMS_PAGE};

use super::Session;

impl Session {
    /// Answers `list_rooms`: the page after the code `after`.
    pub(super) fn list_rooms(&self, id: Option<String>, after: Option<&str>) {
        let mut rooms = self.shared.lobby.public_rooms();
        if let Some(cluster) = &self.shared.cluster {
            rooms.extend(cluster.remote_public_rooms());
            rooms.sort_by(|a, b| a.code.cmp(&b.code));
        }
        let (rooms, next) = page_of_rooms(rooms, after);
        self.reply(id, ServerMessage::Rooms { rooms, next })
    }
}

/// The page of `rooms` (sorted by code) after the code `after`, and the
/// cursor of the next page if there is one.
fn page_of_rooms(
    rooms: Vec<RoomSummary>,
    after: Option<&str>,
) -> (Vec<RoomSummary>, Option<String>) {
    let mut page: Vec<RoomSummary> = rooms
        .into_iter()
        .filter(|r| after.is_none_or(|a| r.code.as_str() > a))
        .take(ROOMS_PAGE + 1)
        .collect();
    let next = (page.len() > ROOMS_PAGE).then(|| {
        page.truncate(ROOMS_PAGE);
        page.last().map(|r| r.code.clone())
    });
    (page, next.flatten())
}
