//! One WebSocket connection: a reader loop that `select!`s between the
//! socket, the handshake deadline, the ping timer, a kill switch and
//! shutdown, and a writer task that drains the connection's bounded queue.
//!
//! This is the edge where bytes become typed messages, and the one place
//! that decides which mistakes close the connection: only abuse does
//! (oversized frames 1009; no hello in time, flooding, code guessing, dead
//! or non-reading peers 1008). Every other mistake — bad JSON, an unknown
//! type, missing fields, a binary frame, a message out of turn — is answered
//! with a typed `error` and the connection stays usable.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use krypto_core::protocol::{
    parse_client_message, ClientEnvelope, ClientMessage, ErrorCode, Metric, Period, PlayerId,
    ServerEnvelope, ServerMessage, PROTOCOL_VERSION,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::client::{close, ClientHandle, Outbound};
use crate::identity::{self, HelloError};
use crate::leaderboard::{self, BoardError, BoardQuery};
use crate::limits::{Allowance, GuessLimiter, MessageCredits};
use crate::lobby::RoomCommand;
use crate::{codes, room_task, Shared};

/// How long a killed connection tries to send its close frame.
const KILL_CLOSE_TIMEOUT: Duration = Duration::from_millis(500);

/// The version string sent in `welcome`.
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Who the connection speaks for, once `hello` succeeded.
#[derive(Debug, Clone)]
struct Session {
    player: PlayerId,
    name: String,
}

/// The reader side's state.
struct Connection {
    shared: Arc<Shared>,
    client: ClientHandle,
    peer: SocketAddr,
    session: Option<Session>,
    credits: MessageCredits,
    guesses: GuessLimiter,
    /// Set when the server started closing: stop handling messages and wait
    /// (briefly) for the peer's close frame.
    closing_since: Option<Instant>,
    /// Whether a close frame of ours is queued behind other messages.
    goodbye_queued: bool,
}

/// Serves one upgraded WebSocket until it closes.
pub async fn serve(socket: WebSocket, shared: Arc<Shared>, peer: SocketAddr) {
    let config = &shared.config;
    let (client, rx) = ClientHandle::new(config.outgoing_queue);
    let (sink, stream) = socket.split();
    let writer = tokio::spawn(write_loop(sink, rx, client.clone()));
    let now = Instant::now().into_std();
    let mut conn = Connection {
        credits: MessageCredits::new(
            config.message_burst,
            config.message_refill_per_sec,
            config.max_rate_strikes,
            now,
        ),
        guesses: GuessLimiter::new(
            config.max_code_misses,
            config.guess_window,
            config.max_guess_strikes,
        ),
        shared: shared.clone(),
        client: client.clone(),
        peer,
        session: None,
        closing_since: None,
        goodbye_queued: false,
    };
    tracing::debug!(%peer, conn = client.conn.0, "websocket open");
    conn.read_loop(stream).await;
    if let Some(session) = &conn.session {
        shared.lobby.detach(session.player, client.conn);
        if let Some(room) = shared.lobby.seat_of(session.player) {
            let _ = room
                .tx
                .send(RoomCommand::Disconnected {
                    player: session.player,
                    conn: client.conn,
                })
                .await;
        }
    }
    // Let the writer deliver a queued goodbye, then stop it.
    let mut writer = writer;
    let delivered = conn.goodbye_queued
        && tokio::time::timeout(config.close_drain, &mut writer)
            .await
            .is_ok();
    if !delivered {
        client.kill(close::NORMAL, "");
        let _ = writer.await;
    }
    tracing::debug!(%peer, conn = client.conn.0, "websocket closed");
}

