//! One connection's session: who it speaks for once `hello` succeeded, and
//! the dispatch of its requests to the lobby, the leaderboards and its room.
//!
//! No sockets here: the transport (`edge::transport`, above) hands over each
//! text message and sends what lands in the connection's [`Outbox`], so the
//! whole request/response behaviour is testable with an outbox and a
//! database file.
//!
//! This file holds the session's state and the dispatch; each request has
//! its own file: [`hello`], [`list_rooms`], [`leaderboard`],
//! [`create_room`], [`join_room`], [`tickets`] (`link_device` and the
//! tickets redirects carry), [`devices`] (`devices`, `revoke_device`,
//! `device_added`), and [`room_request`] for everything the
//! player's room answers. A request the session refuses gets a typed `error`; when a
//! client's behaviour is abuse the session says so ([`Abuse`]) and the
//! transport decides how the connection ends.

mod create_room;
mod devices;
mod hello;
pub(crate) mod identity;
mod join_room;
mod leaderboard;
mod list_rooms;
pub(crate) mod qr;
mod room_request;
#[cfg(test)]
mod tests;
mod tickets;

use std::net::IpAddr;
use std::sync::Arc;

use krypto_core::protocol::{
    parse_client_message, ClientEnvelope, ClientMessage, ErrorCode, PlayerId, ServerEnvelope,
    ServerMessage,
};
use tokio::time::Instant;

use crate::rooms::lobby::RoomCommand;
use crate::rooms::outbox::Outbox;
use crate::Shared;

/// The version string sent in `welcome`.
pub(crate) const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Behaviour that ends the connection; the transport picks the close code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Abuse {
    /// Kept guessing room codes after being told to wait.
    #[error("room code guessing")]
    CodeGuessing,
}

/// Who a welcomed connection speaks for.
#[derive(Debug, Clone)]
struct Welcomed {
    /// The player.
    player: PlayerId,
    /// Their name as the rooms show it.
    name: String,
    /// Whether the client said it is a bot (`hello.bot`): rooms mark bots in
    /// rosters and keep them off the ratings.
    bot: bool,
    /// The hash of the token this device signed in with: which device is
    /// "this one".
    token_hash: Option<String>,
}

/// One connection's session state.
#[derive(Debug)]
pub(crate) struct Session {
    /// The server's shared state.
    shared: Arc<Shared>,
    /// Where replies go.
    outbox: Outbox,
    /// The client's address (behind a trusted proxy, the forwarded one):
    /// what per-address limits count.
    client_ip: IpAddr,
    /// Set by a successful `hello`.
    welcomed: Option<Welcomed>,
    /// Room-code attempts refused as rate-limited in a row.
    guess_strikes: u32,
    /// The daily, challenge or run this connection's answers are for.
    play: crate::modes::Play,
}

impl Session {
    /// A session that has not said hello yet.
    pub(crate) fn new(shared: Arc<Shared>, outbox: Outbox, client_ip: IpAddr) -> Self {
        Session {
            shared,
            outbox,
            client_ip,
            welcomed: None,
            guess_strikes: 0,
            play: crate::modes::Play::default(),
        }
    }

    /// Whether `hello` succeeded.
    pub(crate) fn is_welcomed(&self) -> bool {
        self.welcomed.is_some()
    }

    /// Whether the connection is signed in but in no room (seated or
    /// watching, here or on another node as far as this one knows) and
    /// no solo run: what may be closed for idling.
    pub(crate) fn in_lobby(&self) -> bool {
        self.welcomed.as_ref().is_some_and(|w| {
            self.shared.lobby.seat_of(w.player).is_none() && !self.play.run_in_play()
        })
    }

    /// Handles one text message from the client.
    pub(crate) async fn handle_text(&mut self, text: &str) -> Result<(), Abuse> {
        let ClientEnvelope { id, message } = match parse_client_message(text) {
            Ok(envelope) => envelope,
            Err(e) => {
                self.outbox.send(&e.to_envelope());
                return Ok(());
            }
        };
        match message {
            ClientMessage::Ping => self.reply(id, ServerMessage::Pong),
            ClientMessage::Hello {
                protocol,
                name,
                token,
                ticket,
                bot,
                device,
            } => {
                let credentials = identity::Credentials {
                    name: name.as_deref(),
                    token: token.as_deref(),
                    ticket: ticket.as_deref(),
                    device: device.as_deref(),
                };
                Box::pin(self.hello(id, protocol, credentials, bot)).await
            }
            message => match self.welcomed.clone() {
                None => self.error(id, ErrorCode::NotWelcomed, "say hello first"),
                Some(welcomed) => return self.dispatch(welcomed, id, message).await,
            },
        }
        Ok(())
    }

    /// The connection ended: the lobby forgets it, and its room (if any)
    /// holds the player's seat for a while.
    pub(crate) async fn end(&self) {
        let Some(welcomed) = &self.welcomed else {
            return;
        };
        let lobby = &self.shared.lobby;
        lobby.detach(welcomed.player, self.outbox.conn);
        if let Some(cluster) = &self.shared.cluster {
            cluster.forget_session(welcomed.player, self.outbox.conn);
        }
        if let Some(room) = lobby.seat_of(welcomed.player) {
            let _ = room
                .tx
                .send(RoomCommand::Disconnected {
                    player: welcomed.player,
                    conn: self.outbox.conn,
                })
                .await;
        }
    }

    fn reply(&self, id: Option<String>, message: ServerMessage) {
        self.outbox.send(&ServerEnvelope::reply(id, message));
    }

    fn error(&self, id: Option<String>, code: ErrorCode, message: impl Into<String>) {
        self.reply(id, ServerMessage::error(code, message));
    }

