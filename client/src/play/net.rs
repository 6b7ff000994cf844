//! The connection task: one WebSocket to the server, kept up by itself.
//!
//! It says `hello` (with the saved token, so a reconnect resumes the seat),
//! forwards every server message as a [`NetEvent`] into the caller's single
//! event queue, sends what the caller queues on its [`NetHandle`], and after
//! a drop reconnects with exponential back-off (0.5 s doubling to 10 s),
//! each wait jittered so that thousands of clients dropped by one restart
//! do not all come back in the same instant.
//! Messages queued while disconnected are dropped: a formula or a command
//! meant for a moment that has passed should not land later by surprise.
//!
//! The URL the task starts with is the **home** server. When the caller
//! follows a `redirect` ([`NetHandle::follow`]) the task moves to that node;
//! if the node then cannot be reached (nobody listens, or
//! [`HOME_AFTER_FAILURES`] failures in a row) or closes with 1012 (it is
//! restarting and hands its rooms over), the task goes back home, where the
//! same token finds out where the seat went ([`NetEvent::Home`]).

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use krypto_client::redirect::HOME_AFTER_FAILURES;
use krypto_core::protocol::{
    close, ClientEnvelope, ClientMessage, ErrorCode, ServerEnvelope, ServerMessage,
    PROTOCOL_VERSION,
};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

use super::untrusted;

/// First wait before reconnecting.
pub const BACKOFF_START: Duration = Duration::from_millis(500);
/// Longest wait between reconnection attempts.
pub const BACKOFF_MAX: Duration = Duration::from_secs(10);
/// Longest wait for the TCP connection and WebSocket handshake.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Events at most waiting for the caller. A server that sends faster than
/// the caller reads waits: its socket is not read meanwhile (TCP holds it
/// back), so a flood costs the client this many messages of memory, not
/// whatever the server sends.
pub const QUEUE: usize = 256;
/// The largest message (and frame) taken from a server, in bytes. The
/// server's own outgoing queue holds 256 KiB per connection, so no message
/// of its is near this; without a cap the WebSocket library takes 64 MiB
/// messages, and [`QUEUE`] of them would be gigabytes a hostile server could
/// make the client hold. A bigger one ends the connection (then the usual
/// reconnection).
pub const MAX_SERVER_MESSAGE: usize = 1 << 20;
/// Request id of our `hello`, so its refusal can be told from other errors.
const HELLO_ID: &str = "hello";

/// What the connection task reports.
#[derive(Debug, Clone, PartialEq)]
pub enum NetEvent {
    /// A message from the server, with its raw text (for `--json`).
    Message {
        /// The parsed message (boxed: it is much larger than the others).
        envelope: Box<ServerEnvelope>,
        /// The text exactly as received.
        raw: String,
    },
    /// The connection is down (or could not be made); the next attempt is
    /// in `retry_in`.
    Disconnected {
        /// Why, for the player.
        reason: String,
        /// When the task tries again.
        retry_in: Duration,
    },
    /// The node we were sent to is gone or restarting: the next attempt
    /// goes to the home server (a `Disconnected` follows with its time).
    Home {
        /// What happened to the node, in a sentence.
        reason: String,
    },
    /// A newer connection with our token took over (another terminal or a
    /// browser playing under this name), or this device was revoked: the
    /// server closed with 1000. Reconnecting would only take the name back
    /// from the other, which would take it back in turn, for ever; the task
    /// has stopped, as the browser's page does.
    Replaced {
        /// The server's close reason, cleaned.
        reason: String,
    },
    /// The server refused our `hello` for a reason retrying cannot fix (a
    /// taken or invalid name); the task has stopped.
    Refused {
        /// The server's error code.
        code: ErrorCode,
        /// The server's sentence.
        message: String,
    },
}