/// Sends queued messages until the queue says close or the connection is killed.
async fn write_loop(
    mut sink: SplitSink<WebSocket, Message>,
    mut rx: mpsc::Receiver<Outbound>,
    client: ClientHandle,
) {
    loop {
        let item = tokio::select! {
            biased;
            () = client.killed() => break,
            item = rx.recv() => item,
        };
        let (message, last) = match item {
            None => break,
            Some(Outbound::Text(text)) => (Message::Text(text), false),
            Some(Outbound::Ping) => (Message::Ping(Default::default()), false),
            Some(Outbound::Close(code, reason)) => (close_message(code, &reason), true),
        };
        let sent = tokio::select! {
            biased;
            () = client.killed() => break,
            sent = sink.send(message) => sent,
        };
        if sent.is_err() {
            client.kill(close::NORMAL, "");
            return;
        }
        if last {
            return;
        }
    }
    // Killed: say why if the socket will take it, but do not wait long on
    // a peer that may have stopped reading.
    if let Some((code, reason)) = client.kill_frame() {
        let _ =
            tokio::time::timeout(KILL_CLOSE_TIMEOUT, sink.send(close_message(code, &reason))).await;
    }
}

fn close_message(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.into(),
    }))
}

impl Connection {
    async fn read_loop(&mut self, mut stream: SplitStream<WebSocket>) {
        let shutdown = self.shared.shutdown.clone();
        let config = self.shared.config.clone();
        let handshake_deadline = Instant::now() + config.handshake_timeout;
        let mut ping =
            tokio::time::interval_at(Instant::now() + config.ping_interval, config.ping_interval);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut awaiting_pong = false;
        loop {
            let drain_deadline = self.closing_since.map(|t| t + config.close_drain);
            tokio::select! {
                biased;
                () = self.client.killed() => return,
                () = shutdown.cancelled(), if self.closing_since.is_none() => {
                    self.begin_close(close::GOING_AWAY, "server shutting down");
                }
                () = sleep_until_opt(drain_deadline), if drain_deadline.is_some() => return,
                () = tokio::time::sleep_until(handshake_deadline),
                    if self.session.is_none() && self.closing_since.is_none() =>
                {
                    self.reply(None, ServerMessage::error(ErrorCode::NotWelcomed, "no hello in time"));
                    self.begin_close(close::POLICY, "no hello in time");
                }
                _ = ping.tick(), if self.closing_since.is_none() => {
                    if awaiting_pong {
                        tracing::debug!(peer = %self.peer, "no pong: closing");
                        self.client.kill(close::POLICY, "no pong");
                        return;
                    }
                    awaiting_pong = true;
                    self.client.ping();
                }
                frame = stream.next() => match frame {
                    None => return,
                    Some(Ok(Message::Pong(_))) => awaiting_pong = false,
                    Some(Ok(Message::Ping(_))) => {}
                    Some(Ok(Message::Close(_))) => {
                        // tungstenite answers the close; read on until it ends.
                        if self.closing_since.is_none() {
                            self.closing_since = Some(Instant::now());
                        }
                    }
                    Some(Ok(_)) if self.closing_since.is_some() => {}
                    Some(Ok(Message::Text(text))) => {
                        if self.spend_credit() {
                            self.handle_text(text.as_str()).await;
                        }
                    }
                    Some(Ok(Message::Binary(_))) => {
                        if self.spend_credit() {
                            self.reply(None, ServerMessage::error(
                                ErrorCode::BadMessage,
                                "binary frames are not part of the protocol: send JSON as text",
                            ));
                        }
                    }
                    Some(Err(e)) => {
                        if self.closing_since.is_some() {
                            return;
                        }
                        match classify(&e) {
                            ReadError::TooBig => {
                                self.begin_close(close::TOO_BIG, "message too big");
                            }
                            ReadError::NotUtf8 => {
                                if self.spend_credit() {
                                    self.reply(None, ServerMessage::error(
                                        ErrorCode::BadMessage,
                                        "text frames must be UTF-8",
                                    ));
                                }
                            }
                            ReadError::Fatal => {
                                tracing::debug!(peer = %self.peer, error = %e, "websocket read failed");
                                return;
                            }
                        }
                    }
                },
            }
        }
    }

