//! One connection's session: who it speaks for once `hello` succeeded, and
//! the dispatch of its requests to the lobby, the leaderboards and its room.
//!
//! No sockets here: the transport ([`crate::transport`]) hands over each
//! text message and sends what lands in the connection's [`Outbox`], so the
//! whole request/response behaviour is testable with an outbox and a
//! database file. A request the session refuses gets a typed `error`; when a
//! client's behaviour is abuse the session says so ([`Abuse`]) and the
//! transport decides how the connection ends.

use std::net::IpAddr;
use std::sync::Arc;

use krypto_core::protocol::{
    parse_client_message, ClientEnvelope, ClientMessage, ErrorCode, Metric, Period, PlayerId,
    ServerEnvelope, ServerMessage, PROTOCOL_VERSION,
};
use krypto_core::room::Joiner;
use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::cluster::{Located, SeatElsewhere};
use crate::db::tickets::TicketKind;
use crate::identity::{self, HelloError, HelloRules};
use crate::leaderboard::{self, BoardError, BoardQuery};
use crate::lobby::{RegisterError, RoomCommand};
use crate::outbox::{close, Outbox};
use crate::{codes, room_task, Shared};

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
        }
    }

    /// Whether `hello` succeeded.
    pub(crate) fn is_welcomed(&self) -> bool {
        self.welcomed.is_some()
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
            } => self.hello(id, protocol, name, token, ticket, bot).await,
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

    /// A ticket for `player` to take to another node with a `redirect`;
    /// `None` when it could not be stored (the redirect still goes out:
    /// clients holding their token need no ticket).
    async fn handover_ticket(&self, player: PlayerId) -> Option<String> {
        let issued = identity::issue_ticket(
            &self.shared.db,
            player,
            TicketKind::Handover,
            std::time::SystemTime::now(),
            identity::HANDOVER_TICKET_TTL,
        )
        .await;
        issued
            .map_err(|e| tracing::warn!(error = %e, "no handover ticket for a redirect"))
            .ok()
    }

    /// `link_device`: a fresh device code for this player, with its QR.
    async fn link_device(&self, id: Option<String>, player: PlayerId, base: Option<String>) {
        let ttl = identity::DEVICE_CODE_TTL;
        let issued = identity::issue_ticket(
            &self.shared.db,
            player,
            TicketKind::Device,
            std::time::SystemTime::now(),
            ttl,
        )
        .await;
        match issued {
            Ok(code) => {
                let qr_svg = base.and_then(|b| crate::web::link_qr(&b, &code));
                self.reply(
                    id,
                    ServerMessage::DeviceCode {
                        code,
                        expires_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
                        qr_svg,
                    },
                );
            }
            Err(e) => {
                tracing::error!(error = %e, "device code not issued");
                self.error(id, ErrorCode::Internal, "could not make a code; try again");
            }
        }
    }

    fn reply(&self, id: Option<String>, message: ServerMessage) {
        self.outbox.send(&ServerEnvelope::reply(id, message));
    }

    fn error(&self, id: Option<String>, code: ErrorCode, message: impl Into<String>) {
        self.reply(id, ServerMessage::error(code, message));
    }

    async fn hello(
        &mut self,
        id: Option<String>,
        protocol: u32,
        name: Option<String>,
        token: Option<String>,
        ticket: Option<String>,
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
            may_try_ticket: &|| limits.may_try_ticket(client_ip, now()),
            missed_ticket: &|| limits.missed_ticket(client_ip, now()),
            now: std::time::SystemTime::now(),
        };
        let hello = identity::hello(
            &self.shared.db,
            &self.shared.recorder,
            protocol,
            identity::Credentials {
                name: name.as_deref(),
                token: token.as_deref(),
                ticket: ticket.as_deref(),
            },
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
                let ticket = self.handover_ticket(player).await;
                self.reply(id, ServerMessage::Redirect { url, code, ticket })
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

    async fn dispatch(
        &mut self,
        welcomed: Welcomed,
        id: Option<String>,
        message: ClientMessage,
    ) -> Result<(), Abuse> {
        let lobby = self.shared.lobby.clone();
        match message {
            ClientMessage::Ping | ClientMessage::Hello { .. } => {}
            ClientMessage::LinkDevice { base } => {
                self.link_device(id, welcomed.player, base).await;
            }
            ClientMessage::ListRooms => {
                let mut rooms = lobby.public_rooms();
                if let Some(cluster) = &self.shared.cluster {
                    rooms.extend(cluster.remote_public_rooms().iter().cloned());
                    rooms.sort_by(|a, b| a.code.cmp(&b.code));
                }
                self.reply(id, ServerMessage::Rooms { rooms })
            }
            ClientMessage::Leaderboard {
                metric,
                period,
                limit,
                around,
            } => self.leaderboard(id, metric, period, limit, around).await,
            ClientMessage::CreateRoom { settings, public } => {
                self.create_room(welcomed, id, settings, public).await
            }
            ClientMessage::JoinRoom { code, spectator } => {
                return self.join_room(welcomed, id, &code, spectator).await
            }
            message => self.send_to_room(&welcomed, id, message).await,
        }
        Ok(())
    }

    /// Passes a room request to the player's room. Chat is checked here,
    /// before any room sees it: text that could rewrite another player's
    /// terminal is never relayed.
    async fn send_to_room(
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
        let command = RoomCommand::Request {
            player: welcomed.player,
            conn: self.outbox.conn,
            id: id.clone(),
            message,
        };
        if room.tx.send(command).await.is_err() {
            self.error(id, ErrorCode::NotInRoom, "your room has closed");
        }
    }

    /// Answers `leaderboard`. Over the WebSocket a limit out of range is
    /// brought into range (the protocol says the server caps it).
    async fn leaderboard(
        &mut self,
        id: Option<String>,
        metric: Option<Metric>,
        period: Option<Period>,
        limit: Option<u32>,
        around: Option<String>,
    ) {
        let around = around.filter(|a| !a.trim().is_empty());
        if let Some(Err(e)) = around.as_deref().map(krypto_core::text::check) {
            return self.error(id, ErrorCode::BadMessage, format!("around refused: {e}"));
        }
        let query = BoardQuery {
            metric: metric.unwrap_or_default(),
            period: period.unwrap_or_default(),
            limit: limit
                .unwrap_or(leaderboard::DEFAULT_LIMIT)
                .clamp(1, leaderboard::MAX_LIMIT),
            around,
        };
        let answer = self
            .shared
            .boards
            .board(
                &self.shared.db,
                &query,
                self.shared.config.ranking(),
                crate::periods::now_ms(),
                self.shared.recorder.commits(),
            )
            .await;
        match answer {
            Ok(board) => self.reply(
                id,
                ServerMessage::Leaderboard {
                    metric: board.metric,
                    period: board.period,
                    rows: board.rows,
                },
            ),
            Err(e @ BoardError::PlayerNotFound(_)) => {
                self.error(id, ErrorCode::PlayerNotFound, e.to_string())
            }
            Err(BoardError::Db(e)) => {
                tracing::error!(error = %e, "leaderboard failed");
                self.error(
                    id,
                    ErrorCode::Internal,
                    "the server could not read the leaderboard; try again",
                )
            }
        }
    }

    /// Opens a room hosted by this player. A player is in at most one room
    /// (so hosts at most one), and a room its last member left closes at
    /// once, so one player cannot fill the server with rooms.
    async fn create_room(
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
        let settings = match crate::lobby::initial_settings(settings.as_ref(), public) {
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
        let reserved = match &self.shared.cluster {
            None => None,
            Some(cluster) => match cluster
                .reserve_code(&self.shared.lobby, settings.public)
                .await
            {
                Ok(Some(code)) => Some(code),
                Ok(None) => {
                    return self.error(id, ErrorCode::ServerFull, RegisterError::Full.to_string())
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
        let created = room_task::create(
            &self.shared,
            reserved.clone(),
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
            Err(e) => self.error(id, ErrorCode::ServerFull, e.to_string()),
        }
    }

    /// Joins a room by code. Misses are counted per address and per player
    /// across connections; a stranger at a locked room is answered as if it
    /// did not exist, and that counts as a miss too.
    async fn join_room(
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
        let limits = &self.shared.limits;
        if !limits.may_guess(self.client_ip, welcomed.player, now()) {
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
        let code = codes::normalize(code);
        let Some(room) = code.as_deref().and_then(|c| lobby.room(c)) else {
            let located = match (&self.shared.cluster, code.as_deref()) {
                (Some(cluster), Some(code)) => cluster.locate(code, welcomed.player).await,
                _ => Located::Nowhere,
            };
            match (located, code) {
                (Located::Elsewhere { url }, Some(code)) => {
                    let ticket = self.handover_ticket(welcomed.player).await;
                    self.reply(id, ServerMessage::Redirect { url, code, ticket });
                }
                (Located::NodeStopped, Some(code)) => {
                    limits.missed(self.client_ip, welcomed.player, now());
                    self.error(
                        id,
                        ErrorCode::RoomNotFound,
                        format!("room {code} is gone: the server node it ran on stopped"),
                    );
                }
                _ => {
                    limits.missed(self.client_ip, welcomed.player, now());
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
                limits.missed(self.client_ip, welcomed.player, now());
            }
            self.error(id, code, message);
        }
        Ok(())
    }
}

/// Now, on the clock tests can pause.
fn now() -> std::time::Instant {
    Instant::now().into_std()
}

#[cfg(test)]
mod tests {
    //! Dispatch without sockets: sessions talk to a real lobby, rooms and a
    //! SQLite file; what they would send is read from their outboxes.

    use std::net::SocketAddr;
    use std::time::Duration;

    use serde_json::{json, Value};
    use tokio::sync::mpsc;

    use super::*;
    use crate::outbox::Outbound;
    use crate::Config;

    /// A safety net so a broken test fails instead of hanging.
    const PATIENCE: Duration = Duration::from_secs(10);

    struct Server {
        shared: Arc<Shared>,
        _dir: tempfile::TempDir,
    }

    async fn server(tweak: impl FnOnce(&mut Config)) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config {
            database_url: format!("sqlite://{}", dir.path().join("t.db").display()),
            ..Config::default()
        };
        tweak(&mut config);
        let bound: SocketAddr = "192.168.1.5:7878".parse().unwrap();
        let (shared, _recorder) = Shared::open(config, bound).await.unwrap();
        Server { shared, _dir: dir }
    }

    /// A connection's session and what it sends.
    struct Conn {
        session: Session,
        sent: mpsc::Receiver<Outbound>,
    }

    impl Server {
        fn connect(&self, ip: &str) -> Conn {
            let (outbox, sent) = Outbox::new(256);
            let session = Session::new(self.shared.clone(), outbox, ip.parse().unwrap());
            Conn { session, sent }
        }

        /// A welcomed connection; returns it and its welcome.
        async fn player(&self, ip: &str, name: &str) -> (Conn, Value) {
            let mut c = self.connect(ip);
            let welcome = c
                .ask(json!({"type": "hello", "protocol": 1, "name": name}))
                .await;
            assert_eq!(welcome["type"], "welcome", "{welcome}");
            (c, welcome)
        }
    }

    impl Conn {
        async fn send(&mut self, message: Value) -> Result<(), Abuse> {
            self.session.handle_text(&message.to_string()).await
        }

        /// The next message this connection would send.
        async fn recv(&mut self) -> Value {
            loop {
                let next = tokio::time::timeout(PATIENCE, self.sent.recv()).await;
                match next.expect("nothing sent in time") {
                    Some(Outbound::Text(text)) => return serde_json::from_str(&text).unwrap(),
                    Some(_) => continue,
                    None => panic!("the outbox closed"),
                }
            }
        }

        /// Skips messages until one of type `ty`.
        async fn recv_type(&mut self, ty: &str) -> Value {
            loop {
                let v = self.recv().await;
                if v["type"] == ty {
                    return v;
                }
            }
        }

        /// Sends a request with an id and returns the reply carrying it.
        async fn ask(&mut self, mut message: Value) -> Value {
            message["id"] = json!("q");
            self.send(message).await.unwrap();
            loop {
                let v = self.recv().await;
                if v["id"] == "q" {
                    return v;
                }
            }
        }

        async fn create_room(&mut self) -> String {
            let state = self.ask(json!({"type": "create_room"})).await;
            assert_eq!(state["type"], "room_state", "{state}");
            state["code"].as_str().unwrap().to_owned()
        }
    }

    #[tokio::test]
    async fn only_hello_before_welcome_and_welcome_names_the_join_urls() {
        let s = server(|_| {}).await;
        let mut c = s.connect("10.0.0.1");
        let refused = c.ask(json!({"type": "list_rooms"})).await;
        assert_eq!(refused["code"], "not_welcomed", "{refused}");
        let welcome = c
            .ask(json!({"type": "hello", "protocol": 1, "name": "Ada", "bot": true}))
            .await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        assert_eq!(welcome["join_urls"], json!(["http://192.168.1.5:7878"]));
        let again = c
            .ask(json!({"type": "hello", "protocol": 1, "name": "Ada"}))
            .await;
        assert_eq!(again["code"], "wrong_state", "{again}");
    }

    #[tokio::test]
    async fn names_and_chat_with_control_characters_are_refused_and_never_relayed() {
        let s = server(|_| {}).await;
        let mut eve = s.connect("10.0.0.1");
        for name in ["Eve\u{1b}[2J", "Eve\u{202e}", "SERVER\r\nyou won"] {
            let refused = eve
                .ask(json!({"type": "hello", "protocol": 1, "name": name}))
                .await;
            assert_eq!(refused["code"], "invalid_name", "{name:?}: {refused}");
        }
        let (mut ann, _) = s.player("10.0.0.1", "Ann").await;
        let (mut ben, _) = s.player("10.0.0.2", "Ben").await;
        let code = ann.create_room().await;
        ben.ask(json!({"type": "join_room", "code": code})).await;
        for text in [
            "\u{1b}]52;c;ZXZpbA==\u{7}",
            "hi\r\nSERVER: you won!",
            "\u{2066}x",
        ] {
            let refused = ben.ask(json!({"type": "chat", "text": text})).await;
            assert_eq!(refused["code"], "bad_message", "{text:?}: {refused}");
        }
        ben.send(json!({"type": "chat", "text": "hi"}))
            .await
            .unwrap();
        // The first chat Ann sees is the clean one.
        assert_eq!(ann.recv_type("chat").await["text"], "hi");
    }

    #[tokio::test]
    async fn a_seated_player_cannot_rename() {
        let s = server(|_| {}).await;
        let (mut ann, welcome) = s.player("10.0.0.1", "Ann").await;
        ann.create_room().await;
        ann.session.end().await;
        let mut back = s.connect("10.0.0.1");
        let token = welcome["token"].clone();
        let refused = back
            .ask(json!({"type": "hello", "protocol": 1, "name": "Eve", "token": token}))
            .await;
        assert_eq!(refused["code"], "already_in_room", "{refused}");
        let resumed = back
            .ask(json!({"type": "hello", "protocol": 1, "name": "Ann", "token": token}))
            .await;
        assert_eq!(resumed["resumed"], true, "{resumed}");
        // Out of the room, the name can change.
        back.ask(json!({"type": "leave_room"})).await;
        back.session.end().await;
        let mut free = s.connect("10.0.0.1");
        let renamed = free
            .ask(json!({"type": "hello", "protocol": 1, "name": "Eve", "token": token}))
            .await;
        assert_eq!(renamed["name"], "Eve", "{renamed}");
    }

    #[tokio::test]
    async fn code_misses_count_per_address_and_per_player_across_connections() {
        let s = server(|c| c.max_code_misses = 3).await;
        let miss = json!({"type": "join_room", "code": "ZZZZZ"});
        let (mut a, welcome) = s.player("10.0.0.1", "Ann").await;
        let again = json!({"type": "hello", "protocol": 1, "token": welcome["token"]});
        for _ in 0..2 {
            assert_eq!(a.ask(miss.clone()).await["code"], "room_not_found");
        }
        // A new connection of the same player resets nothing.
        a.session.end().await;
        let mut a = s.connect("10.0.0.1");
        a.ask(again.clone()).await;
        assert_eq!(a.ask(miss.clone()).await["code"], "room_not_found");
        assert_eq!(a.ask(miss.clone()).await["code"], "rate_limited");
        // Nor does another player from the same address...
        let (mut b, _) = s.player("10.0.0.1", "Ben").await;
        assert_eq!(b.ask(miss.clone()).await["code"], "rate_limited");
        // ...nor the same player from another address.
        a.session.end().await;
        let mut a = s.connect("10.0.0.2");
        a.ask(again).await;
        assert_eq!(a.ask(miss.clone()).await["code"], "rate_limited");
        // Someone else elsewhere is not affected.
        let (mut c, _) = s.player("10.0.0.3", "Cat").await;
        assert_eq!(c.ask(miss).await["code"], "room_not_found");
    }

    #[tokio::test]
    async fn guessing_on_after_being_told_to_wait_is_abuse() {
        let s = server(|c| {
            c.max_code_misses = 1;
            c.max_guess_strikes = 2;
        })
        .await;
        let miss = json!({"type": "join_room", "code": "ZZZZZ"});
        let (mut a, _) = s.player("10.0.0.1", "Ann").await;
        assert_eq!(a.send(miss.clone()).await, Ok(()));
        assert_eq!(a.send(miss.clone()).await, Ok(()));
        assert_eq!(a.send(miss.clone()).await, Ok(()));
        assert_eq!(a.send(miss.clone()).await, Err(Abuse::CodeGuessing));
    }

    #[tokio::test]
    async fn new_accounts_are_limited_per_address() {
        let s = server(|c| c.max_new_accounts = 2).await;
        let (_, ann) = s.player("10.0.0.1", "Ann").await;
        s.player("10.0.0.1", "Ben").await;
        let mut c = s.connect("10.0.0.1");
        let refused = c
            .ask(json!({"type": "hello", "protocol": 1, "name": "Cat"}))
            .await;
        assert_eq!(refused["code"], "rate_limited", "{refused}");
        // Another address may; a known player may always come back.
        s.player("10.0.0.2", "Cat").await;
        let mut back = s.connect("10.0.0.1");
        let welcome = back
            .ask(json!({"type": "hello", "protocol": 1, "token": ann["token"]}))
            .await;
        assert_eq!(welcome["name"], "Ann", "{welcome}");
    }

    #[tokio::test]
    async fn spectators_are_capped_per_room_and_players_still_join() {
        let s = server(|c| c.max_spectators = 1).await;
        let (mut host, _) = s.player("10.0.0.1", "Host").await;
        let code = host.create_room().await;
        let (mut s1, _) = s.player("10.0.0.2", "Sue").await;
        let (mut s2, _) = s.player("10.0.0.3", "Sid").await;
        let (mut p, _) = s.player("10.0.0.4", "Pat").await;
        let watch = json!({"type": "join_room", "code": code, "spectator": true});
        assert_eq!(s1.ask(watch.clone()).await["type"], "room_state");
        assert_eq!(s2.ask(watch.clone()).await["code"], "room_full");
        let joined = p.ask(json!({"type": "join_room", "code": code})).await;
        assert_eq!(joined["type"], "room_state", "{joined}");
        // A spectator who leaves frees the place.
        s1.ask(json!({"type": "leave_room"})).await;
        assert_eq!(s2.ask(watch).await["type"], "room_state");
    }

    #[tokio::test]
    async fn a_player_hosts_one_room_and_a_room_left_empty_closes_at_once() {
        let s = server(|_| {}).await;
        let (mut ann, _) = s.player("10.0.0.1", "Ann").await;
        let first = ann.create_room().await;
        let second = ann.ask(json!({"type": "create_room"})).await;
        assert_eq!(second["code"], "already_in_room", "{second}");
        ann.ask(json!({"type": "leave_room"})).await;
        let (mut ben, _) = s.player("10.0.0.2", "Ben").await;
        let gone = ben.ask(json!({"type": "join_room", "code": first})).await;
        assert_eq!(gone["code"], "room_not_found", "{gone}");
        assert_ne!(ann.create_room().await, first);
    }
}
