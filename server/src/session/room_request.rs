//! Every request the player's room answers, passed on to its task (with
//! the server's bots made first for an `add_bot`).

use krypto_core::protocol::{ClientMessage, ErrorCode};

use super::{Session, Welcomed};
use crate::rooms::lobby::RoomCommand;

impl Session {
    /// Passes a room request to the player's room. Chat is checked here,
    /// before any room sees it: text that could rewrite another player's
    /// terminal is never relayed.
    pub(super) async fn send_to_room(
        &mut self,
        welcomed: &Welcomed,
        id: Option<String>,
        message: ClientMessage,
    ) {
        if let ClientMessage::Chat { text } = &message {
            if let Err(e) = krypto_core::text::check(text) {
                return self.error(id, ErrorCode::BadMessage, format!("chat refused: {e}"));
            }
        }
        // Between the rooms being saved and the connections closing, a
        // stopping server has no rooms: say why, not "not in a room".
        if self.shared.shutdown.is_cancelled() {
            return self.error(
                id,
                ErrorCode::ShuttingDown,
                "the server is restarting; your room carries on in a moment",
            );
        }
        let Some(room) = self.shared.lobby.seat_of(welcomed.player) else {
            return self.error(id, ErrorCode::NotInRoom, "you are not in a room");
        };
        // The server's bots are players in the database, made the first
        // time a host asks for one: that can fail while it is away.
        if matches!(message, ClientMessage::AddBot { .. }) {
            if let Err(e) = Box::pin(self.shared.rooms.bots.ready(&self.shared.db)).await {
                tracing::warn!(error = %e, "no bot for add_bot");
                return self.error(id, ErrorCode::Internal, e.to_string());
            }
        }
        let command = RoomCommand::Request {
            received: tokio::time::Instant::now(),
            player: welcomed.player,
            conn: self.outbox.conn,
            id: id.clone(),
            message,
        };
        if room.tx.send(command).await.is_err() {
            self.error(id, ErrorCode::NotInRoom, "your room has closed");
        }
    }
}