    /// Sends a goodbye after what is queued and stops handling messages.
    fn begin_close(&mut self, code: u16, reason: &str) {
        self.client.close(code, reason);
        self.goodbye_queued = true;
        self.closing_since = Some(Instant::now());
    }

    /// Spends a message credit; false (after telling the client, or closing
    /// on sustained abuse) when there is none.
    fn spend_credit(&mut self) -> bool {
        match self.credits.spend(Instant::now().into_std()) {
            Allowance::Allowed => true,
            Allowance::Limited => {
                self.reply(
                    None,
                    ServerMessage::error(ErrorCode::RateLimited, "too many messages: slow down"),
                );
                false
            }
            Allowance::Abusive => {
                tracing::info!(peer = %self.peer, "message flood: closing");
                self.begin_close(close::POLICY, "message flood");
                false
            }
        }
    }

    fn reply(&self, id: Option<String>, message: ServerMessage) {
        self.client.send(&ServerEnvelope::reply(id, message));
    }

    fn error(&self, id: Option<String>, code: ErrorCode, message: impl Into<String>) {
        self.reply(id, ServerMessage::error(code, message));
    }

    async fn handle_text(&mut self, text: &str) {
        let ClientEnvelope { id, message } = match parse_client_message(text) {
            Ok(envelope) => envelope,
            Err(e) => {
                self.client.send(&e.to_envelope());
                return;
            }
        };
        match message {
            ClientMessage::Ping => self.reply(id, ServerMessage::Pong),
            ClientMessage::Hello {
                protocol,
                name,
                token,
                bot,
                ..
            } => self.hello(id, protocol, name, token, bot).await,
            message => match self.session.clone() {
                None => self.error(id, ErrorCode::NotWelcomed, "say hello first"),
                Some(session) => self.dispatch(session, id, message).await,
            },
        }
    }

