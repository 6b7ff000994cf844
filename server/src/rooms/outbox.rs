//! A connection's outbox: the handle through which the session, the lobby
//! and rooms send to one connection.
//!
//! Everything sent to a client goes through a bounded queue with `try_send`:
//! a room never waits for a socket. A client that lets its queue fill up —
//! in messages or in bytes — is too slow to read, and is disconnected
//! instead of being buffered without end.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use krypto_core::protocol::ServerEnvelope;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tungstenite::Utf8Bytes;

/// WebSocket close codes the server uses: krypto-core's, which clients
/// read too.
pub(crate) use krypto_core::protocol::close;

/// A message serialized once, ready for any number of connections, or the
/// mark of one that could not be (logged where it happened).
pub(crate) type Frame = Result<Utf8Bytes, Unserializable>;

/// A server message serde could not write: a bug, already logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unserializable;

/// Serializes `envelope` once; a failure is logged here, with the message's
/// type, and each connection it was for is closed by
/// [`Outbox::send_frame`].
pub(crate) fn frame(envelope: &ServerEnvelope) -> Frame {
    envelope.to_json().map(Utf8Bytes::from).map_err(|e| {
        let kind = envelope.message.message_type();
        tracing::error!(error = %e, kind, "message not serialized: closing its recipients");
        Unserializable
    })
}

/// Identifies one connection, so a late "disconnected" from a replaced
/// connection is not mistaken for the player's current one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ConnId(pub(crate) u64);

impl ConnId {
    /// A process-unique id.
    pub(crate) fn next() -> ConnId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ConnId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// What the writer half of a connection sends.
#[derive(Debug, Clone)]
pub(crate) enum Outbound {
    /// One JSON message (already serialized, so a room serializes a
    /// broadcast once).
    Text(Utf8Bytes),
    /// A WebSocket ping, to find dead peers.
    Ping,
    /// Send this close frame after everything queued before it, then stop.
    Close(u16, String),
}

/// The immediate way out, for when the queue itself is the problem.
#[derive(Debug, Default)]
struct Kill {
    /// Cancelled when the connection must end now.
    token: CancellationToken,
    /// The close frame to try to send; the first reason wins.
    frame: Mutex<Option<(u16, String)>>,
}

/// A cloneable handle on one connection's outgoing side.
#[derive(Debug, Clone)]
pub(crate) struct Outbox {
    /// Which connection this is.
    pub(crate) conn: ConnId,
    /// The bounded queue the writer drains.
    tx: mpsc::Sender<Outbound>,
    /// Shared with the connection's tasks.
    kill: Arc<Kill>,
    /// Bytes of text queued and not yet taken by the writer.
    queued_bytes: Arc<AtomicUsize>,
    /// Most bytes that may wait in the queue.
    max_bytes: usize,
}

impl Outbox {
    /// A handle and the receiving end of its queue of `capacity` messages.
    #[cfg(test)]
    pub(crate) fn new(capacity: usize) -> (Outbox, mpsc::Receiver<Outbound>) {
        Self::with_max_bytes(capacity, usize::MAX)
    }

    /// A queue of `capacity` messages and `max_bytes` bytes of text; the
    /// writer reports each message it takes with [`Outbox::taken`].
    pub(crate) fn with_max_bytes(
        capacity: usize,
        max_bytes: usize,
    ) -> (Outbox, mpsc::Receiver<Outbound>) {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let handle = Outbox {
            conn: ConnId::next(),
            tx,
            kill: Arc::new(Kill::default()),
            queued_bytes: Arc::new(AtomicUsize::new(0)),
            max_bytes,
        };
        (handle, rx)
    }

    /// The writer took `item` off the queue.
    pub(crate) fn taken(&self, item: &Outbound) {
        if let Outbound::Text(text) = item {
            self.queued_bytes.fetch_sub(text.len(), Ordering::Relaxed);
        }
    }

