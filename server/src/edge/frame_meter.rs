//! Every frame a client sends costs a credit, before the WebSocket library
//! sees it. tungstenite answers pings, takes pongs and joins continuation
//! frames by itself, so a message budget alone never sees a flood of them:
//! pings made the server queue pongs for a client that never read them,
//! and empty continuation frames burnt a core. [`MeteredIo`] sits between
//! the upgraded socket and tungstenite, finds frame headers as bytes pass
//! ([`FrameScanner`]) and fails the read — the connection is closed with
//! 1008 — once the client is out of frame credits.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use krypto_core::ws_frames::{FrameHeader, FrameScanner};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::edge::budgets::{Allowance, MessageCredits};

/// Why a metered read failed; found again in the read error by the transport.
#[derive(Debug, Clone, Copy, thiserror::Error)]
pub(crate) enum MeterError {
    /// More frames than the budget allows.
    #[error("frame flood")]
    Flood,
    /// A frame before `hello` larger than a `hello` can be.
    #[error("frame too big before hello")]
    TooBigBeforeHello,
}

impl MeterError {
    /// The meter's error inside a read error, if it is one.
    pub(crate) fn of(error: &io::Error) -> Option<&MeterError> {
        error.get_ref().and_then(|e| e.downcast_ref::<MeterError>())
    }
}

/// A byte stream whose incoming frames are counted and charged.
#[derive(Debug)]
pub(crate) struct MeteredIo<S> {
    inner: S,
    scanner: FrameScanner,
    /// One credit per frame; the refusals allowed in a row are zero, so
    /// running out ends the connection.
    credits: MessageCredits,
    /// Largest frame accepted until `welcomed` is set.
    max_frame_before_hello: u64,
    /// Set by the transport once the session said `welcome`.
    welcomed: Arc<AtomicBool>,
    /// The first refusal, repeated on every later read.
    failed: Option<MeterError>,
}

impl<S> MeteredIo<S> {
    /// Meters `inner`: `burst` frames at once, `per_sec` a second after that;
    /// frames over `max_frame_before_hello` bytes refused until `welcomed`.
    pub(crate) fn new(
        inner: S,
        burst: u32,
        per_sec: u32,
        max_frame_before_hello: u64,
        welcomed: Arc<AtomicBool>,
    ) -> Self {
        MeteredIo {
            inner,
            scanner: FrameScanner::new(),
            credits: MessageCredits::new(burst, per_sec, 0, Instant::now()),
            max_frame_before_hello,
            welcomed,
            failed: None,
        }
    }

    /// Charges `frame`; the refusal, if any.
    fn charge(&mut self, frame: FrameHeader, now: Instant) -> Option<MeterError> {
        if frame.payload_len > self.max_frame_before_hello && !self.welcomed.load(Ordering::Relaxed)
        {
            return Some(MeterError::TooBigBeforeHello);
        }
        match self.credits.spend(now) {
            Allowance::Allowed => None,
            Allowance::Limited | Allowance::Abusive => Some(MeterError::Flood),
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for MeteredIo<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if let Some(error) = this.failed {
            return Poll::Ready(Err(io::Error::other(error)));
        }
        let before = buf.filled().len();
        let result = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = result {
            let now = Instant::now();
            let mut refusal = None;
            let fresh = &buf.filled()[before..];
            let mut scanner = std::mem::take(&mut this.scanner);
            scanner.feed(fresh, |frame| {
                refusal = this.charge(frame, now);
                refusal.is_none()
            });
            this.scanner = scanner;
            if let Some(error) = refusal {
                this.failed = Some(error);
                return Poll::Ready(Err(io::Error::other(error)));
            }
        }
        result
    }
}

crate::edge::write_through::write_through!(impl[S: AsyncWrite + Unpin] MeteredIo<S>);
