//! One WebSocket's transport: a reader loop that `select!`s between the
//! socket, the hello deadline, the ping timer, a kill switch and shutdown,
//! and a writer task that drains the connection's [`Outbox`].
//!
//! This is the one place that decides which mistakes close the connection
//! and with which code ([`Ending`]). Only abuse and broken frames do:
//! oversized frames 1009 (before `hello`, any frame larger than a `hello`),
//! text that is not UTF-8 1007; no hello in time, flooding with messages or
//! with frames of any kind ([`crate::edge::frame_meter`]), code guessing, dead or
//! non-reading peers 1008; a server
//! shutting down says 1012 (it is restarting). Every other mistake — bad
//! JSON, an unknown type, missing fields, a binary frame, a message out of
//! turn — is the session's to answer with a typed `error`, and the
//! connection stays usable.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use krypto_core::protocol::{ErrorCode, ServerEnvelope, ServerMessage};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::protocol::CloseFrame;
use tungstenite::Message;

use crate::edge::budgets::{Allowance, MessageCredits};
use crate::edge::frame_meter::MeterError;
use crate::edge::idle::Activity;
use crate::edge::ws_upgrade::Socket;
use crate::rooms::outbox::{close, Outbound, Outbox};
use crate::session::{Abuse, Session};
use crate::Shared;

/// How long a killed connection tries to send its close frame.
const KILL_CLOSE_TIMEOUT: Duration = Duration::from_millis(500);

/// Why the server ends a connection, and so the close code it sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The server is going down and will be back.
    Restarting,
    /// A frame or message over the size limit.
    TooBig,
    /// A text frame that is not UTF-8.
    NotUtf8,
    /// No `hello` within the handshake timeout.
    NoHello,
    /// Out of message credits again and again.
    Flood,
    /// Out of frame credits: pings, pongs or continuation frames by the
    /// thousand, which are never messages.
    FrameFlood,
    /// A frame before `hello` larger than any `hello`.
    TooBigBeforeHello,
    /// The previous ping is still unanswered: the peer is gone, so the
    /// close frame is not queued behind anything (the connection is killed).
    NoPong,
    /// The session reported abuse.
    Abuse(Abuse),
    /// Signed in, in no room, silent for the idle time.
    Idle,
}

impl Ending {
    /// The close code and the sentence sent with it.
    fn frame(self) -> (u16, &'static str) {
        match self {
            Ending::Restarting => (
                close::SERVICE_RESTART,
                "the server is restarting; reconnect in a moment",
            ),
            Ending::TooBig => (close::TOO_BIG, "message too big"),
            Ending::NotUtf8 => (close::INVALID_DATA, "text frames must be UTF-8"),
            Ending::NoHello => (close::POLICY, "no hello in time"),
            Ending::Flood => (close::POLICY, "message flood"),
            Ending::FrameFlood => (close::POLICY, "frame flood"),
            Ending::TooBigBeforeHello => (close::TOO_BIG, "say hello first"),
            Ending::NoPong => (close::POLICY, "no pong"),
            Ending::Abuse(Abuse::CodeGuessing) => (close::POLICY, "room code guessing"),
            Ending::Idle => crate::edge::idle::IDLE_CLOSE,
        }
    }
}

/// The reader side's state.
struct Transport {
    shared: Arc<Shared>,
    outbox: Outbox,
    session: Session,
    credits: MessageCredits,
    /// Set when the server started closing: stop handling messages and wait
    /// (briefly) for the peer's close frame.
    closing_since: Option<Instant>,
    /// Whether a close frame of ours is queued behind other messages.
    goodbye_queued: bool,
    /// Set once the session is welcomed: lifts the frame meter's limit on
    /// frames before `hello`.
    welcomed: Arc<AtomicBool>,
    /// Once welcomed: how idle this socket is, as the registry sees it.
    activity: Option<Arc<Activity>>,
}