/// Who to say hello as.
#[derive(Debug, Clone)]
pub struct Identity {
    /// The player's name.
    pub name: String,
    /// The saved token, if any; replaced by the one each `welcome` brings.
    pub token: Option<String>,
    /// A program, not a person: said in `hello` so the server marks it in
    /// every roster and never rates it.
    pub bot: bool,
}

/// What the caller asks of the connection task.
#[derive(Debug)]
enum Command {
    /// Send a request (dropped when the connection is down).
    Send(ClientEnvelope),
    /// Leave this node for the one at this (checked) URL.
    Follow(String),
}

/// Sends requests to the connection task; dropping it ends the task.
#[derive(Debug, Clone)]
pub struct NetHandle {
    tx: mpsc::UnboundedSender<Command>,
}

impl NetHandle {
    /// Queues a request (dropped when the connection is down).
    pub fn send(&self, message: ClientMessage) {
        let _ = self.tx.send(Command::Send(ClientEnvelope::new(message)));
    }

    /// Moves the connection to the node at `url` (already checked with
    /// `redirect::check_url`): closes this one, connects there at once and
    /// says `hello` with the same token.
    pub fn follow(&self, url: String) {
        let _ = self.tx.send(Command::Follow(url));
    }
}

/// The back-off after `failures` consecutive failed attempts (1-based),
/// before jitter.
pub fn backoff(failures: u32) -> Duration {
    let shift = failures.saturating_sub(1).min(8);
    BACKOFF_START.saturating_mul(1 << shift).min(BACKOFF_MAX)
}

/// `wait` with "equal jitter": half of it fixed, the other half scaled by
/// `fraction` (0 to 1, random in use), so waits stay within [wait/2, wait]
/// and clients spread out instead of reconnecting in lockstep.
pub fn jittered(wait: Duration, fraction: f64) -> Duration {
    let half = wait / 2;
    half + half.mul_f64(fraction.clamp(0.0, 1.0))
}

/// Starts the connection task for `url`; events go to `events`, wrapped by
/// `E::from`. The task ends when every [`NetHandle`] is dropped, when the
/// event queue closes, or when the server refuses the name.
pub fn spawn<E>(url: String, identity: Identity, events: mpsc::Sender<E>) -> NetHandle
where
    E: From<NetEvent> + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(run(url, identity, rx, events));
    NetHandle { tx }
}

/// How one connection ended.
enum Ended {
    /// Dropped or failed; try again.
    Lost(String, Loss),
    /// The caller follows a redirect to this URL.
    Follow(String),
    /// Refused for good, or nobody is listening any more.
    Stop,
    /// Another connection took over (close code 1000), with the reason.
    Replaced(String),
}

/// What kind of failure ended a connection: it decides whether a node we
/// were sent to is given up for the home server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loss {
    /// Dropped, timed out, refused by HTTP: worth trying again.
    Dropped,
    /// Nobody listens at that address (connection refused).
    NobodyThere,
    /// The server closed with 1012: it is restarting, and a node hands its
    /// rooms over to another.
    Restarting,
}

/// Whether, after a loss, the next attempt should go to the home server
/// rather than to the node we were sent to (`away`), `failures` being the
/// failed attempts in a row so far.
pub fn go_home(away: bool, loss: Loss, failures: u32) -> bool {
    away && (loss != Loss::Dropped || failures >= HOME_AFTER_FAILURES)
}