    /// Routes a welcomed client's request to its handler.
    ///
    /// Every request but the room's own (`send_to_room`, which a match sends
    /// over and over) is awaited boxed, as `hello` is: a connection's task is
    /// as large as the largest future awaited inline in it, and every open
    /// socket holds one (6,016 bytes with these inline, 2,592 boxed; see
    /// "Capacity" in docs/benchmarks.md). A box for a rare request costs one
    /// allocation when it comes.
    async fn dispatch(
        &mut self,
        welcomed: Welcomed,
        id: Option<String>,
        message: ClientMessage,
    ) -> Result<(), Abuse> {
        match message {
            ClientMessage::Ping | ClientMessage::Hello { .. } => {}
            ClientMessage::ListRooms { after } => self.list_rooms(id, after.as_deref()),
            ClientMessage::LinkDevice { base } => {
                Box::pin(self.link_device(id, welcomed.player, base)).await
            }
            ClientMessage::Devices => Box::pin(self.devices(id, &welcomed)).await,
            ClientMessage::RevokeDevice { device } => {
                Box::pin(self.revoke_device(id, &welcomed, &device)).await
            }
            ClientMessage::Leaderboard {
                metric,
                period,
                limit,
                around,
            } => Box::pin(self.leaderboard(id, metric, period, limit, around)).await,
            ClientMessage::CreateRoom { settings, public } => {
                Box::pin(self.create_room(welcomed, id, settings, public)).await
            }
            ClientMessage::JoinRoom { code, spectator } => {
                return Box::pin(self.join_room(welcomed, id, &code, spectator)).await
            }
            message @ (ClientMessage::DailyStart { .. }
            | ClientMessage::DailySubmit { .. }
            | ClientMessage::RunStart
            | ClientMessage::RunResume
            | ClientMessage::RunSubmit { .. }
            | ClientMessage::ChallengeCreate { .. }
            | ClientMessage::ChallengeStart { .. }
            | ClientMessage::ChallengeSubmit { .. }
            | ClientMessage::PracticeStart { .. }
            | ClientMessage::PracticeHint
            | ClientMessage::PracticeSubmit { .. }
            | ClientMessage::PracticeSkip) => {
                Box::pin(self.play_request(&welcomed, id, message)).await
            }
            message => self.send_to_room(&welcomed, id, message).await,
        }
        Ok(())
    }
}

impl Session {
    /// The daily's, runs', challenges' and practice's requests
    /// (`crate::modes`).
    async fn play_request(
        &mut self,
        welcomed: &Welcomed,
        id: Option<String>,
        message: ClientMessage,
    ) {
        let asker = crate::modes::Asker {
            shared: &self.shared,
            outbox: &self.outbox,
            player: welcomed.player,
            bot: welcomed.bot,
            id,
        };
        let play = &mut self.play;
        match message {
            ClientMessage::DailyStart { date } => play.daily_start(&asker, date).await,
            ClientMessage::DailySubmit { formula } => play.daily_submit(&asker, &formula).await,
            ClientMessage::RunStart => play.run_start(&asker).await,
            ClientMessage::RunResume => play.run_resume(&asker).await,
            ClientMessage::RunSubmit { hand, formula } => {
                play.run_submit(&asker, hand, &formula).await;
            }
            ClientMessage::ChallengeCreate { round } => play.challenge_create(&asker, round).await,
            ClientMessage::ChallengeStart { code } => play.challenge_start(&asker, code).await,
            ClientMessage::ChallengeSubmit { formula } => {
                play.challenge_submit(&asker, &formula).await;
            }
            ClientMessage::PracticeStart { difficulty } => play.practice_start(&asker, difficulty),
            ClientMessage::PracticeHint => play.practice_hint(&asker),
            ClientMessage::PracticeSubmit { hand, formula } => {
                play.practice_submit(&asker, hand, &formula);
            }
            ClientMessage::PracticeSkip => play.practice_skip(&asker),
            _ => {}
        }
    }

    /// The client's address as budgets count it.
    fn address_key(&self) -> IpAddr {
        self.shared.limits.address_key(self.client_ip)
    }

    /// The room `player` holds a seat in on another node of the cluster,
    /// if any. Unreadable, the lobby's own rule stands (a join here).
    async fn held_elsewhere(&self, player: PlayerId) -> Option<String> {
        let cluster = self.shared.cluster.as_ref()?;
        match cluster.held_seat(player).await {
            Ok(held) => held,
            Err(e) => {
                tracing::warn!(error = %e, "seat directory unreadable; this node's seats decide");
                None
            }
        }
    }

    /// Whether `player` here may try a room code: within the miss budgets
    /// of this node and, on a cluster, of every node together.
    async fn may_guess(&self, player: PlayerId) -> bool {
        let max = self.shared.config.max_code_misses;
        within(
            self.shared.limits.may_guess(self.client_ip, player, now()),
            (self.shared.cluster.as_ref()).map(|c| c.may_guess(self.address_key(), player, max)),
        )
        .await
    }

    /// Counts a room code that named no room, here and cluster-wide.
    async fn missed(&self, player: PlayerId) {
        self.shared.limits.missed(self.client_ip, player, now());
        if let Some(cluster) = &self.shared.cluster {
            cluster.missed(self.address_key(), Some(player)).await;
        }
    }
}

/// Whether a budget allows something: this node's answer `here`, then, on
/// a cluster, the budget all nodes share (asked only when this node's
/// allows it: over it here, no question to the database).
async fn within(here: bool, shared: Option<impl std::future::Future<Output = bool>>) -> bool {
    match shared {
        Some(shared) if here => shared.await,
        _ => here,
    }
}

/// Now, on the clock tests can pause.
fn now() -> std::time::Instant {
    Instant::now().into_std()
}
