//! A listener that caps open connections: a semaphore permit is taken
//! *before* `accept`, as in mini-redis, so at the cap the server stops
//! accepting (new connections wait in the kernel's backlog) instead of
//! accepting and then failing. Each accepted connection also takes a slot of
//! its address's share ([`crate::edge::budgets::ConnectionsPerAddress`]); over the
//! share it is closed at once. Permit and slot travel inside the stream,
//! through hyper and the WebSocket upgrade, and are returned when the socket
//! is dropped.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ipnet::IpNet;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::edge::budgets::{AddressSlot, ConnectionsPerAddress};
use crate::edge::forwarded;

/// A TCP listener that accepts at most `max` connections at a time.
#[derive(Debug)]
pub(crate) struct CappedListener {
    /// The bound socket.
    inner: TcpListener,
    /// One permit per open connection.
    permits: Arc<Semaphore>,
    /// Each address's share of the connections.
    per_address: Arc<ConnectionsPerAddress>,
    /// Proxies speak for many clients: their connections are counted by the
    /// forwarded address at the WebSocket upgrade instead.
    trusted_proxies: Arc<[IpNet]>,
}

impl CappedListener {
    /// Wraps `inner`, allowing `max` open connections, each address at most
    /// its share in `per_address`.
    pub(crate) fn new(
        inner: TcpListener,
        max: usize,
        per_address: Arc<ConnectionsPerAddress>,
        trusted_proxies: Arc<[IpNet]>,
    ) -> Self {
        CappedListener {
            inner,
            permits: Arc::new(Semaphore::new(max.max(1))),
            per_address,
            trusted_proxies,
        }
    }

    /// The next connection within the caps.
    pub(crate) async fn accept(&self) -> (CappedStream, SocketAddr) {
        loop {
            // The semaphore is never closed, so this only waits.
            let Ok(permit) = self.permits.clone().acquire_owned().await else {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            };
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    let slot = if forwarded::is_trusted(addr.ip(), &self.trusted_proxies) {
                        None
                    } else {
                        match self.per_address.acquire(addr.ip().to_canonical()) {
                            Some(slot) => Some(slot),
                            None => {
                                // Dropping the stream closes it; the permit
                                // goes back with it.
                                tracing::debug!(peer = %addr, "connections per address: refused");
                                continue;
                            }
                        }
                    };
                    // Small JSON messages: send them now, not after Nagle's delay.
                    let _ = stream.set_nodelay(true);
                    return (
                        CappedStream {
                            inner: stream,
                            _permit: permit,
                            _slot: slot,
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
}

/// The TCP peer's address, as handlers see it through `ConnectInfo`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PeerAddr(pub(crate) SocketAddr);

/// An accepted connection holding its permit.
#[derive(Debug)]
pub(crate) struct CappedStream {
    /// The socket.
    inner: TcpStream,
    /// Returned to the listener's semaphore on drop.
    _permit: OwnedSemaphorePermit,
    /// Returned to the address's share on drop; none for a trusted proxy.
    _slot: Option<AddressSlot>,
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

crate::edge::write_through::write_through!(impl[] CappedStream);