/// Serves one upgraded WebSocket from `client_ip` until it closes.
/// `welcomed` is the frame meter's flag, set here once `hello` is answered.
pub(crate) async fn serve(
    socket: Socket,
    shared: Arc<Shared>,
    client_ip: IpAddr,
    welcomed: Arc<AtomicBool>,
) {
    let config = &shared.config;
    let (outbox, rx) = Outbox::with_max_bytes(config.outgoing_queue, config.outgoing_queue_bytes);
    let (sink, stream) = socket.split();
    let metrics = &shared.metrics;
    metrics.connections_opened.increment(1);
    metrics.connections.increment(1);
    let sent = metrics.messages_out.clone();
    let writer = tokio::spawn(write_loop(sink, rx, outbox.clone(), sent));
    let mut transport = Transport {
        credits: MessageCredits::new(
            config.message_burst,
            config.message_refill_per_sec,
            config.max_rate_strikes,
            Instant::now().into_std(),
        ),
        session: Session::new(shared.clone(), outbox.clone(), client_ip),
        shared: shared.clone(),
        outbox: outbox.clone(),
        closing_since: None,
        goodbye_queued: false,
        welcomed,
        activity: None,
    };
    tracing::debug!(ip = %client_ip, conn = outbox.conn.0, "websocket open");
    transport.read_loop(stream).await;
    shared.sockets.ended(outbox.conn);
    transport.session.end().await;
    // Let the writer deliver a queued goodbye, then stop it.
    let mut writer = writer;
    let delivered = transport.goodbye_queued
        && tokio::time::timeout(config.close_drain, &mut writer)
            .await
            .is_ok();
    if !delivered {
        outbox.kill(close::NORMAL, "");
        let _ = writer.await;
    }
    shared.metrics.connections.decrement(1);
    tracing::debug!(ip = %client_ip, conn = outbox.conn.0, "websocket closed");
}

/// Sends queued messages until the queue says close or the connection is killed.
async fn write_loop(
    mut sink: SplitSink<Socket, Message>,
    mut rx: mpsc::Receiver<Outbound>,
    outbox: Outbox,
    sent_count: metrics::Counter,
) {
    loop {
        let item = tokio::select! {
            biased;
            () = outbox.killed() => break,
            item = rx.recv() => item,
        };
        if let Some(item) = &item {
            outbox.taken(item);
        }
        let (message, last) = match item {
            None => break,
            Some(Outbound::Text(text)) => (Message::Text(text), false),
            // A ping needs no payload: the pong answers whichever ping is out.
            Some(Outbound::Ping) => (Message::Ping(tungstenite::Bytes::new()), false),
            Some(Outbound::Close(code, reason)) => (close_message(code, &reason), true),
        };
        let text = matches!(message, Message::Text(_));
        let sent = tokio::select! {
            biased;
            () = outbox.killed() => break,
            sent = sink.send(message) => sent,
        };
        if sent.is_err() {
            outbox.kill(close::NORMAL, "");
            return;
        }
        if text {
            sent_count.increment(1);
        }
        if last {
            return;
        }
    }
    // Killed: say why if the socket will take it, but do not wait long on
    // a peer that may have stopped reading.
    if let Some((code, reason)) = outbox.kill_frame() {
        let _ =
            tokio::time::timeout(KILL_CLOSE_TIMEOUT, sink.send(close_message(code, &reason))).await;
    }
}

fn close_message(code: u16, reason: &str) -> Message {
    Message::Close(Some(CloseFrame {
        code: CloseCode::from(code),
        reason: reason.into(),
    }))
}

