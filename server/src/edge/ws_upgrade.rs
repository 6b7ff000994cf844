//! The WebSocket opening handshake (RFC 6455 §4.2). It is done here rather
//! than by axum's extractor so that the upgraded socket reaches tungstenite
//! through the [`MeteredIo`] that charges every frame, and with a capped
//! write buffer.

use std::future::Future;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::WebSocketStream;
use tokio_util::task::TaskTracker;
use tungstenite::protocol::{Role, WebSocketConfig};

use crate::edge::frame_meter::MeteredIo;

/// The socket a connection's transport reads and writes.
pub(crate) type Socket = WebSocketStream<MeteredIo<TokioIo<hyper::upgrade::Upgraded>>>;

/// How an upgraded socket is set up.
#[derive(Debug, Clone)]
pub(crate) struct SocketLimits {
    /// Largest frame and message, in bytes.
    pub(crate) max_frame_bytes: usize,
    /// Bytes tungstenite may hold for a peer that does not read.
    pub(crate) max_write_buffer: usize,
    /// Frames in a burst, and a second after it.
    pub(crate) frame_burst: u32,
    pub(crate) frame_refill_per_sec: u32,
    /// Largest frame before `hello`.
    pub(crate) max_frame_before_hello: u64,
}

/// A request that asked for a WebSocket, ready to be accepted.
#[derive(Debug)]
pub(crate) struct Upgrade {
    /// `Sec-WebSocket-Key`, answered in `Sec-WebSocket-Accept`.
    key: HeaderValue,
    /// Resolves to the raw connection once the 101 is sent.
    on_upgrade: hyper::upgrade::OnUpgrade,
}

impl Upgrade {
    /// The upgrade `request` asks for; `None` when it is not a WebSocket
    /// opening handshake (then it deserves a 426).
    pub(crate) fn from_request(request: &mut Request) -> Option<Upgrade> {
        let headers = request.headers();
        let valid = request.method() == Method::GET
            && header_has_token(headers, header::CONNECTION, "upgrade")
            && header_has_token(headers, header::UPGRADE, "websocket")
            && header_has_token(headers, header::SEC_WEBSOCKET_VERSION, "13");
        let key = headers.get(header::SEC_WEBSOCKET_KEY)?.clone();
        if !valid {
            return None;
        }
        let on_upgrade = request
            .extensions_mut()
            .remove::<hyper::upgrade::OnUpgrade>()?;
        Some(Upgrade { key, on_upgrade })
    }

    /// Answers 101 and runs `serve` on the socket once the upgrade is done.
    /// `welcomed` lifts the before-`hello` frame size limit.
    pub(crate) fn accept<F, Fut>(
        self,
        limits: SocketLimits,
        welcomed: Arc<AtomicBool>,
        tracker: &TaskTracker,
        serve: F,
    ) -> Response
    where
        F: FnOnce(Socket) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let accept = tungstenite::handshake::derive_accept_key(self.key.as_bytes());
        let on_upgrade = self.on_upgrade;
        tracker.spawn(async move {
            let upgraded = match on_upgrade.await {
                Ok(upgraded) => upgraded,
                Err(e) => {
                    tracing::debug!(error = %e, "websocket upgrade failed");
                    return;
                }
            };
            let io = MeteredIo::new(
                TokioIo::new(upgraded),
                limits.frame_burst,
                limits.frame_refill_per_sec,
                limits.max_frame_before_hello,
                welcomed,
            );
            // tungstenite's default read buffer is 128 KiB, zero-filled
            // before each read: about 140 KiB per idle socket. Our frames
            // are at most 16 KiB and usually under 200 bytes; 4 KiB is
            // plenty. Writes go out at once (no write buffer to fill) and at
            // most `max_write_buffer` bytes wait for a peer that does not
            // read: then the write fails and the connection ends.
            let config = WebSocketConfig::default()
                .read_buffer_size(4 * 1024)
                .write_buffer_size(0)
                .max_write_buffer_size(limits.max_write_buffer.max(1))
                .max_frame_size(Some(limits.max_frame_bytes))
                .max_message_size(Some(limits.max_frame_bytes));
            let socket = WebSocketStream::from_raw_socket(io, Role::Server, Some(config)).await;
            serve(socket).await;
        });
        let mut response = StatusCode::SWITCHING_PROTOCOLS.into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
        headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        if let Ok(accept) = HeaderValue::from_str(&accept) {
            headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
        }
        response
    }
}

/// Whether a browser page may open this WebSocket: any client that sends no
/// `Origin` (the terminal client, bots: browsers always send one), a page
/// of this very server (its origin names the `Host` the request was sent
/// to), or one of `allowed` (`--allowed-origins`). Anything else — another
/// site's page opening a socket with the visitor's cookies and address, or
/// an `Origin` of `null` — is refused.
pub(crate) fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim().trim_end_matches('/');
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(origin)) {
        return true;
    }
    let authority = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    matches!((authority, host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h.trim()))
}

/// Whether the comma-separated header `name` lists `token` (any case).
fn header_has_token(headers: &HeaderMap, name: HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn pages_of_this_server_and_allowed_origins_may_connect_others_not() {
        let allowed = vec!["https://k.example".to_owned()];
        let host = ("host", "192.168.1.5:7878");
        assert!(
            origin_allowed(&headers(&[host]), &allowed),
            "no Origin: not a browser"
        );
        assert!(origin_allowed(
            &headers(&[host, ("origin", "http://192.168.1.5:7878")]),
            &allowed
        ));
        assert!(origin_allowed(
            &headers(&[host, ("origin", "https://K.example")]),
            &allowed
        ));
        for other in [
            "https://evil.example",
            "null",
            "http://192.168.1.5:7879",
            "file://",
        ] {
            assert!(
                !origin_allowed(&headers(&[host, ("origin", other)]), &allowed),
                "{other}"
            );
        }
    }
}
