//! A simulated player's connection: connecting and saying `hello`, setting
//! a room up (create, join by code following redirects, start), requests
//! that wait for their reply, and coming back to a seat after a restart or
//! a hand-over. The room's play is [`super::room`]'s.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use krypto_core::protocol::{
    parse_server_message, ClientEnvelope, ClientMessage, ErrorCode, ServerEnvelope, ServerMessage,
    PROTOCOL_VERSION,
};
use krypto_core::room::SEAT_HOLD_MS;
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::plan::{RoomPlan, RunContext};
use super::stats::Stats;
use crate::redirect::{Follow, RedirectError, HOME_AFTER_FAILURES};

/// Bytes read from a socket at a time.
const READ_BUFFER: usize = 4 * 1024;

pub(super) type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;
pub(super) type Sink = SplitSink<Ws, Message>;
pub(super) type Incoming = Option<Result<Message, tungstenite::Error>>;

/// How long a player keeps trying to get back to their seat: half the
/// time the room holds it, so a player who makes it is still seated.
const MOVE_PATIENCE: Duration = Duration::from_millis(SEAT_HOLD_MS / 2);

/// A welcomed connection.
pub(super) struct Conn {
    pub(super) ws: Ws,
    /// The player's name and the token `welcome` gave it, to say `hello`
    /// again on another node.
    pub(super) name: String,
    pub(super) token: String,
    /// The `welcome` resumed a held seat.
    pub(super) resumed: bool,
}

/// Connects and welcomes every player, creates the room, joins the others
/// and starts the match. On failure every socket is dropped (the server
/// sees them go) and the failure is counted.
pub(super) async fn set_up(
    plan: &RoomPlan,
    ctx: &RunContext,
    stats: &mut Stats,
) -> Result<(Vec<Conn>, String), ()> {
    let connected =
        futures_util::future::join_all(plan.names.iter().enumerate().map(|(i, name)| {
            let url = if i == 0 {
                &plan.host_url
            } else {
                &plan.guest_url
            };
            connect(ctx, url, name, None)
        }))
        .await;
    let mut conns = Vec::with_capacity(connected.len());
    let mut failed = false;
    for c in connected {
        match c {
            Ok(conn) => {
                ctx.counters.connection_opened();
                conns.push(conn);
            }
            Err(e) => {
                failed = true;
                stats.tally.connect_failures += 1;
                match e {
                    SetupError::Refused(code) => stats.error(code.as_str()),
                    SetupError::Unwritable => stats.error("unwritable_request"),
                    _ => {}
                }
            }
        }
    }
    let result = if failed {
        Err(())
    } else {
        match create_and_join(plan, ctx, &mut conns).await {
            Ok((code, redirects)) => {
                stats.tally.redirects_followed += u64::from(redirects);
                Ok(code)
            }
            Err(e) => {
                match e {
                    SetupError::Refused(code) => stats.error(code.as_str()),
                    SetupError::Redirect(RedirectError::NotWebSocket(_)) => {
                        stats.error("bad_redirect");
                    }
                    SetupError::Redirect(RedirectError::Loop(_)) => stats.error("redirect_loop"),
                    SetupError::Unwritable => stats.error("unwritable_request"),
                    SetupError::Broken => {}
                }
                Err(())
            }
        }
    };
    match result {
        Ok(code) => Ok((conns, code)),
        Err(()) => {
            for _ in &conns {
                ctx.counters.connection_closed();
            }
            Err(())
        }
    }
}

/// Why setting up a room failed.
pub(super) enum SetupError {
    /// The server answered with this error code.
    Refused(ErrorCode),
    /// The socket failed, closed or timed out.
    Broken,
    /// A redirect we would not follow.
    Redirect(RedirectError),
    /// A request serde could not write (a bug: counted as an error).
    Unwritable,
}

/// A request as a text frame; `None` (logged) when it cannot be written.
pub(super) fn text(envelope: &ClientEnvelope) -> Option<Message> {
    match envelope.to_json() {
        Ok(json) => Some(Message::text(json)),
        Err(e) => {
            eprintln!("krypto-load: a request could not be written: {e}");
            None
        }
    }
}

/// Connects to `url` and says `hello` as `name` (with `token`, on a node we
/// were redirected to).
pub(super) async fn connect(
    ctx: &RunContext,
    url: &str,
    name: &str,
    token: Option<String>,
) -> Result<Conn, SetupError> {
    // tungstenite's default 128 KiB read buffer is zero-filled before each
    // read: thousands of sockets would spend most of their memory and much
    // of their CPU on it. Messages are small (frames up to 16 KiB still
    // fit, the buffer grows for them). Nagle's algorithm would hold small
    // messages back: latency is the point.
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
    let connecting = tokio_tungstenite::connect_async_with_config(url, Some(config), true);
    let mut ws = match tokio::time::timeout(ctx.setup_timeout, connecting).await {
        Ok(Ok((ws, _))) => ws,
        _ => return Err(SetupError::Broken),
    };
    let hello = ClientMessage::Hello {
        protocol: PROTOCOL_VERSION,
        name: Some(name.to_owned()),
        token,
        ticket: None,
        bot: false,
        device: Some("krypto-load".to_owned()),
    };
    let welcome = request(ctx, &mut ws, "hello", hello).await?;
    match welcome.message {
        ServerMessage::Welcome { token, resumed, .. } => Ok(Conn {
            ws,
            name: name.to_owned(),
            token,
            resumed,
        }),
        _ => Err(SetupError::Broken),
    }
}

