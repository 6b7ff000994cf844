//! A listener that caps open connections: a semaphore permit is taken
//! *before* `accept`, as in mini-redis, so at the cap the server stops
//! accepting (new connections wait in the kernel's backlog) instead of
//! accepting and then failing. The permit travels inside the stream, through
//! hyper and the WebSocket upgrade, and is returned when the socket is dropped.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A TCP listener that accepts at most `max` connections at a time.
#[derive(Debug)]
pub struct CappedListener {
    /// The bound socket.
    inner: TcpListener,
    /// One permit per open connection.
    permits: Arc<Semaphore>,
}

impl CappedListener {
    /// Wraps `inner`, allowing `max` open connections.
    pub fn new(inner: TcpListener, max: usize) -> Self {
        CappedListener {
            inner,
            permits: Arc::new(Semaphore::new(max.max(1))),
        }
    }
}

impl axum::serve::Listener for CappedListener {
    type Io = CappedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            // The semaphore is never closed, so this only waits.
            let Ok(permit) = self.permits.clone().acquire_owned().await else {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    // Small JSON messages: send them now, not after Nagle's delay.
                    let _ = stream.set_nodelay(true);
                    return (
                        CappedStream {
                            inner: stream,
                            _permit: permit,
                        },
                        addr,
                    );
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off rather
                    // than spin. The permit is returned while we wait.
                    tracing::warn!(error = %e, "accept failed");
                    drop(permit);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// The peer's address, as handlers see it through `ConnectInfo`.
#[derive(Debug, Clone, Copy)]
pub struct PeerAddr(pub SocketAddr);

impl axum::extract::connect_info::Connected<axum::serve::IncomingStream<'_, CappedListener>>
    for PeerAddr
{
    fn connect_info(stream: axum::serve::IncomingStream<'_, CappedListener>) -> Self {
        PeerAddr(*stream.remote_addr())
    }
}

/// An accepted connection holding its permit.
#[derive(Debug)]
pub struct CappedStream {
    /// The socket.
    inner: TcpStream,
    /// Returned to the listener's semaphore on drop.
    _permit: OwnedSemaphorePermit,
}

impl AsyncRead for CappedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for CappedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
