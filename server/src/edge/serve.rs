//! Serving HTTP/1.1 on accepted connections with hyper, with what
//! `axum::serve` does not offer: a header-read timeout. hyper starts that
//! clock as soon as it waits for a request, so a connection that sends
//! nothing, trickles header lines (slowloris) or idles between keep-alive
//! requests is closed after [`crate::Config::handshake_timeout`] instead of
//! holding a connection permit forever.

use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

use crate::edge::listener::{CappedListener, CappedStream, PeerAddr};

/// Accepts and serves connections until `shutdown` is cancelled; then
/// accepts no more and asks every HTTP connection to finish its request and
/// close. Connection tasks go into `tracker`, so shutdown can wait for them.
pub(crate) async fn serve(
    listener: CappedListener,
    router: Router,
    header_timeout: Duration,
    shutdown: CancellationToken,
    tracker: TaskTracker,
) {
    loop {
        let (stream, peer) = tokio::select! {
            biased;
            () = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        tracker.spawn(serve_connection(
            stream,
            peer,
            router.clone(),
            header_timeout,
            shutdown.clone(),
        ));
    }
}

/// Serves one connection's requests, and hands a WebSocket upgrade over to
/// the route that asked for it.
async fn serve_connection(
    stream: CappedStream,
    peer: std::net::SocketAddr,
    router: Router,
    header_timeout: Duration,
    shutdown: CancellationToken,
) {
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(PeerAddr(peer)));
        router.clone().oneshot(request)
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let connection = builder
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = result {
        // A peer that hung up or timed out: routine, not worth a warning.
        tracing::debug!(%peer, error = %e, "http connection ended");
    }
}
