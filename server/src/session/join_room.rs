//! `join_room`: a seat or a spectator's place in a room found by its code.

use krypto_core::protocol::{ErrorCode, ServerMessage};
use tokio::sync::oneshot;

use super::{Abuse, Session, Welcomed};
use crate::cluster::Located;
use crate::ops::metrics::RedirectReason;
use crate::rooms::lobby::RoomCommand;
use crate::rooms::room_codes;

impl Session {
    /// Joins a room by code. Misses are counted per address and per player
    /// across connections; a stranger at a locked room is answered as if it
    /// did not exist, and that counts as a miss too.
    pub(super) async fn join_room(
        &mut self,
        welcomed: Welcomed,
        id: Option<String>,
        code: &str,
        spectator: bool,
    ) -> Result<(), Abuse> {
        let lobby = self.shared.lobby.clone();
        if let Some(room) = lobby.seat_of(welcomed.player) {
            self.error(
                id,
                ErrorCode::AlreadyInRoom,
                format!("you are in room {}: leave it first", room.code),
            );
            return Ok(());
        }
        if let Some(code) = self.held_elsewhere(welcomed.player).await {
            self.error(
                id,
                ErrorCode::AlreadyInRoom,
                format!("you are in room {code}: leave it first"),
            );
            return Ok(());
        }
        if !self.may_guess(welcomed.player).await {
            self.guess_strikes = self.guess_strikes.saturating_add(1);
            self.error(
                id,
                ErrorCode::RateLimited,
                "too many wrong room codes: wait a minute",
            );
            if self.guess_strikes > self.shared.config.max_guess_strikes {
                tracing::info!(ip = %self.client_ip, player = welcomed.player.0, "room code guessing");
                return Err(Abuse::CodeGuessing);
            }
            return Ok(());
        }
        self.guess_strikes = 0;
        let code = room_codes::normalize(code);
        let Some(room) = code.as_deref().and_then(|c| lobby.room(c)) else {
            let located = match (&self.shared.cluster, code.as_deref()) {
                (Some(cluster), Some(code)) => cluster.locate(code, welcomed.player).await,
                _ => Located::Nowhere,
            };
            match (located, code) {
                (Located::Elsewhere { url }, Some(code)) => {
                    self.shared.metrics.redirected(RedirectReason::Join);
                    let ticket = self.handover_ticket(welcomed.player).await;
                    self.reply(id, ServerMessage::Redirect { url, code, ticket });
                }
                // Not a miss: the code names a room.
                (Located::Unreachable, Some(code)) => {
                    self.error(id, ErrorCode::RoomUnreachable, unreachable_room(&code))
                }
                _ => {
                    self.missed(welcomed.player).await;
                    self.error(id, ErrorCode::RoomNotFound, "no room has that code");
                }
            }
            return Ok(());
        };
        if spectator
            && !lobby.reserve_spectator(
                &room.code,
                welcomed.player,
                self.shared.config.max_spectators,
            )
        {
            self.error(
                id,
                ErrorCode::RoomFull,
                format!(
                    "this room has as many spectators as it takes ({})",
                    self.shared.config.max_spectators
                ),
            );
            return Ok(());
        }
        let (reply, answer) = oneshot::channel();
        let command = RoomCommand::Join {
            player: welcomed.player,
            name: welcomed.name,
            spectator,
            bot: welcomed.bot,
            client: self.outbox.clone(),
            id: id.clone(),
            reply,
        };
        let refusal = if room.tx.send(command).await.is_err() {
            Some((ErrorCode::RoomNotFound, "that room just closed".to_owned()))
        } else {
            match answer.await {
                Ok(Ok(())) => None,
                Ok(Err(refusal)) => Some(refusal),
                Err(_) => Some((ErrorCode::RoomNotFound, "that room just closed".to_owned())),
            }
        };
        if let Some((code, message)) = refusal {
            if spectator {
                lobby.release_spectator(&room.code, welcomed.player);
            }
            if code == ErrorCode::RoomNotFound {
                self.missed(welcomed.player).await;
            }
            self.error(id, code, message);
        }
        Ok(())
    }
}

/// What a player looking for room `code` on a suspected node is told.
pub(super) fn unreachable_room(code: &str) -> String {
    format!("room {code}: its server is unreachable right now; try again in a moment")
}
