//! `hello`: who this connection speaks for.

use krypto_core::protocol::{ErrorCode, ServerMessage, PROTOCOL_VERSION};

use super::{now, Session, Welcomed, SERVER_VERSION};
use crate::cluster::SeatElsewhere;
use crate::identity::{self, HelloError, HelloRules};
use crate::lobby::RoomCommand;
use crate::metrics::RedirectReason;
use crate::outbox::close;

impl Session {
    /// Answers `hello`: checks the name or token, replaces an older
    /// connection of the same player, and gives back a held seat.
    pub(super) async fn hello(
        &mut self,
        id: Option<String>,
        protocol: u32,
        name: Option<String>,
        token: Option<String>,
        bot: bool,
    ) {
        if self.welcomed.is_some() {
            return self.error(id, ErrorCode::WrongState, "already welcomed");
        }
        let lobby = self.shared.lobby.clone();
        let limits = &self.shared.limits;
        let client_ip = self.client_ip;
        let rules = HelloRules {
            seated: &|player| lobby.seat_of(player).is_some(),
            may_create_account: &|| limits.new_account(client_ip, now()),
        };
        let hello = identity::hello(
            identity::Players {
                db: &self.shared.db,
                recorder: &self.shared.recorder,
                known: &self.shared.known_players,
            },
            protocol,
            name.as_deref(),
            token.as_deref(),
            &rules,
            bot,
        )
        .await;
        let identity = match hello {
            Ok(identity) => identity,
            Err(HelloError::Refused { code, message }) => return self.error(id, code, message),
            Err(HelloError::Db(e)) => {
                tracing::error!(error = %e, "hello failed");
                return self.error(
                    id,
                    ErrorCode::Internal,
                    "the server could not check the name; try again",
                );
            }
        };
        let player = identity.player.player_id();
        // On a node of a cluster, the other nodes close this player's older
        // sessions too.
        let cluster = self.shared.cluster.clone();
        let seq = match &cluster {
            Some(cluster) => cluster.announce_session(player).await,
            None => None,
        };
        if let Some(old) = lobby.attach(player, self.outbox.clone()) {
            old.kill(close::NORMAL, "replaced by a newer connection");
        }
        if let Some(cluster) = &cluster {
            if !cluster.record_session(player, self.outbox.conn, seq) {
                // A newer session elsewhere was announced while this one
                // said hello: this one is already replaced.
                self.outbox
                    .kill(close::NORMAL, "replaced by a newer connection");
            }
        }
        self.welcomed = Some(Welcomed {
            player,
            name: identity.player.name.clone(),
            bot,
        });
        let room = lobby.seat_of(player);
        let elsewhere = match (&room, &cluster) {
            (None, Some(cluster)) => cluster.seat_elsewhere(player).await,
            _ => None,
        };
        tracing::info!(ip = %self.client_ip, player = player.0, name = %identity.player.name, bot, resumed = room.is_some(), "welcome");
        self.reply(
            id.clone(),
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                player_id: player,
                name: identity.player.name,
                token: identity.token,
                server_version: SERVER_VERSION.to_owned(),
                resumed: room.is_some(),
                join_urls: self.shared.join_urls.clone(),
            },
        );
        if let Some(room) = room {
            let _ = room
                .tx
                .send(RoomCommand::Resume {
                    player,
                    client: self.outbox.clone(),
                })
                .await;
        }
        match elsewhere {
            None => {}
            Some(SeatElsewhere::Redirect { url, code }) => {
                self.shared.metrics.redirected(RedirectReason::Seat);
                self.reply(id, ServerMessage::Redirect { url, code })
            }
            Some(SeatElsewhere::Gone { code, node_stopped }) => self.error(
                id,
                ErrorCode::RoomNotFound,
                if node_stopped {
                    format!("room {code} is gone: the server node it ran on stopped")
                } else {
                    format!("room {code} has closed")
                },
            ),
        }
    }
}
