//! Fake servers that say exactly what a test scripts: a WebSocket server
//! answering each frame the client sends, and a one-request HTTP server.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// A token of the form the server issues.
pub const TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// The `welcome` of player 1, called `name`, holding [`TOKEN`].
pub fn welcome(name: &str) -> String {
    welcome_with(name, TOKEN)
}

/// The `welcome` of player 1, called `name`, holding `token`.
pub fn welcome_with(name: &str, token: &str) -> String {
    json!({"type": "welcome", "protocol": 1, "player_id": 1, "name": name,
        "token": token, "server_version": "test", "resumed": false})
    .to_string()
}

/// An `error` with its wire `code` and `message`.
pub fn error(code: &str, message: &str) -> String {
    json!({"type": "error", "code": code, "message": message}).to_string()
}

/// Starts a WebSocket server on its own thread that answers each frame of
/// the first connection with what `answer` returns for it (one frame each),
/// and reports every frame the client sends on the returned channel.
pub fn ws_server(
    answer: impl Fn(&Value) -> Vec<String> + Send + 'static,
) -> (SocketAddr, std::sync::mpsc::Receiver<Value>) {
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    let addr = serve_on_thread(move |listener| async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        while let Some(value) = next_json(&mut ws).await {
            // Noted before it is answered: a client that drops the answer
            // (too long, hostile) still sent what it sent.
            let answers = answer(&value);
            let _ = seen_tx.send(value);
            for f in answers {
                // The client may leave in the middle of a flood.
                if ws.send(Message::text(f)).await.is_err() {
                    return;
                }
            }
        }
    });
    (addr, seen_rx)
}

/// The next JSON text frame the client sends on `ws` (other frames are
/// skipped); `None` once the connection is gone.
pub async fn next_json<S>(ws: &mut WebSocketStream<S>) -> Option<Value>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    while let Some(Ok(frame)) = ws.next().await {
        let Message::Text(text) = frame else { continue };
        if let Ok(value) = serde_json::from_str::<Value>(text.as_str()) {
            return Some(value);
        }
    }
    None
}

/// Binds a port of its own and runs `serve` on it, in a runtime on a thread
/// of its own; the address.
fn serve_on_thread<F, Fut>(serve: F) -> SocketAddr
where
    F: FnOnce(tokio::net::TcpListener) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            serve(listener).await;
        });
    });
    addr_rx.recv().unwrap()
}

/// What [`ws_server_closing`] answers with this frame to close the
/// connection (the client reconnects).
#[allow(dead_code)]
pub const CLOSE: &str = "<close>";

/// [`ws_server`] that serves connection after connection: a [`CLOSE`]
/// among the answers drops the connection there (without a close frame,
/// as a lost network does).
#[allow(dead_code)]
pub fn ws_server_closing(
    answer: impl Fn(&Value) -> Vec<String> + Send + 'static,
) -> (SocketAddr, std::sync::mpsc::Receiver<Value>) {
    let (seen_tx, seen_rx) = std::sync::mpsc::channel();
    let addr = serve_on_thread(move |listener| async move {
        'connections: while let Ok((tcp, _)) = listener.accept().await {
            let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                continue;
            };
            while let Some(value) = next_json(&mut ws).await {
                let answers = answer(&value);
                let _ = seen_tx.send(value);
                for f in answers {
                    if f == CLOSE {
                        drop(ws);
                        continue 'connections;
                    }
                    if ws.send(Message::text(f)).await.is_err() {
                        continue 'connections;
                    }
                }
            }
        }
    });
    (addr, seen_rx)
}

/// Starts an HTTP server that answers one request with `status` and the
/// JSON `body`, and reports the request line (`GET /path?query HTTP/1.1`).
pub fn http_once(status: u16, body: String) -> (SocketAddr, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (mut tcp, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(tcp.try_clone().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        // The rest of the head, up to the empty line.
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap() == 0 || line.trim().is_empty() {
                break;
            }
        }
        let _ = tx.send(first.trim().to_owned());
        let head = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        tcp.write_all(head.as_bytes()).unwrap();
        tcp.write_all(body.as_bytes()).unwrap();
    });
    (addr, rx)
}
