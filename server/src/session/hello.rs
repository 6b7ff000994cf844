//! `hello`: who this connection speaks for.

use krypto_core::protocol::{DeviceInfo, ErrorCode, PlayerId, ServerMessage, PROTOCOL_VERSION};

use super::{now, within, Session, Welcomed, SERVER_VERSION};
use crate::cluster::SeatElsewhere;
use crate::db::devices::DEVICE_ID_CHARS;
use crate::ops::metrics::RedirectReason;
use crate::rooms::lobby::RoomCommand;
use crate::rooms::outbox::close;
use crate::session::identity::{self, HelloError, HelloRules};
use crate::Shared;

impl Session {
    /// Answers `hello`: checks the name or token, replaces an older
    /// connection of the same player, and gives back a held seat.
    pub(super) async fn hello(
        &mut self,
        id: Option<String>,
        protocol: u32,
        credentials: identity::Credentials<'_>,
        bot: bool,
    ) {
        if self.welcomed.is_some() {
            return self.error(id, ErrorCode::WrongState, "already welcomed");
        }
        let lobby = self.shared.lobby.clone();
        let shared = self.shared.clone();
        let shared: &Shared = &shared;
        let (client_ip, key) = (self.client_ip, self.address_key());
        let (config, cluster) = (&shared.config, &shared.cluster);
        let rules = HelloRules {
            seated: &|player| Box::pin(seated(shared, player)),
            may_create_account: &|| {
                Box::pin(within(
                    shared.limits.new_account(client_ip, now()),
                    cluster
                        .as_ref()
                        .map(|c| c.may_create_account(key, config.max_new_accounts)),
                ))
            },
            may_try_ticket: &|| {
                Box::pin(within(
                    shared.limits.may_try_ticket(client_ip, now()),
                    cluster
                        .as_ref()
                        .map(|c| c.may_try_ticket(key, config.max_code_misses)),
                ))
            },
            missed_ticket: &|| {
                Box::pin(async move {
                    shared.limits.missed_ticket(client_ip, now());
                    if let Some(c) = &shared.cluster {
                        c.missed(key, None).await;
                    }
                })
            },
            now: std::time::SystemTime::now(),
            max_devices: config.max_devices,
            device_expiry: config.device_expiry(),
        };
        let label = krypto_core::protocol::device_label(credentials.device);
        let hello = identity::hello(
            identity::Players {
                db: &self.shared.db,
                recorder: &self.shared.recorder,
                known: &self.shared.known_players,
                deadline: self.shared.config.database_deadline,
            },
            protocol,
            credentials,
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
        let hash = identity::token_hash(&identity.token).unwrap_or_default();
        if let Some(old) = lobby.attach(player, self.outbox.clone()) {
            let now_ms = identity::unix_ms(rules.now);
            let new_device = identity
                .device
                .previous_use_ms
                .is_none()
                .then(|| DeviceInfo {
                    id: hash.get(..DEVICE_ID_CHARS).unwrap_or("").to_owned(),
                    label,
                    created_ms: now_ms,
                    last_used_ms: now_ms,
                    this_device: false,
                });
            super::devices::replace(&old, new_device);
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
            token_hash: Some(hash.clone()),
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
        self.tell_devices_added(player, &identity.device, &hash)
            .await;
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
                let ticket = self.handover_ticket(player).await;
                self.reply(id, ServerMessage::Redirect { url, code, ticket })
            }
            Some(SeatElsewhere::Unreachable { code }) => self.error(
                id,
                ErrorCode::RoomUnreachable,
                super::join_room::unreachable_room(&code),
            ),
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

/// Whether `player` holds a seat in a room: here, or on another node of
/// the cluster (a directory that cannot be read counts as seated: the
/// rename it guards waits for it).
async fn seated(shared: &Shared, player: PlayerId) -> bool {
    if shared.lobby.seat_of(player).is_some() {
        return true;
    }
    let Some(cluster) = &shared.cluster else {
        return false;
    };
    match cluster.held_seat(player).await {
        Ok(held) => held.is_some(),
        Err(e) => {
            tracing::warn!(error = %e, "seat directory unreadable: a rename waits");
            true
        }
    }
}