impl Transport {
    async fn read_loop(&mut self, mut stream: SplitStream<Socket>) {
        let shutdown = self.shared.disconnect.clone();
        let config = self.shared.config.clone();
        let hello_deadline = Instant::now() + config.handshake_timeout;
        let mut ping =
            tokio::time::interval_at(Instant::now() + config.ping_interval, config.ping_interval);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut awaiting_pong = false;
        loop {
            let drain_deadline = self.closing_since.map(|t| t + config.close_drain);
            let idle_at = match (&self.activity, self.closing_since) {
                (Some(activity), None) => {
                    Some(self.shared.sockets.idle_at(activity, config.idle_lobby))
                }
                _ => None,
            };
            tokio::select! {
                biased;
                () = self.outbox.killed() => return,
                () = shutdown.cancelled(), if self.closing_since.is_none() => {
                    self.end(Ending::Restarting);
                }
                () = sleep_until_opt(drain_deadline), if drain_deadline.is_some() => return,
                () = tokio::time::sleep_until(hello_deadline),
                    if !self.session.is_welcomed() && self.closing_since.is_none() =>
                {
                    self.reply(ServerMessage::error(ErrorCode::NotWelcomed, "no hello in time"));
                    self.end(Ending::NoHello);
                }
                _ = ping.tick(), if self.closing_since.is_none() => {
                    if awaiting_pong {
                        tracing::debug!(conn = self.outbox.conn.0, "no pong: closing");
                        let (code, reason) = Ending::NoPong.frame();
                        self.outbox.kill(code, reason);
                        return;
                    }
                    awaiting_pong = true;
                    self.outbox.ping();
                }
                () = sleep_until_opt(idle_at), if idle_at.is_some() => {
                    // Seated or not now (a kick or a closed room changes
                    // it without a message of this client's).
                    let in_lobby = self.session.in_lobby();
                    if let Some(activity) = &self.activity {
                        activity.set_in_lobby(in_lobby);
                        if in_lobby {
                            self.end(Ending::Idle);
                        } else {
                            activity.touched(&self.shared.sockets);
                        }
                    }
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
                        self.shared.metrics.messages_in.increment(1);
                        if let Some(activity) = &self.activity {
                            activity.touched(&self.shared.sockets);
                        }
                        if self.spend_credit() {
                            if let Err(abuse) = self.session.handle_text(text.as_str()).await {
                                self.end(Ending::Abuse(abuse));
                            }
                            if self.session.is_welcomed() && self.activity.is_none() {
                                self.welcomed.store(true, Ordering::Relaxed);
                                self.activity = Some(self.shared.sockets.welcomed(&self.outbox));
                            }
                            // Seated or not, as of this message: a player who
                            // just joined a room is never taken for idle.
                            if let Some(activity) = &self.activity {
                                activity.set_in_lobby(self.session.in_lobby());
                            }
                        }
                    }
                    // Raw frames are only ever written, never read.
                    Some(Ok(Message::Frame(_))) => {}
                    Some(Ok(Message::Binary(_))) => {
                        if self.spend_credit() {
                            self.reply(ServerMessage::error(
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
                            ReadError::TooBig => self.end(Ending::TooBig),
                            ReadError::NotUtf8 => self.end(Ending::NotUtf8),
                            ReadError::Meter(refusal) => {
                                // The socket reads no more: say why and go.
                                let ending = match refusal {
                                    MeterError::Flood => Ending::FrameFlood,
                                    MeterError::TooBigBeforeHello => Ending::TooBigBeforeHello,
                                };
                                tracing::info!(conn = self.outbox.conn.0, reason = %refusal, "closing an abusive connection");
                                let (code, reason) = ending.frame();
                                self.outbox.kill(code, reason);
                                return;
                            }
                            ReadError::Fatal => {
                                tracing::debug!(conn = self.outbox.conn.0, error = %e, "websocket read failed");
                                return;
                            }
                        }
                    }
                },
            }
        }
    }

    /// Sends the goodbye for `ending` after what is queued and stops
    /// handling messages.
    fn end(&mut self, ending: Ending) {
        let (code, reason) = ending.frame();
        if matches!(ending, Ending::Flood | Ending::Abuse(_)) {
            tracing::info!(
                conn = self.outbox.conn.0,
                reason,
                "closing an abusive connection"
            );
        }
        self.outbox.close(code, reason);
        self.goodbye_queued = true;
        self.closing_since = Some(Instant::now());
    }

    /// Spends a message credit; false (after telling the client, or closing
    /// on sustained abuse) when there is none.
    fn spend_credit(&mut self) -> bool {
        match self.credits.spend(Instant::now().into_std()) {
            Allowance::Allowed => true,
            Allowance::Limited => {
                self.reply(ServerMessage::error(
                    ErrorCode::RateLimited,
                    "too many messages: slow down",
                ));
                false
            }
            Allowance::Abusive => {
                self.end(Ending::Flood);
                false
            }
        }
    }

    /// Sends a message that answers no request (the request could not be read).
    fn reply(&self, message: ServerMessage) {
        self.outbox.send(&ServerEnvelope::new(message));
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
    /// A text frame that is not UTF-8: close with 1007.
    NotUtf8,
    /// The frame meter refused a frame: close with 1008 or 1009.
    Meter(MeterError),
    /// The socket or the WebSocket protocol broke: end.
    Fatal,
}

fn classify(e: &tungstenite::Error) -> ReadError {
    match e {
        tungstenite::Error::Capacity(_) => ReadError::TooBig,
        tungstenite::Error::Utf8(_) => ReadError::NotUtf8,
        tungstenite::Error::Io(io) => match MeterError::of(io) {
            Some(refusal) => ReadError::Meter(*refusal),
            None => ReadError::Fatal,
        },
        _ => ReadError::Fatal,
    }
}