    /// Queues a message; false if the client is gone or was just
    /// disconnected for being too slow.
    pub(crate) fn send(&self, envelope: &ServerEnvelope) -> bool {
        self.send_frame(&frame(envelope))
    }

    /// Queues a message serialized once for many connections. One the
    /// server could not serialize closes the connection after what is
    /// queued (1011): the client reconnects and resumes rather than play on
    /// without it.
    pub(crate) fn send_frame(&self, frame: &Frame) -> bool {
        match frame {
            Ok(text) => self.push(Outbound::Text(text.clone())),
            Err(Unserializable) => {
                self.close(close::INTERNAL_ERROR, "server error");
                false
            }
        }
    }

    /// Queues a ping.
    pub(crate) fn ping(&self) -> bool {
        self.push(Outbound::Ping)
    }

    fn push(&self, item: Outbound) -> bool {
        let bytes = match &item {
            Outbound::Text(text) => text.len(),
            Outbound::Ping | Outbound::Close(..) => 0,
        };
        let queued = self.queued_bytes.fetch_add(bytes, Ordering::Relaxed);
        let result = if queued.saturating_add(bytes) > self.max_bytes {
            Err(mpsc::error::TrySendError::Full(item))
        } else {
            self.tx.try_send(item)
        };
        if result.is_err() {
            self.queued_bytes.fetch_sub(bytes, Ordering::Relaxed);
        }
        match result {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.kill(close::POLICY, "too slow: outgoing queue full");
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Closes after the messages already queued (a goodbye that should be
    /// read after the error that explains it).
    pub(crate) fn close(&self, code: u16, reason: &str) {
        if self
            .tx
            .try_send(Outbound::Close(code, reason.to_owned()))
            .is_err()
        {
            self.kill(code, reason);
        }
    }

    /// Ends the connection now, dropping whatever is queued.
    pub(crate) fn kill(&self, code: u16, reason: &str) {
        if let Ok(mut frame) = self.kill.frame.lock() {
            if frame.is_none() {
                *frame = Some((code, reason.to_owned()));
            }
        }
        self.kill.token.cancel();
    }

    /// Resolves when the connection has been killed.
    pub(crate) async fn killed(&self) {
        self.kill.token.cancelled().await;
    }

    /// The close frame a kill asked for.
    pub(crate) fn kill_frame(&self) -> Option<(u16, String)> {
        self.kill.frame.lock().ok().and_then(|f| f.clone())
    }
}

#[cfg(test)]
mod tests {
    use krypto_core::protocol::ServerMessage;

    use super::*;

    #[test]
    fn a_queue_over_its_bytes_kills_the_connection_and_taking_frees_them() {
        let (outbox, mut rx) = Outbox::with_max_bytes(100, 1000);
        let text = Utf8Bytes::from("x".repeat(400));
        assert!(outbox.send_frame(&Ok(text.clone())));
        assert!(outbox.send_frame(&Ok(text.clone())));
        let first = rx.try_recv().unwrap();
        outbox.taken(&first);
        assert!(
            outbox.send_frame(&Ok(text.clone())),
            "600 bytes wait after one was taken"
        );
        assert!(outbox.kill_frame().is_none());
        assert!(!outbox.send_frame(&Ok(text)), "1200 bytes would wait");
        assert_eq!(outbox.kill_frame().unwrap().0, close::POLICY);
    }

    #[test]
    fn a_message_that_could_not_be_written_closes_the_connection_after_the_others() {
        let (outbox, mut queued) = Outbox::new(8);
        assert!(outbox.send(&ServerEnvelope::new(ServerMessage::Pong)));
        assert!(!outbox.send_frame(&Err(Unserializable)));
        match queued.try_recv() {
            Ok(Outbound::Text(text)) => assert!(text.as_str().contains("pong"), "{text}"),
            other => panic!("expected the pong first, got {other:?}"),
        }
        match queued.try_recv() {
            Ok(Outbound::Close(code, _)) => assert_eq!(code, close::INTERNAL_ERROR),
            other => panic!("expected a close, got {other:?}"),
        }
    }
}