/// Joins room `code`, following redirects to the node that holds it;
/// returns how many were followed.
async fn join(ctx: &RunContext, guest: &mut Conn, code: &str) -> Result<u32, SetupError> {
    let mut follow = Follow::default();
    loop {
        let join = ClientMessage::JoinRoom {
            code: code.to_owned(),
            spectator: false,
        };
        let reply = request(ctx, &mut guest.ws, "join", join).await?;
        let ServerMessage::Redirect { url, .. } = reply.message else {
            return Ok(follow.in_a_row());
        };
        let url = follow.redirect(&url).map_err(SetupError::Redirect)?;
        let moved = connect(ctx, &url, &guest.name, Some(guest.token.clone())).await?;
        let resumed = moved.resumed;
        let mut left = std::mem::replace(guest, moved);
        let _ = left.ws.close(None).await;
        if resumed {
            return Ok(follow.in_a_row());
        }
    }
}

/// Takes a player back to their seat in room `code`: `first` (a
/// redirect's node, or home) until it answers — home after a few failures
/// — then `hello` with the token; a seat not resumed there is asked for.
pub(super) async fn come_back(
    ctx: Arc<RunContext>,
    first: String,
    home: String,
    name: String,
    token: String,
    code: String,
) -> Result<Conn, SetupError> {
    let deadline = Instant::now() + MOVE_PATIENCE;
    let mut delay = Duration::from_millis(100);
    let mut failures = 0;
    loop {
        let url = if failures < HOME_AFTER_FAILURES {
            &first
        } else {
            &home
        };
        match connect(&ctx, url, &name, Some(token.clone())).await {
            Ok(mut conn) => {
                if !conn.resumed {
                    join(&ctx, &mut conn, &code).await?;
                }
                return Ok(conn);
            }
            Err(SetupError::Broken) if Instant::now() < deadline => {
                failures += 1;
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(2));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Sends a request with `id` and reads until its reply (other messages are
/// counted and skipped); an `error` reply is a refusal.
pub(super) async fn request(
    ctx: &RunContext,
    ws: &mut Ws,
    id: &str,
    message: ClientMessage,
) -> Result<ServerEnvelope, SetupError> {
    let envelope = ClientEnvelope {
        id: Some(id.to_owned()),
        message,
    };
    let request = text(&envelope).ok_or(SetupError::Unwritable)?;
    let sent = tokio::time::timeout(ctx.setup_timeout, ws.send(request)).await;
    if !matches!(sent, Ok(Ok(()))) {
        return Err(SetupError::Broken);
    }
    ctx.counters.sent.fetch_add(1, Ordering::Relaxed);
    reply(ctx, ws, id).await
}

/// Reads until the next message that answers request `id` (others are
/// counted and skipped); an `error` is a refusal.
pub(super) async fn reply(
    ctx: &RunContext,
    ws: &mut Ws,
    id: &str,
) -> Result<ServerEnvelope, SetupError> {
    let exchange = async {
        loop {
            let text = match ws.next().await {
                Some(Ok(Message::Text(text))) => text,
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
                    return Err(SetupError::Broken)
                }
                Some(Ok(_)) => continue,
            };
            ctx.counters.received.fetch_add(1, Ordering::Relaxed);
            let Ok(reply) = parse_server_message(text.as_str()) else {
                continue;
            };
            if reply.id.as_deref() != Some(id) {
                continue;
            }
            if let ServerMessage::Error { code, .. } = &reply.message {
                return Err(SetupError::Refused(*code));
            }
            return Ok(reply);
        }
    };
    tokio::time::timeout(ctx.setup_timeout, exchange)
        .await
        .unwrap_or(Err(SetupError::Broken))
}

/// Creates the room and joins every other player to it; returns its code
/// and the redirects followed.
async fn create_and_join(
    plan: &RoomPlan,
    ctx: &RunContext,
    conns: &mut [Conn],
) -> Result<(String, u32), SetupError> {
    let Some((host, guests)) = conns.split_first_mut() else {
        return Err(SetupError::Broken);
    };
    let create = ClientMessage::CreateRoom {
        settings: Some(plan.settings.clone()),
        public: Some(false),
    };
    let created = request(ctx, &mut host.ws, "create", create).await?;
    let ServerMessage::RoomState(snapshot) = created.message else {
        return Err(SetupError::Broken);
    };
    let code = snapshot.code;
    let joins = guests.iter_mut().map(|guest| join(ctx, guest, &code));
    let mut redirects = 0;
    for joined in futures_util::future::join_all(joins).await {
        redirects += joined?;
    }
    let start = ClientEnvelope {
        id: Some("start".to_owned()),
        message: ClientMessage::Start,
    };
    let request = text(&start).ok_or(SetupError::Unwritable)?;
    host.ws
        .send(request)
        .await
        .map_err(|_| SetupError::Broken)?;
    ctx.counters.sent.fetch_add(1, Ordering::Relaxed);
    Ok((code, redirects))
}
