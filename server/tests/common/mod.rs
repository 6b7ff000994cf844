//! A real server on 127.0.0.1:0 with a temporary SQLite file, and a small
//! WebSocket client that speaks JSON.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use krypto_server::Config;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A safety net so a broken test fails instead of hanging; no assertion
/// depends on it.
pub const PATIENCE: Duration = Duration::from_secs(10);

pub struct TestServer {
    pub addr: SocketAddr,
    pub db_path: std::path::PathBuf,
    shutdown: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<Result<(), krypto_server::ServerError>>>,
    _dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::with_config(|_| {}).await
    }

    pub async fn with_config(tweak: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let db_path = dir.path().join("test.db");
        Self::on_database(dir, db_path, tweak).await
    }

    /// A server on a database file that already exists in `dir` (seeded by
    /// the test), keeping `dir` alive as long as the server.
    pub async fn on_existing(
        dir: tempfile::TempDir,
        db_path: std::path::PathBuf,
        tweak: impl FnOnce(&mut Config),
    ) -> TestServer {
        Self::on_database(dir, db_path, tweak).await
    }

    async fn on_database(
        dir: tempfile::TempDir,
        db_path: std::path::PathBuf,
        tweak: impl FnOnce(&mut Config),
    ) -> TestServer {
        let mut config = Config {
            database_url: format!("sqlite://{}", db_path.display()),
            close_drain: Duration::from_millis(50),
            ..Config::default()
        };
        tweak(&mut config);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let handle = tokio::spawn(krypto_server::run(listener, config, async move {
            let _ = rx.await;
        }));
        TestServer {
            addr,
            db_path,
            shutdown: Some(tx),
            handle: Some(handle),
            _dir: dir,
        }
    }

    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    pub async fn connect(&self) -> Client {
        let (ws, _) = tokio::time::timeout(PATIENCE, tokio_tungstenite::connect_async(self.url()))
            .await
            .expect("connect timed out")
            .expect("connect failed");
        Client { ws }
    }

    /// A connection that said hello as `name`; returns it and the welcome.
    pub async fn player(&self, name: &str) -> (Client, Value) {
        let mut c = self.connect().await;
        c.send(json!({"type": "hello", "protocol": 1, "name": name}))
            .await;
        let welcome = c.recv().await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        (c, welcome)
    }

    /// Asks the server to shut down and waits until it has.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(handle) = self.handle.take() {
            tokio::time::timeout(PATIENCE, handle)
                .await
                .expect("shutdown timed out")
                .unwrap()
                .unwrap();
        }
    }

    /// Sends `shutdown` without waiting.
    pub fn begin_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// One HTTP GET whose body is JSON; returns the status code and the body.
    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let (status, body) = self.get(path).await;
        let code = status
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let json = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {status} {body:?}"));
        (code, json)
    }

    /// One HTTP/1.1 GET; returns the status line and the body.
    pub async fn get(&self, path: &str) -> (String, String) {
        let mut s = TcpStream::connect(self.addr).await.unwrap();
        let req = format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        tokio::time::timeout(PATIENCE, s.read_to_string(&mut out))
            .await
            .unwrap()
            .unwrap();
        let status = out.lines().next().unwrap_or_default().to_owned();
        let body = out.split("\r\n\r\n").nth(1).unwrap_or_default().to_owned();
        (status, body)
    }
}

pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

/// What a client saw next.
#[derive(Debug)]
pub enum Event {
    Json(Value),
    Close(Option<CloseFrame>),
    /// The stream ended or broke without a close frame.
    Gone,
}

impl Client {
    pub async fn send(&mut self, value: Value) {
        self.ws
            .send(Message::text(value.to_string()))
            .await
            .unwrap();
    }

    pub async fn send_raw(&mut self, message: Message) {
        self.ws.send(message).await.unwrap();
    }

    /// The next event (JSON message, close or end).
    pub async fn next_event(&mut self) -> Event {
        loop {
            let next = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("no message from the server in time");
            match next {
                Some(Ok(Message::Text(t))) => {
                    if std::env::var_os("KRYPTO_TEST_TRACE").is_some() {
                        eprintln!("<- {t}");
                    }
                    return Event::Json(serde_json::from_str(t.as_str()).unwrap());
                }
                Some(Ok(Message::Close(frame))) => return Event::Close(frame),
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Event::Gone,
            }
        }
    }

    /// The next JSON message.
    pub async fn recv(&mut self) -> Value {
        match self.next_event().await {
            Event::Json(v) => v,
            other => panic!("expected a message, got {other:?}"),
        }
    }

    /// Skips messages until one of type `ty`.
    pub async fn recv_type(&mut self, ty: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["type"] == ty {
                return v;
            }
        }
    }

    /// The next error, asserting its code.
    pub async fn expect_error(&mut self, code: &str) -> Value {
        let v = self.recv().await;
        assert_eq!(v["type"], "error", "{v}");
        assert_eq!(v["code"], code, "{v}");
        v
    }

    /// Skips messages until the close frame; returns its code.
    pub async fn expect_close(&mut self) -> u16 {
        loop {
            match self.next_event().await {
                Event::Json(_) => continue,
                Event::Close(Some(frame)) => return u16::from(frame.code),
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
    }

    /// Reads until both the reply carrying `id` and a message of type `ty`
    /// have arrived, in whichever order the server sent them.
    pub async fn reply_and(&mut self, id: &str, ty: &str) -> (Value, Value) {
        let (mut reply, mut other) = (None, None);
        loop {
            let v = self.recv().await;
            if v["id"] == id {
                reply = Some(v);
            } else if v["type"] == ty {
                other = Some(v);
            }
            if let (Some(r), Some(o)) = (&reply, &other) {
                return (r.clone(), o.clone());
            }
        }
    }

    /// Sends a request with an id and returns the reply carrying it.
    pub async fn request(&mut self, mut value: Value) -> Value {
        value["id"] = json!("r1");
        self.send(value).await;
        loop {
            let v = self.recv().await;
            if v["id"] == "r1" {
                return v;
            }
        }
    }
}
