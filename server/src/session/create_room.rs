//! `create_room`: a new room hosted by this player.

use krypto_core::protocol::ErrorCode;
use krypto_core::room::Joiner;

use super::{Session, Welcomed};
use crate::cluster::Reservation;
use crate::rooms::lobby::RegisterError;
use crate::rooms::task;

impl Session {
    /// Opens a room hosted by this player. A player is in at most one room
    /// (so hosts at most one; on a cluster, a seat on another node counts:
    /// the directory reserves the code and the host's seat together), a
    /// room its last member left closes at once, and one address holds at
    /// most its share of the rooms (counted across the nodes), so neither
    /// one player nor one address can fill the server with rooms.
    pub(super) async fn create_room(
        &mut self,
        welcomed: Welcomed,
        id: Option<String>,
        settings: Option<krypto_core::protocol::SettingsPatch>,
        public: Option<bool>,
    ) {
        if let Some(room) = self.shared.lobby.seat_of(welcomed.player) {
            return self.error(
                id,
                ErrorCode::AlreadyInRoom,
                format!("you are in room {}: leave it first", room.code),
            );
        }
        let settings = match crate::rooms::lobby::initial_settings(settings.as_ref(), public) {
            Ok(settings) => settings,
            Err(e) => return self.error(id, ErrorCode::InvalidSettings, e.to_string()),
        };
        // A stopping server saves its rooms; one opened now would only be
        // saved empty-handed.
        if self.shared.shutdown.is_cancelled() {
            return self.error(
                id,
                ErrorCode::ShuttingDown,
                "the server is restarting; create the room again in a moment",
            );
        }
        // On a node of a cluster the directory reserves the code first, so
        // no two nodes open the same one; a single server draws it under
        // the lobby's lock, without waiting on anything.
        let holder = self.address_key();
        if !self.shared.lobby.may_hold(holder) {
            let refused = RegisterError::AddressFull;
            return self.error(id, ErrorCode::TooManyRooms, refused.to_string());
        }
        let reserved = match &self.shared.cluster {
            None => None,
            Some(cluster) => match cluster
                .reserve_code(&self.shared.lobby, settings.public, welcomed.player, holder)
                .await
            {
                Ok(Reservation::Code(code)) => Some(code),
                Ok(Reservation::Full) => {
                    return self.error(id, ErrorCode::ServerFull, RegisterError::Full.to_string())
                }
                Ok(Reservation::AddressFull) => {
                    let refused = RegisterError::AddressFull;
                    return self.error(id, ErrorCode::TooManyRooms, refused.to_string());
                }
                Ok(Reservation::HostSeated(code)) => {
                    return self.error(
                        id,
                        ErrorCode::AlreadyInRoom,
                        format!("you are in room {code}: leave it first"),
                    )
                }
                Err(e) => {
                    tracing::error!(error = %e, "reserving a room code failed");
                    return self.error(
                        id,
                        ErrorCode::Internal,
                        "the server could not open a room; try again",
                    );
                }
            },
        };
        let created = task::create(
            &self.shared.rooms,
            reserved.clone(),
            holder,
            Joiner::new(welcomed.player, welcomed.name).bot(welcomed.bot),
            settings,
            self.outbox.clone(),
            id.clone(),
        );
        if !matches!(created, Ok(Ok(()))) {
            if let (Some(cluster), Some(code)) = (&self.shared.cluster, &reserved) {
                cluster.release_code(code);
            }
        }
        match created {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.error(id, e.code(), e.to_string()),
            Err(e @ RegisterError::AddressFull) => {
                self.error(id, ErrorCode::TooManyRooms, e.to_string())
            }
            Err(e) => self.error(id, ErrorCode::ServerFull, e.to_string()),
        }
    }
}