    async fn hello(
        &mut self,
        id: Option<String>,
        protocol: u32,
        name: Option<String>,
        token: Option<String>,
        bot: bool,
    ) {
        if self.session.is_some() {
            return self.error(id, ErrorCode::WrongState, "already welcomed");
        }
        let identity = match identity::hello(
            &self.shared.db,
            &self.shared.recorder,
            protocol,
            name.as_deref(),
            token.as_deref(),
            bot,
        )
        .await
        {
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
        let lobby = &self.shared.lobby;
        if let Some(old) = lobby.attach(player, self.client.clone()) {
            old.kill(close::NORMAL, "replaced by a newer connection");
        }
        self.session = Some(Session {
            player,
            name: identity.player.name.clone(),
        });
        let room = lobby.seat_of(player);
        tracing::info!(peer = %self.peer, player = player.0, name = %identity.player.name, resumed = room.is_some(), "welcome");
        self.reply(
            id,
            ServerMessage::Welcome {
                protocol: PROTOCOL_VERSION,
                player_id: player,
                name: identity.player.name,
                token: identity.token,
                server_version: SERVER_VERSION.to_owned(),
                resumed: room.is_some(),
                join_urls: Vec::new(),
            },
        );
        if let Some(room) = room {
            let _ = room
                .tx
                .send(RoomCommand::Resume {
                    player,
                    client: self.client.clone(),
                })
                .await;
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
        let query = BoardQuery {
            metric: metric.unwrap_or_default(),
            period: period.unwrap_or_default(),
            limit: limit
                .unwrap_or(leaderboard::DEFAULT_LIMIT)
                .clamp(1, leaderboard::MAX_LIMIT),
            around: around.filter(|a| !a.trim().is_empty()),
        };
        let answer = leaderboard::board(
            &self.shared.db,
            &query,
            self.shared.config.ranking(),
            crate::periods::now_ms(),
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

    async fn dispatch(&mut self, session: Session, id: Option<String>, message: ClientMessage) {
        let lobby = self.shared.lobby.clone();
        match message {
            ClientMessage::Ping | ClientMessage::Hello { .. } => {}
            ClientMessage::ListRooms => self.reply(
                id,
                ServerMessage::Rooms {
                    rooms: lobby.public_rooms(),
                },
            ),
            ClientMessage::Leaderboard {
                metric,
                period,
                limit,
                around,
            } => self.leaderboard(id, metric, period, limit, around).await,
            ClientMessage::CreateRoom { settings, public } => {
                if lobby.seat_of(session.player).is_some() {
                    return self.error(id, ErrorCode::AlreadyInRoom, "leave your room first");
                }
                let settings = match crate::lobby::initial_settings(settings.as_ref(), public) {
                    Ok(settings) => settings,
                    Err(e) => return self.error(id, ErrorCode::InvalidSettings, e.to_string()),
                };
                match room_task::create(
                    &self.shared,
                    session.player,
                    session.name,
                    settings,
                    self.client.clone(),
                    id.clone(),
                ) {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => self.error(id, e.code(), e.to_string()),
                    Err(e) => self.error(id, ErrorCode::ServerFull, e.to_string()),
                }
            }
            ClientMessage::JoinRoom { code, spectator } => {
                if lobby.seat_of(session.player).is_some() {
                    return self.error(id, ErrorCode::AlreadyInRoom, "leave your room first");
                }
                match self.guesses.check(Instant::now().into_std()) {
                    Allowance::Allowed => {}
                    Allowance::Limited => {
                        return self.error(
                            id,
                            ErrorCode::RateLimited,
                            "too many wrong room codes: wait a minute",
                        )
                    }
                    Allowance::Abusive => {
                        self.error(id, ErrorCode::RateLimited, "too many wrong room codes");
                        tracing::info!(peer = %self.peer, "room code guessing: closing");
                        return self.begin_close(close::POLICY, "room code guessing");
                    }
                }
                let Some(room) = codes::normalize(&code).and_then(|c| lobby.room(&c)) else {
                    self.guesses.miss(Instant::now().into_std());
                    return self.error(id, ErrorCode::RoomNotFound, "no room has that code");
                };
                let (reply, answer) = oneshot::channel();
                let command = RoomCommand::Join {
                    player: session.player,
                    name: session.name,
                    spectator,
                    client: self.client.clone(),
                    id: id.clone(),
                    reply,
                };
                if room.tx.send(command).await.is_err() {
                    return self.error(id, ErrorCode::RoomNotFound, "that room just closed");
                }
                match answer.await {
                    Ok(Ok(())) => {}
                    Ok(Err((code, message))) => self.error(id, code, message),
                    Err(_) => self.error(id, ErrorCode::RoomNotFound, "that room just closed"),
                }
            }
            message => {
                let Some(room) = lobby.seat_of(session.player) else {
                    return self.error(id, ErrorCode::NotInRoom, "you are not in a room");
                };
                let command = RoomCommand::Request {
                    player: session.player,
                    conn: self.client.conn,
                    id: id.clone(),
                    message,
                };
                if room.tx.send(command).await.is_err() {
                    self.error(id, ErrorCode::NotInRoom, "your room has closed");
                }
            }
        }
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// What a failed read means for the connection.
enum ReadError {
    /// Over the frame or message size limit: close with 1009.
    TooBig,
    /// A text frame that is not UTF-8: answer `bad_message`.
    NotUtf8,
    /// The socket or the WebSocket protocol broke: end.
    Fatal,
}

fn classify(e: &axum::Error) -> ReadError {
    // axum wraps tungstenite's error; look for it through the source chain.
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(ts) = err.downcast_ref::<tungstenite::Error>() {
            return match ts {
                tungstenite::Error::Capacity(_) => ReadError::TooBig,
                tungstenite::Error::Utf8(_) => ReadError::NotUtf8,
                _ => ReadError::Fatal,
            };
        }
        source = err.source();
    }
    ReadError::Fatal
}