async fn run<E: From<NetEvent>>(
    home: String,
    mut identity: Identity,
    mut commands: mpsc::UnboundedReceiver<Command>,
    events: mpsc::Sender<E>,
) {
    let mut url = home.clone();
    let mut failures = 0u32;
    loop {
        // Whatever was queued while down is stale; a move is not.
        while let Ok(command) = commands.try_recv() {
            if let Command::Follow(to) = command {
                url = to;
            }
        }
        let ended = session(&url, &mut identity, &mut commands, &events, &mut failures).await;
        let (reason, loss) = match ended {
            Ended::Stop => return,
            Ended::Replaced(reason) => {
                let _ = events.send(E::from(NetEvent::Replaced { reason })).await;
                return;
            }
            Ended::Follow(to) => {
                url = to;
                failures = 0;
                continue;
            }
            Ended::Lost(reason, loss) => (reason, loss),
        };
        failures = failures.saturating_add(1);
        if go_home(url != home, loss, failures) {
            let reason = match loss {
                Loss::Restarting => format!("the room's server {url} is restarting"),
                Loss::Dropped | Loss::NobodyThere => {
                    format!("the room's server {url} is out of reach")
                }
            };
            url = home.clone();
            if events
                .send(E::from(NetEvent::Home { reason }))
                .await
                .is_err()
            {
                return;
            }
        }
        let retry_in = jittered(backoff(failures), rand::random::<f64>());
        let lost = NetEvent::Disconnected { reason, retry_in };
        if events.send(E::from(lost)).await.is_err() {
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(retry_in) => {}
            () = events.closed() => return,
        }
    }
}

/// One connection, from connecting to its end. Resets `failures` once the
/// server has welcomed us.
async fn session<E: From<NetEvent>>(
    url: &str,
    identity: &mut Identity,
    commands: &mut mpsc::UnboundedReceiver<Command>,
    events: &mpsc::Sender<E>,
    failures: &mut u32,
) -> Ended {
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_SERVER_MESSAGE))
        .max_frame_size(Some(MAX_SERVER_MESSAGE));
    let connected = tokio::time::timeout(
        CONNECT_TIMEOUT,
        tokio_tungstenite::connect_async_with_config(url, Some(config), false),
    )
    .await;
    let lost = |reason: String| Ended::Lost(reason, Loss::Dropped);
    let mut ws = match connected {
        Err(_) => return lost(format!("cannot reach {url}: timed out")),
        Ok(Err(e)) => {
            let loss = if is_refused(&e) {
                Loss::NobodyThere
            } else {
                Loss::Dropped
            };
            return Ended::Lost(format!("cannot reach {url}: {}", describe(&e)), loss);
        }
        Ok(Ok((ws, _))) => ws,
    };
    let hello = ClientEnvelope {
        id: Some(HELLO_ID.to_owned()),
        message: ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            name: Some(identity.name.clone()),
            token: identity.token.clone(),
            ticket: None,
            bot: identity.bot,
            device: Some(format!("krypto terminal on {}", std::env::consts::OS)),
        },
    };
    let hello = match hello.to_json() {
        Ok(json) => Message::text(json),
        Err(e) => return lost(format!("could not write hello: {e}")),
    };
    if let Err(e) = ws.send(hello).await {
        return lost(format!("connection lost: {e}"));
    }
    loop {
        tokio::select! {
            command = commands.recv() => {
                let out = match command {
                    None => {
                        let _ = ws.close(None).await;
                        return Ended::Stop;
                    }
                    Some(Command::Follow(to)) => {
                        let _ = ws.close(None).await;
                        return Ended::Follow(to);
                    }
                    Some(Command::Send(out)) => out,
                };
                let out = match out.to_json() {
                    Ok(json) => Message::text(json),
                    Err(e) => return lost(format!("could not write a request: {e}")),
                };
                if let Err(e) = ws.send(out).await {
                    return lost(format!("connection lost: {e}"));
                }
            }
            incoming = ws.next() => {
                let text = match incoming {
                    None => return lost("the server closed the connection".to_owned()),
                    Some(Err(e)) => return lost(format!("connection lost: {e}")),
                    Some(Ok(Message::Text(t))) => t.as_str().to_owned(),
                    Some(Ok(Message::Close(frame))) => {
                        if let Some(f) = frame.as_ref().filter(|f| u16::from(f.code) == close::NORMAL) {
                            return Ended::Replaced(untrusted::clean(&f.reason));
                        }
                        let loss = match &frame {
                            Some(f) if u16::from(f.code) == close::SERVICE_RESTART => Loss::Restarting,
                            _ => Loss::Dropped,
                        };
                        let why = frame
                            .filter(|f| !f.reason.is_empty())
                            .map(|f| format!("the server closed the connection ({})", untrusted::clean(&f.reason)))
                            .unwrap_or_else(|| "the server closed the connection".to_owned());
                        return Ended::Lost(why, loss);
                    }
                    Some(Ok(_)) => continue,
                };
                let Ok(envelope) = untrusted::parse(&text) else {
                    // A newer server's message; nothing to do with it.
                    continue;
                };
                match &envelope.message {
                    ServerMessage::Welcome { token, name, .. } => {
                        identity.token = Some(token.clone());
                        identity.name.clone_from(name);
                        *failures = 0;
                    }
                    ServerMessage::Error { code, message }
                        if envelope.id.as_deref() == Some(HELLO_ID) && is_final(*code) =>
                    {
                        let refused = NetEvent::Refused { code: *code, message: message.clone() };
                        let _ = events.send(E::from(refused)).await;
                        let _ = ws.close(None).await;
                        return Ended::Stop;
                    }
                    _ => {}
                }
                if events.send(E::from(NetEvent::Message { envelope: Box::new(envelope), raw: text })).await.is_err() {
                    let _ = ws.close(None).await;
                    return Ended::Stop;
                }
            }
        }
    }
}

/// Refusals of `hello` that the same `hello` would get again.
fn is_final(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::InvalidName
            | ErrorCode::NameTaken
            | ErrorCode::BadToken
            | ErrorCode::UnsupportedProtocol
    )
}

/// Whether nobody listens at the address (the node is gone).
fn is_refused(e: &tokio_tungstenite::tungstenite::Error) -> bool {
    matches!(e, tokio_tungstenite::tungstenite::Error::Io(io)
        if io.kind() == std::io::ErrorKind::ConnectionRefused)
}

/// A connection error in words a player understands.
fn describe(e: &tokio_tungstenite::tungstenite::Error) -> String {
    use tokio_tungstenite::tungstenite::Error;
    match e {
        Error::Io(io) => io.to_string(),
        Error::Url(u) => format!("bad address ({u})"),
        Error::Http(resp) => format!("HTTP {} (is this a krypto server?)", resp.status()),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_half_a_second_to_ten() {
        let ms: Vec<u128> = (1..=8).map(|n| backoff(n).as_millis()).collect();
        assert_eq!(ms, [500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
        assert_eq!(backoff(u32::MAX), BACKOFF_MAX);
    }

    #[test]
    fn a_node_we_were_sent_to_is_given_up_when_gone_restarting_or_failing() {
        // At home there is nowhere else to go.
        for loss in [Loss::Dropped, Loss::NobodyThere, Loss::Restarting] {
            assert!(!go_home(false, loss, 10));
        }
        // Away: at once when nobody listens or the node hands its rooms over.
        assert!(go_home(true, Loss::NobodyThere, 1));
        assert!(go_home(true, Loss::Restarting, 1));
        // A mere drop is tried again on the node a few times first.
        assert!(!go_home(true, Loss::Dropped, 1));
        assert!(!go_home(true, Loss::Dropped, HOME_AFTER_FAILURES - 1));
        assert!(go_home(true, Loss::Dropped, HOME_AFTER_FAILURES));
    }

    #[test]
    fn jitter_spreads_waits_over_the_upper_half() {
        let wait = Duration::from_secs(4);
        assert_eq!(jittered(wait, 0.0), Duration::from_secs(2));
        assert_eq!(jittered(wait, 1.0), wait);
        assert_eq!(jittered(wait, 0.25), Duration::from_millis(2500));
        // Out-of-range randomness cannot push a wait outside its band.
        assert_eq!(jittered(wait, 7.0), wait);
        let spread: std::collections::BTreeSet<Duration> = (0..10)
            .map(|i| jittered(wait, f64::from(i) / 10.0))
            .collect();
        assert_eq!(spread.len(), 10);
    }
}
